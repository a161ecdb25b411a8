"""The game's screens: thin function views over the services (writes) and selectors (reads).

An htmx request gets the changed regions of the page as out-of-band swaps (the partials of
`dicegame/game.html`); a plain form post is redirected back to the page, so everything also works
without JavaScript. A refused action answers 4xx with its message in the page's message area.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from urllib.parse import urlsplit

from django.contrib.messages import get_messages
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from core.http import game_url, int_field, message_response
from dicegame import events, play
from dicegame.actors import Actor, actor_from_request
from dicegame.errors import GameActionError
from dicegame.labels import correspondence_rule, move_time_label
from dicegame.models import Game
from dicegame.play import inbox, lobby, local, selectors
from dicegame.rules.turn import MOVE_TIME_CHOICES
from dicegame.screen import moments
from dicegame.screen import regions as screen_regions
from dicegame.screen import view as boards
from dicegame.screen.markup import box_keys
from dicegame.screen.state import CHANGE_REGIONS
from winprob.chances import page_bar

GAME_TEMPLATE = "dicegame/game.html"
STRENGTH_CHOICES = [
    ("easy", _lazy("Easy")),
    ("medium", _lazy("Medium")),
    ("hard", _lazy("Hard (optimal)")),
    ("winner", _lazy("Winner (plays to win)")),
]


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request)
    recent = selectors.history_page(actor=actor, page=1).object_list[:5] if _has_identity(actor) else []
    context = {
        "recent": recent,
        "strength_choices": STRENGTH_CHOICES,
        # What waits for a logged-in person, at the top: their turns, the answers wanted, their offers.
        "inbox": inbox.inbox_for(user_id=actor.user_id) if actor.user_id is not None else None,
        "move_time_choices": [(seconds, move_time_label(seconds)) for seconds in MOVE_TIME_CHOICES],
        "correspondence_rule": correspondence_rule(),
    }
    return render(request, "dicegame/home.html", context)


@require_GET
def waiting(request: HttpRequest) -> HttpResponse:
    """The header's count of what waits for the person, the home page's inbox, and the pings that make
    the pages of their lately changed challenges follow them (all out of band: the page takes the regions
    it has), asked for by a page the notice socket pinged."""
    if not request.user.is_authenticated:
        return HttpResponse(status=204)
    box = inbox.inbox_for(user_id=request.user.pk)
    # The list only for the page that shows it (the home page): swapped into any other, it found no
    # target and htmx logged an error at every ping (htmx:oobErrorNoTarget #waiting).
    asking = request.htmx.current_url if request.htmx else None
    with_list = not asking or urlsplit(asking).path == reverse("dicegame:home")
    context = {
        "count": box.count,
        "inbox": box,
        "with_list": with_list,
        "oob": True,
        "followed": inbox.challenges_followed(user_id=request.user.pk),
    }
    return TemplateResponse(request, "dicegame/waiting.html#waiting-oob", context)


def _has_identity(actor: Actor) -> bool:
    return actor.user_id is not None or bool(actor.guest_key)


@require_POST
def game_new_solo(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request, create_guest=True)
    game = play.game_create_solo(actor=actor)
    url = reverse("dicegame:game", args=[game.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_POST
def game_new_vs_computer(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request, create_guest=True)
    strengths = [s for s in request.POST.getlist("strength") if s]
    try:
        game = play.game_create_vs_computer(actor=actor, strengths=strengths)
    except GameActionError as exc:
        if request.htmx:
            return message_response(request, exc.message, status=exc.status)
        context = {"recent": [], "error": exc.message, "strength_choices": STRENGTH_CHOICES}
        return TemplateResponse(request, "dicegame/home.html", context, status=exc.status)
    url = reverse("dicegame:game", args=[game.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_GET
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    actor = actor_from_request(request)
    token = request.GET.get("t", "")
    selectors.game_for_viewer(game_id=game_id, actor=actor, token=token)
    written: list = []
    play.game_settle(game_id=game_id, written=written)
    return _render_game(request, game_id, actor, token=token, written=written)


ALL_REGIONS = frozenset()  # empty: every region
# What each action can change on the screen: the answer re-renders only those regions.
HOLD_REGIONS = CHANGE_REGIONS[events.HOLDS]
CHOOSE_REGIONS = CHANGE_REGIONS[events.CHOICE]


def _render_game(
    request: HttpRequest,
    game_id: int,
    actor: Actor,
    *,
    error: str = "",
    status: int = 200,
    token: str = "",
    regions: frozenset = ALL_REGIONS,
    acted: Game | None = None,
    question: play.ZeroNeedsConfirmation | None = None,
    written=(),
) -> HttpResponse:
    if acted is not None and not acted.is_finished:
        # The rows the action has just written and committed, under the game's lock: no need to read
        # them again (the actor's seat was checked by the action).
        game = acted
        board = boards.game_board(game=game, actor=actor, players=game.seats, turn=game.turn_in_play)
    else:
        game = selectors.game_for_viewer(game_id=game_id, actor=actor, token=token)
        if game.is_cancelled:
            return _render_cancelled(request, game, error=error, status=status, token=token)
        if written:
            # What a settlement or a game action wrote, celebrated by this answer (dicegame.screen.moments).
            game.written = list(written)
        board = boards.game_board(game=game, actor=actor, with_log=game.is_finished)
    if question is not None and board.turn is not None:
        # Asked at the box tapped, in the sheet (the answer to the tap only).
        ask = boards.Question(
            box=question.box,
            text=question.message,
            url=reverse("dicegame:choose", args=[game_id, question.box]),
            turn=board.turn.number,
            roll=board.rolls_used,
            csrf=get_token(request),
        )
        board = dataclasses.replace(board, question=ask)
    answer = request.htmx and not request.htmx.boosted
    if answer and game.is_finished and status == 200:
        # The finished page has another shape (result, log, seed): load it whole.
        return HttpResponseClientRedirect(game_url(game_id, token))
    if answer and not game.is_open:
        # Made without a template, from the regions the pushes share (a template walked every tag of
        # the answer again: a fifth of an action's time in this view).
        html = screen_regions.answer_update(
            board,
            regions=regions,
            # No token in the forms, as in the pushes: htmx sends the page's own (the body's hx-headers)
            # with every request, and an answer that calls get_token() pays for a freshly masked token
            # (32 urandom calls) and a Set-Cookie header on every tap.
            csrf="",
            token=token,
            message_items=get_messages(request),
            error=error,
            waiting=_next_waiting(game, board),
        )
        return HttpResponse(html, status=status)
    context = {
        "game": game,
        "board": board,
        "lobby": lobby.game_lobby(game=game, actor=actor),
        "rematch": lobby.game_rematch(game=game, actor=actor),
        "error": error,
        "token": token,
        "regions": regions,
        # The end of the game for the viewer: place, total, best before it.
        "result": moments.game_result(game=game, seat=board.my_seat) if game.is_finished else None,
        "next_waiting": _next_waiting(game, board),
        "winners": _winners(game, board),
        "local_again": _local_again(game, board),
        # A correspondence challenge's game before the answer: the board says so, and offers it.
        "challenge": inbox.game_challenge(game=game)
        if game.is_active and any(s.player.challenged for s in board.seats)
        else None,
        "user_id": actor.user_id,
        "play_again": _play_again(game, board),
        # The key help's list of the boxes' keys (dicegame.screen.markup.BOX_KEYS).
        "box_keys": box_keys() if game.is_active else (),
    }
    if not answer and not game.is_open:
        # The winning chances bar above the sheet (winprob): on the whole page only; pushes update it.
        context["win_bar"] = page_bar(game, [s.player for s in board.seats], board.turn, board.my_seat)
    if answer:  # the lobby's
        return TemplateResponse(request, f"{GAME_TEMPLATE}#lobby-update", context, status=status)
    return TemplateResponse(request, GAME_TEMPLATE, context, status=status)


def _next_waiting(game: Game, board) -> selectors.Waiting | None:
    return selectors.next_game_waiting(game=game, seat=board.my_seat, my_turn=board.my_turn)


def _play_again(game: Game, board) -> str:
    """The end of a game of two people against each other: the other's name, for Play again (a new
    challenge on the same terms) once the rematch offer has lapsed."""
    if game.kind != Game.Kind.FRIENDS or not game.is_finished or board.my_seat is None:
        return ""
    people = [s.player for s in board.seats if not s.player.is_bot]
    others = [p for p in people if p.pk != board.my_seat.pk]
    if len(people) != 2 or others[0].user_id is None or board.my_seat.user_id is None:
        return ""
    return others[0].user.get_username() if others[0].user else ""


def _winners(game: Game, board) -> list[str]:
    """Who won a finished game of several seats: for the screens that have no "you" (spectators, the
    one screen of a local game)."""
    if not game.is_finished or len(board.seats) < 2:
        return []
    return [s.player.display_name for s in board.seats if s.player.rank == 1]


def _local_again(game: Game, board) -> str:
    """The end of a local game: the new-game form's query for the same table (play.local.again_query)."""
    if game.kind != Game.Kind.LOCAL or not game.is_finished:
        return ""
    return local.again_query([s.player for s in board.seats])


