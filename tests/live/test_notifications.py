"""Live notices and presence over the notification socket, through the real ASGI application."""

import asyncio
import json
from datetime import timedelta

import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone, translation

from accounts import services
from accounts.models import Profile
from live import presence
from live.models import ServerProcess
from notifications.notices import notice_html, notify_user
from tests.support.factories import UserFactory
from tests.support.sockets import open_notice_socket


async def last_seen(user):
    return await database_sync_to_async(lambda: Profile.objects.get(user=user).last_seen)()


async def set_last_seen(user, when):
    await database_sync_to_async(lambda: Profile.objects.filter(user=user).update(last_seen=when))()


async def online(user) -> bool:
    return await database_sync_to_async(presence.is_online)(user.pk)


async def error_frame(communicator) -> str:
    frame = await communicator.receive_from(timeout=5)
    assert frame.startswith(
        '<div id="notifications" hx-swap-oob="beforeend"><p class="notice error" role="alert">'
    )
    return frame


@pytest_asyncio.fixture
async def flush_layer():
    await get_channel_layer().flush()


# -- the notice fragment (no socket) ----------------------------------------------------------------------


def test_notice_html_is_an_escaped_out_of_band_fragment():
    html = notice_html('<b>Ann</b> & "co"', "/games/7/?a=1&b=2", "Open <game>")
    assert html.startswith('<div id="notifications" hx-swap-oob="beforeend"><p class="notice" role="status">')
    assert "&lt;b&gt;Ann&lt;/b&gt; &amp; &quot;co&quot;" in html
    assert '<a href="/games/7/?a=1&amp;b=2">Open &lt;game&gt;</a>' in html
    assert html.endswith("</p></div>")
    assert "<a " not in notice_html("No link here")


def test_notify_user_without_listeners_is_harmless():
    notify_user(123456, notice_html("nobody listens"))


# -- the socket -------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_anonymous_visitor_is_closed_with_4401(flush_layer):
    communicator, connected, _code = await open_notice_socket(None)
    assert connected  # accepted, then closed with a code the page can see (htmx does not retry it)
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
    await communicator.wait()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_foreign_origin_is_refused(flush_layer):
    user = await database_sync_to_async(UserFactory)()
    _communicator, connected, _code = await open_notice_socket(
        user, origin=(b"origin", b"http://evil.example")
    )
    assert not connected
    assert not await database_sync_to_async(Profile.objects.filter(user=user).exists)()
    _communicator, connected, _code = await open_notice_socket(user, origin=(b"x-nothing", b""))
    assert not connected


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_connect_marks_online_and_notices_reach_only_their_player(flush_layer):
    ann, bob = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    to_ann, connected, _ = await open_notice_socket(ann)
    assert connected
    to_bob, connected, _ = await open_notice_socket(bob)
    assert connected
    assert await online(ann) and await online(bob)

    html = await sync_to_async(notice_html)("Bob invites you to a game.", "/games/7/", "Open")
    await sync_to_async(notify_user)(ann.pk, html)
    assert await to_ann.receive_from(timeout=5) == html
    assert await to_bob.receive_nothing(timeout=0.3)

    await to_ann.disconnect()
    await to_bob.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_friend_request_notifies_the_other_player_live(flush_layer):
    ann, bob = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    to_bob, connected, _ = await open_notice_socket(bob)
    assert connected
    await database_sync_to_async(services.friend_request_send)(from_user=ann, username=bob.username)
    frame = await to_bob.receive_from(timeout=5)
    assert f"{ann.username} wants to be your friend." in frame
    assert 'href="/accounts/friends/"' in frame
    await to_bob.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_notice_is_in_each_page_s_language_not_the_sender_s(flush_layer):
    """Ann sends from an English page; Bob has a Dutch page and an English one open."""

    ann, bob = await database_sync_to_async(lambda: (UserFactory(), UserFactory()))()
    dutch, connected, _ = await open_notice_socket(bob, extra=[(b"accept-language", b"nl")])
    english, connected_too, _ = await open_notice_socket(bob, extra=[(b"accept-language", b"en")])
    assert connected and connected_too

    def send_in_english():
        with translation.override("en"):
            services.friend_request_send(from_user=ann, username=bob.username)

    await database_sync_to_async(send_in_english)()
    assert f"{ann.username} wil je vriend zijn." in await dutch.receive_from(timeout=5)
    assert f"{ann.username} wants to be your friend." in await english.receive_from(timeout=5)
    await dutch.disconnect()
    await english.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize(
    "message",
    [
        "not json",
        "{",
        json.dumps({"type": "hello"}),
        json.dumps(["ping"]),
        json.dumps("ping"),
        json.dumps({"type": "ping", "pad": "x" * 5000}),
        "x" * 4097,
    ],
)
async def test_anything_but_a_ping_gets_an_error_frame_and_changes_nothing(flush_layer, message):
    user = await database_sync_to_async(UserFactory)()
    communicator, connected, _ = await open_notice_socket(user)
    assert connected
    await communicator.send_to(text_data=message)
    await error_frame(communicator)
    # Still open, and the player still online: a ping is taken without an answer.
    await communicator.send_to(text_data=json.dumps({"type": "ping"}))
    assert await communicator.receive_nothing(timeout=0.2)
    assert await online(user)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_binary_frames_get_an_error_frame(flush_layer):
    user = await database_sync_to_async(UserFactory)()
    communicator, connected, _ = await open_notice_socket(user)
    assert connected
    await communicator.send_to(bytes_data=b'{"type": "ping"}')
    await error_frame(communicator)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_error_frames_never_echo_the_input(flush_layer):
    user = await database_sync_to_async(UserFactory)()
    communicator, connected, _ = await open_notice_socket(user, extra=[(b"accept-language", b"nl")])
    assert connected
    await communicator.send_to(text_data="nope")
    frame = await error_frame(communicator)
    assert "nope" not in frame  # the message text is ours, never the input echoed back
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_online_while_the_process_holding_the_socket_beats(flush_layer, settings):
    user = await database_sync_to_async(UserFactory)()
    communicator, connected, _ = await open_notice_socket(user)
    assert connected
    assert await online(user) and await last_seen(user) > timezone.now() - timedelta(seconds=5)
    # The process stops beating (killed, frozen): the player is offline, with no close ever seen.
    stale = timezone.now() - timedelta(seconds=settings.PENTA_PROCESS_STALE_SECONDS + 1)
    await database_sync_to_async(lambda: ServerProcess.objects.update(beat_at=stale))()
    assert not await online(user)
    # It beats again: online again.
    await database_sync_to_async(presence.beat)()
    assert await online(user)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_closing_the_last_socket_goes_offline_but_another_tab_keeps_online(flush_layer):
    user = await database_sync_to_async(UserFactory)()
    first, connected, _ = await open_notice_socket(user)
    assert connected
    second, connected, _ = await open_notice_socket(user)
    assert connected
    await first.disconnect()
    await asyncio.sleep(0.3)  # the other socket answers the presence check
    assert await online(user)
    await second.disconnect()
    await asyncio.sleep(0.1)
    assert not await online(user)
