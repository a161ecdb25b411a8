"""The puzzle screens: the list with the player's puzzle rating, the next puzzle, and solving one."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from dicegame.labels import box_label
from dicegame.rules import days
from dicegame.rules.scoring import UPPER_BONUS, UPPER_BONUS_THRESHOLD, Box
from dicegame.screen import hint_words
from dicegame.screen.markup import pips
from puzzles import selectors, services
from puzzles.models import THEME_LABELS, Puzzle
from puzzles.positions import Option

SEEN_KEY = "puzzles_seen"  # a guest's tried puzzles (they have no rating to exclude them by)
SEEN_LIMIT = 500

# The browser's mark (PuzzleReveal.device). Not the session: logging in or out replaces the session,
# and seeing an answer as a guest, or from another account, in the same browser must still count.
# Signed so that a made-up or altered value is no mark at all (a new one is set); it proves nothing
# about a visitor who clears their cookies, which no cookie can.
DEVICE_COOKIE = "penta_device"
DEVICE_SALT = "puzzles.device"
DEVICE_MAX_AGE = 2 * 365 * 24 * 60 * 60
_DEVICE_SHAPE = re.compile(r"[A-Za-z0-9_-]{32}")


def _user(request: HttpRequest):
    return request.user if request.user.is_authenticated else None


def _known_device(request: HttpRequest) -> str:
    """This browser's mark, or "" when it has none or the cookie's signature does not hold."""
    value = request.get_signed_cookie(DEVICE_COOKIE, default="", salt=DEVICE_SALT, max_age=DEVICE_MAX_AGE)
    return value if _DEVICE_SHAPE.fullmatch(value) else ""


@dataclass(frozen=True)
class Device:
    id: str
    new: bool  # made for this request: the response sets it (`_mark`)


def _device(request: HttpRequest) -> Device:
    """This browser's mark, made now when it has none."""
    known = _known_device(request)
    return Device(known, False) if known else Device(secrets.token_urlsafe(24), True)


def _mark(response: HttpResponse, device: Device) -> HttpResponse:
    if not device.new:
        return response
    response.set_signed_cookie(
        DEVICE_COOKIE,
        device.id,
        salt=DEVICE_SALT,
        max_age=DEVICE_MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )
    return response


def _theme(request: HttpRequest) -> str:
    return request.GET.get("theme", "") or ""


def _bad_theme() -> HttpResponse:
    return HttpResponseBadRequest(_("There is no such theme."))


def option_sentence(option: Option, rolls_left: int) -> str:
    """A choice in plain words (dicegame.screen.hint_words): "Keep the two 4s", "Write 25 in Full house"."""
    if option.box is not None:
        return hint_words.box_sentence(option.box, option.points, stop_rolling=rolls_left > 0)
    return hint_words.keep_sentence(option.keep)


def own_mistake_line(source) -> str:
    """ "In your game of <date> you kept the two 4s here; find better." """
    chosen = Option.from_json(source.chosen)
    moment = source.game.finished_at or source.game.created_at
    date = date_format(timezone.localtime(moment), "DATE_FORMAT", use_l10n=True)
    if chosen.box is not None:
        return _("In your game of %(date)s you wrote %(points)s in %(box)s here; find better.") % {
            "date": date,
            "points": chosen.points,
            "box": box_label(chosen.box),
        }
    if not chosen.keep:
        return _("In your game of %(date)s you rolled all five again here; find better.") % {"date": date}
    return _("In your game of %(date)s you kept %(dice)s here; find better.") % {
        "date": date,
        "dice": hint_words.dice_words(chosen.keep),
    }


@dataclass(frozen=True)
class Row:
    box: Box
    label: str
    points: int | None  # written
    option: int | None  # what the dice would write here, if legal

    @property
    def name(self) -> str:
        return self.box.name


@dataclass(frozen=True)
class AnswerLine:
    sentence: str
    value: float
    cost: float
    is_best: bool
    is_mine: bool


def _position(puzzle: Puzzle) -> dict:
    sheet = puzzle.sheet
    legal = sheet.options(tuple(puzzle.dice))
    rows = [Row(b, box_label(b), sheet.boxes.get(b), legal.get(b)) for b in Box]
    dice = [
        {"index": i, "value": v, "pips": pips(v), "label": _("Die %(n)s: %(v)s") % {"n": i, "v": v}}
        for i, v in enumerate(puzzle.dice, start=1)
    ]
    return {
        "sheet": sheet,
        "upper_rows": [r for r in rows if r.box.is_upper],
        "lower_rows": [r for r in rows if not r.box.is_upper],
        "dice": dice,
        "upper_to_go": max(0, UPPER_BONUS_THRESHOLD - sheet.upper_total),
        "upper_bonus": UPPER_BONUS,
        "upper_threshold": UPPER_BONUS_THRESHOLD,
        "round": 14 - len(sheet.open_boxes),
    }


