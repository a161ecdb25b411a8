"""Friends: the services (every refusal changes nothing), the selectors, presence and the friends page."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import selectors, services
from accounts.models import FriendRequest, Friendship, Profile
from accounts.services import FriendError
from dicegame.models import Game, Invitation
from dicegame.play import lobby
from live import presence
from live.models import Connection, ServerProcess
from tests.support import HX
from tests.support.factories import GameFactory, UserFactory, befriend, client_for

pytestmark = pytest.mark.django_db


def friends_snapshot():
    """Everything the friends services may write."""
    return (
        sorted(FriendRequest.objects.values_list("from_user_id", "to_user_id", "status", "created_at")),
        sorted(Friendship.objects.values_list("user_low_id", "user_high_id")),
    )


@pytest.fixture
def ann():
    return UserFactory(username="ann")


@pytest.fixture
def bob():
    return UserFactory(username="bob")


# -- services --------------------------------------------------------------------------------------------


def test_send_creates_a_pending_request_and_notifies_after_commit(
    ann, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        sent = services.friend_request_send(from_user=ann, username="bob")
    assert (sent.from_user, sent.to_user, sent.status) == (ann, bob, FriendRequest.Status.PENDING)
    assert not Friendship.objects.exists()
    assert len(callbacks) == 1


def test_send_finds_the_name_in_any_case_and_trims_it(ann, bob):
    sent = services.friend_request_send(from_user=ann, username="  BOB ")
    assert sent.to_user == bob


@pytest.mark.parametrize(
    ("username", "status", "message"),
    [
        ("nobody", 404, "There is no player called nobody."),
        ("", 400, "Type the name of the player you want to add."),
        ("ann", 400, "You cannot add yourself as a friend."),
    ],
)
def test_send_refusals_change_nothing(ann, bob, username, status, message):
    FriendRequest.objects.create(from_user=bob, to_user=ann, status=FriendRequest.Status.DECLINED)
    before = friends_snapshot()
    with pytest.raises(FriendError) as refused:
        services.friend_request_send(from_user=ann, username=username)
    assert (refused.value.status, refused.value.message) == (status, message)
    assert isinstance(refused.value, ValueError)
    assert friends_snapshot() == before


def test_send_to_a_friend_is_a_conflict(ann, bob):
    befriend(ann, bob)
    before = friends_snapshot()
    with pytest.raises(FriendError) as refused:
        services.friend_request_send(from_user=ann, username="bob")
    assert refused.value.status == 409
    assert "already friends" in refused.value.message
    assert friends_snapshot() == before


def test_a_second_pending_request_is_a_conflict(ann, bob):
    services.friend_request_send(from_user=ann, username="bob")
    before = friends_snapshot()
    with pytest.raises(FriendError) as refused:
        services.friend_request_send(from_user=ann, username="bob")
    assert refused.value.status == 409
    assert friends_snapshot() == before


def test_a_request_the_other_way_round_is_accepted_instead(ann, bob, django_capture_on_commit_callbacks):
    services.friend_request_send(from_user=bob, username="ann")
    with django_capture_on_commit_callbacks() as callbacks:
        answered = services.friend_request_send(from_user=ann, username="bob")
    assert answered.from_user == bob and answered.status == FriendRequest.Status.ACCEPTED
    assert selectors.are_friends(a=ann.pk, b=bob.pk)
    assert FriendRequest.objects.count() == 1  # no second request was made
    assert len(callbacks) == 1


def test_a_declined_request_may_be_sent_again_a_week_later(ann, bob):
    first = services.friend_request_send(from_user=ann, username="bob")
    services.friend_request_decline(user=bob, request_id=first.pk)
    a_week_ago = timezone.now() - timedelta(days=7, minutes=1)
    FriendRequest.objects.filter(pk=first.pk).update(created_at=a_week_ago, answered_at=a_week_ago)
    again = services.friend_request_send(from_user=ann, username="bob")
    assert again.pk == first.pk and again.status == FriendRequest.Status.PENDING
    assert again.created_at > timezone.now() - timedelta(minutes=1)
    assert list(selectors.friend_requests_incoming(bob.pk)) == [again]


def test_accept_makes_friends_once(ann, bob):
    sent = services.friend_request_send(from_user=ann, username="bob")
    friendship = services.friend_request_accept(user=bob, request_id=sent.pk)
    assert (friendship.user_low_id, friendship.user_high_id) == tuple(sorted((ann.pk, bob.pk)))
    assert FriendRequest.objects.get().status == FriendRequest.Status.ACCEPTED
    assert selectors.friend_ids(user_id=ann.pk) == {bob.pk}
    assert list(selectors.friends_of(user_id=bob.pk)) == [ann]
    # Answered: not open any more.
    before = friends_snapshot()
    with pytest.raises(FriendError) as refused:
        services.friend_request_accept(user=bob, request_id=sent.pk)
    assert refused.value.status == 404
    assert friends_snapshot() == before


@pytest.mark.parametrize("answer", [services.friend_request_accept, services.friend_request_decline])
def test_only_the_addressee_may_answer(ann, bob, answer):
    carl = UserFactory(username="carl")
    sent = services.friend_request_send(from_user=ann, username="bob")
    before = friends_snapshot()
    for someone in (ann, carl):
        with pytest.raises(FriendError) as refused:
            answer(user=someone, request_id=sent.pk)
        assert refused.value.status == 404
    with pytest.raises(FriendError):
        answer(user=bob, request_id=sent.pk + 1000)
    assert friends_snapshot() == before


def test_decline_makes_no_friends(ann, bob, django_capture_on_commit_callbacks):
    sent = services.friend_request_send(from_user=ann, username="bob")
    with django_capture_on_commit_callbacks() as callbacks:
        services.friend_request_decline(user=bob, request_id=sent.pk)
    assert FriendRequest.objects.get().status == FriendRequest.Status.DECLINED
    assert not Friendship.objects.exists()
    assert callbacks == []  # the sender is not told
    assert list(selectors.friend_requests_outgoing(ann.pk)) == []


def test_remove_ends_the_friendship_for_both(ann, bob):
    befriend(ann, bob)
    assert services.friend_remove(user=bob, friend_id=ann.pk) == ann
    assert not selectors.are_friends(a=ann.pk, b=bob.pk)
    before = friends_snapshot()
    for friend_id in (ann.pk, bob.pk, 999999):
        with pytest.raises(FriendError) as refused:
            services.friend_remove(user=bob, friend_id=friend_id)
        assert refused.value.status == 404
    assert friends_snapshot() == before


def test_after_removal_either_may_ask_again(ann, bob):
    sent = services.friend_request_send(from_user=ann, username="bob")
    services.friend_request_accept(user=bob, request_id=sent.pk)
    services.friend_remove(user=ann, friend_id=bob.pk)
    again = services.friend_request_send(from_user=ann, username="bob")
    assert again.status == FriendRequest.Status.PENDING
    services.friend_request_send(from_user=bob, username="ann")  # answers it
    assert selectors.are_friends(a=ann.pk, b=bob.pk)


# -- selectors -------------------------------------------------------------------------------------------


def test_players_search(ann, bob):
    for n in range(25):
        UserFactory(username=f"searchable{n:02}")
    UserFactory(username="bobby", is_active=False)
    assert list(selectors.players_search("", exclude_user_id=ann.pk)) == []
    assert list(selectors.players_search("   ", exclude_user_id=ann.pk)) == []
    assert [u.username for u in selectors.players_search("BO", exclude_user_id=ann.pk)] == ["bob"]
    assert list(selectors.players_search("ann", exclude_user_id=ann.pk)) == []
    found = list(selectors.players_search("ARCHab", exclude_user_id=ann.pk))
    assert len(found) == 20 and found[0].username == "searchable00"


def test_incoming_and_outgoing_requests(ann, bob):
    carl = UserFactory(username="carl")
    to_bob = services.friend_request_send(from_user=ann, username="bob")
    from_carl = services.friend_request_send(from_user=carl, username="ann")
    assert list(selectors.friend_requests_outgoing(ann.pk)) == [to_bob]
    assert list(selectors.friend_requests_incoming(ann.pk)) == [from_carl]
    assert list(selectors.friend_requests_incoming(bob.pk)) == [to_bob]


# -- presence --------------------------------------------------------------------------------------------


def open_screen(user, channel_name):
    presence.notice_socket_opened(
        user_id=user.pk, identity=f"user:{user.pk}", channel_name=channel_name, language="en"
    )


def test_online_means_a_socket_held_by_a_live_process(ann, bob, settings):
    carl = UserFactory(username="carl")
    open_screen(ann, "ann-tab")
    assert presence.online_user_ids([ann.pk, bob.pk, carl.pk]) == {ann.pk}
    assert presence.online_user_ids([]) == set()
    assert presence.is_online(ann.pk) and not presence.is_online(bob.pk)
    # The process holding the socket stops beating: offline, though no close was ever seen.
    stale = timezone.now() - timedelta(seconds=settings.PENTA_PROCESS_STALE_SECONDS + 1)
    ServerProcess.objects.update(beat_at=stale)
    assert not presence.is_online(ann.pk)
    # The clock forgets the dead process's sockets.
    assert presence.sweep_dead_processes() == 1
    assert not Connection.objects.exists() and not ServerProcess.objects.exists()


def test_a_second_tab_keeps_a_player_online_and_the_last_close_ends_it(ann):
    open_screen(ann, "tab-1")
    open_screen(ann, "tab-2")
    presence.socket_closed("tab-1")
    assert presence.is_online(ann.pk)
    presence.socket_closed("tab-2")
    assert not presence.is_online(ann.pk)
    assert Profile.objects.get(user=ann).last_seen > timezone.now() - timedelta(seconds=5)


# -- the friends page ------------------------------------------------------------------------------------


def test_friends_page_needs_a_login(client):
    response = client.get("/accounts/friends/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    response = client.post("/accounts/friends/request/", {"username": "x"}, **HX)
    assert response.status_code == 200 and response["HX-Redirect"].startswith("/accounts/login/")


def test_nav_has_a_friends_link_for_logged_in_players_only(client, ann):
    assert b'href="/accounts/friends/"' not in client.get("/").content
    assert b'href="/accounts/friends/"' in client_for(ann).get("/").content


def test_friends_page_lists_friends_requests_and_presence(ann, bob):
    carl, dora, eve = (UserFactory(username=n) for n in ("carl", "dora", "eve"))
    befriend(ann, bob)
    befriend(ann, carl)
    open_screen(bob, "bob-tab")
    incoming = FriendRequest.objects.create(from_user=dora, to_user=ann)
    FriendRequest.objects.create(from_user=ann, to_user=eve)
    html = client_for(ann).get("/accounts/friends/").content.decode()
    assert 'id="friends-panel"' in html
    bob_row = html.split(f'data-friend="{bob.pk}"')[1].split("</li>")[0]
    carl_row = html.split(f'data-friend="{carl.pk}"')[1].split("</li>")[0]
    assert "is-online" in bob_row and ">online<" in bob_row
    assert "is-offline" in carl_row and ">offline<" in carl_row
    assert f"/accounts/friends/{bob.pk}/remove/" in bob_row
    # A friend's name leads to their player page (which friends may see).
    assert 'href="/players/bob/" data-player-link>bob<' in bob_row
    assert client_for(ann).get("/players/bob/").status_code == 200
    assert "dora wants to be your friend" in html
    assert f"/accounts/friends/requests/{incoming.pk}/accept/" in html
    assert f"/accounts/friends/requests/{incoming.pk}/decline/" in html
    assert "Waiting for an answer" in html and "eve" in html
    assert html.count('name="csrfmiddlewaretoken"') >= 5


def test_search_lists_players_with_add_buttons(ann, bob):
    UserFactory(username="bobcat")
    befriend(ann, bob)
    client = client_for(ann)
    html = client.get("/accounts/friends/", {"q": "bob"}).content.decode()
    bob_row = html.split(f'data-player="{bob.pk}"')[1].split("</li>")[0]
    assert "Your friend" in bob_row and "<form" not in bob_row
    assert 'name="username" value="bobcat"' in html and "Add friend" in html
    partial = client.get("/accounts/friends/", {"q": "nobody"}, **HX).content.decode()
    assert partial.startswith('\n<div id="friends-panel"') or partial.lstrip().startswith(
        '<div id="friends-panel"'
    )
    assert "<html" not in partial and "No player’s name contains “nobody”." in partial


def test_search_results_are_escaped(ann):
    html = client_for(ann).get("/accounts/friends/", {"q": "<script>"}).content.decode()
    assert "<script>" not in html.split("<main", 1)[1]


def test_send_without_js_redirects_back_with_a_message(ann, bob):
    client = client_for(ann)
    response = client.post("/accounts/friends/request/", {"username": "bob", "q": "bo"})
    assert response.status_code == 302 and response["Location"] == "/accounts/friends/?q=bo"
    assert FriendRequest.objects.filter(from_user=ann, to_user=bob, status="pending").exists()
    assert "Friend request sent to bob." in client.get(response["Location"]).content.decode()


def test_send_with_htmx_answers_the_panel_and_the_message(ann, bob):
    response = client_for(ann).post("/accounts/friends/request/", {"username": "bob"}, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert '<div id="friends-panel"' in html
    assert 'id="messages"' in html and 'hx-swap-oob="true"' in html
    assert "Friend request sent to bob." in html
    assert "<html" not in html


@pytest.mark.parametrize("htmx", [True, False])
def test_refusals_answer_4xx_with_the_message_and_change_nothing(ann, bob, htmx):
    befriend(ann, bob)
    client = client_for(ann)
    extra = HX if htmx else {}
    before = friends_snapshot()
    cases = [
        ("/accounts/friends/request/", {"username": "ghost"}, 404, "There is no player called ghost."),
        ("/accounts/friends/request/", {"username": "ann"}, 400, "You cannot add yourself as a friend."),
        ("/accounts/friends/request/", {"username": "bob"}, 409, "You and bob are already friends."),
        ("/accounts/friends/requests/12345/accept/", {}, 404, "This friend request is not waiting"),
        ("/accounts/friends/requests/12345/decline/", {}, 404, "This friend request is not waiting"),
        ("/accounts/friends/999999/remove/", {}, 404, "That player is not one of your friends."),
    ]
    for url, data, status, message in cases:
        response = client.post(url, data, **extra)
        html = response.content.decode()
        assert response.status_code == status, url
        assert message in html
        assert 'role="alert"' in html
        assert '<div id="friends-panel"' in html
        assert ("<html" in html) is not htmx
    assert friends_snapshot() == before


def test_someone_elses_request_cannot_be_answered_through_the_page(ann, bob):
    carl = UserFactory(username="carl")
    sent = FriendRequest.objects.create(from_user=ann, to_user=bob)
    before = friends_snapshot()
    for client in (client_for(ann), client_for(carl)):
        assert client.post(f"/accounts/friends/requests/{sent.pk}/accept/", **HX).status_code == 404
        assert client.post(f"/accounts/friends/requests/{sent.pk}/decline/", **HX).status_code == 404
    assert friends_snapshot() == before


def test_accept_decline_and_remove_through_the_page(ann, bob):
    carl = UserFactory(username="carl")
    from_bob = FriendRequest.objects.create(from_user=bob, to_user=ann)
    from_carl = FriendRequest.objects.create(from_user=carl, to_user=ann)
    client = client_for(ann)
    response = client.post(f"/accounts/friends/requests/{from_bob.pk}/accept/", **HX)
    assert response.status_code == 200 and "You and bob are now friends." in response.content.decode()
    assert selectors.are_friends(a=ann.pk, b=bob.pk)
    response = client.post(f"/accounts/friends/requests/{from_carl.pk}/decline/")
    assert response.status_code == 302
    assert FriendRequest.objects.get(pk=from_carl.pk).status == FriendRequest.Status.DECLINED
    response = client.post(f"/accounts/friends/{bob.pk}/remove/", **HX)
    assert response.status_code == 200 and "bob is no longer your friend." in response.content.decode()
    assert not Friendship.objects.exists()


def test_the_actions_need_post(ann, bob):
    client = client_for(ann)
    assert client.get("/accounts/friends/request/", {"username": "bob"}).status_code == 405
    assert not FriendRequest.objects.exists()


def test_csrf_token_is_required(ann, bob):
    client = client_for(ann, enforce_csrf_checks=True)
    befriend(ann, bob)
    sent = FriendRequest.objects.create(from_user=UserFactory(username="carl"), to_user=ann)
    before = friends_snapshot()
    for url, data in [
        ("/accounts/friends/request/", {"username": "dora"}),
        (f"/accounts/friends/requests/{sent.pk}/accept/", {}),
        (f"/accounts/friends/requests/{sent.pk}/decline/", {}),
        (f"/accounts/friends/{bob.pk}/remove/", {}),
    ]:
        assert client.post(url, data).status_code == 403
        assert client.post(url, data, **HX).status_code == 403
    assert friends_snapshot() == before


def test_csrf_token_from_the_page_is_accepted(ann, bob):
    client = client_for(ann, enforce_csrf_checks=True)
    client.get("/accounts/friends/")
    token = client.cookies["csrftoken"].value
    response = client.post("/accounts/friends/request/", {"username": "bob"}, HTTP_X_CSRFTOKEN=token, **HX)
    assert response.status_code == 200
    assert FriendRequest.objects.filter(from_user=ann, to_user=bob).exists()


def test_pending_game_invitations_are_listed_with_open_and_decline(ann, bob):
    open_game = GameFactory(kind=Game.Kind.FRIENDS, status=Game.Status.OPEN, host=bob)
    over = GameFactory(kind=Game.Kind.FRIENDS, status=Game.Status.FINISHED, host=bob)
    answered = GameFactory(kind=Game.Kind.FRIENDS, status=Game.Status.OPEN, host=bob)
    Invitation.objects.create(game=open_game, from_user=bob, to_user=ann)
    Invitation.objects.create(game=over, from_user=bob, to_user=ann)
    Invitation.objects.create(game=answered, from_user=bob, to_user=ann, status=Invitation.Status.DECLINED)
    assert [i.game_id for i in lobby.game_invitations_pending(ann.pk)] == [open_game.pk]
    html = client_for(ann).get("/accounts/friends/").content.decode()
    assert f"bob invites you to game {open_game.pk}" in html
    assert f'href="/games/{open_game.pk}/"' in html
    assert f'action="/games/{open_game.pk}/invitation/decline/"' in html
    assert f"/games/{over.pk}/" not in html and f"/games/{answered.pk}/" not in html
    assert "Game invitations" not in client_for(bob).get("/accounts/friends/").content.decode()


def test_page_has_no_inline_script_or_style(ann, bob):
    befriend(ann, bob)
    html = client_for(ann).get("/accounts/friends/", {"q": "b"}).content.decode()
    assert "<script>" not in html and " style=" not in html and " onclick=" not in html
