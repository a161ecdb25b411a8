"""The records' one rule (dicegame.records): which finished games count for a person's best total,
averages, accuracy and leaderboards. Every screen that shows a record uses it, so they agree: the end of
a game ("A new best!"), the statistics, the leaderboards, My games, the review and the CSV export.

The case that disagreed (issue 22, item 9): a resigned game with hints shown, with the person's highest
total. The end screen left it out (resigned) while the statistics counted it (they ignored hints) and
the leaderboards did not (hints)."""

from __future__ import annotations

import csv
import io
import itertools

import pytest
from django.utils import timezone

from dicegame import play, records
from dicegame.models import Game, Player, Turn
from dicegame.play import selectors
from dicegame.rules.scoring import Box, Scoresheet
from review import leaderboards
from review import stats as statistics
from tests.support.factories import GameFactory, PlayerFactory, UserFactory, actor, client_for

pytestmark = pytest.mark.django_db
LIMIT = records.STAND_IN_TURN_LIMIT


def test_the_queryset_and_the_seat_rule_agree_on_every_kind_of_game():
    """`counted_seats` (the statistics, leaderboards, end screen) and `counts_for_records` (My games,
    the review, the export) are one rule: for every mix of kind, hints, resigning and stand-in turns,
    they say the same."""
    user = UserFactory()
    cases = {}
    for kind, hints, resigned, stand_ins, status in itertools.product(
        [Game.Kind.SOLO, Game.Kind.COMPUTER, Game.Kind.FRIENDS, Game.Kind.LOCAL],
        [False, True],
        [False, True],
        [0, LIMIT, LIMIT + 1],
        [Game.Status.FINISHED, Game.Status.ACTIVE],
    ):
        game = GameFactory(kind=kind, hints_used=hints, status=status, finished_at=timezone.now())
        seat = PlayerFactory(game=game, user=user, total=100, left_at=timezone.now() if resigned else None)
        for n in range(stand_ins):
            Turn.objects.create(
                game=game, player=seat, number=n + 1, round=n + 1, held=[False] * 5, stand_in=True
            )
        cases[seat.pk] = (game, stand_ins)
    counted = set(records.counted_seats(Player.objects.filter(user=user)).values_list("pk", flat=True))
    by_seat = {pk: records.counts_for_records(game=game, stand_in_turns=n) for pk, (game, n) in cases.items()}
    assert counted == {pk for pk, counts in by_seat.items() if counts}
    # And the rule itself: finished, no hints, not local, at most LIMIT stand-in turns; resigning is
    # no reason.
    for pk, (game, n) in cases.items():
        expected = (
            game.status == Game.Status.FINISHED
            and not game.hints_used
            and game.kind != Game.Kind.LOCAL
            and n <= LIMIT
        )
        assert by_seat[pk] == expected, (game.kind, game.hints_used, game.status, n)


def _resigned_solo(user, boxes: dict[str, int], *, hints: bool) -> Game:
    """A solo game played through the services: hints shown (or not), some boxes written, resigned."""
    me = actor(user)
    game = play.game_create_solo(actor=me)
    if hints:
        play.game_set_hints(game_id=game.pk, actor=me, on=True)
    seat = Player.objects.get(game=game)
    seat.store_sheet(Scoresheet({Box[k]: v for k, v in boxes.items()}))
    seat.save()
    play.game_resign(game_id=game.pk, actor=me)
    game.refresh_from_db()
    return game


def _best_board(user) -> list[int]:
    boards = {b.key: b for b in leaderboards.leaderboards(user_ids=[user.pk], viewer_id=user.pk)}
    return [row.value for row in boards["best"].rows]


def _csv_counts(user) -> dict[int, str]:
    out = client_for(user).get("/games/export.csv")
    rows = csv.DictReader(io.StringIO(b"".join(out.streaming_content).decode()))
    return {int(r["game"]): r["counts_for_records"] for r in rows}


def test_a_resigned_game_with_hints_is_left_out_of_every_record_alike(user):
    client = client_for(user)
    honest = _resigned_solo(user, {"CHANCE": 20, "SIXES": 18}, hints=False)  # 38, resigned: counts
    html = client.get(f"/games/{honest.pk}/").content.decode()
    assert "Your first game that counts for records: your best so far." in html

    # The disagreeing case: resigned, hints shown, the highest total yet.
    hinted = _resigned_solo(user, {"CHANCE": 30, "LARGE_STRAIGHT": 40, "PENTA": 50}, hints=True)
    assert hinted.hints_used and Player.objects.get(game=hinted).total == 120

    # The end screen: no new best; it says why, and the best that stands.
    html = client.get(f"/games/{hinted.pk}/").content.decode()
    assert "new best" not in html.lower()
    assert "Hints were shown in this game: it does not count for records." in html
    assert 'data-best="38"' in html
    # The statistics, the leaderboards, My games and the export: the same best, the same game left out.
    stats = statistics.player_stats(user_id=user.pk)
    assert (stats.games, stats.counted, stats.best, stats.average) == (2, 1, 38, 38)
    assert _best_board(user) == [38]
    rows = {r.game.pk: r for r in selectors.history_page(actor=actor(user), page=1).object_list}
    assert rows[hinted.pk].not_counted and not rows[honest.pk].not_counted
    assert _csv_counts(user) == {honest.pk: "1", hinted.pk: "0"}
    assert "data-not-counted" in client.get(f"/games/{hinted.pk}/review/").content.decode()

    # A later resigned game without hints that beats 38 is a new best on every screen.
    later = _resigned_solo(user, {"CHANCE": 25, "FULL_HOUSE": 25}, hints=False)  # 50
    html = client.get(f"/games/{later.pk}/").content.decode()
    assert "A new best! Your best before this game was 38." in html
    assert statistics.player_stats(user_id=user.pk).best == 50
    assert _best_board(user) == [50]
    assert _csv_counts(user)[later.pk] == "1"


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_end_screen_says_why_a_game_does_not_count(user, language):
    game = GameFactory(kind=Game.Kind.SOLO, status=Game.Status.FINISHED, finished_at=timezone.now())
    seat = PlayerFactory(game=game, user=user, total=80, rank=1)
    for n in range(LIMIT + 1):
        Turn.objects.create(
            game=game, player=seat, number=n + 1, round=n + 1, held=[False] * 5, stand_in=True
        )
    c = client_for(user)
    c.cookies["django_language"] = language
    html = c.get(f"/games/{game.pk}/").content.decode()
    expected = {
        "en": f"The computer played more than {LIMIT} of your turns: it does not count for records.",
        "nl": f"De computer speelde meer dan {LIMIT} van je beurten: dit spel telt niet mee voor records.",
    }[language]
    assert expected in html
    assert "best so far" not in html and "beste tot nu toe" not in html