def _answer_context(puzzle: Puzzle, result: services.Answer) -> dict:
    lines = [
        AnswerLine(
            sentence=option_sentence(o, puzzle.rolls_left),
            value=o.value,
            cost=result.best.value - o.value,
            is_best=o.key == result.best.key,
            is_mine=o.key == result.chosen.key,
        )
        for o in result.shown
    ]
    # Once answered, the position shows the best choice (its dice or its box) and takes no other.
    dice = tuple(puzzle.dice)
    best_keep = chosen_keep = ()
    if result.best.box is None:
        best_keep = hint_words.keep_positions(dice, result.best.keep)
    if result.chosen.box is None:
        chosen_keep = hint_words.keep_positions(dice, result.chosen.keep)
    second = option_sentence(result.second, puzzle.rolls_left)
    reason = _("%(best)s: on average %(margin)s points more than the next best choice (%(second)s).") % {
        "best": option_sentence(result.best, puzzle.rolls_left),
        "margin": f"{result.best.value - result.second.value:.1f}",
        "second": second[:1].lower() + second[1:],
    }
    change = result.rating_change
    return {
        "answer": result,
        "lines": lines,
        "best_dice": {i for i, kept in enumerate(best_keep, start=1) if kept},
        "chosen_dice": {i for i, kept in enumerate(chosen_keep, start=1) if kept},
        "best_box": result.best.box.name if result.best.box is not None else "",
        "chosen_box": result.chosen.box.name if result.chosen.box is not None else "",
        "reason": reason,
        "rating_before": round(result.rating_before) if result.rating_before is not None else None,
        "rating_after": round(result.rating_after) if result.rating_after is not None else None,
        "rating_change": round(change) if change is not None else None,
    }


def _page(
    request: HttpRequest, puzzle: Puzzle, device: Device, *, status: int = 200, **extra
) -> HttpResponse:
    """The puzzle's page (or, for htmx, its answer region), with the browser's mark set if it is new:
    every page of a puzzle is where an answer may be shown next."""
    user = _user(request)
    theme = _theme(request)
    source = selectors.own_source(puzzle, user)
    context = {
        "puzzle": puzzle,
        "theme": theme,
        "theme_labels": THEME_LABELS,
        "puzzle_themes": [THEME_LABELS[t] for t in puzzle.themes],
        "own_line": own_mistake_line(source) if source else "",
        "own_source": source,
        "is_daily": services.daily_puzzle(days.today(timezone.now())) == puzzle,
        # Before answering only: with an answer shown, its own line says what counted and why.
        "practice_note": "" if "answer" in extra else selectors.practice_reason(puzzle, user, device.id),
        "next_url": reverse("puzzles:next") + (f"?{urlencode({'theme': theme})}" if theme else ""),
        "form_url": reverse("puzzles:puzzle", args=[puzzle.pk])
        + (f"?{urlencode({'theme': theme})}" if theme else ""),
        **_position(puzzle),
        **extra,
    }
    if not request.htmx:
        template = "puzzles/puzzle.html"
    elif "answer" in extra:
        # The answer, and the position redrawn answered: the best choice marked, nothing to click.
        template = "puzzles/puzzle.html#puzzle-answered"
    else:
        template = "puzzles/puzzle.html#puzzle-answer"
    response = TemplateResponse(request, template, context, status=status)
    return _mark(response, device)


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    context = {
        "stats": selectors.stats(user, _known_device(request)),
        "theme_labels": THEME_LABELS,
        "daily": services.daily_puzzle(days.today(timezone.now())),
        "empty": request.GET.get("empty") == "1",
        "theme": _theme(request) if selectors.valid_theme(_theme(request)) else "",
    }
    return TemplateResponse(request, "puzzles/index.html", context)


@require_GET
def next_puzzle(request: HttpRequest) -> HttpResponse:
    theme = _theme(request)
    if not selectors.valid_theme(theme):
        return _bad_theme()
    seen = request.session.get(SEEN_KEY, []) if not request.user.is_authenticated else ()
    puzzle = selectors.next_puzzle(
        user=_user(request), theme=theme or None, seen=seen, device=_known_device(request)
    )
    query = f"?{urlencode({'theme': theme})}" if theme else ""
    if puzzle is None:
        return redirect(reverse("puzzles:index") + (f"{query}&" if query else "?") + "empty=1")
    return redirect(reverse("puzzles:puzzle", args=[puzzle.pk]) + query)


def _keep_indices(request: HttpRequest) -> list[int] | None:
    """The dice marked to keep (1-5), or None when a value is not a die's number."""
    values = request.POST.getlist("keep")
    if any(not (len(v) == 1 and v in "12345") for v in values):
        return None
    return [int(v) for v in values]


@require_http_methods(["GET", "POST"])
def puzzle(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    found = get_object_or_404(Puzzle, pk=puzzle_id)
    if not selectors.valid_theme(_theme(request)):
        return _bad_theme()
    device = _device(request)
    if request.method == "GET":
        return _page(request, found, device)
    box = request.POST.get("box")
    try:
        if box is None and request.POST.get("action") != "keep":
            raise services.PuzzleError(_("Choose the dice to keep and roll, or a box."))
        keep = None if box is not None else _keep_indices(request)
        if box is None and keep is None:
            raise services.PuzzleError(_("Choose dice 1 to 5, each at most once."))
        choice = services.choice_of(found, box=box, keep=keep)
        result = services.answer(found, choice, user=_user(request), device=device.id)
    except services.PuzzleError as exc:
        return _page(request, found, device, status=exc.status, error=exc.message)
    if not request.user.is_authenticated:
        seen = request.session.get(SEEN_KEY, [])
        if found.pk not in seen:
            request.session[SEEN_KEY] = [*seen, found.pk][-SEEN_LIMIT:]
    return _page(request, found, device, **_answer_context(found, result))
