"""Puzzles, fair play: an attempt is rated only if the puzzle's answer was never shown to the account nor
in the browser (the puzzles' own signed cookie), so looking at the answer as a guest, or from another
account, and then solving it from an account counts for nothing; and nobody else sees a puzzle rating."""

from __future__ import annotations

import re

import pytest
from django.test import Client, RequestFactory, override_settings

from accounts.services import profile_set_leaderboard_opt_in
from dicegame.rules.scoring import Box
from puzzles import services as S
from puzzles import views
from puzzles.models import Attempt, Puzzle, PuzzleRating, PuzzleReveal
from tests.support import HX
from tests.support.factories import PASSWORD, UserFactory, client_for
from tests.support.games import race
from tests.support.puzzles import ALL_BUT, keep, make_puzzle

BROWSER_SENTENCE = "This attempt is practice: this puzzle's answer was already shown in this browser."
ACCOUNT_SENTENCE = "This attempt is practice: this puzzle's answer was already shown to this account."


@pytest.fixture
def puzzle(db, strategy):
    """Three 6s after the first roll on an empty sheet: keeping them is clearly best."""
    return make_puzzle(None, (6, 6, 6, 1, 2), 2, strategy)


def solve(client: Client, puzzle: Puzzle, **extra):
    """Answer with the best choice (keep the three 6s), as the page's form sends it."""
    indices = [str(i) for i, v in enumerate(puzzle.dice, start=1) if v == 6]
    return client.post(f"/puzzles/{puzzle.pk}/", {"action": "keep", "keep": indices}, **extra)


def log_in(client: Client, user) -> None:
    assert client.login(username=user.username, password=PASSWORD)


def log_out(client: Client) -> None:
    """As a browser logs out: the session goes, the browser's other cookies stay (the test client's own
    logout() would throw every cookie away)."""
    assert client.post("/accounts/logout/").status_code in (200, 302)
    assert "_auth_user_id" not in client.session


def device_of(client: Client) -> str:
    """The browser's id, read as the views read it (raises if the signature does not hold)."""
    request = RequestFactory().get("/")
    request.COOKIES[views.DEVICE_COOKIE] = client.cookies[views.DEVICE_COOKIE].value
    return request.get_signed_cookie(views.DEVICE_COOKIE, salt=views.DEVICE_SALT)


def assert_unrated(user, puzzle: Puzzle) -> None:
    assert not Attempt.objects.filter(user=user, puzzle=puzzle).exists()
    rating = PuzzleRating.objects.filter(user=user).first()
    assert rating is None or (rating.rating == 1500.0 and rating.attempts == 0)


# -- the browser's mark ------------------------------------------------------------------------------


def test_a_puzzle_page_marks_the_browser_once_with_a_signed_private_cookie(client, puzzle):
    response = client.get(f"/puzzles/{puzzle.pk}/")
    morsel = response.cookies[views.DEVICE_COOKIE]
    assert morsel["httponly"] and morsel["samesite"] == "Lax" and not morsel["secure"]
    assert int(morsel["max-age"]) >= 365 * 24 * 60 * 60
    device = device_of(client)
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", device) and morsel.value != device  # signed, not bare
    # Kept, not replaced, on the next page and the answer.
    assert views.DEVICE_COOKIE not in client.get(f"/puzzles/{puzzle.pk}/").cookies
    assert views.DEVICE_COOKIE not in solve(client, puzzle).cookies
    assert PuzzleReveal.objects.filter(puzzle=puzzle, device=device, user=None).exists()


def test_the_mark_is_secure_where_the_session_is(puzzle):
    with override_settings(SESSION_COOKIE_SECURE=True):
        response = Client().get(f"/puzzles/{puzzle.pk}/")
    assert response.cookies[views.DEVICE_COOKIE]["secure"]


