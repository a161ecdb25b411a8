"""Challenges (issue 41): one person offers another a game and one tap of the other's starts it. Live,
the game is made at the accept; by correspondence at once, the challenger rolling first and the friend's
seat waiting with no clock until the answer. Decline and cancel are one tap, the clock expires what is
not answered (an hour live, a week by correspondence) with no browser open, and a rematch of two is a
challenge too. Bad input gets a clear 4xx and changes nothing."""

import datetime as dt
from datetime import timedelta

import pytest

from accounts import blocks
from accounts.models import SentNotice
from dicegame import events, play
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.offers import Challenge
from dicegame.play import challenges, inbox, limits, rooms, selectors, sweeper
from dicegame.play.challenges import Terms
from dicegame.rules.turn import CORRESPONDENCE_GAMES_MAX
from notifications.models import Notification
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, befriend
from tests.support.games import current, mark_finished, play_turn, roll, started_two_player_game

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
START = dt.datetime(2026, 6, 1, 18, 0, tzinfo=dt.UTC)
LIVE = Terms(turn_seconds=60)
BY_DAY = Terms(move_seconds=DAY)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


@pytest.fixture
def heard(monkeypatch):
    """What play told the people (the live notices, in English), as the notifications hear it."""
    told: list[tuple[int, str]] = []

    def listen(event):
        told.append((event.user_id, event.notice().text))

    events.subscribe(events.PersonNotified, listen)
    yield told
    events.unsubscribe(events.PersonNotified, listen)


def send(frm, to, terms=LIVE, **kwargs) -> Challenge:
    return challenges.challenge_send(actor=actor(frm), username=to.username, terms=terms, **kwargs)


def state() -> tuple:
    """Everything a refused challenge could have changed."""
    return (
        list(Challenge.objects.order_by("pk").values()),
        list(Game.objects.order_by("pk").values_list("pk", "status")),
        list(Player.objects.order_by("pk").values_list("pk", "challenged")),
        SentNotice.objects.count(),
        Notification.objects.count(),
    )


# -- live ----------------------------------------------------------------------------------------------


def test_a_live_challenge_reaches_the_friend_and_accept_starts_the_game(host, friend, heard):
    challenge = send(host, friend, Terms(turn_seconds=30, rated=True, bots=("hard",)))
    assert challenge.is_pending and challenge.game is None
    # The friend is told at once (a live notice), a push is queued for when they are away, and the
    # challenge waits in their inbox and in the challenger's.
    assert heard == [(friend.pk, "hana challenges you to a rated game: Live, 30 s a turn.")]
    assert Notification.objects.get(kind=Notification.Kind.CHALLENGE).user == friend
    assert [c.pk for c in inbox.inbox_for(user_id=friend.pk).challenges] == [challenge.pk]
    assert [c.pk for c in inbox.inbox_for(user_id=host.pk).sent] == [challenge.pk]
    assert inbox.inbox_count(user_id=friend.pk) == 1 and inbox.inbox_count(user_id=host.pk) == 0

    game = challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend))

    # No host's Start: the game is on, the challenger first, the computer after the two people.
    assert game.is_active and game.rated and game.turn_seconds == 30 and game.host == host
    seats = [(p.user_id, p.bot_strength, p.challenged) for p in game.players.order_by("seat")]
    assert seats == [(host.pk, "", False), (friend.pk, "", False), (None, "hard", False)]
    assert current(game.pk).player.user == host
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.ACCEPTED and challenge.game == game
    assert heard[-1] == (host.pk, "femke accepted your challenge.")
    assert inbox.inbox_count(user_id=friend.pk) == 0


def test_accepted_twice_is_refused_and_changes_nothing(host, friend):
    challenge = send(host, friend)
    game = challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend))
    before = state()
    with pytest.raises(GameActionError, match="accepted already") as refused:
        challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend))
    assert refused.value.status == 409
    assert state() == before and Game.objects.count() == 1 and game.players.count() == 2


def test_only_the_challenged_person_accepts_and_only_the_challenger_calls_off(host, friend):
    challenge = send(host, friend)
    stranger = UserFactory(username="sam")
    before = state()
    for who in (host, stranger):
        with pytest.raises(GameActionError) as refused:
            challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(who))
        assert refused.value.status == 404
    with pytest.raises(GameActionError) as refused:
        challenges.challenge_cancel(challenge_id=challenge.pk, actor=actor(friend))
    assert refused.value.status == 403
    with pytest.raises(GameActionError) as refused:
        challenges.challenge_decline(challenge_id=challenge.pk, actor=actor(host))
    assert refused.value.status == 404
    assert state() == before


