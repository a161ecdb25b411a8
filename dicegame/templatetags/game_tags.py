"""The games waiting for the person's move on every page: the header's count (live: the notice socket
tells the page when to ask again)."""

from __future__ import annotations

from django import template

from dicegame.play.selectors import games_waiting_count

register = template.Library()


@register.inclusion_tag("dicegame/waiting.html#waiting-count", takes_context=True)
def waiting_count(context):
    user = context["request"].user
    return {"count": games_waiting_count(user_id=user.pk) if user.is_authenticated else 0}