@pytest.mark.parametrize("forged", ["made-up", "raw"])
def test_a_tampered_mark_is_no_mark(client, user, puzzle, forged):
    # Someone else's browser was shown the answer; this one claims that browser's id, unsigned or with
    # the signature of another id: it is treated as no mark, so a new one is set and counts.
    other = Client()
    solve(other, puzzle)
    seen = device_of(other)
    if forged == "raw":
        client.cookies[views.DEVICE_COOKIE] = seen
    else:
        signed = other.cookies[views.DEVICE_COOKIE].value
        client.cookies[views.DEVICE_COOKIE] = "A" * 32 + signed[32:]
    log_in(client, user)
    response = solve(client, puzzle)
    assert response.status_code == 200
    fresh = device_of(client)
    assert fresh != seen and fresh != "A" * 32
    assert 'data-rating-change="' in response.content.decode()  # rated: the forged id did not count
    assert PuzzleReveal.objects.filter(puzzle=puzzle, device=fresh).exists()
    assert PuzzleReveal.objects.filter(puzzle=puzzle, device__in=[seen, "A" * 32]).count() == 1  # other's


# -- who may be rated --------------------------------------------------------------------------------


def test_a_guest_who_saw_the_answer_then_logs_in_in_the_same_browser_is_practice(client, user, puzzle):
    guest = solve(client, puzzle)
    assert guest.status_code == 200 and "data-unrated" in guest.content.decode()
    log_in(client, user)
    page = client.get(f"/puzzles/{puzzle.pk}/").content.decode()
    assert 'data-practice-note="browser"' in page and "has been shown in this browser" in page
    response = solve(client, puzzle)
    html = response.content.decode()
    assert response.status_code == 200 and 'data-practice="browser"' in html
    assert BROWSER_SENTENCE in html and "Your puzzle rating stays 1500." in html
    assert "data-rating-change" not in html
    assert_unrated(user, puzzle)
    puzzle.refresh_from_db()
    assert puzzle.attempts == 0 and puzzle.rating == 1500.0


def test_another_account_in_the_same_browser_is_practice(client, puzzle):
    first, second = UserFactory(), UserFactory()
    log_in(client, first)
    assert 'data-rating-change="' in solve(client, puzzle).content.decode()
    log_out(client)
    log_in(client, second)
    html = solve(client, puzzle, **HX).content.decode()
    assert 'data-practice="browser"' in html and BROWSER_SENTENCE in html
    assert_unrated(second, puzzle)
    assert Attempt.objects.get().user == first
    puzzle.refresh_from_db()
    assert puzzle.attempts == 1


def test_an_account_shown_the_answer_is_practice_in_another_browser_too(puzzle):
    user = UserFactory()
    shared = Client()
    solve(shared, puzzle)  # a guest in the shared browser
    log_in(shared, user)
    assert 'data-practice="browser"' in solve(shared, puzzle).content.decode()
    # The account has now been shown the answer: a browser of its own does not make it new.
    own = client_for(user)
    assert 'data-practice-note="account"' in own.get(f"/puzzles/{puzzle.pk}/").content.decode()
    html = solve(own, puzzle).content.decode()
    assert 'data-practice="account"' in html and ACCOUNT_SENTENCE in html
    assert_unrated(user, puzzle)


def test_a_fresh_browser_and_account_is_rated_whatever_others_saw(puzzle):
    solve(Client(), puzzle)  # a guest elsewhere
    elsewhere = client_for(UserFactory())
    solve(elsewhere, puzzle)  # another account, in its own browser
    user = UserFactory()
    response = solve(client_for(user), puzzle)
    assert re.search(r"Your puzzle rating: 1500 → \d+ \(\+\d+\)", response.content.decode())
    assert PuzzleRating.objects.get(user=user).rating > 1500
    assert Attempt.objects.filter(user=user, puzzle=puzzle).exists()


@pytest.mark.parametrize("guest_first", [False, True])
def test_twenty_accounts_in_one_browser_are_rated_at_most_once(client, puzzle, guest_first):
    if guest_first:
        solve(client, puzzle)
    users = [UserFactory() for _ in range(20)]
    results = []
    for user in users:
        log_in(client, user)
        response = solve(client, puzzle, **HX)
        assert response.status_code == 200
        results.append("data-rating-change" in response.content.decode())
        log_out(client)
    # Only the first account can count, and only if no guest looked first: its own answer is a reveal.
    assert results == ([False] * 20 if guest_first else [True] + [False] * 19)
    assert Attempt.objects.count() == (0 if guest_first else 1)
    assert PuzzleRating.objects.filter(attempts__gt=0).count() == (0 if guest_first else 1)
    best = max(r.rating for r in PuzzleRating.objects.all())
    assert best < 1700  # nowhere near the 2230 of the attack
    puzzle.refresh_from_db()
    assert puzzle.attempts == (0 if guest_first else 1)