def test_decline_and_cancel_are_one_tap_each(host, friend, heard):
    first = send(host, friend)
    challenges.challenge_decline(challenge_id=first.pk, actor=actor(friend))
    assert Challenge.objects.get(pk=first.pk).status == Challenge.Status.DECLINED
    assert heard[-1] == (host.pk, "femke declined your challenge.")
    second = send(host, friend)
    challenges.challenge_cancel(challenge_id=second.pk, actor=actor(host))
    assert Challenge.objects.get(pk=second.pk).status == Challenge.Status.CANCELLED
    assert inbox.inbox_for(user_id=friend.pk).empty and inbox.inbox_for(user_id=host.pk).empty
    with pytest.raises(GameActionError, match="called off") as refused:
        challenges.challenge_accept(challenge_id=second.pk, actor=actor(friend))
    assert refused.value.status == 410
    assert not Game.objects.exists()


# -- by correspondence ---------------------------------------------------------------------------------


def test_by_correspondence_the_challenger_rolls_first_and_the_game_becomes_the_friends_turn(
    clock, host, friend
):
    challenge = send(host, friend, BY_DAY)
    game = challenge.game
    assert game.is_active and game.is_correspondence and game.move_seconds == DAY
    me, them = game.players.order_by("seat")
    assert (me.user, me.challenged, them.user, them.challenged) == (host, False, friend, True)
    # No clock runs before the answer: the first move may wait for it.
    assert current(game.pk).deadline_at is None
    assert [w.game.pk for w in selectors.games_waiting_for(user_id=host.pk)] == [game.pk]
    clock.advance(hours=30)
    sweeper.sweep(force=True)
    assert current(game.pk).player == me and not Turn.objects.filter(game=game, stand_in=True).exists()

    play_turn(game, host)
    turn = current(game.pk)
    assert turn.player == them and turn.deadline_at is None
    # The friend is asked, not told it is their move: the challenge is in their inbox, not a turn;
    # their roll waits for their yes; the seat is not yet one of their 50 games.
    assert selectors.games_waiting_for(user_id=friend.pk) == []
    assert [c.pk for c in inbox.inbox_for(user_id=friend.pk).challenges] == [challenge.pk]
    assert limits.correspondence_games_of(friend.pk) == 0
    with pytest.raises(GameActionError, match="Accept the challenge first"):
        roll(game, actor(friend))
    assert not Notification.objects.filter(kind=Notification.Kind.YOUR_TURN).exists()

    clock.advance(hours=2)
    assert challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend)) == game
    turn = current(game.pk)
    assert turn.deadline_at == clock.now + timedelta(seconds=DAY)
    assert limits.correspondence_games_of(friend.pk) == 1
    assert [w.game.pk for w in selectors.games_waiting_for(user_id=friend.pk)] == [game.pk]
    assert roll(game, actor(friend)).rolls_used == 1


def test_accepted_before_the_challengers_roll_the_move_is_theirs_with_its_time(clock, host, friend):
    challenge = send(host, friend, BY_DAY)
    clock.advance(hours=5)
    challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend))
    turn = current(challenge.game_id)
    assert turn.player.user == host and turn.deadline_at == clock.now + timedelta(seconds=DAY)
    # The challenger is told the move is theirs now (pushed when away), once.
    assert Notification.objects.filter(user=host, kind=Notification.Kind.YOUR_TURN).count() == 1


def test_a_declined_correspondence_challenge_cancels_its_game(host, friend):
    challenge = send(host, friend, BY_DAY)
    play_turn(challenge.game, host)
    challenges.challenge_decline(challenge_id=challenge.pk, actor=actor(friend))
    game = Game.objects.get(pk=challenge.game_id)
    assert game.status == Game.Status.CANCELLED
    assert limits.correspondence_games_of(host.pk) == 0
    with pytest.raises(GameActionError):
        roll(game, actor(host))


def test_the_friend_cannot_leave_a_game_not_accepted(host, friend):
    challenge = send(host, friend, BY_DAY)
    with pytest.raises(GameActionError, match="decline it instead"):
        rooms.seat_leave(game_id=challenge.game_id, actor=actor(friend))


