"""Export my data: everything Penta holds about a person, as one zip of JSON and CSV files (every field
is described in docs/data-export.md).

Asked for on the account page (`export_request`: at most EXPORTS_A_DAY a day, counted in its rows under
the person's row lock), made by the clock off the request path (`build_due`: an account with thousands
of games never holds a request), kept KEPT_FOR behind a signed link (`link_token`) that only its own
person, logged in, can open. What stays out, and why, is on the privacy page.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import zipfile
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core import signing
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import AccountDeletion, Block, DataExport, FriendRequest, LoginSession, Profile
from accounts.selectors import friend_ids
from chat.models import ChatLine, ChatReport, ChatTimeout
from daily.models import DailyAttempt
from dicegame.actors import Actor
from dicegame.models import Game, Player, Turn
from fairplay.models import PersonReport
from feedback.models import Report
from notifications.models import MailSettings, PushSubscription
from puzzles.models import Attempt, PuzzleRating
from ratings.models import PlayerRating, RatingChange, RatingRefund
from review.exports import history_csv
from tournaments.models import Entry, RoundGame

logger = logging.getLogger(__name__)

EXPORTS_A_DAY = 3
KEPT_FOR = timedelta(days=7)
BUILD_EVERY_SECONDS = 2.0
BUILD_BATCH = 5
LINK_SALT = "accounts.export"
FORMAT = "penta-export/1"


class ExportError(ValueError):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# -- asking, and the link --------------------------------------------------------------------------------


def export_request(*, user) -> DataExport:
    """Ask for an export; past EXPORTS_A_DAY in 24 hours refused (429) with nothing stored. The count and
    the new row are one step under the person's row lock: exports asked at once cannot pass the limit."""
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
        now = timezone.now()
        recent = DataExport.objects.filter(user_id=user.pk, requested_at__gt=now - timedelta(days=1))
        if recent.count() >= EXPORTS_A_DAY:
            raise ExportError(
                _("You have asked for %(n)d exports today: try again tomorrow, or use the last one.")
                % {"n": EXPORTS_A_DAY},
                status=429,
            )
        return DataExport.objects.create(user_id=user.pk, requested_at=now)


def link_token(export: DataExport) -> str:
    return signing.dumps({"u": export.user_id, "x": export.pk}, salt=LINK_SALT)


def export_for_link(*, token: str, user_id: int) -> DataExport:
    """The export a link names, if it is the asking person's, ready and not expired; else 404 (one
    answer for another's link, a forged one and an old one)."""
    try:
        data = signing.loads(token, salt=LINK_SALT, max_age=KEPT_FOR.total_seconds())
    except signing.BadSignature:
        data = None
    found = None
    if isinstance(data, dict) and data.get("u") == user_id:
        found = DataExport.objects.filter(
            pk=data.get("x"), user_id=user_id, ready_at__isnull=False, expires_at__gt=timezone.now()
        ).first()
    if found is None:
        raise ExportError(_("This download link is not valid or has expired."), status=404)
    return found


def exports_of(*, user_id: int) -> list[DataExport]:
    return list(DataExport.objects.filter(user_id=user_id).defer("content")[: EXPORTS_A_DAY * 2])


# -- the clock ---------------------------------------------------------------------------------------------


def build_due(now=None) -> int:
    """Make the exports asked for (a few a sweep, each claimed under its row lock so that one clock
    makes it), and forget the expired ones."""
    now = now or timezone.now()
    DataExport.objects.filter(expires_at__lte=now).delete()
    for _n in range(BUILD_BATCH):
        with transaction.atomic():
            export = (
                DataExport.objects.select_for_update(skip_locked=True)
                .filter(ready_at__isnull=True, error="")
                .order_by("requested_at", "pk")
                .defer("content")
                .first()
            )
            if export is None:
                break
            try:
                with transaction.atomic():  # a failure leaves the claim's transaction usable
                    content = build(user_id=export.user_id)
            except Exception:
                logger.exception("export %s not made", export.pk)
                export.error = "failed"
                export.save(update_fields=["error"])
                continue
            export.content, export.size = content, len(content)
            export.ready_at, export.expires_at = now, now + KEPT_FOR
            export.save(update_fields=["content", "size", "ready_at", "expires_at"])
    return 0