def test_every_answer_shown_is_recorded_for_the_account_and_the_browser(user, client, puzzle, strategy):
    log_in(client, user)
    other = make_puzzle(ALL_BUT(Box.SMALL_STRAIGHT, Box.CHANCE, Box.ONES), (1, 2, 3, 4, 6), 0, strategy)
    solve(client, puzzle)  # rated
    solve(client, puzzle)  # practice
    client.post(f"/puzzles/{other.pk}/", {"box": "CHANCE"})  # a wrong answer shows the right one too
    device = device_of(client)
    assert set(PuzzleReveal.objects.values_list("puzzle_id", "user_id", "device")) == {
        (puzzle.pk, user.pk, ""),
        (puzzle.pk, None, device),
        (other.pk, user.pk, ""),
        (other.pk, None, device),
    }
    # An illegal choice shows no answer: nothing recorded.
    third = make_puzzle(None, (5, 5, 5, 1, 2), 2, strategy)
    assert client.post(f"/puzzles/{third.pk}/", {"action": "keep", "keep": ["9"]}).status_code == 400
    assert not PuzzleReveal.objects.filter(puzzle=third).exists()


def test_the_next_puzzle_skips_puzzles_shown_in_this_browser(client, user, puzzle, strategy):
    # Without this an unrated attempt leaves no Attempt and the same puzzle would come back every time.
    later = make_puzzle(ALL_BUT(Box.SMALL_STRAIGHT, Box.CHANCE, Box.ONES), (1, 2, 3, 4, 6), 0, strategy)
    Puzzle.objects.filter(pk=later.pk).update(rating=1800)
    solve(client, puzzle)
    log_in(client, user)
    assert client.get("/puzzles/next/")["Location"] == f"/puzzles/{later.pk}/"
    solve(client, puzzle)  # practice: no Attempt row, but the account has been shown the answer now
    # Nor those shown to the account, in any browser.
    other = client_for(user)
    assert other.get("/puzzles/next/")["Location"] == f"/puzzles/{later.pk}/"


# -- races -------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_accounts_answering_at_once_in_one_browser_are_rated_at_most_once(strategy):
    puzzle = make_puzzle(None, (6, 6, 6, 1, 2), 2, strategy)
    first = Client()
    first.get(f"/puzzles/{puzzle.pk}/")
    mark = first.cookies[views.DEVICE_COOKIE].value
    clients = []
    for _ in range(4):
        c = client_for(UserFactory())
        c.cookies[views.DEVICE_COOKIE] = mark
        clients.append(c)
    it = iter(clients)
    responses = race(4, lambda: solve(next(it), Puzzle.objects.get(pk=puzzle.pk), **HX))
    assert all(getattr(r, "status_code", None) == 200 for r in responses), responses
    rated = ["data-rating-change" in r.content.decode() for r in responses]
    assert sum(rated) == 1
    practice = [r.content.decode() for r, ok in zip(responses, rated, strict=True) if not ok]
    assert all('data-practice="browser"' in html for html in practice)
    assert Attempt.objects.count() == 1
    assert PuzzleRating.objects.filter(attempts=1).count() == 1
    puzzle.refresh_from_db()
    assert puzzle.attempts == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_attempts_in_the_services_are_rated_at_most_once(strategy):
    puzzle = make_puzzle(None, (6, 6, 6, 1, 2), 2, strategy)
    users = iter([UserFactory() for _ in range(4)])
    device = "d" * 32

    def attempt():
        return S.answer(Puzzle.objects.get(pk=puzzle.pk), puzzle.best.key, user=next(users), device=device)

    results = race(4, attempt)
    assert all(isinstance(r, S.Answer) for r in results), results
    assert sum(r.rated for r in results) == 1
    assert sorted(r.practice_reason for r in results) == ["", "browser", "browser", "browser"]
    assert PuzzleReveal.objects.filter(device=device).count() == 1
    assert PuzzleReveal.objects.filter(user__isnull=False).count() == 4