# -- expiry, by the clock ------------------------------------------------------------------------------


def test_a_live_challenge_expires_after_an_hour_by_the_clock(clock, host, friend, heard):
    challenge = send(host, friend)
    clock.advance(minutes=59)
    sweeper.sweep(force=True)
    assert Challenge.objects.get(pk=challenge.pk).is_pending
    clock.advance(minutes=1)
    # Past its time it is gone from the inbox at once, and answering it is refused, before any clock.
    assert inbox.inbox_count(user_id=friend.pk) == 0
    with pytest.raises(GameActionError, match="expired") as refused:
        challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend))
    assert refused.value.status == 410
    sweeper.sweep(force=True)
    assert Challenge.objects.get(pk=challenge.pk).status == Challenge.Status.EXPIRED
    assert heard[-1] == (host.pk, "femke did not answer your challenge in time.")
    assert not Game.objects.exists()


def test_a_correspondence_challenge_expires_after_a_week_and_its_game_is_cancelled(clock, host, friend):
    challenge = send(host, friend, BY_DAY)
    play_turn(challenge.game, host)
    clock.advance(days=6, hours=23)
    assert challenges.challenges_expire_due() == 0
    clock.advance(hours=1)
    assert challenges.challenges_expire_due() == 1
    assert Challenge.objects.get(pk=challenge.pk).status == Challenge.Status.EXPIRED
    assert Game.objects.get(pk=challenge.game_id).status == Game.Status.CANCELLED


# -- bad input: a clear 4xx, nothing changed -----------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "message"),
    [
        (Terms(turn_seconds=45), "The turn timer is off, 30, 60 or 120 seconds."),
        (Terms(move_seconds=7 * DAY), "A move has an hour, 8 hours, a day or 3 days."),
        (Terms(turn_seconds=0, rated=True), "A rated game needs a clock"),
        (Terms(bots=("easy", "easy", "easy")), "at most 2 computer players"),
        (Terms(bots=("godlike",)), "Unknown strength 'godlike'"),
    ],
)
def test_terms_no_game_can_have_are_refused(host, friend, terms, message):
    before = state()
    with pytest.raises(GameActionError, match=message) as refused:
        send(host, friend, terms)
    assert refused.value.status == 400 and state() == before


def test_a_challenge_to_yourself_or_nobody_is_refused(host):
    before = state()
    with pytest.raises(GameActionError, match="can't play against yourself") as refused:
        send(host, host)
    assert refused.value.status == 400
    with pytest.raises(GameActionError, match="no player called nobody") as refused:
        challenges.challenge_send(actor=actor(host), username="nobody", terms=LIVE)
    assert refused.value.status == 404
    assert state() == before


def test_a_block_either_way_answers_as_if_the_player_did_not_exist(host, friend):
    before = state()
    blocks.block_add(user=friend, username=host.username)
    with pytest.raises(GameActionError) as refused:
        send(host, friend)
    assert refused.value.status == 404
    assert refused.value.message == f"There is no player called {friend.username}."
    with pytest.raises(GameActionError) as refused:
        send(friend, host)
    assert refused.value.status == 404
    assert state()[:3] == before[:3]


def test_the_recipients_choice_and_a_staff_mute_are_respected(host, friend):
    stranger = UserFactory(username="stranger")
    blocks.privacy_set(user=friend, challenges_from="nobody", games_visible_to="friends", findable=True)
    with pytest.raises(GameActionError, match="not taking challenges") as refused:
        send(host, friend)
    assert refused.value.status == 403
    blocks.privacy_set(user=friend, challenges_from="friends", games_visible_to="friends", findable=True)
    with pytest.raises(GameActionError, match="not taking challenges"):
        send(stranger, friend)
    assert send(host, friend).to_user_id == friend.pk
    blocks.account_mute(user_id=stranger.pk, on=True)
    with pytest.raises(GameActionError, match="cannot offer anyone a game") as refused:
        send(stranger, host)
    assert refused.value.status == 403
    assert not Challenge.objects.filter(from_user=stranger).exists()


def test_one_challenge_waits_at_a_time_between_two_people(host, friend):
    send(host, friend)
    before = state()
    with pytest.raises(GameActionError, match="challenged femke already") as refused:
        send(host, friend, BY_DAY)
    assert refused.value.status == 409
    with pytest.raises(GameActionError, match="hana has challenged you already") as refused:
        send(friend, host)
    assert refused.value.status == 409
    assert state() == before


