"""Feeding (issue 38, finding 3): only rated results that moved ratings, with the feeders' own turns,
are evidence; the feeders are flagged, and the account they fed stays on every board and in every
tournament placing until staff decide.

Every game is played through the real services (rooms, the clock's settlement, the ratings), and the
fair-play sweep runs as the clock runs it (`tests.support.fairplay.assess`)."""

from __future__ import annotations

import importlib
import logging

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Profile
from accounts.selectors import off_board_ids
from dicegame.models import Game, Turn
from dicegame.play import rooms
from fairplay import selectors, services
from fairplay.models import FEEDER_LOSSES, FEEDERS, Case
from ratings.models import RatingChange
from review.leaderboards import leaderboards
from tests.support.factories import UserFactory, actor, client_for
from tests.support.fairplay import assess
from tests.support.ratings import play_out, rated_room
from tests.support.tournaments import made_up_round_game, round_of, tournament_of
from tournaments import rounds
from tournaments import selectors as tournament_selectors
from tournaments.models import Entry

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _computer_at_once(settings):
    settings.PENTA_BOT_STEP_SECONDS = 0


def standing(user) -> str:
    profile = Profile.objects.filter(user=user).first()
    return profile.standing if profile else Profile.Standing.GOOD


def on_the_best_board(user, viewer) -> bool:
    board = next(b for b in leaderboards(user_ids=[user.pk], viewer_id=viewer.pk) if b.key == "best")
    return user.username in [r.username for r in board.rows]


def placed_in_a_tournament(user, other, viewer) -> bool:
    """A one-round tournament of `user` and `other` (made-up totals, `user` ahead), settled: is `user`
    in its table as `viewer` sees it, and placed?"""
    t = tournament_of(user, other, rounds=1, rated=False)
    r1 = round_of(t, 1)
    for who, total in ((user, 240), (other, 180)):
        made_up_round_game(Entry.objects.get(tournament=t, user=who), r1, total)
    assert rounds.round_settle(round_id=r1.pk, now=r1.closes_at)  # its window over
    rows = tournament_selectors.table(tournament_selectors.load(t, viewer_id=viewer.pk), viewer_id=viewer.pk)
    return any(r.name == user.username and r.place == 1 for r in rows)


def stand_ins_play(game: Game):
    """on_turn for play_out: a seat the computer keeps plays itself (the clock's settlement)."""

    def on_turn(t: Turn) -> bool:
        return t.player.stand_in

    return on_turn


# -- the attack found ---------------------------------------------------------------------------------


def test_three_accounts_that_leave_a_rated_room_at_once_get_nobody_flagged(strategy):
    """Three accounts make rated 4-seat rooms, the victim joins, the three leave at once: every game is
    a rated win by rank for the victim, and no rating moves (three early forfeits: aborts)."""
    victim, viewer, other = UserFactory(username="victim"), UserFactory(), UserFactory(username="other")
    throwaways = [UserFactory(username=f"throwaway{i}") for i in range(FEEDERS)]
    for i in range(FEEDER_LOSSES):
        host, *rest = throwaways[i:] + throwaways[:i]
        game = rated_room(host, [*rest, victim])
        for who in throwaways:  # at once, before any of their turns
            rooms.seat_leave(game_id=game.pk, actor=actor(who))
        game = play_out(game, [victim], on_turn=stand_ins_play(game))
        assert game.rated and game.is_finished
        assert game.players.get(user=victim).rank == 1
        assert not RatingChange.objects.filter(game=game).exists()  # nothing moved
    assess()  # the clock's sweep, as 46 s after the games

    assert services.feeders_of(victim.pk) == []
    assert not Case.objects.exclude(status=Case.Status.OPEN).exists()
    assert standing(victim) == Profile.Standing.GOOD
    assert not off_board_ids().filter(user_id=victim.pk).exists()
    assert on_the_best_board(victim, viewer)
    assert placed_in_a_tournament(victim, other, viewer)


def test_feeders_who_left_or_let_the_computer_play_are_no_evidence(strategy):
    """Rated forfeits that did move ratings (each throwaway left after four turns of its own), but the
    seats were not played by the people: they say nothing about losing on purpose."""
    victim = UserFactory(username="victim")
    throwaways = [UserFactory(username=f"throwaway{i}") for i in range(FEEDERS)]

    def leave_late(t: Turn) -> bool:
        if t.player.stand_in:
            return True
        if t.player.user_id != victim.pk and t.round == 5:
            rooms.seat_leave(game_id=t.game_id, actor=actor(t.player.user))
            return True
        return False

    for _ in range(FEEDER_LOSSES):
        game = rated_room(throwaways[0], [*throwaways[1:], victim])
        game = play_out(game, [victim, *throwaways], on_turn=leave_late)
        assert RatingChange.objects.filter(game=game).count() == 1 + FEEDERS  # forfeits: rated
    assess()
    assert services.feeders_of(victim.pk) == []
    assert not Case.objects.exclude(status=Case.Status.OPEN).exists()
    assert standing(victim) == Profile.Standing.GOOD


# -- a real ring ----------------------------------------------------------------------------------------


@pytest.fixture
def ring(strategy):
    """Three accounts that lose every rated game they play, played out to the end, to one winner: the
    games moved ratings."""
    winner = UserFactory(username="winner")
    feeders = [UserFactory(username=f"feeder{i}") for i in range(FEEDERS)]
    for _ in range(FEEDER_LOSSES):
        game = play_out(rated_room(winner, feeders), [winner, *feeders], worst=feeders)
        assert game.players.get(user=winner).rank == 1
        assert RatingChange.objects.filter(game=game).count() == 1 + FEEDERS
    return winner, feeders


