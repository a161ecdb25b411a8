"""The daily challenge on other apps' screens: whether a game's seed is still secret, the home page's
card, the end card of a finished daily game (place, par, share) and the player page's section (streaks,
best days)."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils import timezone

from accounts.selectors import friend_ids
from core import versions
from daily import selectors, services, standings
from daily.models import DailyAttempt
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


@register.inclusion_tag("daily/cards.html#daily-end-card", takes_context=True)
def daily_end_card(context, game):
    """What a finished daily game's end card leads with, for the person who played it (the game page
    asks only for its own player's seat): the total against par, the place among friends and everyone,
    the share text, the day's results and when the next challenge opens."""
    request = context["request"]
    attempt = DailyAttempt.objects.filter(game=game).first()
    result = None
    if attempt is not None and game.is_finished:
        attempt.game = game
        viewer_id = request.user.pk if request.user.is_authenticated else None
        friends = friend_ids(user_id=viewer_id) if viewer_id else set()
        url = request.build_absolute_uri(reverse("daily:today"))
        result = selectors.day_result(attempt, friend_ids=friends, share_url=url, detailed=False)
    next_day = services.day_end(game.daily_date)
    return {
        "result": result,
        "date": game.daily_date,
        "next_day": next_day if next_day > timezone.now() else None,
    }


@register.inclusion_tag("daily/cards.html#daily-player-section", takes_context=True)
def daily_player_section(context, target, is_me=False):
    # The page's reading of the versions, when the view made one (review.views.player_detail).
    current = context.get("cache_versions")
    streaks, best = standings.player_daily(target.pk, current=current)
    names = [versions.user(target.pk), versions.DAILY]
    # The table of the best days, cached as markup under the versions its rows came from.
    table = (
        versions.fragment(f"daily:best-days:{target.pk}:{int(bool(is_me))}", {n: current[n] for n in names})
        if current and all(n in current for n in names)
        else None
    )
    return {"streaks": streaks, "best": best, "is_me": is_me, "best_fragment": table}