# -- what is in it -----------------------------------------------------------------------------------------


def _when(value):
    return value.isoformat() if value is not None else None


def build(*, user_id: int) -> bytes:
    """The zip of the person's data (JSON files, and CSV for the tables a spreadsheet opens)."""
    files = {
        "account.json": _account(user_id),
        "profile.json": _profile(user_id),
        "friends.json": _friends(user_id),
        "sessions.json": _sessions(user_id),
        "games.json": _games(user_id),
        "ratings.json": _ratings(user_id),
        "daily.json": _daily(user_id),
        "tournaments.json": _tournaments(user_id),
        "puzzles.json": _puzzles(user_id),
        "notifications.json": _notifications(user_id),
        "reports.json": _reports(user_id),
        "chat.json": _chat(user_id),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, json.dumps(data, indent=1, ensure_ascii=False))
        archive.writestr("games.csv", "".join(history_csv(actor=Actor(user_id=user_id))))
        archive.writestr("ratings.csv", _ratings_csv(files["ratings.json"]["changes"]))
        archive.writestr("README.txt", _readme())
    return buffer.getvalue()


def _readme() -> str:
    return (
        f"{FORMAT}\n"
        "Everything Penta holds about you. Each file and field is described in docs/data-export.md of\n"
        "Penta's source, and on the privacy page (/privacy/).\n"
    )


def _account(user_id: int) -> dict:
    user = get_user_model().objects.get(pk=user_id)
    deletion = AccountDeletion.objects.filter(user_id=user_id, erased_at__isnull=True).first()
    return {
        "format": FORMAT,
        "username": user.get_username(),
        "email": user.email,
        "date_joined": _when(user.date_joined),
        "last_login": _when(user.last_login),
        "two_factor": TOTPDevice.objects.filter(user_id=user_id, confirmed=True).exists(),
        "deletion_due_at": _when(deletion.due_at) if deletion else None,
    }


def _profile(user_id: int) -> dict:
    profile = Profile.objects.filter(user_id=user_id).first() or Profile(user_id=user_id)
    return {
        "leaderboard_opt_in": profile.leaderboard_opt_in,
        "games_visible_to": profile.games_visible_to,
        "challenges_from": profile.challenges_from,
        "findable": profile.findable,
        "time_zone": profile.time_zone,
        "muted": profile.muted_at is not None,
        "chat_reactions": profile.chat_reactions,
        "chat_strangers": profile.chat_strangers,
        "last_seen": _when(profile.last_seen),
    }


def _friends(user_id: int) -> dict:
    names = dict(
        get_user_model().objects.filter(pk__in=friend_ids(user_id=user_id)).values_list("pk", "username")
    )
    requests = FriendRequest.objects.filter(Q(from_user_id=user_id) | Q(to_user_id=user_id)).select_related(
        "from_user", "to_user"
    )

    def request_row(r: FriendRequest, other) -> dict:
        return {
            "name": other.get_username(),
            "status": r.status,
            "created_at": _when(r.created_at),
            "answered_at": _when(r.answered_at),
        }

    return {
        "friends": [{"name": n} for n in sorted(names.values())],
        "requests_sent": [request_row(r, r.to_user) for r in requests if r.from_user_id == user_id],
        "requests_received": [request_row(r, r.from_user) for r in requests if r.to_user_id == user_id],
        "blocked": [
            {"name": b.blocked.get_username(), "created_at": _when(b.created_at)}
            for b in Block.objects.filter(blocker_id=user_id).select_related("blocked")
        ],
    }


