"""The daily challenge on other apps' screens: whether a game's seed is still secret, the home page's
card and the player page's section (streaks, best days)."""

from __future__ import annotations

from django import template

from daily import selectors, services, standings
from dicegame.actors import actor_from_request

register = template.Library()


@register.filter
def daily_seed_secret_until(game):
    """The moment a daily game's seed may be shown, while its day lasts; None otherwise."""
    return game.seed_secret_until


@register.inclusion_tag("daily/cards.html#daily-home-card", takes_context=True)
def daily_home_card(context):
    request = context["request"]
    date = services.today()
    actor = actor_from_request(request)
    attempt = services.attempt_of(actor, date) if (actor.user_id or actor.guest_key) else None
    return {
        "date": date,
        "played": selectors.played_count(date),
        "attempt": attempt,
        "finished": attempt is not None and attempt.game.is_finished,
        "csrf_token": context.get("csrf_token"),
        "request": request,
    }


@register.inclusion_tag("daily/cards.html#daily-player-section", takes_context=True)
def daily_player_section(context, target, is_me=False):
    # The page's reading of the versions, when the view made one (review.views.player_detail).
    streaks, best = standings.player_daily(target.pk, current=context.get("cache_versions"))
    return {"streaks": streaks, "best": best, "is_me": is_me}