# -- what the pages say, and who sees a puzzle rating ------------------------------------------------


def test_the_puzzles_page_states_the_rule_and_that_ratings_are_private(client, user):
    html = client.get("/puzzles/").content.decode()
    assert (
        "A puzzle counts for your puzzle rating only on your first try, and only if its answer has not "
        "been shown in this browser or to your account before." in html
    )
    assert "Puzzle ratings are private: only you see yours, and no leaderboard shows them." in html
    dutch = client_for(user, language="nl").get("/puzzles/").content.decode()
    assert "Een puzzel telt alleen mee voor je puzzelrating bij je eerste poging" in dutch
    assert "Puzzelratings zijn privé" in dutch


def test_the_practice_sentence_speaks_dutch(user, puzzle):
    guest = Client()
    solve(guest, puzzle)
    client = client_for(user, language="nl")
    client.cookies[views.DEVICE_COOKIE] = guest.cookies[views.DEVICE_COOKIE].value  # the same browser
    html = solve(client, puzzle).content.decode()
    assert "Deze poging is oefening: het antwoord op deze puzzel is in deze browser al getoond." in html


def test_a_puzzle_rating_is_seen_by_its_owner_only(user, puzzle):
    # The attack's figure: were it on any page of the player or a board, a stranger would see it.
    PuzzleRating.objects.create(user=user, rating=2230.0, attempts=20, solved=20)
    profile_set_leaderboard_opt_in(user=user, on=True)  # their page and name are public now
    assert "Your puzzle rating: 2230" in client_for(user).get("/puzzles/").content.decode()
    stranger = client_for(UserFactory())
    for url in (f"/players/{user.username}/", "/leaderboard/?scope=site", "/puzzles/"):
        for viewer in (stranger, Client()):
            response = viewer.get(url)
            assert response.status_code == 200, url
            assert "2230" not in response.content.decode(), url


# -- the index's count of the person's own puzzles ------------------------------------------------------


def own_left_shown(client: Client) -> int:
    found = re.search(r"<p data-own-left>(\d+) puzzles? from your own games", client.get("/puzzles/").text)
    return int(found.group(1)) if found else 0


def test_the_index_counts_own_puzzles_neither_tried_nor_shown_to_the_account_or_in_this_browser(
    client, user, strategy
):
    """The count is run for each viewer and browser with their own values: each exclusion still
    applies, to this person and browser only."""
    from puzzles.models import PuzzleSource
    from tests.support.games import make_game

    game = make_game([user])
    seat = game.players.get(user=user)
    positions = [(6, 6, 6, 1, 2), (5, 5, 5, 1, 2), (4, 4, 4, 1, 2), (3, 3, 3, 1, 2)]
    mine = [make_puzzle(None, dice, 2, strategy) for dice in positions]
    for n, puzzle in enumerate(mine, start=1):
        PuzzleSource.objects.create(
            puzzle=puzzle,
            game=game,
            player=seat,
            turn_number=n,
            rolls_left=2,
            chosen=keep(1).to_json(),
            loss=1.0,
        )
    make_puzzle(None, (2, 2, 2, 1, 5), 2, strategy)  # not from this person's games
    someone = UserFactory()
    log_in(client, user)
    client.get(f"/puzzles/{mine[0].pk}/")  # the browser's mark
    assert own_left_shown(client) == 4
    solve(client, mine[0])  # tried (and shown to the account and in this browser)
    assert own_left_shown(client) == 3
    PuzzleReveal.objects.create(puzzle=mine[1], user=user)  # shown to the account elsewhere
    assert own_left_shown(client) == 2
    PuzzleReveal.objects.create(puzzle=mine[2], device=device_of(client))  # shown in this browser
    assert own_left_shown(client) == 1
    # Another browser of the same person has not seen the third; another person's reveals are theirs.
    PuzzleReveal.objects.create(puzzle=mine[3], user=someone)
    assert own_left_shown(client_for(user)) == 2
    assert own_left_shown(client_for(someone)) == 0
