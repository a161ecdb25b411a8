"""Ratings on the screens: the rated room (form, invitation, room, refusals), the player page's rating
section and chart, the friends list, the leaderboards; in English and Dutch."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.services import profile_set_leaderboard_opt_in
from dicegame.models import Game, Invitation
from dicegame.play import rooms
from ratings.models import PROVISIONAL_RD, PlayerRating, RatingChange
from tests.support.environment import forget_cached
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.ratings import play_out, rated_room

pytestmark = pytest.mark.django_db

# The rule is said once, on the fair-play page; the screens with ratings lead there in one line.
RULE_EN = (
    '<a href="/fair-play/#rating-rules">How rated games move ratings (Glicko-2), forfeits and fair play</a>'
)
RULE_NL = "Hoe ratingspellen de ratings veranderen (Glicko-2), reglementair verlies en eerlijk spel"


@pytest.fixture(autouse=True)
def _fresh(settings):
    settings.PENTA_BOT_STEP_SECONDS = 0
    forget_cached()


def no_inline_style(html: str) -> None:
    assert not re.search(r"\sstyle=", html)


def test_the_host_chooses_rated_or_casual_when_creating_a_room(host):
    client = client_for(host)
    client.post("/games/friends/", {"seats": 2, "turn_seconds": 60, "rated": "1"})
    client.post("/games/friends/", {"seats": 2, "turn_seconds": 0})
    rated, casual = Game.objects.order_by("pk")
    assert rated.rated and not casual.rated
    page = client.get(f"/games/{rated.pk}/").content.decode()
    assert 'data-room-rated="1"' in page and "data-rated" in page and RULE_EN in page
    assert 'data-room-rated="0"' in client.get(f"/games/{casual.pk}/").content.decode()
    assert 'name="rated"' in client.get("/").content.decode()


def test_the_invitation_says_rated(host, friend):
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60, rated=True)
    rooms.room_invite(game_id=game.pk, actor=actor(host), username=friend.username)
    assert Invitation.objects.get(game=game).status == Invitation.Status.PENDING
    friends_page = client_for(friend).get("/accounts/friends/").content.decode()
    assert f'data-invitation="{Invitation.objects.get(game=game).pk}"' in friends_page
    assert "data-rated" in friends_page
    join = client_for(friend).get(f"/games/join/{game.invite_token}/")
    assert join.status_code == 200 and 'data-room-rated="1"' in join.content.decode()
    nl = client_for(friend, "nl").get(f"/games/join/{game.invite_token}/").content.decode()
    assert "Ratingspel" in nl


def test_a_guest_is_refused_a_rated_rooms_link_but_may_watch(host):
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60, rated=True)
    guest = Client()
    response = guest.get(f"/games/join/{game.invite_token}/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "only players with an account can take a seat" in page
    assert "data-watch-link" in page
    assert game.players.count() == 1
    # Watching is still open to the link's holder.
    assert guest.get(f"/games/{game.pk}/?t={game.invite_token}").status_code == 200
    nl = Client(headers={"accept-language": "nl"}).get(f"/games/join/{game.invite_token}/")
    assert nl.status_code == 403 and "alleen spelers met een account" in nl.content.decode()
    # A casual room's link still offers the guest to log in and sit down.
    casual = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    assert guest.get(f"/games/join/{casual.invite_token}/").status_code == 200


def test_hints_are_refused_on_the_page_with_a_message_and_not_offered(strategy):
    a, b = UserFactory(username="ann"), UserFactory(username="bob")
    game = rated_room(a, [b])
    client = client_for(a)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'action="/games/{game.pk}/hints/"' not in page
    version = Game.objects.get(pk=game.pk).version
    response = client.post(f"/games/{game.pk}/hints/", {"on": "1"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert "Hints are off in rated games." in response.content.decode()
    game.refresh_from_db()
    assert game.version == version and not game.hints_used


def test_the_room_shows_its_peoples_ratings(strategy):
    a, b = UserFactory(username="ann"), UserFactory(username="bob")
    play_out(rated_room(a, [b]), [a, b], worst=[b])
    room = rooms.room_create(actor=actor(a), seats=3, turn_seconds=60, rated=True)
    rooms.room_join_by_link(token=room.invite_token, actor=actor(b))
    rooms.room_add_computer(game_id=room.pk, actor=actor(a), strength="easy")
    page = client_for(a).get(f"/games/{room.pk}/").content.decode()
    mine = PlayerRating.objects.get(user=a)
    assert f'data-rating="{round(mine.rating)}"' in page and f'data-rd="{round(mine.rd)}"' in page
    assert "data-provisional" in page  # one game: still provisional
    no_inline_style(page)


def test_a_finished_rated_game_shows_each_persons_change(strategy):
    a, b = UserFactory(username="ann"), UserFactory(username="bob")
    game = play_out(rated_room(a, [b]), [a, b], worst=[b])
    page = client_for(a).get(f"/games/{game.pk}/").content.decode()
    change = RatingChange.objects.get(game=game, user=a)
    delta = round(change.rating_after - change.rating_before)
    assert f'data-rating-change="+{delta}"' in page
    # Two newcomers' first game: the new rating is still provisional, and the end card says so.
    assert change.rd_after > PROVISIONAL_RD
    assert f"→ {round(change.rating_after)}, provisional (+{delta})" in page
    assert RULE_EN in page
    # A casual game's end shows no rating change.
    casual = play_out(rated_room(a, [b], rated=False), [a, b])
    page = client_for(a).get(f"/games/{casual.pk}/").content.decode()
    assert "data-rating-change" not in page and RULE_EN not in page


def test_the_player_page_has_the_rating_with_its_history_chart_and_the_rule(strategy):
    a, b = UserFactory(username="ann"), UserFactory(username="bob")
    befriend(a, b)
    first = play_out(rated_room(a, [b]), [a, b], worst=[b])
    rooms.rematch_accept(game_id=first.pk, actor=actor(a))
    second = play_out(rooms.rematch_accept(game_id=first.pk, actor=actor(b)), [a, b], worst=[b])
    page = client_for(a).get(f"/players/{a.username}/").content.decode()
    row = PlayerRating.objects.get(user=a)
    assert "data-rating-section" in page and f'data-rating="{round(row.rating)}"' in page
    assert "data-rating-chart" in page and "<svg" in page and "polyline" in page
    assert f'data-game="{first.pk}"' in page and f'data-game="{second.pk}"' in page
    assert RULE_EN in page
    no_inline_style(page)
    # The friend sees it too; in Dutch the rule is Dutch.
    nl = client_for(b, "nl").get(f"/players/{a.username}/").content.decode()
    assert RULE_NL in nl
    # Someone without rated games is "unrated".
    fresh = UserFactory(username="cleo")
    assert "No rated games yet" in client_for(fresh).get(f"/players/{fresh.username}/").content.decode()


def test_friends_list_and_leaderboards_show_ratings(strategy, django_assert_max_num_queries):
    a, b, c = (UserFactory(username=n) for n in ("ann", "bob", "cleo"))
    befriend(a, b)
    befriend(a, c)
    play_out(rated_room(a, [b]), [a, b], worst=[b])
    ratings = {r.user_id: r for r in PlayerRating.objects.all()}
    client = client_for(a)
    friends = client.get("/accounts/friends/").content.decode()
    bob_row = friends[friends.index(f'data-friend="{b.pk}"') :]
    assert f'data-rating="{round(ratings[b.pk].rating)}"' in bob_row.split("</li>")[0]
    cleo_row = friends[friends.index(f'data-friend="{c.pk}"') :]
    assert "unrated" in cleo_row.split("</li>")[0]

    # (+1 since the header counts the games waiting for the person's move, +1 for who is off the boards,
    # +1 for the cache versions the boards depend on, +2 as their first reading stores the site-wide ones.)
    with django_assert_max_num_queries(14):
        board = client.get("/leaderboard/?scope=friends").content.decode()
    rating_board = board[board.index('data-board="rating"') :].split("</section>")[0]
    # Ann won: first, Bob second, Cleo (no rated game) absent.
    order = re.findall(r'data-user="(\w+)"', rating_board)
    assert order == ["ann", "bob"]
    assert f'data-value="{round(ratings[a.pk].rating)}"' in rating_board
    assert "data-provisional" in rating_board

    # Site-wide: only those who opted in.
    profile_set_leaderboard_opt_in(user=b, on=True)
    site = client.get("/leaderboard/?scope=site").content.decode()
    site_board = site[site.index('data-board="rating"') :].split("</section>")[0]
    assert re.findall(r'data-user="(\w+)"', site_board) == ["bob"]
    no_inline_style(site)
