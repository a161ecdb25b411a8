"""Reports about a person (cheating, abuse, an offensive name), into staff's queue beside the fair-play
cases, within the same limits as problem reports (per person and per client address, in a window:
PENTA_REPORTS_PER_PERSON, PENTA_REPORTS_PER_ADDRESS, PENTA_REPORT_WINDOW_SECONDS), counted in atomic
steps in the cache (accounts.throttle.take): reports sent at once cannot pass the limit, and a refused
one stores nothing. And what fair play forgets of an erased account."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.translation import gettext as _

from accounts import blocks
from accounts.throttle import client_key, give_back, take
from dicegame import events
from dicegame.actors import Actor
from dicegame.models import Game
from dicegame.play.selectors import game_visible
from fairplay.models import WAITING_AS_FED, Case, GameSignals, HiddenTurn, PersonReport

MESSAGE_MAX_LENGTH = 2000


class PersonReportRefused(Exception):
    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def reported_person(username: str):
    """The active account of that exact name, or 404."""
    username = (username or "").strip()
    found = get_user_model().objects.filter(is_active=True, username=username).first() if username else None
    if found is None:
        raise PersonReportRefused(
            _("There is no player called %(name)s.") % {"name": username[:150]}, status=404
        )
    return found


def report_game(*, reporter_id: int, reported_id: int, game_id) -> Game | None:
    """The game named in the report, if the reporter may see it and the reported person has a seat in it
    (anything else in the link is dropped: it is the reporter's to change)."""
    try:
        game_id = int(game_id)
    except (TypeError, ValueError):
        return None
    game = Game.objects.filter(pk=game_id).prefetch_related("players").first()
    if game is None or not any(p.user_id == reported_id for p in game.players.all()):
        return None
    return game if game_visible(game=game, actor=Actor(user_id=reporter_id)) else None


def person_report_submit(
    *, reporter, username: str, reason: str, message: str, game_id=None, address: str | None = None
) -> PersonReport:
    """Store a report about a person, or refuse it (400 bad input, 404 nobody of that name, 429 too many
    lately) and store nothing."""
    reported = reported_person(username)
    if reported.pk == reporter.pk:
        raise PersonReportRefused(_("You cannot report yourself."), status=400)
    if reason not in PersonReport.Reason.values:
        raise PersonReportRefused(_("Choose what the report is about."), status=400)
    message = (message or "").strip()
    if len(message) > MESSAGE_MAX_LENGTH:
        raise PersonReportRefused(
            _("Keep it under %(limit_value)d characters, please.") % {"limit_value": MESSAGE_MAX_LENGTH}
        )
    game = report_game(reporter_id=reporter.pk, reported_id=reported.pk, game_id=game_id)
    window = settings.PENTA_REPORT_WINDOW_SECONDS
    counts = [(f"penta:person-reports:user:{reporter.pk}", settings.PENTA_REPORTS_PER_PERSON)]
    if address:
        counts.append(
            (f"penta:person-reports:addr:{client_key(address)}", settings.PENTA_REPORTS_PER_ADDRESS)
        )
    if take(counts, window) is not None:
        raise PersonReportRefused(
            _(
                "You have sent several reports in a short time: thank you! Please wait up to %(n)d "
                "minutes before sending another."
            )
            % {"n": max(1, window // 60)},
            status=429,
        )
    try:
        return PersonReport.objects.create(
            reporter=reporter,
            reported=reported,
            reported_name=reported.get_username(),
            reason=reason,
            message=message,
            game=game,
        )
    except Exception:
        for key, _limit in counts:
            give_back(key)
        raise


def staff_act(report: PersonReport, *, by, action: str, name: str = "", note: str = "") -> str:
    """What staff do on a report: rename the reported account, mute or unmute it, close it, or close the
    report (each also records who and the note). Returns what was done, for staff's message; a refused
    action (a bad or taken name, an unknown action) raises BlockError and changes nothing."""
    note = (note or "").strip()[:2000]
    user_id = report.reported_id
    if action == "rename":
        new = blocks.account_rename(user_id=user_id, name=name)
        done = _("Renamed to %(name)s.") % {"name": new}
    elif action == "mute":
        blocks.account_mute(user_id=user_id, on=True)
        done = _("Muted: the account sends no friend requests, invitations, challenges or messages.")
    elif action == "unmute":
        blocks.account_mute(user_id=user_id, on=False)
        done = _("No longer muted.")
    elif action == "close_account":
        blocks.account_close(user_id=user_id)
        done = _("The account is closed: it can no longer log in.")
    elif action == "close":
        done = _("The report is closed.")
    else:
        raise blocks.BlockError(_("Choose what to do."), status=400)
    PersonReport.objects.filter(pk=report.pk).update(
        status=PersonReport.Status.CLOSED if action == "close" else PersonReport.Status.SEEN,
        handled_by=by,
        note=note or report.note,
    )
    return done


def on_account_erased(event: events.AccountErased) -> None:
    """An erased account: the signals and hidden turns no open case needs go (a flagged case, or one
    waiting for staff as fed, keeps its evidence until staff decide); a decided case keeps only its
    decision. Its reports about others stay for staff, without its name."""
    user_id = event.user_id
    case = Case.objects.filter(user_id=user_id).first()
    is_open = case is not None and (
        case.status == Case.Status.FLAGGED or Case.objects.filter(WAITING_AS_FED, pk=case.pk).exists()
    )
    if not is_open:
        GameSignals.objects.filter(user_id=user_id).delete()
        HiddenTurn.objects.filter(user_id=user_id).delete()
        if case is not None and case.status in (Case.Status.OPEN, Case.Status.CLEARED):
            case.delete()
    PersonReport.objects.filter(Q(reporter_id=user_id)).update(reporter=None)
