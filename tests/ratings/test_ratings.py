"""Rated games move Glicko-2 ratings once, as the pairwise results between the people say.

Every game here is played through the real services (rooms, turns, the clock's settlement); the
expected ratings are computed with `ratings.glicko2.rate` from the totals the game ended with.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Game, Turn
from dicegame.play import rooms
from dicegame.records import STAND_IN_TURN_LIMIT
from ratings import glicko2
from ratings.models import PROVISIONAL_RD, PlayerRating, RatingChange
from ratings.selectors import rating_of_user
from ratings.services import NEWCOMER_WEIGHT, game_rate
from tests.support.factories import UserFactory, actor
from tests.support.ratings import play_out, play_rated_turn, rated_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _computer_at_once(settings):
    # The computer's moves are due at once, so one settlement plays every computer turn in a row.
    settings.PENTA_BOT_STEP_SECONDS = 0


def people(n: int) -> list:
    return [UserFactory(username=f"rated{i}") for i in range(n)]


def expected_after(game: Game, forfeits=frozenset()) -> dict[int, glicko2.Rating]:
    """What glicko2.rate gives each person for the game's pairwise results, from 1500/350 before. Every
    person here plays their first rated game, so each result is against a newcomer and counts at
    NEWCOMER_WEIGHT (tests/ratings/test_fair_play.py has the settled players)."""
    seats = [p for p in game.players.all() if p.user_id]
    start = glicko2.Rating()
    out = {}
    for p in seats:
        results = []
        for q in seats:
            if q.pk == p.pk or (p.user_id in forfeits and q.user_id in forfeits):
                continue
            if p.user_id in forfeits:
                score = 0.0
            elif q.user_id in forfeits:
                score = 1.0
            else:
                score = 1.0 if p.total > q.total else 0.5 if p.total == q.total else 0.0
            results.append((start, score, NEWCOMER_WEIGHT))
        if results:
            out[p.user_id] = glicko2.rate(start, results)
    return out


def assert_ratings(expected: dict[int, glicko2.Rating], game: Game) -> None:
    for user_id, want in expected.items():
        row = PlayerRating.objects.get(user_id=user_id)
        assert row.rating == pytest.approx(want.rating, abs=1e-9)
        assert row.rd == pytest.approx(want.rd, abs=1e-9)
        assert row.volatility == pytest.approx(want.volatility, abs=1e-12)
        assert row.games == 1
        change = RatingChange.objects.get(game=game, user_id=user_id)
        assert (change.rating_before, change.rd_before) == (1500.0, 350.0)
        assert change.rating_after == pytest.approx(want.rating, abs=1e-9)
        assert change.weight == NEWCOMER_WEIGHT
    assert RatingChange.objects.filter(game=game).count() == len(expected)


def test_a_rated_two_player_game_moves_both_ratings_as_glicko2_says(strategy):
    a, b = people(2)
    game = play_out(rated_room(a, [b]), [a, b], worst=[b])
    assert game.rated and game.is_finished
    totals = {p.user_id: p.total for p in game.players.all()}
    assert totals[a.pk] > totals[b.pk]
    expected = expected_after(game)
    assert_ratings(expected, game)
    assert expected[a.pk].rating > 1500 > expected[b.pk].rating
    assert PlayerRating.objects.get(user=a).rd < 350


def test_a_rated_four_player_game_is_the_pairwise_results_in_one_period(strategy):
    a, b, c, d = people(4)
    game = play_out(rated_room(a, [b, c, d]), [a, b, c, d], worst=[d])
    expected = expected_after(game)
    assert len(expected) == 4
    assert_ratings(expected, game)
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert all(ch.opponents == 3 for ch in changes.values())
    # Three results each, from the totals.
    mine = game.players.get(user=d).total
    others = [p.total for p in game.players.exclude(user=d)]
    assert changes[d.pk].score == sum(1.0 if mine > t else 0.5 if mine == t else 0.0 for t in others)


def test_computer_seats_never_count(strategy):
    a, b = people(2)
    game = play_out(rated_room(a, [b], bots=["hard"]), [a, b])
    changes = list(RatingChange.objects.filter(game=game))
    assert {c.user_id for c in changes} == {a.pk, b.pk}
    assert all(c.opponents == 1 for c in changes)
    assert_ratings(expected_after(game), game)


def test_a_casual_game_moves_nothing(strategy):
    a, b = people(2)
    game = play_out(rated_room(a, [b], rated=False), [a, b])
    assert game.is_finished and not game.rated
    assert not PlayerRating.objects.exists() and not RatingChange.objects.exists()


def test_expired_and_cancelled_rooms_move_nothing(strategy, settings):
    a, b = people(2)
    game = rated_room(a, [b])
    play_rated_turn(game, a)
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - timedelta(days=8))
    assert rooms.games_expire_idle() == 1
    cancelled = rooms.room_create(actor=actor(a), seats=2, turn_seconds=60, rated=True)
    rooms.room_join_by_link(token=cancelled.invite_token, actor=actor(b))
    rooms.room_cancel(game_id=cancelled.pk, actor=actor(a))
    # The expired game is over for good: nothing finishes it, nothing is rated.
    with pytest.raises(GameActionError):
        play_rated_turn(game, b)
    assert not PlayerRating.objects.exists() and not RatingChange.objects.exists()


def test_a_player_who_leaves_forfeits_whatever_the_totals(strategy):
    stayer, leaver = people(2)
    game = rated_room(stayer, [leaver])

    def leave_in_round_5(t):
        if t.player.user_id == leaver.pk and t.round == 5 and t.player.left_at is None:
            rooms.seat_leave(game_id=game.pk, actor=actor(leaver))
            return True
        return False

    # The stayer writes the lowest box every turn; the computer plays the leaver's last 9 turns well.
    game = play_out(game, [stayer, leaver], worst=[stayer], on_turn=leave_in_round_5)
    totals = {p.user_id: p.total for p in game.players.all()}
    assert totals[leaver.pk] > totals[stayer.pk]
    expected = expected_after(game, forfeits={leaver.pk})
    assert_ratings(expected, game)
    assert PlayerRating.objects.get(user=leaver).rating < 1500 < PlayerRating.objects.get(user=stayer).rating
    change = RatingChange.objects.get(game=game, user=leaver)
    assert change.forfeit and change.score == 0


def test_more_stand_in_turns_than_the_limit_forfeits_even_with_the_seat_taken_back(strategy):
    a, b, c = people(3)
    game = rated_room(a, [b, c])
    timed_out: list[int] = []

    def time_out_b(t):
        # The turn timer runs out on b's first two turns: the computer plays them and then keeps the
        # seat, so it plays the third too; then b takes the seat back and plays the rest.
        seat_b = game.players.get(user=b)
        played_for_b = Turn.objects.filter(player=seat_b, stand_in=True, completed_at__isnull=False).count()
        if seat_b.stand_in and played_for_b > STAND_IN_TURN_LIMIT:
            rooms.seat_take_back(game_id=game.pk, actor=actor(b))
            return True
        if t.player.user_id == b.pk and len(timed_out) < 2:
            Turn.objects.filter(pk=t.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
            timed_out.append(t.number)
            return True
        return False

    game = play_out(game, [a, b, c], on_turn=time_out_b)
    seat_b = game.players.get(user=b)
    assert not seat_b.stand_in and seat_b.left_at is None  # at the table at the end
    assert Turn.objects.filter(player=seat_b, stand_in=True).count() == STAND_IN_TURN_LIMIT + 1
    assert_ratings(expected_after(game, forfeits={b.pk}), game)
    assert RatingChange.objects.get(game=game, user=b).forfeit


def test_two_forfeits_have_no_result_between_them(strategy):
    a, b, c = people(3)
    game = rated_room(a, [b, c])

    def leave(t):
        # In round 4: after three turns of their own, late enough to be a forfeit and not an abort.
        if t.player.user_id in (b.pk, c.pk) and t.round == 4 and t.player.left_at is None:
            rooms.seat_leave(game_id=game.pk, actor=actor(b if t.player.user_id == b.pk else c))
            return True
        return False

    game = play_out(game, [a, b, c], on_turn=leave)
    expected = expected_after(game, forfeits={b.pk, c.pk})
    assert_ratings(expected, game)
    changes = {ch.user_id: ch for ch in RatingChange.objects.filter(game=game)}
    assert (changes[a.pk].score, changes[a.pk].opponents) == (2.0, 2)
    assert (changes[b.pk].score, changes[b.pk].opponents) == (0.0, 1)


def test_a_rematch_of_a_rated_game_is_rated_and_starts_from_the_new_ratings(strategy):
    a, b = people(2)
    game = play_out(rated_room(a, [b]), [a, b], worst=[b])
    after_first = {r.user_id: r.rating for r in PlayerRating.objects.all()}
    rooms.rematch_accept(game_id=game.pk, actor=actor(a))
    rematch = rooms.rematch_accept(game_id=game.pk, actor=actor(b))
    assert rematch.rated
    rematch = play_out(rematch, [a, b])
    for user in (a, b):
        change = RatingChange.objects.get(game=rematch, user=user)
        assert change.rating_before == after_first[user.pk]
        assert PlayerRating.objects.get(user=user).games == 2


def test_rating_a_game_twice_changes_nothing(strategy):
    a, b = people(2)
    game = play_out(rated_room(a, [b]), [a, b])
    before = list(PlayerRating.objects.order_by("user_id").values_list("rating", "rd", "games"))
    assert game_rate(game, list(game.players.order_by("seat"))) == []
    assert list(PlayerRating.objects.order_by("user_id").values_list("rating", "rd", "games")) == before
    assert RatingChange.objects.filter(game=game).count() == 2


def test_hints_are_refused_in_a_rated_game(strategy):
    a, b = people(2)
    game = rated_room(a, [b])
    version = Game.objects.get(pk=game.pk).version
    with pytest.raises(GameActionError) as refused:
        play.game_set_hints(game_id=game.pk, actor=actor(a), on=True)
    assert refused.value.status == 409 and "rated" in refused.value.message
    game.refresh_from_db()
    assert game.version == version and not game.hints_used
    assert not game.players.filter(hints=True).exists()


def test_weeks_without_a_rated_game_widen_the_deviation_shown_and_used(strategy):

    a, b = people(2)
    play_out(rated_room(a, [b]), [a, b], worst=[b])
    long_ago = timezone.now() - timedelta(weeks=200)
    PlayerRating.objects.filter(user=a).update(rd=60.0, updated_at=long_ago)
    row = PlayerRating.objects.select_related("user").get(user=a)
    widened = glicko2.idle(glicko2.Rating(row.rating, 60.0, row.volatility), 200)
    assert widened.rd > PROVISIONAL_RD and row.provisional  # a rating left alone is uncertain again
    a.refresh_from_db()
    assert rating_of_user(a).rd == round(widened.rd) and rating_of_user(a).provisional

    # The next rated game starts from the widened deviation, and records it as the one before.
    game = play_out(rated_room(a, [b]), [a, b], worst=[b])
    change = RatingChange.objects.get(game=game, user=a)
    assert change.rd_before == pytest.approx(widened.rd, rel=1e-6)
