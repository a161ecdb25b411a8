"""Challenges and the inbox through the pages (issue 41): a Play button on every friend's row, on player
pages and in head to head; the sheet and its one-tap send; the inbox at the top of the home page (your
turn, then what waits for your answer, then your own offers) and the header's count of what waits; the
answer a pinged page asks for; a challenge's page following it; "Play someone now" and the open list.
Refusals answer 4xx with the message the page shows, and change nothing."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from dicegame.models import Game
from dicegame.offers import Challenge, Seek
from dicegame.play import challenges, inbox, rooms, seeks
from dicegame.play.challenges import Terms
from dicegame.rules.turn import CORRESPONDENCE_GAMES_MAX
from tests.support import HX
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import mark_finished, started_two_player_game

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
WAITING = reverse("dicegame:waiting")


def send(frm, to, terms=None) -> Challenge:
    return challenges.challenge_send(actor=actor(frm), username=to.username, terms=terms or Terms())


def section(page: str, dom_id: str) -> str:
    start = page.index(f'id="{dom_id}"')
    return page[start : page.index("</section>", start)]


# -- the Play buttons and the sheet ----------------------------------------------------------------------


def test_a_play_button_on_every_friends_row_on_player_pages_and_in_head_to_head(host, friend):
    page = client_for(host).get(reverse("accounts:friends")).content.decode()
    sheet = reverse("dicegame:challenge_new", args=["femke"])
    assert f'href="{sheet}" data-play="femke"' in page
    player = client_for(host).get(reverse("review:player", args=["femke"])).content.decode()
    assert f'href="{sheet}" data-play="femke"' in player
    game = started_two_player_game(host, friend)
    mark_finished(game)
    mine = client_for(host).get(reverse("review:player", args=["hana"])).content.decode()
    assert re.search(rf'<tr data-opponent="femke">.*href="{sheet}" data-play="femke"', mine, re.S)


def test_the_sheet_offers_the_terms_and_one_tap_sends_them(host, friend):
    c = client_for(host)
    sheet = c.get(reverse("dicegame:challenge_new", args=["femke"]))
    assert sheet.status_code == 200
    html = sheet.content.decode()
    assert 'name="move_seconds"' in html and 'name="turn_seconds"' in html
    assert 'name="rated" value="1"' in html and html.count('name="bot"') == 2
    response = c.post(
        reverse("dicegame:challenge_create"),
        {"to": "femke", "move_seconds": "0", "turn_seconds": "30", "rated": "1", "bot": ["medium", ""]},
    )
    challenge = Challenge.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "dicegame:challenge", args=[challenge.pk]
    )
    assert (challenge.turn_seconds, challenge.rated, challenge.bots) == (30, True, ["medium"])
    # The next sheet starts from the last terms sent to her: playing again is one tap.
    challenges.challenge_cancel(challenge_id=challenge.pk, actor=actor(host))
    again = c.get(reverse("dicegame:challenge_new", args=["femke"])).content.decode()
    assert '<option value="30" selected>' in again and 'name="rated" value="1" checked' in again
    assert '<option value="medium" selected>' in again


def test_a_correspondence_challenge_opens_the_game_for_the_first_roll(host, friend):
    response = client_for(host).post(
        reverse("dicegame:challenge_create"), {"to": "femke", "move_seconds": str(DAY), "turn_seconds": "60"}
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert 'id="game-challenge"' in page and "Waiting for femke to accept" in page
    assert 'data-action="roll"' in page
    theirs = client_for(friend).get(f"/games/{game.pk}/").content.decode()
    assert "hana challenges you to this game" in theirs and "data-accept" in theirs


@pytest.mark.parametrize(
    ("post", "status", "message"),
    [
        ({"to": "hana"}, 400, "You can&#x27;t play against yourself"),
        ({"to": "nobody"}, 404, "There is no player called nobody."),
        ({"to": "femke", "turn_seconds": "45"}, 400, "The turn timer is off, 30, 60 or 120 seconds."),
        ({"to": "femke", "turn_seconds": "x"}, 400, "turn_seconds is missing or not a number"),
        ({"to": "femke", "bot": ["easy", "easy", "easy"]}, 400, "at most 2 computer players"),
    ],
)
def test_bad_input_is_a_clear_refusal_that_changes_nothing(host, friend, post, status, message):
    for client_kwargs in ({}, HX):
        response = client_for(host).post(reverse("dicegame:challenge_create"), post, **client_kwargs)
        assert response.status_code == status
        assert message in response.content.decode()
    assert not Challenge.objects.exists() and not Game.objects.exists()


def test_a_challenge_to_someone_with_50_correspondence_games_is_refused_on_the_page(host, friend):
    for _ in range(CORRESPONDENCE_GAMES_MAX):
        rooms.room_create(actor=actor(friend), seats=2, turn_seconds=0, move_seconds=DAY)
    games = Game.objects.count()
    response = client_for(host).post(
        reverse("dicegame:challenge_create"), {"to": "femke", "move_seconds": str(DAY)}
    )
    assert response.status_code == 409
    assert "femke already plays 50 correspondence games" in response.content.decode()
    assert Game.objects.count() == games and not Challenge.objects.exists()


# -- answering, and the challenge's page ---------------------------------------------------------------


def test_accept_starts_the_game_and_a_second_accept_is_refused(host, friend):
    challenge = send(host, friend)
    c = client_for(friend)
    response = c.post(reverse("dicegame:challenge_accept", args=[challenge.pk]))
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    again = c.post(reverse("dicegame:challenge_accept", args=[challenge.pk]), **HX)
    assert again.status_code == 409 and "accepted already" in again.content.decode()
    assert Game.objects.count() == 1
    # Both are sent to the game from the challenge's page.
    for person in (host, friend):
        page = client_for(person).get(reverse("dicegame:challenge", args=[challenge.pk]))
        assert page.status_code == 302 and page["Location"] == f"/games/{game.pk}/"


def test_decline_and_cancel_are_one_tap_and_return_where_they_were_made(host, friend):
    first = send(host, friend)
    response = client_for(friend).post(reverse("dicegame:challenge_decline", args=[first.pk]), {"next": "/"})
    assert response.status_code == 302 and response["Location"] == "/"
    second = send(host, friend)
    response = client_for(host).post(
        reverse("dicegame:challenge_cancel", args=[second.pk]), {"next": "https://evil.example/"}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    assert [c.status for c in Challenge.objects.order_by("pk")] == ["declined", "cancelled"]


def test_a_challenges_page_follows_it(host, friend):
    challenge = send(host, friend)
    url = reverse("dicegame:challenge", args=[challenge.pk])
    page = client_for(host).get(url).content.decode()
    assert f'id="challenge-follow-{challenge.pk}"' in page and "Waiting for femke to answer" in page
    assert "data-accept" in client_for(friend).get(url).content.decode()
    assert client_for(UserFactory(username="sam")).get(url).status_code == 404
    assert Client().get(url).status_code == 404
    # Asked by its page after a ping: nothing while it waits, the game once accepted, a reload once not.
    assert client_for(host).get(url, **HX).status_code == 204
    game = challenges.challenge_accept(challenge_id=challenge.pk, actor=actor(friend))
    assert client_for(host).get(url, **HX)["HX-Redirect"] == f"/games/{game.pk}/"
    other = send(friend, host)
    challenges.challenge_decline(challenge_id=other.pk, actor=actor(host))
    follow = client_for(friend).get(reverse("dicegame:challenge", args=[other.pk]), **HX)
    assert follow["HX-Refresh"] == "true"
    assert (
        "hana declined this challenge."
        in client_for(friend).get(reverse("dicegame:challenge", args=[other.pk])).content.decode()
    )


def test_a_declined_correspondence_challenges_game_says_so(host, friend):
    challenge = send(host, friend, Terms(move_seconds=DAY))
    challenges.challenge_decline(challenge_id=challenge.pk, actor=actor(friend))
    page = client_for(host).get(f"/games/{challenge.game_id}/").content.decode()
    assert "femke declined the challenge: the game will not be played." in page


# -- the inbox and the header's count --------------------------------------------------------------------


def test_the_inbox_leads_the_home_page_your_turn_then_answers_then_offers(host, friend):
    ines = UserFactory(username="ines")
    befriend(host, ines)
    turn = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    to_me = send(ines, host)
    room = rooms.room_create(actor=actor(friend), seats=3, turn_seconds=60)
    rooms.room_invite(game_id=room.pk, actor=actor(friend), username="hana")
    mine = send(host, UserFactory(username="sam"))  # a stranger (by their player page, say)
    page = client_for(host).get("/").content.decode()
    order = [page.index(f'id="{i}"') for i in ("inbox", "waiting", "answers", "offers")]
    assert order == sorted(order) and page.index('id="inbox"') < page.index('class="hero"')
    assert f'data-game="{turn.pk}"' in section(page, "waiting")
    answers = section(page, "answers")
    assert f'data-challenge="{to_me.pk}"' in answers and "ines challenges you" in answers
    assert f'data-invitation="{rooms.Invitation.objects.get(game=room).pk}"' in answers
    assert f'data-challenge="{mine.pk}"' in section(page, "offers") and "To sam" in section(page, "offers")
    # The header counts what waits for her: a move, a challenge, an invitation (not her own offer).
    assert 'data-waiting="3"' in page and 'href="/#inbox"' in page


def test_the_count_is_on_every_page_and_the_ping_answer_carries_the_inbox(host, friend):
    challenge = send(friend, host)
    page = client_for(host).get(reverse("dicegame:history")).content.decode()
    assert 'id="waiting-count"' in page and 'data-waiting="1"' in page
    body = client_for(host).get(WAITING, **HX).content.decode()
    assert body.count('hx-swap-oob="morph"') == 2 and 'id="inbox"' in body
    assert f'data-challenge="{challenge.pk}"' in body
    # And the pages of the person's challenges that changed lately follow them.
    assert f'id="challenge-follow-{challenge.pk}" hidden hx-swap-oob="true"' in body


def test_the_header_count_is_one_compiled_statement(host, friend, django_assert_num_queries):
    """On every page of a logged-in person: what waits for them costs one query, as the games alone
    did before."""
    ines = UserFactory(username="ines")
    started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    send(friend, host)
    room = rooms.room_create(actor=actor(ines), seats=2, turn_seconds=60)
    befriend(ines, host)
    rooms.room_invite(game_id=room.pk, actor=actor(ines), username="hana")
    inbox.inbox_count(user_id=host.pk)  # compiled once per connection
    with django_assert_num_queries(1):
        assert inbox.inbox_count(user_id=host.pk) == 3
    assert inbox.inbox_count(user_id=friend.pk) == 0


# -- a game with someone new ----------------------------------------------------------------------------


def test_play_someone_now_waits_then_follows_to_the_game(host, friend):
    c = client_for(host)
    response = c.post(reverse("dicegame:play_now"), {"turn_seconds": "60", "rated": "1"})
    seek = Seek.objects.get()
    wait = reverse("dicegame:play_now_wait", args=[seek.pk])
    assert response.status_code == 302 and response["Location"] == wait
    page = c.get(wait).content.decode()
    assert 'hx-trigger="every 2s"' in page and "Looking for someone to play a rated game" in page
    assert c.get(wait, **HX).status_code == 200
    other = client_for(UserFactory(username="sam")).post(reverse("dicegame:play_now"), {"rated": "1"})
    game = Game.objects.get()
    assert other["Location"] == f"/games/{game.pk}/"
    assert c.get(wait, **HX)["HX-Redirect"] == f"/games/{game.pk}/"


def test_a_guest_is_refused_a_rated_game_with_the_reason(db):
    response = Client().post(reverse("dicegame:play_now"), {"rated": "1"})
    assert response.status_code == 403 and "a guest plays casual games" in response.content.decode()
    assert not Seek.objects.exists()
    response = Client().post(reverse("dicegame:play_now"), {})
    assert response.status_code == 302 and Seek.objects.get().user is None


def test_the_open_list_filters_and_one_tap_takes_a_game(host, friend):
    offer = seeks.seek_post(actor=actor(friend), rated=False, move_seconds=DAY, rating=1600)
    c = client_for(host)
    listed = c.get(reverse("dicegame:open_games"), {"pace": DAY, "min": 1500, "max": 1700}).content.decode()
    assert f'data-seek="{offer.pk}"' in listed
    assert (
        f'data-seek="{offer.pk}"' not in c.get(reverse("dicegame:open_games"), {"min": 1650}).content.decode()
    )
    response = c.post(reverse("dicegame:open_game_accept", args=[offer.pk]))
    game = Game.objects.get()
    assert response["Location"] == f"/games/{game.pk}/"
    again = client_for(UserFactory(username="sam")).post(
        reverse("dicegame:open_game_accept", args=[offer.pk]), **HX
    )
    assert again.status_code == 409 and "Someone else took this game first." in again.content.decode()
