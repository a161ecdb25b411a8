"""The tournaments on other apps' screens: the home page's card (the weekly tournament), the player
page's section (places in rated tournaments) and the link from a round's game back to its tournament."""

from __future__ import annotations

from django import template

from core import versions
from tournaments import lists
from tournaments.eligibility import rated_min_players
from tournaments.models import RoundGame

register = template.Library()


@register.inclusion_tag("tournaments/cards.html#tournament-game-link")
def tournament_game_link(game):
    """A round's game links back to its tournament; any other game shows nothing (and reads nothing)."""
    rg = None
    if game.dice_key:
        rg = RoundGame.objects.filter(game_id=game.pk).select_related("round__tournament").first()
    return {"rg": rg, "tournament": rg.round.tournament if rg else None}


@register.inclusion_tag("tournaments/cards.html#tournament-home-card", takes_context=True)
def tournament_home_card(context):
    request = context["request"]
    user_id = request.user.pk if request.user.is_authenticated else None
    return {
        "card": lists.weekly_card(user_id=user_id),
        "to_play": lists.rounds_to_play(user_id=user_id) if user_id else [],
        "request": request,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("tournaments/cards.html#tournament-player-section", takes_context=True)
def tournament_player_section(context, target, is_me=False):
    # Kept per version of the person (their tournaments' final tables bump it: rounds.results_store),
    # with the versions the page read (review.views.player_detail), else read here.
    name = versions.user(target.pk)
    read = context.get("cache_versions")
    mine = {name: read[name]} if read and name in read else None
    results = versions.cached(
        f"tournaments:results:{target.pk}", [name], lambda: lists.player_results(target.pk), versions=mine
    )
    return {"results": results, "is_me": is_me, "rated_min": rated_min_players()}
