"""The screens of local games (pass and play): the new-game form, and linking a column to a friend.

The game itself is played on the ordinary game screen (`dicegame.web.views`): the creator's device acts
for whichever person's seat is current. Every form works without JavaScript (post, then redirect).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from core.http import int_field, message_response
from dicegame.actors import actor_from_request
from dicegame.errors import GameActionError
from dicegame.play import local
from dicegame.play.local import MAX_SEATS, NAME_MAX_LENGTH, SeatSpec
from dicegame.web.views import STRENGTH_CHOICES

NEW_TEMPLATE = "dicegame/local/new.html"
LINK_TEMPLATE = "dicegame/local/link.html"
COMPUTER_SLOTS = 2  # two people at least, four seats at most


def _seats_from(post) -> list[SeatSpec]:
    names = [(post.get(f"name_{n}") or "")[: NAME_MAX_LENGTH * 4] for n in range(1, MAX_SEATS + 1)]
    strengths = [post.get(f"computer_{n}") or "" for n in range(1, COMPUTER_SLOTS + 1)]
    # The first two names are asked for; an empty third or fourth means "no one".
    people = [SeatSpec(name=name) for i, name in enumerate(names) if i < 2 or name.strip()]
    return people + [SeatSpec(strength=s) for s in strengths if s]


def _form_context(post=None, error: str = "") -> dict:
    post = post or {}
    return {
        "error": error,
        "name_slots": [
            {"n": n, "value": post.get(f"name_{n}", ""), "required": n <= 2} for n in range(1, MAX_SEATS + 1)
        ],
        "computer_slots": [
            {"n": n, "value": post.get(f"computer_{n}", "")} for n in range(1, COMPUTER_SLOTS + 1)
        ],
        "strength_choices": STRENGTH_CHOICES,
        "hints": post.get("hints") == "1",
        "name_max_length": NAME_MAX_LENGTH,
    }


@require_http_methods(["GET", "POST"])
def local_new(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        # "New game" at the end of a local game fills the form with the same table (play.local.again_query).
        return TemplateResponse(request, NEW_TEMPLATE, _form_context(request.GET))
    actor = actor_from_request(request, create_guest=True)
    try:
        game = local.local_game_create(
            actor=actor, seats=_seats_from(request.POST), hints=request.POST.get("hints") == "1"
        )
    except GameActionError as exc:
        # The whole form again, as typed, with the reason: it also works without JavaScript.
        return TemplateResponse(
            request, NEW_TEMPLATE, _form_context(request.POST, exc.message), status=exc.status
        )
    url = reverse("dicegame:game", args=[game.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _link_page(request: HttpRequest, game_id: int, *, error: str = "", status: int = 200) -> HttpResponse:
    page = local.link_page(game_id=game_id, user_id=request.user.pk)
    return TemplateResponse(
        request, LINK_TEMPLATE, {"page": page, "game": page.game, "error": error}, status=status
    )


@login_required
@require_http_methods(["GET", "POST"])
def local_link(request: HttpRequest, game_id: int) -> HttpResponse:
    """The creator of a local game offers a person's column to a friend."""
    try:
        if request.method == "GET":
            return _link_page(request, game_id)
        link = local.seat_link_request(
            user=request.user,
            game_id=game_id,
            seat=int_field(request, "seat"),
            username=(request.POST.get("username") or "")[:150],
        )
    except GameActionError as exc:
        if exc.status == 404:
            return message_response(request, exc.message, status=404)
        return _link_page(request, game_id, error=exc.message, status=exc.status)
    messages.success(
        request,
        _("%(friend)s is asked to confirm the column of %(name)s.")
        % {"friend": link.to_user.get_username(), "name": link.player.name},
    )
    return redirect("dicegame:local_link", game_id)


def _answer(request: HttpRequest, link_id: int, accept: bool) -> HttpResponse:
    try:
        link = local.seat_link_answer(user=request.user, link_id=link_id, accept=accept)
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    if accept:
        messages.success(request, _("The game is in your history now."))
    else:
        messages.info(request, _("You declined the column of %(name)s.") % {"name": link.player.name})
    return redirect("dicegame:history")


@login_required
@require_POST
def local_link_accept(request: HttpRequest, link_id: int) -> HttpResponse:
    return _answer(request, link_id, True)


@login_required
@require_POST
def local_link_decline(request: HttpRequest, link_id: int) -> HttpResponse:
    return _answer(request, link_id, False)