def test_a_ring_gets_its_feeders_flagged_and_the_fed_account_stays_on_the_boards(ring, caplog):
    winner, feeders = ring
    viewer, other = UserFactory(), UserFactory(username="other")
    assess()  # at the logging levels the settings give (no caplog.at_level): a flag must show there

    assert services.feeders_of(winner.pk) == sorted(f.pk for f in feeders)
    for feeder in feeders:
        case = Case.objects.get(user=feeder)
        assert case.status == Case.Status.FLAGGED and case.reason == Case.Reason.FEEDING
        assert case.fed_id == winner.pk
        assert standing(feeder) == Profile.Standing.REVIEW
    # The fed account: its case says who fed it, for staff; nothing hides it.
    fed = Case.objects.get(user=winner)
    assert fed.status == Case.Status.OPEN and fed.feeders == sorted(f.pk for f in feeders)
    assert fed.fed_at is not None
    assert standing(winner) == Profile.Standing.GOOD
    assert on_the_best_board(winner, viewer)
    assert placed_in_a_tournament(winner, other, viewer)
    # Staff's queue holds the feeders (flagged) and the fed account (waiting, on the boards).
    assert {c.user_id for c in selectors.queue()} == {winner.pk, *(f.pk for f in feeders)}
    flags = [r for r in caplog.records if r.name == "fairplay.services" and "flagged account" in r.msg]
    assert len(flags) == FEEDERS and all(r.levelno == logging.WARNING for r in flags)
    assert any(f"feed account {winner.pk}" in r.getMessage() for r in caplog.records)


def test_staff_decide_on_the_fed_account_from_its_case(ring, admin_client, admin_user):
    winner, feeders = ring
    viewer = UserFactory()
    assess()
    fed = Case.objects.get(user=winner)
    page = admin_client.get(reverse("admin:fairplay_case_evidence", args=[fed.pk])).content.decode()
    assert 'id="case-feeders"' in page and all(f.username in page for f in feeders)
    assert "still on the boards" in page
    feeder_case = Case.objects.get(user=feeders[0])
    page = admin_client.get(reverse("admin:fairplay_case_evidence", args=[feeder_case.pk])).content.decode()
    assert 'id="case-fed"' in page and winner.username in page
    listing = admin_client.get(reverse("admin:fairplay_case_changelist") + "?waiting=yes").content.decode()
    assert "winner" in listing and "feeder0" in listing

    # Clearing the fed account dismisses the suspicion: out of the queue, still on the boards.
    services.clear(fed.pk, by=admin_user, note="a friend's evening")
    assert Case.objects.get(pk=fed.pk).status == Case.Status.CLEARED
    assert winner.pk not in {c.user_id for c in selectors.queue()}
    assert on_the_best_board(winner, viewer)
    # Or staff mark it: only then is it off the boards.
    services.mark(fed.pk, by=admin_user)
    assert standing(winner) == Profile.Standing.MARKED and not on_the_best_board(winner, viewer)


def test_a_feeder_that_plays_others_too_is_not_flagged(ring):
    winner, feeders = ring
    # One rated game elsewhere: its games against the winner are no longer most of its rated games.
    other = UserFactory(username="other")
    play_out(rated_room(feeders[0], [other]), [feeders[0], other])
    assert feeders[0].pk not in services.feeders_of(winner.pk)
    assess()
    assert not Case.objects.exclude(status=Case.Status.OPEN).exists()


def test_the_fair_play_page_says_feeders_are_flagged_and_the_fed_account_is_not_hidden(client):
    page = client.get(reverse("fairplay:page")).content.decode()
    assert "get those accounts flagged for review" in page
    assert "stays on the boards" in page
    nl = client_for(UserFactory(), language="nl").get(reverse("fairplay:page")).content.decode()
    assert "blijft op de ranglijsten" in nl


def test_the_migration_puts_accounts_flagged_as_fed_back_on_the_boards(strategy):
    """An account the old rule flagged for being fed (the attack's victim) is back on the boards, its
    case waiting for staff as a fed account; an account flagged for a solver's play stays flagged."""
    from django.apps import apps

    migration = importlib.import_module("fairplay.migrations.0002_feeders_flagged_not_the_fed")
    victim, cheat, viewer = UserFactory(username="victim"), UserFactory(username="cheat"), UserFactory()
    play_out(rated_room(victim, [viewer]), [victim, viewer], worst=[viewer])  # a best total to show
    flagged_at = timezone.now()
    Case.objects.create(
        user=victim,
        status=Case.Status.FLAGGED,
        reason=Case.Reason.FEEDING,
        feeders=[1, 2, 3],
        flagged_at=flagged_at,
    )
    Case.objects.create(
        user=cheat, status=Case.Status.FLAGGED, reason=Case.Reason.ASSISTED, flagged_at=flagged_at
    )
    for user in (victim, cheat):
        Profile.objects.update_or_create(user=user, defaults={"standing": Profile.Standing.REVIEW})
    assert not on_the_best_board(victim, viewer)

    migration.unhide_fed_accounts(apps, None)

    case = Case.objects.get(user=victim)
    assert (case.status, case.reason, case.fed_at, case.feeders) == (
        Case.Status.OPEN,
        "",
        flagged_at,
        [1, 2, 3],
    )
    assert standing(victim) == Profile.Standing.GOOD and on_the_best_board(victim, viewer)
    assert victim.pk in {c.user_id for c in selectors.queue()}
    assert Case.objects.get(user=cheat).status == Case.Status.FLAGGED
    assert standing(cheat) == Profile.Standing.REVIEW
