"""Blocking a person: silent, it ends the friendship and the requests between the two, and from then on
neither reaches the other (friend requests, invitations, challenges, watching, joining by link,
presence, the search), answered as if the other were unavailable. Games in play go on; a blocked pair
may leave a rated game without a result between them. And who may challenge whom (privacy, mutes)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import blocks, services
from accounts.models import Block, FriendRequest, Friendship, Profile
from accounts.selectors import blocked_between, hidden_from, may_challenge, may_contact, players_search
from accounts.services import FriendError
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Invitation
from dicegame.play import rooms
from dicegame.play.lobby import game_invitations_pending
from dicegame.play.selectors import game_visible
from live import presence
from ratings.models import RatingChange
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import two_player_game
from tests.support.ratings import play_out, rated_room

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair():
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    return hana, femke


def test_a_block_ends_the_friendship_and_the_requests_between_the_two(pair):
    hana, femke = pair
    Friendship.objects.all().delete()
    FriendRequest.objects.create(from_user=femke, to_user=hana)
    befriend(hana, femke)
    blocks.block_add(user=hana, username="femke")
    assert not Friendship.objects.exists()
    assert list(FriendRequest.objects.values_list("status", flat=True)) == [FriendRequest.Status.DECLINED]
    assert blocked_between(hana.pk, femke.pk) and blocked_between(femke.pk, hana.pk)
    assert hidden_from(femke.pk) == {hana.pk} and hidden_from(hana.pk) == {femke.pk}
    # Blocking again changes nothing; oneself or nobody is refused and stores nothing.
    blocks.block_add(user=hana, username="femke")
    assert Block.objects.count() == 1
    for name, status in (("hana", 400), ("nobody", 404), ("", 400)):
        with pytest.raises(blocks.BlockError) as refused:
            blocks.block_add(user=hana, username=name)
        assert refused.value.status == status
    assert Block.objects.count() == 1


def test_the_blocked_person_is_answered_as_if_the_other_did_not_exist(pair):
    hana, femke = pair
    blocks.block_add(user=hana, username="hana".replace("hana", "femke"))
    with pytest.raises(FriendError) as blocked:
        services.friend_request_send(from_user=femke, username="hana")
    with pytest.raises(FriendError) as nobody:
        services.friend_request_send(from_user=femke, username="hanna")
    assert blocked.value.status == nobody.value.status == 404
    assert blocked.value.message == "There is no player called hana."
    assert not FriendRequest.objects.exists()
    # The one who blocked is told why (it is their own block).
    with pytest.raises(FriendError) as own:
        services.friend_request_send(from_user=hana, username="femke")
    assert own.value.status == 409 and "unblock" in own.value.message
    # Neither finds the other by name; others still do.
    assert list(players_search("a", exclude_user_id=femke.pk)) == []
    other = UserFactory(username="anna")
    assert [u.username for u in players_search("femke", exclude_user_id=other.pk)] == ["femke"]
    assert list(players_search("femke", exclude_user_id=hana.pk)) == []


def test_a_block_stops_room_invitations_joining_by_link_and_watching(pair):
    hana, femke = pair
    room = rooms.room_create(actor=actor(hana), seats=3, turn_seconds=60)
    rooms.room_invite(game_id=room.pk, actor=actor(hana), username="femke")
    assert list(game_invitations_pending(femke.pk)) != []
    blocks.block_add(user=hana, username="femke")
    # The invitation sent before is no longer listed; a new one is refused (they are not friends).
    assert list(game_invitations_pending(femke.pk)) == []
    with pytest.raises(GameActionError):
        rooms.room_invite(game_id=room.pk, actor=actor(hana), username="femke")
    with pytest.raises(GameNotFound) as by_link:
        rooms.room_join_by_link(token=room.invite_token, actor=actor(femke))
    assert by_link.value.message == "This invitation link is not valid."
    room.refresh_from_db()
    # Watching: not with the link, not as a friend of another player.
    anna = UserFactory(username="anna")
    befriend(anna, femke)
    rooms.room_join_by_link(token=room.invite_token, actor=actor(anna))
    rooms.room_start(game_id=room.pk, actor=actor(hana))
    room.refresh_from_db()
    assert not game_visible(game=room, actor=actor(femke), token=room.invite_token)
    assert game_visible(game=room, actor=Actor(), token=room.invite_token)  # a link is a link
    assert Client().get(f"/games/{room.pk}/?t={room.invite_token}").status_code == 200
    assert client_for(femke).get(f"/games/{room.pk}/?t={room.invite_token}").status_code == 404


def test_a_game_in_play_goes_on_and_both_still_see_it(pair):
    game, hana, femke = two_player_game(names=("hana2", "femke2"))
    blocks.block_add(user=femke, username="hana2")
    game.refresh_from_db()
    assert game.is_active
    assert game_visible(game=game, actor=actor(hana)) and game_visible(game=game, actor=actor(femke))


def test_presence_is_hidden_both_ways(pair, monkeypatch):
    hana, femke = pair
    monkeypatch.setattr(presence, "stale_cutoff", lambda now=None: presence.timezone.now())
    blocks.block_add(user=hana, username="femke")
    assert presence.online_user_ids([hana.pk], viewer_id=femke.pk) == set()
    assert presence.online_user_ids([femke.pk], viewer_id=hana.pk) == set()


def test_unblocking_lets_them_reach_each_other_again_but_the_friendship_stays_ended(pair):
    hana, femke = pair
    block = blocks.block_add(user=hana, username="femke")
    with pytest.raises(blocks.BlockError):
        blocks.block_remove(user=femke, block_id=block.pk)  # not theirs to lift
    assert blocks.block_remove(user=hana, block_id=block.pk) == femke
    assert not blocked_between(hana.pk, femke.pk) and not Friendship.objects.exists()
    services.friend_request_send(from_user=femke, username="hana")


# -- who may challenge whom ------------------------------------------------------------------------------


def test_may_challenge_follows_blocks_the_recipients_choice_and_mutes(pair):
    hana, femke = pair
    stranger = UserFactory(username="stranger")
    assert may_challenge(from_user_id=femke.pk, to_user_id=hana.pk) is None
    assert may_challenge(from_user_id=stranger.pk, to_user_id=hana.pk) is None
    blocks.privacy_set(user=hana, challenges_from="friends", games_visible_to="friends", findable=True)
    assert may_challenge(from_user_id=femke.pk, to_user_id=hana.pk) is None
    assert may_challenge(from_user_id=stranger.pk, to_user_id=hana.pk) is not None
    blocks.privacy_set(user=hana, challenges_from="nobody", games_visible_to="friends", findable=True)
    assert may_challenge(from_user_id=femke.pk, to_user_id=hana.pk) is not None
    room = rooms.room_create(actor=actor(femke), seats=2, turn_seconds=60)
    with pytest.raises(GameActionError) as refused:
        rooms.room_invite(game_id=room.pk, actor=actor(femke), username="hana")
    assert refused.value.message == "hana is not taking invitations to games now."
    assert not Invitation.objects.exists()
    blocks.privacy_set(user=hana, challenges_from="everyone", games_visible_to="friends", findable=True)
    blocks.block_add(user=stranger, username="hana")  # either side's block counts
    assert may_challenge(from_user_id=hana.pk, to_user_id=stranger.pk) is not None
    assert may_challenge(from_user_id=stranger.pk, to_user_id=hana.pk) is not None
    blocks.account_mute(user_id=femke.pk, on=True)
    assert not may_contact(sender_id=femke.pk, recipient_id=hana.pk)
    with pytest.raises(GameActionError) as muted:
        rooms.room_invite(game_id=room.pk, actor=actor(femke), username="hana")
    assert muted.value.status == 403 and "muted" in muted.value.message
    with pytest.raises(FriendError):
        services.friend_request_send(from_user=femke, username="stranger")


def test_bad_privacy_choices_are_a_400_and_change_nothing(user, user_client):
    for bad in (
        {"challenges_from": "robots", "games_visible_to": "friends"},
        {"challenges_from": "everyone", "games_visible_to": "aliens"},
        {},
    ):
        response = user_client.post("/accounts/preferences/privacy/", bad)
        assert response.status_code == 400 and 'role="alert"' in response.content.decode()
    assert not Profile.objects.filter(user=user).exists()
    assert (
        user_client.post(
            "/accounts/preferences/privacy/", {"challenges_from": "nobody", "games_visible_to": "me"}
        ).status_code
        == 302
    )
    profile = Profile.objects.get(user=user)
    assert (profile.challenges_from, profile.games_visible_to, profile.findable) == ("nobody", "me", False)


def test_blocking_from_the_pages(pair):
    hana, femke = pair
    client = client_for(hana)
    response = client.post("/accounts/blocks/", {"username": "femke", "next": "/accounts/friends/"})
    assert response.status_code == 302 and response["Location"] == "/accounts/friends/"
    page = client.get("/accounts/preferences/").content.decode()
    assert 'data-blocked="femke"' in page
    bad = client.post("/accounts/blocks/", {"username": "nobody-here"})
    assert bad.status_code == 404 and "There is no player called nobody-here." in bad.content.decode()
    block = Block.objects.get()
    assert client_for(femke).post(f"/accounts/blocks/{block.pk}/remove/").status_code == 404
    assert client.post(f"/accounts/blocks/{block.pk}/remove/").status_code == 302
    assert not Block.objects.exists()


# -- leaving a rated game after a block ------------------------------------------------------------------


@pytest.fixture
def _computer_at_once(settings):
    settings.PENTA_BOT_STEP_SECONDS = 0


def _rated_game_left(*, block_before: bool, block_after: bool = False):
    """Hana leaves a rated game of two in round 5 (past an abort: a forfeit, a loss), after or before a
    block between the two."""
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    game = rated_room(hana, [femke])

    def leave_in_round_5(t):
        if t.player.user_id == hana.pk and t.round == 5 and t.player.left_at is None:
            if block_before:
                blocks.block_add(user=femke, username="hana")
            rooms.seat_leave(game_id=game.pk, actor=actor(hana))
            if block_after:
                blocks.block_add(user=hana, username="femke")
            return True
        return False

    return play_out(game, [hana, femke], on_turn=leave_in_round_5), hana


@pytest.mark.usefixtures("_computer_at_once")
def test_leaving_a_rated_game_costs_rating_unless_a_block_came_first(strategy):
    game, hana = _rated_game_left(block_before=False)
    assert RatingChange.objects.get(game=game, user=hana).score == 0  # a forfeit: a loss
    game, _hana = _rated_game_left(block_before=True)
    assert game.is_finished
    assert not RatingChange.objects.filter(game=game).exists()  # no result between the two


@pytest.mark.usefixtures("_computer_at_once")
def test_a_block_made_after_leaving_excuses_nothing(strategy):
    game, hana = _rated_game_left(block_before=False, block_after=True)
    assert RatingChange.objects.get(game=game, user=hana).score == 0
