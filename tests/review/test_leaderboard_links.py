"""Every leaderboard names its players with a link to their player page (issue 22, item 13): the
leaderboards among friends and site-wide (rating, best total, recent average, Pentas, accuracy), the
day's boards and the daily all-time table, and head to head. And the rating rule is said once, on the
fair-play page: the screens that show ratings carry one line leading there."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from accounts.models import Profile
from daily import services as daily_services
from daily.models import DailySeed
from dicegame.models import Game, Player
from dicegame.play import rooms
from ratings.models import PlayerRating, RatingChange
from ratings.services import rating_rule
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.history import bulk_history, made_up_result

pytestmark = pytest.mark.django_db


def board_rows(html: str) -> list[tuple[str, str]]:
    """(data-user, the row's HTML) of every leaderboard row on the page."""
    return re.findall(r'<tr class="[^"]*" data-user="([^"]+)">(.*?)</tr>', html, re.S)


def assert_every_name_links(html: str, where: str, expected: int) -> None:
    rows = board_rows(html)
    assert len(rows) >= expected, (where, len(rows))
    for name, row in rows:
        assert f'<a href="/players/{name}/">{name}</a>' in row, (where, name)


def test_every_leaderboard_links_its_players(user):
    friend = UserFactory(username="board-friend")
    befriend(user, friend)
    for person in (user, friend):
        Profile.objects.update_or_create(user=person, defaults={"leaderboard_opt_in": True})
        bulk_history(person, 6, analysed=True, kinds=[Game.Kind.SOLO])
        PlayerRating.objects.create(user=person, rating=1600, rd=60, games=20)
    # The Pentas board needs a Penta.
    Player.objects.filter(user__in=[user, friend]).update(boxes={"PENTA": 50})
    c = client_for(user)
    for scope in ("friends", "site"):
        html = c.get(f"/leaderboard/?scope={scope}").content.decode()
        boards = re.findall(r'data-board="(\w+)"', html)
        assert set(boards) >= {"rating", "best", "recent", "pentas", "accuracy"}
        assert_every_name_links(html, f"leaderboard {scope}", expected=10)

    today = daily_services.today()
    daily_services.publish_commitments(timezone.now() - dt.timedelta(days=4))
    days = [today - dt.timedelta(days=d) for d in range(4)]  # today, and three days that have ended
    DailySeed.objects.filter(date__in=days).update(par=250)
    for day in days:
        made_up_result(user, day, 200)
        made_up_result(friend, day, 210)
    assert_every_name_links(c.get("/daily/").content.decode(), "the day's boards", expected=4)
    assert_every_name_links(c.get("/daily/all-time/").content.decode(), "all-time", expected=4)

    page = c.get(f"/players/{user.username}/").content.decode()
    row = page.split(f'data-opponent="{friend.username}"')[1].split("</tr>")[0]
    assert f'<a href="/players/{friend.username}/">{friend.username}</a>' in row


def test_the_rating_rule_is_said_once_and_linked_from_the_screens_with_ratings(user):
    friend = UserFactory()
    befriend(user, friend)
    rule = rating_rule().replace("'", "&#x27;")
    link = '<p class="small" data-rating-rule><a href="/fair-play/#rating-rules">'
    game = Game.objects.create(
        kind=Game.Kind.FRIENDS,
        status=Game.Status.FINISHED,
        rated=True,
        seed="0" * 64,
        finished_at=timezone.now(),
    )
    for seat, person in enumerate((user, friend)):
        Player.objects.create(
            game=game, seat=seat, user=person, name=person.username, total=100 + seat, rank=2 - seat
        )
        PlayerRating.objects.create(user=person, rating=1500, rd=200, games=1)
        RatingChange.objects.create(
            game=game,
            user=person,
            rating_before=1500,
            rd_before=350,
            rating_after=1500 + seat,
            rd_after=200,
            volatility_after=0.06,
            score=seat,
            opponents=1,
        )
    room = rooms.room_create(actor=actor(user), seats=2, turn_seconds=30, rated=True)
    c = client_for(user)
    screens = {
        "leaderboard": "/leaderboard/",
        "a rated game's end": f"/games/{game.pk}/",
        "a rated room": f"/games/{room.pk}/",
        "the player page": f"/players/{user.username}/",
    }
    for where, url in screens.items():
        html = c.get(url).content.decode()
        assert rule not in html and "Glicko-2 ratings of the people" not in html, where
        assert html.count(link) == 1, where
    fair_play = c.get("/fair-play/").content.decode()
    assert fair_play.count(rule) == 1 and 'id="rating-rules"' in fair_play
