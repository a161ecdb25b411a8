"""Challenges' pages: the sheet a Play button opens (pace, rated or casual, computer seats), sending it,
the challenge's own page (the answer, or the wait for it), and the one-tap answers: accept, decline,
cancel. A refusal answers 4xx with its message and changes nothing."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh

from accounts.selectors import may_challenge
from core.http import int_field, message_response
from dicegame.actors import actor_from_request
from dicegame.errors import GameActionError
from dicegame.labels import correspondence_rule, move_time_label
from dicegame.models import Game
from dicegame.offers import Challenge
from dicegame.play import challenges, inbox
from dicegame.play.rooms import TURN_TIMER_CHOICES
from dicegame.rules.turn import MOVE_TIME_CHOICES

SHEET = "dicegame/challenges/new.html"


def _to(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _back(request: HttpRequest) -> str:
    """Where a one-tap answer returns to: the page it was made on (this site's), else home."""
    url = request.POST.get("next", "")
    if url and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}):
        return url
    return reverse("dicegame:home")


def _terms(request: HttpRequest) -> challenges.Terms:
    """The sheet's choices: the pace (0, a live game, or a correspondence game's time a move), the live
    game's turn timer, rated, and up to two computer players."""
    return challenges.Terms(
        turn_seconds=int_field(request, "turn_seconds", 60),
        move_seconds=int_field(request, "move_seconds", 0),
        rated=request.POST.get("rated") == "1",
        bots=tuple(s for s in request.POST.getlist("bot") if s),
    )


def _sheet_context(request: HttpRequest, opponent, terms: challenges.Terms, **extra) -> dict:
    return {
        "opponent": opponent,
        "terms": terms,
        "move_time_choices": [(s, move_time_label(s)) for s in MOVE_TIME_CHOICES],
        "turn_timer_choices": [s for s in TURN_TIMER_CHOICES if s],
        "bot_slots": [terms.bots[i] if i < len(terms.bots) else "" for i in range(challenges.MAX_BOTS)],
        "correspondence_rule": correspondence_rule(),
        **extra,
    }


def _last_terms(user_id: int, to_user_id: int) -> challenges.Terms:
    last = inbox.last_terms(user_id=user_id, to_user_id=to_user_id)
    if last is None:
        return challenges.Terms()
    return challenges.Terms(last.turn_seconds, last.move_seconds, last.rated, tuple(last.bots))


def _terms_of(game_id: str, user_id: int) -> challenges.Terms | None:
    """Play again: the terms of a game against people the person sat in (`?game=`)."""
    if not (game_id.isascii() and game_id.isdigit() and len(game_id) < 12):
        return None
    game = Game.objects.filter(pk=int(game_id), kind=Game.Kind.FRIENDS, players__user_id=user_id).first()
    if game is None:
        return None
    bots = tuple(p.bot_strength for p in game.players.order_by("seat") if p.is_bot)[: challenges.MAX_BOTS]
    return challenges.Terms(game.turn_seconds or 0, game.move_seconds or 0, game.rated, bots)


@require_GET
@login_required
def challenge_new(request: HttpRequest, username: str) -> HttpResponse:
    """The sheet: the terms of a challenge to `username`, filled in from the last one sent (to them, or
    to anyone), so that playing again is one tap."""
    opponent = get_user_model().objects.filter(username=username, is_active=True).first()
    if opponent is None:
        return message_response(
            request, _("There is no player called %(name)s.") % {"name": username}, status=404
        )
    terms = _terms_of(request.GET.get("game", ""), request.user.pk) or _last_terms(
        request.user.pk, opponent.pk
    )
    refusal = may_challenge(
        from_user_id=request.user.pk, to_user_id=opponent.pk, name=opponent.get_username()
    )
    context = _sheet_context(request, opponent, terms, error=refusal.message if refusal else "")
    return TemplateResponse(request, SHEET, context, status=refusal.status if refusal else 200)


@require_POST
@login_required
def challenge_create(request: HttpRequest) -> HttpResponse:
    """Send the challenge. A live one's page waits for the answer; by correspondence the game's page
    opens at once, for the challenger's first roll."""
    username = request.POST.get("to", "").strip()
    actor = actor_from_request(request)
    terms = challenges.Terms()
    try:
        terms = _terms(request)
        challenge = challenges.challenge_send(actor=actor, username=username, terms=terms)
    except GameActionError as exc:
        opponent = get_user_model().objects.filter(username=username, is_active=True).first()
        if request.htmx or opponent is None:
            return message_response(request, exc.message, status=exc.status)
        # The sheet again, as it was sent (the choices the form cannot make are shown as they are).
        context = _sheet_context(request, opponent, terms, error=exc.message)
        return TemplateResponse(request, SHEET, context, status=exc.status)
    if challenge.game_id is not None:
        messages.success(
            request,
            _("Challenge sent to %(name)s. Play your first turn now: the game waits for their answer.")
            % {"name": username},
        )
        return _to(request, reverse("dicegame:game", args=[challenge.game_id]))
    return _to(request, reverse("dicegame:challenge", args=[challenge.pk]))


@require_GET
def challenge_detail(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """The challenge, to its two people: the answer to give, or the wait for it. Asked by htmx (its
    page following it after a ping): to the game once accepted, a reload once otherwise answered, else
    nothing."""
    user_id = request.user.pk if request.user.is_authenticated else None
    challenge = inbox.challenge_for(challenge_id=challenge_id, user_id=user_id)
    accepted = challenge.status == Challenge.Status.ACCEPTED and challenge.game_id is not None
    if request.htmx:
        if accepted:
            return HttpResponseClientRedirect(reverse("dicegame:game", args=[challenge.game_id]))
        if not challenge.is_pending:
            return HttpResponseClientRefresh()
        return HttpResponse(status=204)
    if accepted:
        return redirect("dicegame:game", challenge.game_id)
    context = {"challenge": challenge, "mine": challenge.from_user_id == user_id}
    return TemplateResponse(request, "dicegame/challenges/detail.html", context)


@require_POST
@login_required
def challenge_accept(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        game = challenges.challenge_accept(challenge_id=challenge_id, actor=actor_from_request(request))
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _to(request, reverse("dicegame:game", args=[game.pk]))


@require_POST
@login_required
def challenge_decline(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        challenge = challenges.challenge_decline(challenge_id=challenge_id, actor=actor_from_request(request))
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    name = challenge.from_user.get_username()
    messages.success(request, _("You declined the challenge from %(name)s.") % {"name": name})
    return _to(request, _back(request))


@require_POST
@login_required
def challenge_cancel(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        challenge = challenges.challenge_cancel(challenge_id=challenge_id, actor=actor_from_request(request))
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    name = challenge.to_user.get_username()
    messages.success(request, _("Your challenge to %(name)s is called off.") % {"name": name})
    return _to(request, _back(request))
