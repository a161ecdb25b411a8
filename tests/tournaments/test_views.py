"""The tournaments' pages and their socket: the list and the form, a tournament's page at every stage (in
English and Dutch), the actions as plain form posts with CSRF and their refusals (4xx with a message,
nothing changed), the live standings pushed once per change to the open pages, the home page's card,
and the link from a round's game back to its tournament."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import Profile
from dicegame.play import sweeper as game_clock
from notifications.notices import event_html, user_group
from penta.asgi import application
from tests.support import ORIGIN
from tests.support.clock import Clock
from tests.support.factories import UserFactory, befriend, client_for
from tests.support.sockets import cookie_header
from tests.support.tournaments import made_up_round_game, play_round, round_of, seasoned, tournament_of
from tournaments import pushes
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 10, 10, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


def test_the_list_offers_the_form_and_making_one_leads_to_its_page(clock):
    ann = UserFactory(username="ann")
    seasoned(ann)  # what a rated tournament asks of its maker
    client = client_for(ann)
    page = client.get("/tournaments/").content.decode()
    assert 'data-action="create-tournament"' in page and "style=" not in page
    response = client.post(
        "/tournaments/new/",
        {
            "name": "Dice night",
            "rounds": "2",
            "window": "3600",
            "max_entrants": "4",
            "access": "public",
            "rated": "1",
        },
    )
    t = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{t.pk}/"
    assert (t.name, t.rounds, t.window_seconds, t.max_entrants, t.access, t.rated) == (
        "Dice night",
        2,
        3600,
        4,
        "public",
        True,
    )
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "Dice night" in page and 'data-action="play-round"' in page and "style=" not in page
    assert page.count("data-commitment") == 2 and "data-seed>" not in page
    assert (
        'data-rule="unfinished"' in page
        and 'data-rule="withdraw"' in page
        and 'data-rule="fair-play"' in page
    )
    # The par's tie-break, so that anyone can replay it (docs/fair-dice.md).
    assert 'data-rule="par"' in page and "holds more dice, then the smaller values" in page


def test_bad_settings_answer_400_with_the_form_and_its_message(clock):
    client = client_for(UserFactory())
    response = client.post(
        "/tournaments/new/",
        {"name": "X", "rounds": "9", "window": "3600", "max_entrants": "4", "access": "public"},
    )
    assert response.status_code == 400 and "1 to 7 rounds" in response.content.decode()
    assert 'value="X"' in response.content.decode()
    response = client.post("/tournaments/new/", {"name": "X", "rounds": "x"})
    assert response.status_code == 400 and "rounds is missing or not a number" in response.content.decode()
    assert not Tournament.objects.exists()


def test_every_action_needs_a_post_with_csrf(clock):
    ann = UserFactory()
    t = tournament_of(ann)
    strict = Client(enforce_csrf_checks=True)
    assert strict.login(username=ann.username, password="correct-horse-battery-staple")
    for url in (
        "/tournaments/new/",
        f"/tournaments/{t.pk}/enter/",
        f"/tournaments/{t.pk}/play/",
        f"/tournaments/{t.pk}/leave/",
    ):
        assert strict.post(url).status_code == 403, url
        assert strict.get(url).status_code == 405, url
    assert Tournament.objects.count() == 1 and Entry.objects.count() == 1


def test_refusals_answer_4xx_with_their_message_and_change_nothing(clock):
    ann, ben, cas = (UserFactory(username=n) for n in ("ann", "ben", "cas"))
    seasoned(cas)
    t = tournament_of(ann, ben, max_entrants=2)
    # A stranger without the link: the tournament does not exist for them.
    assert client_for(cas).get(f"/tournaments/{t.pk}/").status_code == 404
    response = client_for(cas).post(f"/tournaments/{t.pk}/enter/", {"t": t.invite_token})
    assert response.status_code == 409 and "full" in response.content.decode()
    response = client_for(cas).post(f"/tournaments/{t.pk}/play/")
    assert response.status_code == 403 and "not entered" in response.content.decode()
    response = client_for(ben).post(f"/tournaments/{t.pk}/enter/", {"t": t.invite_token})
    assert response.status_code == 409 and "already" in response.content.decode()
    # A guest who posts is sent to log in first.
    response = Client().post(f"/tournaments/{t.pk}/enter/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert Entry.objects.count() == 2
    assert client_for(cas).get(f"/tournaments/{t.pk}/?t={t.invite_token}").status_code == 200


def test_entering_by_the_link_then_playing_leads_to_the_game(clock):
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    seasoned(ben)
    t = tournament_of(ann)
    page = client_for(ben).get(f"/tournaments/{t.pk}/?t={t.invite_token}").content.decode()
    assert 'data-action="enter"' in page and f'value="{t.invite_token}"' in page
    client = client_for(ben)
    response = client.post(f"/tournaments/{t.pk}/enter/", {"t": t.invite_token})
    assert response.status_code == 302
    response = client.post(f"/tournaments/{t.pk}/play/")
    game_id = Entry.objects.get(user=ben).games.get().game_id
    assert response["Location"] == f"/games/{game_id}/"
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-action="resume-round"' in page and "data-invite-link" in page
    # The game's page says which tournament it is part of, once it is over.
    game = client.get(f"/games/{game_id}/").content.decode()
    assert "Tournament round" in game


def test_a_finished_tournament_shows_its_podium_results_and_share_text_in_both_languages(clock):
    ann, ben, cas = (UserFactory(username=n) for n in ("ann", "ben", "cas"))
    befriend(ann, ben)
    t = tournament_of(ann, ben, cas, rounds=2)
    totals = {1: {ann: 200, ben: 200, cas: 150}, 2: {ann: 100, ben: 250, cas: 150}}
    for n in (1, 2):
        rnd = round_of(t, n)
        for user, total in totals[n].items():
            made_up_round_game(Entry.objects.get(tournament=t, user=user), rnd, total)
        clock.set(rnd.closes_at)
        game_clock.sweep(force=True)
    page = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-podium-place="1" data-user="ben"' in page and 'data-podium-place="3" data-user="cas"' in page
    assert page.count("data-round-result=") == 2 and page.count("data-seed>") == 2
    assert 'data-best-total="250"' in page and "data-best-review" in page
    share = page.split("data-share-text>")[1].split("</pre>")[0]
    lines = share.split("\n")
    assert lines[0] == "Penta tournament “Friday dice”: 2 of 3 (75.0%)"
    assert lines[1].startswith("R1: 200 (par ") and lines[2].startswith("R2: 100 (par ")
    assert lines[3] == f"http://testserver/tournaments/{t.pk}/"
    friends = page.split('data-board="friends"')[1].split("</table>")[0]
    assert 'data-user="ben"' in friends and 'data-user="ann"' in friends and 'data-user="cas"' not in friends
    dutch = client_for(ann, language="nl").get(f"/tournaments/{t.pk}/").content.decode()
    assert "Het podium" in dutch and "Stand" in dutch and "Onder je vrienden" in dutch
    # The past tournaments name the winner.
    listing = client_for(cas).get("/tournaments/").content.decode()
    assert "data-winners>ben<" in listing


def test_the_home_page_announces_the_weekly_tournament(clock):
    game_clock.sweep(force=True)  # the clock makes next week's
    weekly = Tournament.objects.get(weekly_of__isnull=False)
    page = Client().get("/").content.decode()
    assert f'data-weekly="{weekly.pk}"' in page and "Weekly tournament 2026-W25" in page
    anna = UserFactory()
    seasoned(anna)
    page = client_for(anna).get("/").content.decode()
    assert 'data-action="weekly-enter"' in page
    client_for(anna).post(f"/tournaments/{weekly.pk}/enter/")
    assert Entry.objects.filter(tournament=weekly, user=anna).exists()
    assert "Weektoernooi 2026-W25" in client_for(anna, language="nl").get("/").content.decode()


# -- the live standings ---------------------------------------------------------------------------------


async def _socket(tournament_id, user=None, query=""):
    headers = [ORIGIN]
    if user is not None:
        headers.append(await cookie_header(user))
    communicator = WebsocketCommunicator(
        application, f"/ws/tournaments/{tournament_id}/{query}", headers=headers
    )
    connected, _code = await communicator.connect(timeout=5)
    assert connected
    return communicator


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_finished_game_pushes_the_standings_once_to_every_open_page_in_its_language():
    @database_sync_to_async
    def setup():
        ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
        t = tournament_of(ann, ben, access=Tournament.Access.PUBLIC)
        pushes.push_due()  # the entries' changes, pushed to nobody yet
        return ann, ben, t

    ann, ben, t = await setup()
    visitor = await _socket(t.pk, query="?lang=nl")
    player = await _socket(t.pk, ben, query="?lang=en")

    @database_sync_to_async
    def ann_plays():
        play_round(t, ann)
        pushes.push_due()
        pushes.push_due()  # nothing new: nothing sent

    await ann_plays()
    dutch = await visitor.receive_from(timeout=5)
    english = await player.receive_from(timeout=5)
    assert 'id="standings"' in dutch and 'hx-swap-oob="true"' in dutch and "Stand" in dutch
    assert 'id="standings"' in english and "Standings" in english
    ann_row = english.split('data-user="ann"')[1].split("</tr>")[0]
    assert 'data-status="finished"' in ann_row
    assert await visitor.receive_nothing(timeout=0.3) and await player.receive_nothing(timeout=0.3)
    await visitor.disconnect()
    await player.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_round_so_far_reaches_only_those_who_have_played_it():
    @database_sync_to_async
    def setup():
        ann, ben, cas = (UserFactory(username=n) for n in ("ann", "ben", "cas"))
        t = tournament_of(ann, ben, cas, access=Tournament.Access.PUBLIC)
        play_round(t, ann)
        return ann, ben, cas, t

    ann, ben, cas, t = await setup()
    finished = await _socket(t.pk, ann)
    waiting = await _socket(t.pk, cas)

    @database_sync_to_async
    def ben_plays():
        play_round(t, ben)
        pushes.push_due()

    await ben_plays()
    frames = [await finished.receive_from(timeout=5), await finished.receive_from(timeout=5)]
    assert any('id="round-so-far"' in f and 'data-user="ben"' in f for f in frames)
    only = await waiting.receive_from(timeout=5)
    assert 'id="standings"' in only and "round-so-far" not in only and "data-total" not in only
    assert await waiting.receive_nothing(timeout=0.3)
    await finished.disconnect()
    await waiting.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_tournament_by_invitation_keeps_its_socket_from_strangers():
    @database_sync_to_async
    def setup():
        ann, cas = UserFactory(username="ann"), UserFactory(username="cas")
        return cas, tournament_of(ann)

    cas, t = await setup()
    communicator = WebsocketCommunicator(
        application, f"/ws/tournaments/{t.pk}/", headers=[ORIGIN, await cookie_header(cas)]
    )
    await communicator.connect(timeout=5)
    output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.close" and output["code"] == 4404
    await communicator.disconnect()
    with_link = await _socket(t.pk, cas, query=f"?t={t.invite_token}")
    for _ in range(20):
        await with_link.send_to(text_data=json.dumps({"action": "anything"}))
    output = await with_link.receive_output(timeout=5)
    assert output["type"] == "websocket.close" and output["code"] == 4429
    await with_link.disconnect()


def test_a_viewer_under_review_sees_themselves_and_their_page_holds_no_standings_socket(clock):
    """The pushes are made for everyone and leave an account under review out: the page of the person
    under review shows the table with them in it (as every board does), and takes no push that would
    drop them."""
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    t = tournament_of(ann, ben, access=Tournament.Access.PUBLIC)
    assert (
        f'ws-connect="/ws/tournaments/{t.pk}/'
        in client_for(ben).get(f"/tournaments/{t.pk}/").content.decode()
    )
    Profile.objects.update_or_create(user=ben, defaults={"standing": Profile.Standing.REVIEW})
    page = client_for(ben).get(f"/tournaments/{t.pk}/").content.decode()
    assert "/ws/tournaments/" not in page and 'data-user="ben"' in page
    others = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-user="ben"' not in others.split('id="standings"')[1]


def test_the_home_page_lists_the_rounds_waiting_for_the_viewer(clock):
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    t = tournament_of(ann, ben)
    page = client_for(ben).get("/").content.decode()
    assert "data-rounds-to-play" in page and f'href="/tournaments/{t.pk}/">play<' in page
    game = play_round(t, ben, turns=2)
    assert f'href="/games/{game.pk}/">resume<' in client_for(ben).get("/").content.decode()
    play_round(t, ben, turns=11)
    assert "data-rounds-to-play" not in client_for(ben).get("/").content.decode()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_tournament_by_invitation_tells_the_makers_friends():
    @database_sync_to_async
    def people():
        ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
        befriend(ann, ben)
        return ann, ben

    ann, ben = await people()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(user_group(ben.pk), channel)
    t = await database_sync_to_async(tournament_of)(ann)
    event = await asyncio.wait_for(layer.receive(channel), 5)
    assert "ann invites you to the tournament “Friday dice”." in event_html(event, "en")
    assert f'href="/tournaments/{t.pk}/"' in event_html(event, "en")
    assert "nodigt je uit" in event_html(event, "nl")


def test_while_no_round_has_closed_the_table_shows_no_score_not_a_zero(clock):
    """Round 1 in play, two of three played it: "Round 1 so far" gives those two their matchpoints among
    themselves, and the table shows no score yet, not a 0.0% beside them (issue 40)."""
    ann, ben, cas = (UserFactory(username=n) for n in ("ann", "ben", "cas"))
    t = tournament_of(ann, ben, cas, access=Tournament.Access.PUBLIC)
    play_round(t, ann)
    play_round(t, ben)
    page = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    standings = page[page.index('id="standings"') : page.index("</section>", page.index('id="standings"'))]
    assert "0.0%" not in standings and 'data-percent=""' in standings
    assert "The score counts the rounds that have closed" in standings
    so_far = page[page.index('id="round-so-far"') :]
    assert "%" in so_far[: so_far.index("</section>")]