def fill_up(user, n=CORRESPONDENCE_GAMES_MAX) -> None:
    for _ in range(n):
        rooms.room_create(actor=actor(user), seats=2, turn_seconds=0, move_seconds=DAY)


def test_a_correspondence_challenge_to_someone_with_50_is_refused(host, friend):
    fill_up(friend)
    before = state()
    with pytest.raises(GameActionError, match="femke already plays 50 correspondence games") as refused:
        send(host, friend, BY_DAY)
    assert refused.value.status == 409 and state() == before
    send(host, friend, LIVE)  # a live game is no correspondence game


def test_accepting_the_51st_correspondence_game_is_refused(host, friend):
    challenge = send(host, friend, BY_DAY)
    fill_up(friend)
    before = state()
    with pytest.raises(GameActionError, match="already play 50") as refused:
        challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend))
    assert refused.value.status == 409 and state() == before


def test_a_guest_cannot_challenge(friend):
    with pytest.raises(GameActionError, match="Log in") as refused:
        challenges.challenge_send(
            actor=Actor(guest_key="a-guest", name="Guest"), username="femke", terms=LIVE
        )
    assert refused.value.status == 403


# -- limits that fit play ------------------------------------------------------------------------------


def test_challenges_count_against_the_notice_limit_unless_the_friend_accepted_one_today(
    clock, host, friend, settings
):
    settings.PENTA_NOTICES_PER_PERSON_HOUR = 3
    for _ in range(3):
        challenges.challenge_cancel(challenge_id=send(host, friend).pk, actor=actor(host))
    before = state()
    with pytest.raises(GameActionError, match="in the last hour") as refused:
        send(host, friend)
    assert refused.value.status == 429 and state() == before

    # The next hour femke accepts one: an evening of fresh games with her is not spam.
    clock.advance(hours=1)
    accepted = send(host, friend)
    game = challenges.challenge_accept(challenge_id=accepted.pk, actor=actor(friend))
    mark_finished(game)
    for _ in range(6):
        challenges.challenge_cancel(challenge_id=send(host, friend).pk, actor=actor(host))
    assert SentNotice.objects.filter(sender=host).count() == 1  # only the one before her yes counted
    # A day later her yes is old: challenges count again.
    clock.advance(hours=25)
    for _ in range(3):
        challenges.challenge_cancel(challenge_id=send(host, friend).pk, actor=actor(host))
    with pytest.raises(GameActionError, match="in the last hour"):
        send(host, friend)


def test_a_stranger_who_ignores_your_challenges_stops_getting_them(clock, host):
    sam = UserFactory(username="sam")
    for answer in ("decline", "expire", "decline"):
        challenge = send(host, sam)
        if answer == "decline":
            challenges.challenge_decline(challenge_id=challenge.pk, actor=actor(sam))
        else:
            clock.advance(hours=2)
            challenges.challenges_expire_due()
    before = state()
    with pytest.raises(GameActionError, match="sam has not taken up your last 3 challenges") as refused:
        send(host, sam)
    assert refused.value.status == 403 and state() == before
    # Sam may still challenge hana; once he has, she may challenge him again.
    challenges.challenge_cancel(challenge_id=send(sam, host).pk, actor=actor(sam))
    send(host, sam)


def test_a_friend_is_always_challenged_however_often_they_declined(host, friend):
    for _ in range(4):
        challenges.challenge_decline(challenge_id=send(host, friend).pk, actor=actor(friend))
    send(host, friend)


# -- rematch ---------------------------------------------------------------------------------------------


