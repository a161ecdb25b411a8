"""The daily challenge's pages: today's game (before playing: the commitment and Play; after: the
results), any day's results and leaderboards, the all-time table, and the commitments."""

from __future__ import annotations

import datetime as dt

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from accounts.selectors import friend_ids
from core.http import message_response
from daily import selectors, services, standings
from dicegame.actors import actor_from_request
from dicegame.errors import GameActionError
from dicegame.rules.days import day_end

DAY_TEMPLATE = "daily/day.html"


@require_GET
def commitments(request: HttpRequest) -> HttpResponse:
    # Publishing here keeps the next week committed even if the daily command did not run; a day's
    # commitment is then still out a week before its game (publish_daily is the guarantee).
    services.publish_commitments()
    ahead, past = selectors.commitments()
    context = {"ahead": ahead, "past": past, "today": services.today(), "zone": services.DAILY_ZONE.key}
    return TemplateResponse(request, "daily/commitments.html", context)


def _day_context(request: HttpRequest, date: dt.date) -> dict:
    actor = actor_from_request(request)
    first = services.today()
    services.close_ended(date=date)  # an attempt abandoned on a day gone counts with what was written
    known = selectors.page_versions(date, actor.user_id)
    attempt = (
        selectors.attempt_with_result(actor, date, known) if (actor.user_id or actor.guest_key) else None
    )
    viewer_id = request.user.pk if request.user.is_authenticated else None
    friends = friend_ids(user_id=viewer_id) if viewer_id else set()
    finished = attempt is not None and attempt.game.is_finished
    # Today's table is shown to those who have played it; a day gone, to everyone.
    boards_open = date < first or finished
    # Everyone's figures are shared by every viewer; the boards are cut from them for this one.
    day = selectors.day_boards(
        date, viewer_id=viewer_id, friend_ids=friends, boards_open=boards_open, known=known
    )
    result = None
    if finished:
        url = request.build_absolute_uri(reverse("daily:today"))
        result = selectors.day_result(attempt, friend_ids=friends, share_url=url, day=day.results)
    context = {
        "date": date,
        "is_today": date == first,
        "day_end": day_end(date),
        "zone": services.DAILY_ZONE.key,
        # The day's dice commitment (the template reads seed_row.commitment).
        "seed_row": {"commitment": day.commitment} if day.commitment else None,
        "played": day.played,
        "attempt": attempt,
        "result": result,
        "boards_open": boards_open,
        "friends_board": day.friends,
        "site_board": day.site,
        "site_fragment": day.site_fragment,
        "friends_fragment": day.friends_fragment,
        # (The first day of the calendar has none before it: 0001-01-01 was a 500.)
        "previous_day": date - dt.timedelta(days=1) if date > dt.date.min else None,
        "next_day": date + dt.timedelta(days=1) if date < first else None,
    }
    return context


@require_GET
def today(request: HttpRequest) -> HttpResponse:
    services.publish_commitments()
    return TemplateResponse(request, DAY_TEMPLATE, _day_context(request, services.today()))


@require_GET
def day(request: HttpRequest, date: str) -> HttpResponse:
    try:
        when = dt.date.fromisoformat(date)
    except ValueError:
        raise Http404 from None
    first = services.today()
    if when == first:
        return redirect("daily:today")
    if when > first:
        raise Http404
    return TemplateResponse(request, DAY_TEMPLATE, _day_context(request, when))


@require_POST
def play(request: HttpRequest) -> HttpResponse:
    actor = actor_from_request(request, create_guest=True)
    try:
        attempt, _created = services.attempt_start(actor=actor)
    except GameActionError as exc:
        return message_response(request, exc.message, status=exc.status)
    url = reverse("dicegame:game", args=[attempt.game_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_GET
def all_time(request: HttpRequest) -> HttpResponse:
    viewer_id = request.user.pk if request.user.is_authenticated else None
    friends = friend_ids(user_id=viewer_id) if viewer_id else set()
    friends_table, site_table, site_fragment, friends_fragment = standings.all_time_tables(
        viewer_id=viewer_id, friend_ids=friends
    )
    context = {
        "min_days": standings.ALL_TIME_MIN_DAYS,
        "friends_table": friends_table,
        "site_table": site_table,
        "site_fragment": site_fragment,
        "friends_fragment": friends_fragment,
    }
    return TemplateResponse(request, "daily/all_time.html", context)