def _sessions(user_id: int) -> list:
    return [
        {"device": s.device, "created_at": _when(s.created_at), "last_seen": _when(s.last_seen)}
        for s in LoginSession.objects.filter(user_id=user_id)
    ]


def _games(user_id: int) -> list:
    mine = Player.objects.filter(Q(user_id=user_id) | Q(controller_id=user_id)).exclude(
        game__status__in=[Game.Status.CANCELLED, Game.Status.EXPIRED]
    )
    game_ids = sorted(set(mine.values_list("game_id", flat=True)))
    games = {g.pk: g for g in Game.objects.filter(pk__in=game_ids)}
    seats: dict[int, list[Player]] = {}
    for p in (
        Player.objects.filter(game_id__in=game_ids).order_by("game_id", "seat").iterator(chunk_size=2000)
    ):
        seats.setdefault(p.game_id, []).append(p)
    turns: dict[int, list[dict]] = {}
    seat_of = {p.pk: p.seat + 1 for ps in seats.values() for p in ps}
    for t in (
        Turn.objects.filter(game_id__in=game_ids, completed_at__isnull=False)
        .order_by("game_id", "number")
        .values("game_id", "number", "round", "player_id", "rolls", "box", "points", "bonus")
        .iterator(chunk_size=5000)
    ):
        turns.setdefault(t["game_id"], []).append(
            {
                "number": t["number"],
                "round": t["round"],
                "seat": seat_of.get(t["player_id"]),
                "rolls": t["rolls"],
                "box": t["box"],
                "points": t["points"],
                "bonus": t["bonus"],
            }
        )
    out = []
    for game_id in game_ids:
        game = games[game_id]
        secret = not game.is_finished or game.seed_secret_until is not None
        players = seats.get(game_id, [])
        out.append(
            {
                "game": game.pk,
                "kind": game.kind,
                "status": game.status,
                "pace": game.pace,
                "rated": game.rated,
                "created_at": _when(game.created_at),
                "finished_at": _when(game.finished_at),
                "seed": None if secret else game.seed,
                "seed_commitment": game.seed_commitment,
                "my_seats": [p.seat + 1 for p in players if user_id in (p.user_id, p.controller_id)],
                "players": [
                    {
                        "seat": p.seat + 1,
                        "name": p.display_name,
                        "computer": p.bot_strength or None,
                        "total": p.total,
                        "rank": p.rank,
                        "left": p.left_at is not None,
                    }
                    for p in players
                ],
                "turns": turns.get(game_id, []),
            }
        )
    return out


def _ratings(user_id: int) -> dict:
    rating = PlayerRating.objects.filter(user_id=user_id).first()
    return {
        "rating": {"rating": rating.rating, "rd": rating.rd, "games": rating.games} if rating else None,
        "changes": [
            {
                "game": c.game_id,
                "created_at": _when(c.created_at),
                "rating_before": c.rating_before,
                "rating_after": c.rating_after,
                "rd_after": c.rd_after,
                "score": c.score,
                "opponents": c.opponents,
                "forfeit": c.forfeit,
                "weight": c.weight,
            }
            for c in RatingChange.objects.filter(user_id=user_id).order_by("created_at", "pk")
        ],
        "refunds": [
            {"game": r.game_id, "points": r.points, "created_at": _when(r.created_at)}
            for r in RatingRefund.objects.filter(user_id=user_id).order_by("created_at", "pk")
        ],
    }


def _ratings_csv(changes: list[dict]) -> str:
    buffer = io.StringIO()
    fields = ["game", "created_at", "rating_before", "rating_after", "rd_after", "score", "opponents"]
    fields += ["forfeit", "weight"]
    writer = csv.DictWriter(buffer, fieldnames=fields)
    writer.writeheader()
    writer.writerows(changes)
    return buffer.getvalue()


def _daily(user_id: int) -> list:
    return [
        {
            "date": a.date.isoformat(),
            "game": a.game_id,
            "ranked": a.ranked,
            "started_at": _when(a.started_at),
            "total": a.game.players.filter(user_id=user_id).values_list("total", flat=True).first(),
        }
        for a in DailyAttempt.objects.filter(user_id=user_id).select_related("game").order_by("date")
    ]


