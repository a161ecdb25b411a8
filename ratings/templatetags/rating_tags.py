"""{% rating user %}: a person's rating with its deviation and the provisional mark; the player page's
rating section; a finished game's rating changes; the one line that leads to the rating rules."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from core import versions
from ratings import selectors
from ratings.models import PROVISIONAL_RD
from ratings.services import rating_rule

register = template.Library()


def _badge(r: selectors.Shown | None) -> str:
    """A rating in words: the number, ", provisional" while it is uncertain (not a "?" and a "±332"),
    and the range it likely lies in on hover (its title) or tap (a <details>, no JavaScript)."""
    if r is None:
        return format_html(
            '<span class="rating unrated" data-rating="" title="{}">{}</span>',
            _("No rated games yet"),
            _("unrated"),
        )
    # Glicko-2's deviation: the rating lies within two of it either side, 95 times in 100.
    low, high = max(0, r.rating - 2 * r.rd), r.rating + 2 * r.rd
    shown = _("%(rating)s, provisional") % {"rating": r.rating} if r.provisional else str(r.rating)
    range_text = _("likely between %(low)s and %(high)s") % {"low": low, "high": high}
    return format_html(
        '<details class="rating{}" data-rating="{}" data-rd="{}"{} title="{}"><summary>{}</summary>'
        '<span class="rating-range" data-rating-range>{}</span></details>',
        " provisional" if r.provisional else "",
        r.rating,
        r.rd,
        mark_safe(" data-provisional") if r.provisional else "",
        range_text,
        shown,
        range_text,
    )


@register.simple_tag
def rating(user):
    """The user's rating badge (a person; nothing for a computer seat, which has no user)."""
    if user is None:
        return ""
    return _badge(selectors.rating_of_user(user))


@register.simple_tag
def rating_rule_text():
    """The whole rule (Glicko-2, forfeits, fair play): said once, on the fair-play page."""
    return rating_rule()


@register.simple_tag
def rating_rule_link():
    """One short line wherever ratings show (the leaderboard, a rated room and its end, the player
    page), leading to the rule on the fair-play page rather than repeating it."""
    return format_html(
        '<p class="small" data-rating-rule><a href="{}#rating-rules">{}</a></p>',
        reverse("fairplay:page"),
        _("How rated games move ratings (Glicko-2), forfeits and fair play"),
    )


@register.inclusion_tag("ratings/player_section.html", takes_context=True)
def player_rating_section(context, target):
    # The page's reading of the target's version, when the view made one (review.views.player_detail).
    versions_read = context.get("cache_versions")
    section = selectors.player_section(user_id=target.pk, current=versions_read)
    current = selectors.shown_now(section.rating) if section.rating else None
    name = versions.user(target.pk)
    return {
        "target": target,
        "badge": _badge(current),
        "changes": section.changes,
        # The table of the last changes, cached as markup beside the section (the badge is not: its
        # deviation widens with time).
        "changes_fragment": versions.fragment(f"ratings:changes:{target.pk}", {name: versions_read[name]})
        if versions_read and name in versions_read
        else None,
        "games": current.games if current else 0,
        "chart": mark_safe(section.chart),  # charts escapes every text
        "refunded": section.refunded,
    }


@register.simple_tag
def game_rating_changes(game):
    """A finished rated game's changes by user id (one query; empty for a casual game)."""
    if not game.rated or not game.is_finished:
        return {}
    return selectors.game_rating_changes(game_id=game.pk)


@register.filter
def change_of(changes, user_id):
    return changes.get(user_id) if changes else None


@register.filter
def signed(value):
    n = round(value)
    return f"+{n}" if n > 0 else str(n)


@register.filter
def provisional_mark(change):
    """ ", provisional" after a rating still uncertain once the game moved it (as the badges say it)."""
    return _(", provisional") if change.rd_after > PROVISIONAL_RD else ""


@register.filter
def rating_delta(change):
    """A RatingChange's move, signed and rounded ("+16", "-9", "0")."""
    return signed(change.rating_after - change.rating_before)
