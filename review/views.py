"""The review screens: a game's replay with its analysis, a player's statistics, leaderboards, exports.

Thin function views over `review` (and `selectors.game_for_viewer` for every game access).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.selectors import friend_ids
from accounts.services import profile_set_leaderboard_opt_in
from analysis import store as analysis_store
from core import versions
from core.http import message_response
from dicegame import records
from dicegame.actors import actor_from_request
from dicegame.models import Game
from dicegame.play import selectors
from dicegame.strategy import analysis as A
from review import exports, head_to_head, leaderboards, replay, verdict, yardsticks
from review import stats as statistics

REVIEW_TEMPLATE = "review/game.html"


def _viewable_game(request: HttpRequest, game_id: int) -> Game:
    """The game, if the viewer may see it; `?t=` carries the invitation link's token, as on the game page.
    Staff who review fair play may open any finished game (the review queue links its games here)."""
    user = request.user
    if user.is_authenticated and user.is_staff and user.has_perm("fairplay.change_case"):
        game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
        if game is not None:
            return game
    actor = actor_from_request(request)
    return selectors.game_for_viewer(game_id=game_id, actor=actor, token=request.GET.get("t", ""))


@require_GET
def game_review(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _viewable_game(request, game_id)
    try:
        stored = analysis_store.analysis_for(game)
    except analysis_store.ReviewError as exc:
        return message_response(request, exc.message, status=exc.status)
    token = request.GET.get("t", "")
    review = replay.game_review(
        game=game, stored=stored, step=request.GET.get("step"), line=request.GET.get("line")
    )
    context = {
        "game": game,
        "review": review,
        # The one-line verdicts the page opens on, the viewer's own first.
        "verdicts": verdict.verdicts(review, actor_from_request(request)),
        # The replay's links keep the token of a viewer who came with the link.
        "token": token,
        "token_query": f"&{urlencode({'t': token})}" if token else "",
    }
    if request.htmx and not request.htmx.boosted and not request.htmx.history_restore_request:
        return TemplateResponse(request, f"{REVIEW_TEMPLATE}#replay", context)
    return TemplateResponse(request, REVIEW_TEMPLATE, context)


@require_GET
def game_export_json(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _viewable_game(request, game_id)
    try:
        data = exports.game_export(game=game)
    except analysis_store.ReviewError as exc:
        return message_response(request, exc.message, status=exc.status)
    response = JsonResponse(data, json_dumps_params={"indent": 1, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="penta-game-{game.pk}.json"'
    return response


@require_GET
def history_export_csv(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request)
    if actor.user_id is None and not actor.guest_key:
        return message_response(request, _("You have no games to export yet."), status=404)
    response = StreamingHttpResponse(exports.history_csv(actor=actor), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="penta-games.csv"'
    return response


def _target(username: str):
    # One message for a player who does not exist and one who is private (player_detail): a different
    # one told whether an account existed.
    target = get_user_model().objects.filter(username=username, is_active=True).first()
    if target is None:
        raise Http404(_("There is no such player."))
    return target


@require_GET
def player_detail(request: HttpRequest, username: str) -> HttpResponse:
    viewer = request.user if request.user.is_authenticated else None
    # One's own page: the account is the one already read for the request.
    target = viewer if viewer is not None and viewer.get_username() == username else _target(username)
    viewer_id = viewer.pk if viewer is not None else None
    friends = friend_ids(user_id=viewer_id) if viewer_id else set()
    opted_in = statistics.opted_in(target.pk)
    # One answer for a player who does not exist, one who is private and one behind a block.
    if not statistics.player_visible(viewer_id=viewer_id, target=target, friend_ids=friends):
        raise Http404(_("There is no such player."))
    is_me = viewer_id == target.pk
    is_friend = target.pk in friends
    # Everything below depends on the target's games: one reading of their versions for all of it (the
    # rating and daily sections take it from the context).
    current = versions.read([versions.user(target.pk), versions.DAILY])
    mine = {versions.user(target.pk): current[versions.user(target.pk)]}
    stats = statistics.player_stats(user_id=target.pk, current=mine)
    # Each table's markup is cached beside its rows, under the same key (and the language): a warm view
    # renders neither (22 friends' head to head was a sixth of the page's time).
    h2h_key = recent_key = None
    if is_me:
        others = sorted(friends)
        h2h_key = f"{stats.key}:h2h:{others}"
        h2h = versions.cached(
            h2h_key, [], lambda: head_to_head.head_to_head(user_id=target.pk, other_ids=others), versions=mine
        )
        recent_key = f"{stats.key}:recent"
        recent = versions.cached(
            recent_key, [], lambda: statistics.recent_games(user_id=target.pk), versions=mine
        )
    elif is_friend:
        # The games the two shared are the target's games too: the target's version counts them.
        h2h_key = f"{stats.key}:h2h-of:{viewer_id}"
        h2h = versions.cached(
            h2h_key,
            [],
            lambda: head_to_head.head_to_head(user_id=viewer_id, other_ids=[target.pk]),
            versions=mine,
        )
        # Games against people are visible to the friends of their players (selectors.game_visible).
        recent_key = f"{stats.key}:recent-friends"
        recent = versions.cached(
            recent_key,
            [],
            lambda: statistics.recent_games(user_id=target.pk, only_kind=Game.Kind.FRIENDS),
            versions=mine,
        )
    else:
        h2h, recent = [], []
    context = {
        "target": target,
        "is_me": is_me,
        "is_friend": is_friend,
        "opted_in": opted_in,
        "stats": stats,
        "head_to_head": h2h,
        "head_to_head_fragment": versions.fragment(f"{h2h_key}:html", mine) if h2h_key else None,
        "recent": recent,
        "recent_fragment": versions.fragment(f"{recent_key}:html", mine) if recent_key else None,
        "thresholds": replay.thresholds(),
        "records_rule": records.records_rule(),
        "bot_accuracy": yardsticks.bot_accuracy(),
        "accuracy_scale": A.ACCURACY_SCALE,
        "cache_versions": current,
    }
    return TemplateResponse(request, "review/player.html", context)


@login_required
@require_GET
def my_stats(request: HttpRequest) -> HttpResponse:
    return redirect("review:player", request.user.get_username())


@login_required
@require_POST
def player_opt_in(request: HttpRequest, username: str) -> HttpResponse:
    target = _target(username)
    if target.pk != request.user.pk:
        raise Http404(_("There is no such player."))
    raw = request.POST.get("on", "")
    if raw not in ("0", "1"):
        return message_response(
            request, _("The request was malformed (on must be 0 or 1): reload the page."), status=400
        )
    profile_set_leaderboard_opt_in(user=request.user, on=raw == "1")
    return redirect("review:player", target.get_username())


BOARD_SCOPES = ("friends", "site")


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    scope = request.GET.get("scope", "friends")
    if scope not in BOARD_SCOPES:
        scope = "friends"
    viewer_id = request.user.pk if request.user.is_authenticated else None
    if scope == "friends" and viewer_id is None:
        scope = "site"
    if scope == "friends":
        boards = leaderboards.leaderboards(
            user_ids=[viewer_id, *friend_ids(user_id=viewer_id)], viewer_id=viewer_id
        )
    else:
        boards = leaderboards.site_leaderboards(viewer_id=viewer_id)
    context = {
        "scope": scope,
        "boards": boards,
        # Said only on the site-wide boards.
        "opted_in": bool(viewer_id) and scope == "site" and statistics.opted_in(viewer_id),
        "min_games": leaderboards.LEADERBOARD_MIN_GAMES,
        "records_rule": records.records_rule(),
    }
    return TemplateResponse(request, "review/leaderboard.html", context)
