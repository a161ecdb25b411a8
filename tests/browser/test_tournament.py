"""A friends' tournament of 3 entrants and 2 rounds played in Chromium to the podium, through the pages'
own buttons: made on the list page, entered by its link, each round's game played on the game page, the
standings live on the open pages, each round closing as soon as everyone has played it, the seeds shown
once the rounds close, the podium and the share text; nothing scrolls sideways at 360 px."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from dicegame.models import Player
from tests.browser.pages import (
    PHONE,
    assert_fits_the_phone,
    logged_in_page,
    make_tournament,
    play_tournament_round,
)
from tests.support.factories import UserFactory
from tests.support.tournaments import seasoned
from tournaments.models import Round, RoundGame

pytestmark = pytest.mark.django_db(transaction=True)


def test_three_friends_play_a_two_round_tournament_to_the_podium(browser: Browser, live_server_url: str):
    base = live_server_url
    names = ("anouk", "bram", "cato")
    users = {n: UserFactory(username=n) for n in names}
    seasoned(*users.values())  # what a rated tournament asks of its maker and entrants
    pages = {n: logged_in_page(browser, base, n) for n in names}
    anouk = pages["anouk"]

    tid = make_tournament(anouk, base, name="Friday dice", rounds=2, window="an hour", max_entrants=3)
    expect(anouk.locator("[data-entrants]")).to_have_attribute("data-entrants", "1")
    expect(anouk.locator("[data-commitment]")).to_have_count(2)
    expect(anouk.locator("[data-seed]")).to_have_count(0)
    link = anouk.locator("[data-invite-link]").get_attribute("href")
    for n in ("bram", "cato"):
        pages[n].goto(link)
        pages[n].get_by_role("button", name="Enter the tournament").click()
        expect(pages[n].locator("[data-entered]")).to_be_visible()
    anouk.reload()
    expect(anouk.locator("#standings tbody tr")).to_have_count(3)

    for number in (1, 2):
        commitment = Round.objects.get(tournament_id=tid, number=number).commitment
        for n in names:
            page = pages[n]
            page.goto(f"{base}/tournaments/{tid}/")
            play_tournament_round(page, number)
            if n != "cato":
                # Back on the tournament page, still open: the round waits for the others.
                expect(page.locator(f'[data-round-played="{number}"]')).to_be_visible()
        # Anouk's page has stayed open since her game: the others' games reached it live, and the
        # round's close (everyone has played it) brought the next stage of the page.
        expect(anouk.locator(f'[data-round-result="{number}"]')).to_be_visible()
        expect(anouk.locator(f'[data-round="{number}"] [data-seed]')).to_have_count(1)
        seed = Round.objects.get(tournament_id=tid, number=number).seed
        expect(anouk.locator(f'[data-round="{number}"] [data-commitment]')).to_have_text(commitment)
        expect(anouk.locator(f'[data-round="{number}"] [data-seed]')).to_have_text(seed)

    # The podium: three places, in the order of the final table.
    for n in names:
        pages[n].goto(f"{base}/tournaments/{tid}/")
    podium = anouk.locator("[data-podium] li")
    expect(podium).to_have_count(3)
    table = anouk.locator("#standings tbody tr")
    places = [table.nth(i).get_attribute("data-user") for i in range(3)]
    assert [podium.nth(i).get_attribute("data-user") for i in range(3)] == places
    totals = {
        rg.entry.user.username: rg.total
        for rg in RoundGame.objects.filter(round__tournament_id=tid).select_related("entry__user")
        if rg.round.number == 2
    }
    for n in names:
        row = anouk.locator(f'#standings tr[data-user="{n}"]')
        expect(row.locator('[data-cell="2"] [data-total]')).to_have_attribute("data-total", str(totals[n]))
        game = RoundGame.objects.get(entry__user=users[n], round__number=2).game
        assert Player.objects.get(game=game).total == totals[n]
    share = pages["bram"].locator("[data-share-text]")
    expect(share).to_contain_text(re.compile(r"^Penta tournament “Friday dice”: [123] of 3"))
    # At 360 px nothing scrolls sideways: the tables scroll in their own box.
    anouk.set_viewport_size(PHONE)
    for url in (f"/tournaments/{tid}/", "/tournaments/", "/"):
        anouk.goto(base + url)
        assert_fits_the_phone(anouk)