def test_a_rematch_of_two_is_a_challenge_and_the_other_yes_starts_it(host, friend, heard, settings):
    game = started_two_player_game(host, friend, turn_seconds=60)
    mark_finished(game)
    settings.PENTA_NOTICES_PER_HOUR = 0  # a rematch does not count against the notices

    assert challenges.rematch_yes(game_id=game.pk, actor=actor(host)) is None
    offer = Challenge.objects.get(rematch_of=game)
    assert (offer.from_user, offer.to_user, offer.turn_seconds) == (host, friend, 60)
    assert heard[-1] == (friend.pk, "hana offers you a rematch.")
    assert [c.pk for c in inbox.inbox_for(user_id=friend.pk).challenges] == [offer.pk]
    assert game.players.get(user=host).rematch_accepted
    version = Game.objects.get(pk=game.pk).version

    rematch = challenges.rematch_yes(game_id=game.pk, actor=actor(friend))
    assert rematch.rematch_of == game and rematch.is_active and rematch.turn_seconds == 60
    assert [p.user for p in rematch.players.order_by("seat")] == [friend, host]  # moved one on
    assert Challenge.objects.get(pk=offer.pk).status == Challenge.Status.ACCEPTED
    assert Game.objects.get(pk=game.pk).version > version  # the finished pages follow to it
    assert challenges.rematch_yes(game_id=game.pk, actor=actor(host)) == rematch


def test_a_rematch_accepted_from_the_inbox_and_one_declined(host, friend):
    game = started_two_player_game(host, friend)
    mark_finished(game)
    challenges.rematch_yes(game_id=game.pk, actor=actor(friend))
    offer = Challenge.objects.get(rematch_of=game)
    challenges.challenge_decline(challenge_id=offer.pk, actor=actor(host))
    assert not game.players.get(user=friend).rematch_accepted  # the offer is withdrawn from the page
    challenges.rematch_yes(game_id=game.pk, actor=actor(host))
    offer = Challenge.objects.get(rematch_of=game, status=Challenge.Status.PENDING)
    rematch = challenges.challenge_accept(challenge_id=offer.pk, actor=actor(friend))
    assert rematch.rematch_of == game


def test_a_rematch_offer_lapses_with_the_rematch(clock, host, friend):
    game = started_two_player_game(host, friend)
    mark_finished(game)
    challenges.rematch_yes(game_id=game.pk, actor=actor(host))
    clock.advance(minutes=31)
    sweeper.sweep(force=True)
    assert Challenge.objects.get(rematch_of=game).status == Challenge.Status.EXPIRED
    assert not game.players.get(user=host).rematch_accepted
    with pytest.raises(GameActionError, match="lapsed"):
        challenges.rematch_yes(game_id=game.pk, actor=actor(friend))


def test_a_table_of_three_keeps_its_own_rematch(host, friend):
    ines = UserFactory(username="ines")
    befriend(host, ines)
    game = rooms.room_create(actor=actor(host), seats=3, turn_seconds=30)
    for other in (friend, ines):
        rooms.room_join_by_link(token=game.invite_token, actor=actor(other))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    mark_finished(game)
    for person in (host, friend):
        assert challenges.rematch_yes(game_id=game.pk, actor=actor(person)) is None
    assert not Challenge.objects.exists()
    assert challenges.rematch_yes(game_id=game.pk, actor=actor(ines)).rematch_of == game


def test_the_game_page_of_a_solo_game_has_no_rematch(host):
    game = play.game_create_solo(actor=actor(host))
    mark_finished(game)
    with pytest.raises(GameActionError, match="rematch is offered"):
        challenges.rematch_yes(game_id=game.pk, actor=actor(host))


def test_two_games_of_the_same_two_each_have_their_rematch_offer(host, friend):
    first, second = (started_two_player_game(host, friend) for _ in range(2))
    for game in (first, second):
        mark_finished(game)
        assert challenges.rematch_yes(game_id=game.pk, actor=actor(host)) is None
    assert Challenge.objects.filter(status=Challenge.Status.PENDING).count() == 2
    # (And a challenge of their own besides.)
    send(friend, host)
    for game in (first, second):
        assert challenges.rematch_yes(game_id=game.pk, actor=actor(friend)).rematch_of == game


def test_a_challenge_past_its_time_that_the_clock_missed_does_not_hold_the_pair(clock, host, friend):
    old = send(host, friend)
    clock.advance(hours=2)  # no sweep came by
    new = send(host, friend)
    assert Challenge.objects.get(pk=old.pk).status == Challenge.Status.EXPIRED and new.is_pending


def test_a_yes_given_before_challenges_still_starts_the_rematch(host, friend):
    game = started_two_player_game(host, friend)
    mark_finished(game)
    rooms.rematch_accept(game_id=game.pk, actor=actor(friend))  # the table's yes, no challenge
    rematch = challenges.rematch_yes(game_id=game.pk, actor=actor(host))
    assert rematch.rematch_of == game and not Challenge.objects.exists()
