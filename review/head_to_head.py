"""Head-to-head records: a person against each of some others, over the finished games they shared."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count

from dicegame.models import Game, Player, Turn
from dicegame.records import counts_for_records, revealed_seats, stand_in_turns


@dataclass(frozen=True)
class HeadToHead:
    user_id: int
    username: str
    games: int
    wins: int
    losses: int
    shared: int
    my_average: float | None
    their_average: float | None
    # Games both left (resigned, or the computer kept both seats at the end): a loss for each against
    # those who stayed, and no result between the two, so they are in `games` but not in wins, losses
    # or shared.
    both_left: int = 0


def head_to_head(*, user_id: int, other_ids: Iterable[int]) -> list[HeadToHead]:
    """The user's record against each of these players over the finished games they both played.

    A game one of the two left is a loss for the one who left and a win for the other; a game both
    left is neither (counted in `both_left`). The averages leave out a player's games that do not count
    for records (`dicegame.records`).

    Four queries whatever the number of games, each reading rows by an index, and the pairing done here:
    correlated subqueries per game pair ("my total in this game", "did I leave it") made SQLite scan all
    of the user's seats for every game, quadratic in the history (30 s at 10,000 games)."""
    other_ids = list(other_ids)
    if not other_ids:
        return []
    mine: dict[int, dict] = {}
    for row in (
        revealed_seats(Player.objects.filter(user_id=user_id, game__status=Game.Status.FINISHED))
        .order_by("game_id", "seat")
        .values("game_id", "total", "left_at", "stand_in", "game__kind", "game__hints_used")
    ):
        game = mine.setdefault(
            row["game_id"],
            {
                "total": row["total"],
                "left": False,
                "stand_ins": 0,
                # Enough of the game for the records' rule (it is finished).
                "game": Game(
                    status=Game.Status.FINISHED, kind=row["game__kind"], hints_used=row["game__hints_used"]
                ),
            },
        )
        game["left"] |= row["left_at"] is not None or row["stand_in"]  # one seat's total, any seat's leaving
    for game_id, n in (
        Turn.objects.filter(player__user_id=user_id, stand_in=True)
        .order_by()
        .values("game_id")
        .annotate(n=Count("pk"))
        .values_list("game_id", "n")
    ):
        if game_id in mine:
            mine[game_id]["stand_ins"] = n
    theirs = (
        Player.objects.filter(
            user_id__in=other_ids,
            game__status=Game.Status.FINISHED,
            game_id__in=Player.objects.filter(user_id=user_id).values("game_id"),
        )
        .annotate(their_stand_ins=stand_in_turns())
        .values("user_id", "game_id", "total", "left_at", "stand_in", "their_stand_ins")
    )
    tally: dict[int, dict] = {}
    for row in theirs:
        me = mine.get(row["game_id"])
        if me is None:
            continue
        t = tally.setdefault(
            row["user_id"],
            {"games": 0, "wins": 0, "losses": 0, "shared": 0, "both_left": 0, "my": [], "their": []},
        )
        they_left = row["left_at"] is not None or row["stand_in"]
        both_stay = not me["left"] and not they_left
        t["games"] += 1
        t["wins"] += (both_stay and me["total"] > row["total"]) or (not me["left"] and they_left)
        t["losses"] += (both_stay and me["total"] < row["total"]) or (me["left"] and not they_left)
        t["shared"] += both_stay and me["total"] == row["total"]
        t["both_left"] += me["left"] and they_left
        if counts_for_records(game=me["game"], stand_in_turns=me["stand_ins"]):
            t["my"].append(me["total"])
        if counts_for_records(game=me["game"], stand_in_turns=row["their_stand_ins"]):
            t["their"].append(row["total"])
    out = []
    for user in get_user_model().objects.filter(pk__in=other_ids).order_by("username"):
        t = tally.get(user.pk)
        out.append(
            HeadToHead(
                user.pk,
                user.get_username(),
                t["games"] if t else 0,
                t["wins"] if t else 0,
                t["losses"] if t else 0,
                t["shared"] if t else 0,
                sum(t["my"]) / len(t["my"]) if t and t["my"] else None,
                sum(t["their"]) / len(t["their"]) if t and t["their"] else None,
                t["both_left"] if t else 0,
            )
        )
    return out