def _tournaments(user_id: int) -> list:
    entries = Entry.objects.filter(user_id=user_id).select_related("tournament").order_by("joined_at")
    rounds: dict[int, list] = {}
    for g in (
        RoundGame.objects.filter(entry__user_id=user_id).select_related("round").order_by("round__number")
    ):
        rounds.setdefault(g.entry_id, []).append(
            {
                "round": g.round.number,
                "game": g.game_id,
                "total": g.total,
                "finished_at": _when(g.finished_at),
            }
        )
    return [
        {
            "tournament": e.tournament_id,
            "name": e.tournament.name,
            "joined_at": _when(e.joined_at),
            "withdrawn_at": _when(e.withdrawn_at),
            "place": e.place,
            "score": e.score,
            "rounds": rounds.get(e.pk, []),
        }
        for e in entries
    ]


def _puzzles(user_id: int) -> dict:
    rating = PuzzleRating.objects.filter(user_id=user_id).first()
    return {
        "rating": {
            "rating": rating.rating,
            "rd": rating.rd,
            "attempts": rating.attempts,
            "solved": rating.solved,
        }
        if rating
        else None,
        "attempts": [
            {
                "puzzle": a.puzzle_id,
                "choice": a.choice,
                "correct": a.correct,
                "rating_before": a.rating_before,
                "rating_after": a.rating_after,
                "created_at": _when(a.created_at),
            }
            for a in Attempt.objects.filter(user_id=user_id).order_by("created_at", "pk")
        ],
    }


def _notifications(user_id: int) -> dict:
    mail = MailSettings.objects.filter(user_id=user_id).first()
    return {
        # The devices' push addresses and keys are secrets of the browser's: left out.
        "devices": [
            {
                "label": d.label,
                "language": d.language,
                "created_at": _when(d.created_at),
                "last_sent_at": _when(d.last_sent_at),
            }
            for d in PushSubscription.objects.filter(user_id=user_id)
        ],
        "mail": {
            "address": mail.address,
            "confirmed_at": _when(mail.confirmed_at),
            "digest": mail.digest,
            "language": mail.language,
        }
        if mail
        else None,
    }


def _reports(user_id: int) -> dict:
    return {
        "problems": [
            {
                "created_at": _when(r.created_at),
                "message": r.message,
                "page": r.page,
                "game": r.game_id,
                "status": r.status,
            }
            for r in Report.objects.filter(user_id=user_id).order_by("created_at", "pk")
        ],
        "people": [
            {
                "created_at": _when(r.created_at),
                "reported": r.reported_name,
                "reason": r.reason,
                "message": r.message,
                "game": r.game_id,
                "status": r.status,
            }
            for r in PersonReport.objects.filter(reporter_id=user_id).order_by("created_at", "pk")
        ],
    }


def _chat(user_id: int) -> dict:
    # Others' lines are theirs: a person's export holds the lines they said, the lines they reported
    # (which staff were shown), and the time-outs on them.
    return {
        "lines": [
            {
                "game": line.game_id,
                "room": line.room,
                "kind": line.kind,
                "text": line.text,
                "created_at": _when(line.created_at),
                "hidden": line.hidden,
            }
            for line in ChatLine.objects.filter(sender_id=user_id).order_by("created_at", "pk")
        ],
        "reported": [
            {"line": r.line_id, "game": r.line.game_id, "created_at": _when(r.created_at), "status": r.status}
            for r in ChatReport.objects.filter(reporter_id=user_id)
            .select_related("line")
            .order_by("created_at")
        ],
        "timeouts": [
            {"created_at": _when(t.created_at), "until": _when(t.until), "reason": t.reason}
            for t in ChatTimeout.objects.filter(user_id=user_id).order_by("created_at", "pk")
        ],
    }
