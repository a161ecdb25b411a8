"""Games against friends: creating a room, seats, invitations, the link, starting, rematches."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from core.http import game_url, int_field, message_response
from dicegame.actors import actor_from_request
from dicegame.errors import GameActionError
from dicegame.models import Game
from dicegame.play import challenges, rooms
from dicegame.web.views import game_action


def _to_game(request: HttpRequest, game_id: int) -> HttpResponse:
    url = reverse("dicegame:game", args=[game_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_POST
@login_required
def room_new(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request)
    try:
        game = rooms.room_create(
            actor=actor,
            seats=int_field(request, "seats"),
            turn_seconds=int_field(request, "turn_seconds", 60),
            rated=request.POST.get("rated") == "1",
            # 0 (or none sent): a live game; else a correspondence game with that much time a move.
            move_seconds=int_field(request, "move_seconds", 0),
        )
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _to_game(request, game.pk)


@require_http_methods(["GET", "POST"])
def room_join(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation link. Whoever holds it may watch the game, logged in or not; taking a seat needs
    an account: a visitor who is not logged in is offered to log in or sign up and come back here, then
    one press takes the next free seat. Once the game has started the link leads to watching it."""
    actor = actor_from_request(request)
    game = Game.objects.filter(kind=Game.Kind.FRIENDS, invite_token=token).first() if token else None
    if game is None:
        return message_response(request, _("This invitation link is not valid."), status=404)
    watch_url = game_url(game.pk, token)
    if request.method == "GET":
        if actor.user_id is not None and game.players.filter(user_id=actor.user_id).exists():
            return redirect("dicegame:game", game.pk)
        if game.is_active or game.is_finished:
            # Too late to sit down; the link still lets its holder watch.
            return redirect(watch_url)
        if not game.is_open:
            error = rooms.room_closed_error(game)
            return message_response(request, error.message, status=error.status)
        if actor.user_id is not None and rooms.was_removed(game, actor.user_id):
            error = rooms.removed_error()
            return message_response(request, error.message, status=error.status)
        host = game.host.get_username() if game.host else ""
        back = urlencode({"next": request.path}, safe="/")
        context = {
            "game": game,
            # Every seat taken: the link can only offer watching (seats free up only if the host frees one).
            "full": game.players.count() >= game.seats_wanted,
            "host": host,
            "token": token,
            "watch_url": watch_url,
            "login_url": f"{reverse('accounts:login')}?{back}",
            "signup_url": f"{reverse('accounts:signup')}?{back}",
        }
        if game.rated and actor.user_id is None:
            # Only accounts have ratings: a guest is refused a seat in a rated room, and may watch.
            context["error"] = _(
                "This is a rated game: only players with an account can take a seat. Log in or sign up "
                "to play, or watch the game."
            )
            return TemplateResponse(request, "dicegame/rooms/join.html", context, status=403)
        return TemplateResponse(request, "dicegame/rooms/join.html", context)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    try:
        player = rooms.room_join_by_link(token=token, actor=actor)
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _to_game(request, player.game_id)


@require_POST
@login_required
def room_invite(request: HttpRequest, game_id: int) -> HttpResponse:
    username = request.POST.get("username", "").strip()
    return game_action(
        request, game_id, lambda actor: rooms.room_invite(game_id=game_id, actor=actor, username=username)
    )


@require_POST
@login_required
def invitation_accept(request: HttpRequest, game_id: int) -> HttpResponse:
    return game_action(
        request, game_id, lambda actor: rooms.room_accept_invitation(game_id=game_id, actor=actor)
    )


@require_POST
@login_required
def invitation_decline(request: HttpRequest, game_id: int) -> HttpResponse:
    actor = actor_from_request(request)
    try:
        rooms.room_decline_invitation(game_id=game_id, actor=actor)
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    # Back where it was declined (the home page's inbox, the friends page).
    url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}):
        url = reverse("accounts:friends")
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_POST
@login_required
def room_add_computer(request: HttpRequest, game_id: int) -> HttpResponse:
    strength = request.POST.get("strength", "")
    return game_action(
        request,
        game_id,
        lambda actor: rooms.room_add_computer(game_id=game_id, actor=actor, strength=strength),
    )


@require_POST
@login_required
def room_remove_seat(request: HttpRequest, game_id: int, seat: int) -> HttpResponse:
    return game_action(
        request, game_id, lambda actor: rooms.room_remove_seat(game_id=game_id, actor=actor, seat=seat)
    )


@require_POST
@login_required
def room_new_link(request: HttpRequest, game_id: int) -> HttpResponse:
    return game_action(request, game_id, lambda actor: rooms.room_new_link(game_id=game_id, actor=actor))


@require_POST
@login_required
def room_cancel(request: HttpRequest, game_id: int) -> HttpResponse:
    return game_action(request, game_id, lambda actor: rooms.room_cancel(game_id=game_id, actor=actor))


@require_POST
@login_required
def room_start(request: HttpRequest, game_id: int) -> HttpResponse:
    return game_action(request, game_id, lambda actor: rooms.room_start(game_id=game_id, actor=actor))


@require_POST
@login_required
def seat_take_back(request: HttpRequest, game_id: int) -> HttpResponse:
    return game_action(request, game_id, lambda actor: rooms.seat_take_back(game_id=game_id, actor=actor))


@require_POST
@login_required
def seat_leave(request: HttpRequest, game_id: int) -> HttpResponse:
    """Leave a game against friends for good: the computer finishes the seat (rooms.seat_leave)."""
    return game_action(request, game_id, lambda actor: rooms.seat_leave(game_id=game_id, actor=actor))


@require_POST
@login_required
def rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    actor = actor_from_request(request)
    try:
        # Of two people, a challenge to the other (their yes starts it); of more, the table's yes.
        new_game = challenges.rematch_yes(game_id=game_id, actor=actor)
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _to_game(request, new_game.pk if new_game else game_id)