def _render_cancelled(
    request: HttpRequest, game: Game, *, error: str, status: int, token: str
) -> HttpResponse:
    """A room its host cancelled: no board, only that news (and why an action was refused)."""
    if request.htmx and not request.htmx.boosted:
        if status == 200:
            return HttpResponseClientRedirect(game_url(game.pk, token))
        return message_response(request, error, status=status)
    # A correspondence challenge's game that will not be played says why (declined, called off, expired).
    challenge = game.challenges.first() if game.kind == Game.Kind.FRIENDS else None
    context = {"game": game, "error": error, "challenge": challenge}
    return TemplateResponse(request, "dicegame/rooms/cancelled.html", context, status=status)


def _perform(
    request: HttpRequest,
    game_id: int,
    act: Callable[[Actor, int, int], object],
    regions: frozenset = ALL_REGIONS,
) -> HttpResponse:
    """Run one action of the turn flow and answer with the fresh board, or the refusal."""
    actor = actor_from_request(request)
    try:
        game = act(actor, int_field(request, "turn"), int_field(request, "roll"))
    except GameActionError as exc:
        return _refusal(request, game_id, actor, exc)
    if not request.htmx:
        return redirect("dicegame:game", game_id)
    return _render_game(request, game_id, actor, regions=regions, acted=game)


