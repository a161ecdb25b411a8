"""The chat drawer of a game (fetched when opened, never with the game page), saying something in it,
reporting a line, and a person's chat settings. Every refusal answers 4xx with the message the drawer
shows, and stores nothing."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from chat import phrases, selectors, services
from chat.models import MAX_LINE, ChatLine
from dicegame.actors import actor_from_request
from dicegame.models import Game
from dicegame.play.selectors import game_visible


def _game_for(request: HttpRequest, game_id: int) -> Game:
    game = Game.objects.filter(pk=game_id).prefetch_related("players").first()
    if game is None or not game_visible(game=game, actor=actor_from_request(request)):
        raise Http404(_("There is no such game."))
    return game


def _refused(request: HttpRequest, message: str, status: int) -> HttpResponse:
    return TemplateResponse(request, "chat/drawer.html#error", {"error": message}, status=status)


@require_GET
def drawer(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_for(request, game_id)
    table = selectors.Table.of(game)
    user_id = request.user.pk if request.user.is_authenticated else None
    rooms = selectors.rooms_for(table=table, user_id=user_id)
    room = rooms[0]
    reactions = selectors.reactions_on(user_id)
    started = game.turns.filter(completed_at__isnull=False).exists()
    moment = "end" if game.is_finished else ("play" if started else "start")
    context = {
        "game": game,
        "game_id": game.pk,
        "chat_on": selectors.has_chat(table),
        "room": room,
        "rooms": [(r, selectors.visible_lines(game=game, user_id=user_id, room=r)) for r in rooms],
        "may_write": user_id is not None,
        "reactions": phrases.REACTIONS.items() if reactions and room == ChatLine.Room.PLAYERS else (),
        "phrases": [(k, phrases.PHRASES[k]) for k in phrases.MOMENTS[moment]] if reactions else (),
        "free_text": room == ChatLine.Room.SPECTATORS
        or (user_id is not None and selectors.free_text_allowed(table, user_id)),
        "max_line": MAX_LINE,
    }
    if user_id is not None and context["chat_on"]:
        # Said before typing, not after: a new account's wait, a time-out, panic mode.
        refused = selectors.chat_refusal(table=table, user_id=user_id, room=room, kind=ChatLine.Kind.TEXT)
        context["text_refused"] = refused[0] if refused else ""
    return TemplateResponse(request, "chat/drawer.html", context)


@require_POST
def say(request: HttpRequest, game_id: int) -> HttpResponse:
    """A line from the drawer's form (answered with the form: empty once said, else the line kept with
    why it was refused), or a phrase or reaction from its buttons (answered with the message)."""
    kind = request.POST.get("kind", ChatLine.Kind.TEXT)
    text = request.POST.get("text")
    form = kind == ChatLine.Kind.TEXT
    try:
        services.line_post(game_id=game_id, user=request.user, kind=kind, text=text)
    except services.ChatRefused as exc:
        if form:
            context = {"game_id": game_id, "text": text or "", "form_error": exc.message}
            context["max_line"] = MAX_LINE
            return TemplateResponse(request, "chat/drawer.html#form", context, status=exc.status)
        return _refused(request, exc.message, exc.status)
    # The line comes back on the game's socket, as to every screen.
    if form:
        return TemplateResponse(request, "chat/drawer.html#form", {"game_id": game_id, "max_line": MAX_LINE})
    return TemplateResponse(request, "chat/drawer.html#error", {"error": ""}, status=200)


@require_POST
def report(request: HttpRequest, line_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _refused(request, _("Log in to report a line."), 403)
    try:
        services.line_report(line_id=line_id, user=request.user)
    except services.ChatRefused as exc:
        return _refused(request, exc.message, exc.status)
    return TemplateResponse(request, "chat/drawer.html#reported", {}, status=200)


@login_required
@require_POST
def settings(request: HttpRequest) -> HttpResponse:
    services.chat_settings_set(
        user_id=request.user.pk,
        reactions=request.POST.get("chat_reactions") == "on",
        strangers=request.POST.get("chat_strangers") == "on",
    )
    messages.success(request, _("Your chat settings are saved."))
    return redirect("dicegame:settings")
