"""The answers to htmx requests on the game screen: made without a template from the regions the page and
the pushes share (dicegame.screen.regions.answer_update), each region for an out-of-band swap."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import constants
from django.test import Client
from django.test.signals import template_rendered
from django.utils import translation

from dicegame.models import Game, Turn
from dicegame.screen import regions
from tests.support import HX
from tests.support.games import open_turn

REGION = re.compile(r'<(\w+) id="([\w-]+)"[^>]*hx-swap-oob')


def region_html(html: str, dom_id: str) -> str:
    """One region's element, its out-of-band marker and the forms' token field taken out (the page's
    forms carry a masked token, the answers' an empty one)."""
    start = html.index(f'id="{dom_id}"')
    start = html.rindex("<", 0, start)
    tag = html[start + 1 : html.index(" ", start)]
    depth, i = 0, start
    opening, closing = re.compile(rf"<{tag}[\s>]"), f"</{tag}>"
    while True:
        next_open = opening.search(html, i + 1)
        next_close = html.index(closing, i + 1)
        if next_open and next_open.start() < next_close:
            depth += 1
            i = next_open.start()
        elif depth:
            depth -= 1
            i = next_close
        else:
            element = html[start : next_close + len(closing)]
            break
    element = element.replace(' hx-swap-oob="morph"', "")
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", element)


@pytest.fixture
def solo(user_client, user):
    user_client.post("/games/solo/")
    game = Game.objects.get(players__user=user)
    return user_client, game


def post(client, game: Game, action: str, **extra):
    turn: Turn = open_turn(game)
    fields = {"turn": turn.number if turn else 1, "roll": turn.rolls_used if turn else 0, **extra}
    return client.post(f"/games/{game.pk}/{action}/", fields, **HX)


@pytest.mark.django_db
def test_an_action_is_answered_without_a_template_with_the_regions_it_changes(solo):
    client, game = solo
    rendered = []

    def record(sender, template, **kwargs):
        rendered.append(template.name)

    template_rendered.connect(record)
    try:
        roll = post(client, game, "roll")
        hold = post(client, game, "hold/2")
    finally:
        template_rendered.disconnect(record)
    assert roll.status_code == hold.status_code == 200
    assert rendered == []
    # A roll can change every region; a hold only the turn's status and the dice.
    every = ["messages", "game-status", "turn-status", "dice-tray", "hints", "hints-badge", "moments"]
    every += ["game-controls", "next-game", "scoresheet"]
    assert [m[1] for m in REGION.findall(roll.content.decode())] == every
    found = [m[1] for m in REGION.findall(hold.content.decode())]
    assert found[:4] == ["messages", "game-status", "turn-status", "dice-tray"]
    assert 'id="scoresheet"' not in hold.content.decode()


@pytest.mark.django_db
def test_the_answer_and_the_page_show_a_region_alike(solo):
    """One markup: what an answer swaps in is what the page, loaded at the same state, shows."""
    client, game = solo
    answer = post(client, game, "roll").content.decode()
    page = client.get(f"/games/{game.pk}/").content.decode()
    for dom_id in ("turn-status", "dice-tray", "scoresheet", "game-controls", "hints", "next-game"):
        assert region_html(answer, dom_id) == region_html(page, dom_id), dom_id


@pytest.mark.django_db
def test_a_refused_action_is_answered_with_its_message_and_changes_nothing(solo):
    client, game = solo
    post(client, game, "roll")
    turn = open_turn(game)
    stale = client.post(f"/games/{game.pk}/roll/", {"turn": turn.number, "roll": 0}, **HX)
    assert stale.status_code == 409
    messages = region_html(stale.content.decode(), "messages")
    assert re.search(r'<p class="msg msg-error" role="alert">[^<]+</p>', messages)
    turn.refresh_from_db()
    assert turn.rolls_used == 1


@pytest.mark.django_db
def test_the_answer_speaks_the_persons_language(solo):
    client, game = solo
    answer = client.post(
        f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0}, HTTP_ACCEPT_LANGUAGE="nl", **HX
    ).content.decode()
    assert "Ronde 1 van 13" in answer
    assert '<th scope="row" data-short="Tot">Totaal</th>' in answer


def test_the_message_area_escapes_and_marks_errors_as_alerts():
    class Message:
        def __init__(self, level, tags, text):
            self.level, self.tags, self.text = level, tags, text

        def __str__(self):
            return self.text

    queued = [
        Message(constants.SUCCESS, "success", "Saved <b>"),
        Message(constants.ERROR, "error", "No & no"),
    ]
    with translation.override("en"):
        html = regions.messages(queued, 'Refused "here"', oob=True)
    assert html.startswith(
        '<div id="messages" class="messages" role="status" aria-live="polite" hx-swap-oob="true">'
    )
    assert '<p class="msg msg-success">Saved &lt;b&gt;</p>' in html
    assert '<p class="msg msg-error" role="alert">No &amp; no</p>' in html
    assert '<p class="msg msg-error" role="alert">Refused &quot;here&quot;</p>' in html
    assert "hx-swap-oob" not in regions.messages([], "", oob=False)


@pytest.mark.django_db
def test_an_answer_carries_no_token_and_the_next_tap_still_passes_the_csrf_check(user):
    """The forms in an answer have no token of their own (as in the pushes): htmx sends the page's, from
    the body's hx-headers, with every request. No freshly masked token and no Set-Cookie per tap, and a
    request without the page's token is still refused, changing nothing."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get("/")
    token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page.content.decode()).group(1)
    started = client.post("/games/solo/", HTTP_X_CSRFTOKEN=token, **HX)
    assert started.status_code == 200
    game = Game.objects.get(players__user=user)

    def tap(action: str, **headers):
        turn = open_turn(game)
        fields = {"turn": turn.number, "roll": turn.rolls_used}
        return client.post(f"/games/{game.pk}/{action}/", fields, **HX, **headers)

    roll = tap("roll", HTTP_X_CSRFTOKEN=token)
    assert roll.status_code == 200
    html = roll.content.decode()
    assert re.findall(r'name="csrfmiddlewaretoken" value="([^"]*)"', html) == ["", "", ""]
    assert "csrftoken" not in roll.cookies
    # The next tap, with the page's token as htmx sends it: accepted.
    hold = tap("hold/2", HTTP_X_CSRFTOKEN=token)
    assert hold.status_code == 200
    assert open_turn(game).held[1] is True
    # Without it (the answer's forms carry none): refused, and the dice stay held as they were.
    refused = tap("hold/2")
    assert refused.status_code == 403
    assert open_turn(game).held[1] is True