def _refusal(request: HttpRequest, game_id: int, actor: Actor, exc: GameActionError) -> HttpResponse:
    try:
        # What the clock wrote just before (`exc.written`: often the turn acted on) is shown too.
        written = getattr(exc, "written", ())
        return _render_game(request, game_id, actor, error=exc.message, status=exc.status, written=written)
    except Http404:
        # Not a game the actor may see (or none, or one they were removed from): say why, without
        # showing anything of it.
        return message_response(request, exc.message, status=exc.status)


@require_POST
def game_roll(request: HttpRequest, game_id: int) -> HttpResponse:
    return _perform(
        request,
        game_id,
        lambda actor, turn, roll: play.turn_roll(game_id=game_id, actor=actor, turn=turn, roll=roll),
    )


@require_POST
def game_hold(request: HttpRequest, game_id: int, die: int) -> HttpResponse:
    return _perform(
        request,
        game_id,
        lambda actor, turn, roll: play.turn_toggle_hold(
            game_id=game_id, actor=actor, turn=turn, roll=roll, die=die
        ),
        HOLD_REGIONS,
    )


@require_POST
def game_choose(request: HttpRequest, game_id: int, box: str) -> HttpResponse:
    """Choose a box. A zero while another open box scores is asked about first: the answer (409, the
    box not chosen; a running auto-commit waits for the reply, play.turn_choose_box) shows the question
    at the box, whose Yes resubmits the choice with `confirm_zero=1` and `write=1` (chosen and written
    at once) and whose No is a link back to the board: it works with or without JavaScript."""
    actor = actor_from_request(request)
    confirmed = request.POST.get("confirm_zero") == "1"
    # The question's Yes writes the box at once: a sacrifice is one tap and one answer.
    write = confirmed and request.POST.get("write") == "1"
    try:
        turn, roll = int_field(request, "turn"), int_field(request, "roll")
        game = play.turn_choose_box(
            game_id=game_id, actor=actor, turn=turn, roll=roll, box=box, confirm_zero=confirmed, write=write
        )
    except play.ZeroNeedsConfirmation as exc:
        # The page shows the question at the box (the message area too, without JavaScript).
        error = "" if request.htmx else exc.message
        return _render_game(request, game_id, actor, error=error, status=exc.status, question=exc)
    except GameActionError as exc:
        return _refusal(request, game_id, actor, exc)
    if not request.htmx:
        return redirect("dicegame:game", game_id)
    regions = ALL_REGIONS if write else CHOOSE_REGIONS
    return _render_game(request, game_id, actor, regions=regions, acted=game)


