"""The tournaments' pages: the list (with the form to make one), a tournament's page, and its actions
(enter, leave or withdraw, play a round). Thin: the rules are in `services`, `rounds` and `selectors`.
Every refusal answers 4xx with its message; every action is a plain form post, so the pages work
without JavaScript."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from core.http import int_field, message_response
from dicegame.errors import GameActionError
from tournaments import eligibility, lists, markup, rounds, selectors, services
from tournaments.models import MAX_ENTRANTS, MAX_ROUNDS, MIN_ENTRANTS, MIN_ROUNDS, Tournament

WINDOW_CHOICES = [
    (3600, gettext_lazy("an hour")),
    (3 * 3600, gettext_lazy("3 hours")),
    (8 * 3600, gettext_lazy("8 hours")),
    (86400, gettext_lazy("a day")),
    (2 * 86400, gettext_lazy("2 days")),
    (3 * 86400, gettext_lazy("3 days")),
]
START_CHOICES = [
    (0, gettext_lazy("now")),
    (3600, gettext_lazy("in an hour")),
    (3 * 3600, gettext_lazy("in 3 hours")),
    (86400, gettext_lazy("in a day")),
    (2 * 86400, gettext_lazy("in 2 days")),
    (7 * 86400, gettext_lazy("in a week")),
]
DEFAULTS = {
    "name": "",
    "rounds": 3,
    "window": 86400,
    "max_entrants": 8,
    "access": "invitation",
    "rated": True,
    "starts_in": 0,
}


def window_label(seconds: int) -> str:
    return str(dict(WINDOW_CHOICES).get(seconds) or _("%(n)d hours") % {"n": round(seconds / 3600)})


def _user_id(request: HttpRequest) -> int | None:
    return request.user.pk if request.user.is_authenticated else None


def _index_context(request: HttpRequest, form: dict | None = None, error: str = "") -> dict:
    user_id = _user_id(request)
    return {
        "weekly": lists.weekly(),
        "mine": lists.mine(user_id) if user_id else [],
        "open_to_me": lists.open_to(user_id),
        "past": lists.past(user_id),
        "form": form or DEFAULTS,
        "form_error": error,
        "window_choices": WINDOW_CHOICES,
        "start_choices": START_CHOICES,
        "round_choices": range(MIN_ROUNDS, MAX_ROUNDS + 1),
        "rated_entry_rule": eligibility.rated_entry_rule().text(),
        "rated_min_players": eligibility.rated_min_players(),
        "min_entrants": MIN_ENTRANTS,
        "max_entrants": MAX_ENTRANTS,
        "now": timezone.now(),
    }


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return TemplateResponse(request, "tournaments/index.html", _index_context(request))


@require_POST
def create(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return message_response(request, _("Log in to make a tournament."), status=403)
    form = {
        "name": request.POST.get("name", "")[:200],
        "access": request.POST.get("access", ""),
        "rated": request.POST.get("rated") == "1",
    }
    try:
        form |= {
            "rounds": int_field(request, "rounds"),
            "window": int_field(request, "window"),
            "max_entrants": int_field(request, "max_entrants"),
            "starts_in": int_field(request, "starts_in", 0),
        }
        t = services.tournament_create(
            user=request.user,
            name=form["name"],
            rounds=form["rounds"],
            window_seconds=form["window"],
            max_entrants=form["max_entrants"],
            access=form["access"],
            rated=form["rated"],
            starts_in=form["starts_in"],
        )
    except (services.TournamentError, GameActionError) as exc:
        if request.htmx:
            return message_response(request, exc.message, status=exc.status)
        context = _index_context(request, {**DEFAULTS, **form}, exc.message)
        return TemplateResponse(request, "tournaments/index.html", context, status=exc.status)
    return _to(request, reverse("tournaments:detail", args=[t.pk]))


def _to(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _detail_url(t: Tournament, token: str = "") -> str:
    url = reverse("tournaments:detail", args=[t.pk])
    return f"{url}?{urlencode({'t': token})}" if token else url


@require_GET
def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    user_id = _user_id(request)
    token = request.GET.get("t", "")
    t = selectors.tournament_for_viewer(tournament_id=tournament_id, user_id=user_id, token=token)
    # What fell due with no clock running is applied first (as the daily's page does): a round whose
    # window is over closes, a settled round gets its par, and a final table that a fair-play decision
    # has changed since it was written is written again.
    rounds.catch_up(tournament=t)
    url = request.build_absolute_uri(reverse("tournaments:detail", args=[t.pk]))
    viewer = request.user if request.user.is_authenticated else None
    page = selectors.page(t, viewer_id=user_id, token=token, share_url=url, viewer=viewer)
    context = {
        "tournament": t,
        "page": page,
        "rows": page.rows,
        "rows_html": markup.standings_rows(page.rows),
        "so_far_html": markup.so_far_rows(page.so_far) if page.so_far is not None else "",
        "views": page.data.views,
        "phase": page.phase,
        "token": token,
        "invite_url": request.build_absolute_uri(_detail_url(t, t.invite_token)),
        "window_label": window_label(t.window_seconds),
        "language": get_language(),
        "login_url": f"{reverse('accounts:login')}?{urlencode({'next': request.get_full_path()})}",
    }
    return TemplateResponse(request, "tournaments/detail.html", context)


def _back(request: HttpRequest, t_id: int) -> HttpResponse:
    token = request.POST.get("t", "")
    url = reverse("tournaments:detail", args=[t_id])
    return _to(request, f"{url}?{urlencode({'t': token})}" if token else url)


@require_POST
def enter(request: HttpRequest, tournament_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("tournaments:detail", args=[tournament_id]))
    try:
        services.entry_join(tournament_id=tournament_id, user=request.user, token=request.POST.get("t", ""))
    except services.TournamentError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _back(request, tournament_id)


@require_POST
def leave(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        services.entry_withdraw(tournament_id=tournament_id, user=request.user)
    except services.TournamentError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _back(request, tournament_id)


@require_POST
def play(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        game = services.round_play(tournament_id=tournament_id, user=request.user)
    except services.TournamentError as exc:
        return message_response(request, exc.message, status=exc.status)
    return _to(request, reverse("dicegame:game", args=[game.pk]))
