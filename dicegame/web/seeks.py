"""A game with someone new: "Play someone now" (a live game, paired by the server while the page waits)
and the open correspondence games anyone may take. A refusal answers 4xx with its message and changes
nothing."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from core.http import int_field, message_response
from dicegame import play
from dicegame.actors import actor_from_request
from dicegame.errors import GameActionError
from dicegame.labels import correspondence_rule, move_time_label
from dicegame.play import inbox, seeks
from dicegame.rules.turn import MOVE_TIME_CHOICES
from ratings.selectors import rating_of_user

NOW_TEMPLATE = "dicegame/seeks/now.html"
OPEN_TEMPLATE = "dicegame/seeks/open.html"
POLL_SECONDS = 2  # how often a waiting page asks (and so how often its seek is tried)


def _to(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _rating(request: HttpRequest) -> float | None:
    """The person's rating, what "similar" is measured by (None: a newcomer's)."""
    if not request.user.is_authenticated:
        return None
    shown = rating_of_user(request.user)
    return float(shown.rating) if shown is not None else None


@require_http_methods(["GET", "POST"])
def play_now(request: HttpRequest) -> HttpResponse:
    """GET: the choices (rated or casual, the turn timer). POST: look for someone to play now."""
    if request.method == "GET":
        return TemplateResponse(request, NOW_TEMPLATE, {"timers": seeks.LIVE_TIMERS})
    actor = actor_from_request(request, create_guest=True)
    try:
        state = seeks.seek_live(
            actor=actor,
            rated=request.POST.get("rated") == "1",
            turn_seconds=int_field(request, "turn_seconds", 60),
            rating=_rating(request),
        )
    except GameActionError as exc:
        if request.htmx:
            return message_response(request, exc.message, status=exc.status)
        context = {"timers": seeks.LIVE_TIMERS, "error": exc.message}
        return TemplateResponse(request, NOW_TEMPLATE, context, status=exc.status)
    if state.game_id:
        return _to(request, reverse("dicegame:game", args=[state.game_id]))
    return _to(request, reverse("dicegame:play_now_wait", args=[state.seek.pk]))


@require_GET
def play_now_wait(request: HttpRequest, seek_id: int) -> HttpResponse:
    """The wait: asked every POLL_SECONDS by the page (each ask may pair the seek); to the game once
    paired."""
    try:
        state = seeks.seek_poll(seek_id=seek_id, actor=actor_from_request(request))
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    if state.game_id:
        return _to(request, reverse("dicegame:game", args=[state.game_id]))
    context = {"state": state, "poll": POLL_SECONDS}
    if request.htmx:
        return TemplateResponse(request, f"{NOW_TEMPLATE}#seek-wait", context)
    return TemplateResponse(request, NOW_TEMPLATE, context)


@require_POST
def play_now_cancel(request: HttpRequest, seek_id: int) -> HttpResponse:
    try:
        seeks.seek_cancel(seek_id=seek_id, actor=actor_from_request(request))
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _to(request, reverse("dicegame:home"))


@require_POST
def play_now_computer(request: HttpRequest, seek_id: int) -> HttpResponse:
    """Nobody came: stop looking and play the computer (medium) instead; paired meanwhile, the game."""
    actor = actor_from_request(request)
    try:
        seeks.seek_cancel(seek_id=seek_id, actor=actor)
    except GameActionError as exc:
        state = seeks.seek_poll(seek_id=seek_id, actor=actor) if exc.status == 409 else None
        if state is not None and state.game_id:
            return _to(request, reverse("dicegame:game", args=[state.game_id]))
        return message_response(request, exc.message, status=exc.status)
    game = play.game_create_vs_computer(actor=actor, strengths=["medium"])
    return _to(request, reverse("dicegame:game", args=[game.pk]))


def _number(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name, "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 6 else None


def _open_context(request: HttpRequest) -> dict:
    pace = _number(request, "pace")
    listed = inbox.open_games(
        viewer_id=request.user.pk if request.user.is_authenticated else None,
        move_seconds=pace if pace in MOVE_TIME_CHOICES else None,
        min_rating=_number(request, "min"),
        max_rating=_number(request, "max"),
    )
    return {
        "listed": listed,
        "move_time_choices": [(s, move_time_label(s)) for s in MOVE_TIME_CHOICES],
        "correspondence_rule": correspondence_rule(),
    }


@require_http_methods(["GET", "POST"])
def open_games(request: HttpRequest) -> HttpResponse:
    """GET: the open correspondence games (filtered by pace and rating). POST: offer one."""
    if request.method == "GET":
        return TemplateResponse(request, OPEN_TEMPLATE, _open_context(request))
    if not request.user.is_authenticated:
        return message_response(request, _("Log in to play by correspondence."), status=403)
    try:
        seeks.seek_post(
            actor=actor_from_request(request),
            rated=request.POST.get("rated") == "1",
            move_seconds=int_field(request, "move_seconds", 0),
            rating=_rating(request),
        )
    except GameActionError as exc:
        if request.htmx:
            return message_response(request, exc.message, status=exc.status)
        context = {**_open_context(request), "error": exc.message}
        return TemplateResponse(request, OPEN_TEMPLATE, context, status=exc.status)
    messages.success(request, _("Your open game is in the list: anyone may take it within a week."))
    return _to(request, reverse("dicegame:open_games"))


@require_POST
@login_required
def open_game_accept(request: HttpRequest, seek_id: int) -> HttpResponse:
    try:
        game = seeks.seek_accept(seek_id=seek_id, actor=actor_from_request(request))
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _to(request, reverse("dicegame:game", args=[game.pk]))


@require_POST
@login_required
def open_game_cancel(request: HttpRequest, seek_id: int) -> HttpResponse:
    try:
        seeks.seek_cancel(seek_id=seek_id, actor=actor_from_request(request))
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    messages.success(request, _("Your open game is out of the list."))
    return _to(request, reverse("dicegame:home"))