@require_POST
def game_confirm(request: HttpRequest, game_id: int) -> HttpResponse:
    return _perform(
        request,
        game_id,
        lambda actor, turn, roll: play.turn_confirm(game_id=game_id, actor=actor, turn=turn, roll=roll),
    )


def game_action(request: HttpRequest, game_id: int, act: Callable[[Actor], object]) -> HttpResponse:
    """An action on the game as a whole (not tied to the dice on screen)."""
    actor = actor_from_request(request)
    try:
        acted = act(actor)
    except GameActionError as exc:
        return _refusal(request, game_id, actor, exc)
    if not request.htmx:
        return redirect("dicegame:game", game_id)
    # The turns the action wrote (the computer's, when hurried): the answer celebrates them too.
    return _render_game(request, game_id, actor, written=getattr(acted, "written", ()))


@require_POST
def game_hurry(request: HttpRequest, game_id: int) -> HttpResponse:
    return game_action(request, game_id, lambda actor: play.game_hurry(game_id=game_id, actor=actor))


@require_POST
def game_hints(request: HttpRequest, game_id: int) -> HttpResponse:
    raw = request.POST.get("on", "")
    if raw not in ("0", "1"):
        return _refusal(
            request,
            game_id,
            actor_from_request(request),
            GameActionError(_("The request was malformed (on must be 0 or 1): reload the page."), status=400),
        )
    return game_action(
        request, game_id, lambda actor: play.game_set_hints(game_id=game_id, actor=actor, on=raw == "1")
    )


@require_POST
def game_resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """Resign a solo game or one against the computer: it ends as it stands (play.game_resign)."""
    return game_action(request, game_id, lambda actor: play.game_resign(game_id=game_id, actor=actor))


@require_POST
def game_tick(request: HttpRequest, game_id: int) -> HttpResponse:
    """The page's countdown reached zero: apply the auto-commit if the server agrees it is due."""
    actor = actor_from_request(request)
    # A spectator who came by the invitation link ticks with its token (`?t=`), as the page was opened.
    token = request.GET.get("t", "")
    try:
        selectors.game_for_viewer(game_id=game_id, actor=actor, token=token)
    except Http404 as exc:
        return message_response(request, str(exc), status=404)
    written: list = []
    play.game_settle(game_id=game_id, written=written)
    if not request.htmx:
        return redirect(game_url(game_id, token))
    shown = request.GET.get("turn", "")
    if shown.isascii() and shown.isdigit() and len(shown) < 10:
        # The clock may have written before this tick came (it usually does): the answer still tells
        # the page what was written since the turn it showed, and cheers for it.
        game = Game.objects.get(pk=game_id)
        written = selectors.turns_written_since(game=game, number=int(shown)) or written
    return _render_game(request, game_id, actor, token=token, written=written)


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request)
    if _has_identity(actor):
        play.games_settle_overdue()
        page = selectors.history_page(actor=actor, page=request.GET.get("page"))
    else:
        page = None
    # Columns of local games a friend offered this user (dicegame.play.local), to confirm or decline.
    seat_links = local.seat_links_pending_for(user_id=actor.user_id) if actor.user_id is not None else []
    return render(request, "dicegame/history.html", {"page": page, "seat_links": seat_links})


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return message_response(
        request,
        _("Your session's security token was missing or out of date: reload the page and try again."),
        status=403,
    )


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """The process answers, nothing more (`/healthz/` itself is answered by HealthzMiddleware; this
    view is the benchmarks' bare view, `bench/bare/`)."""
    return HttpResponse("ok", content_type="text/plain")
