"""Fair play's services on real games: assessing, flagging, what a flag does to the boards, staff's
clearing and marking, the page's hidden report, and races."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from accounts.models import Profile
from daily import selectors as daily_selectors
from dicegame import events
from dicegame.models import Game, Turn
from fairplay import model as M
from fairplay import positions, services
from fairplay.models import Case, GameSignals, HiddenTurn
from ratings.models import PlayerRating
from review.leaderboards import leaderboards
from tests.support.factories import UserFactory, befriend, client_for
from tests.support.fairplay import assess, rated_games
from tests.support.games import make_game, race, two_player_game
from tests.support.history import made_up_result

pytestmark = pytest.mark.django_db


def board_names(viewer, users, key="best") -> list[str]:
    board = next(b for b in leaderboards(user_ids=[u.pk for u in users], viewer_id=viewer.pk) if b.key == key)
    return [r.username for r in board.rows]


def standing(user) -> str:
    return Profile.objects.get(user=user).standing


def test_a_solver_is_flagged_within_a_few_games_and_honest_opponents_are_not(strategy):
    cheat = UserFactory(username="cheat")
    games = rated_games(cheat, 3)
    assess()
    case = Case.objects.get(user=cheat)
    # Two games are not enough however good: at least MIN_SUSPICIOUS_GAMES suspicious games.
    assert GameSignals.objects.filter(user=cheat).count() == 3
    rated_games(cheat, 5)
    assess()
    case.refresh_from_db()
    assert case.status == Case.Status.FLAGGED and case.reason == Case.Reason.ASSISTED
    assert case.evidence >= M.FLAG_EVIDENCE and case.suspicious_games >= M.MIN_SUSPICIOUS_GAMES
    assert case.share and case.share > 0.5
    assert standing(cheat) == Profile.Standing.REVIEW
    opponents = {g.players.get(seat=1).user_id for g in games}
    assert not Case.objects.filter(user_id__in=opponents).exclude(status=Case.Status.OPEN).exists()
    # Every seat of a person is assessed once, with its informative decisions counted.
    signals = GameSignals.objects.get(game=games[0], user=cheat)
    assert signals.decisions == signals.best > 20 and signals.loss == 0


def test_an_assessed_game_is_not_assessed_twice_even_by_racing_sweeps(strategy, transactional_db):
    cheat = UserFactory(username="cheat")
    (game,) = rated_games(cheat, 1)
    results = race(3, lambda: services.assess_game(game.pk))
    assert not [r for r in results if isinstance(r, Exception)]
    assert GameSignals.objects.filter(game=game).count() == 2
    assert services.pending_games() == []


def test_a_flag_keeps_the_games_off_the_boards_but_not_off_ones_own(strategy):
    cheat, honest, viewer = UserFactory(username="cheat"), UserFactory(username="honest"), UserFactory()
    rated_games(cheat, 8, opponent=honest)
    day = dt.date(2026, 11, 30)
    made_up_result(cheat, day, 300)
    made_up_result(honest, day, 200)
    assert sorted(board_names(viewer, [cheat, honest])) == ["cheat", "honest"]
    assert [r.name for r in daily_selectors.leaderboard(day, viewer_id=viewer.pk)] == ["cheat", "honest"]
    assess()
    assert Case.objects.get(user=cheat).status == Case.Status.FLAGGED
    assert board_names(viewer, [cheat, honest]) == ["honest"]
    rating_board = board_names(viewer, [cheat, honest], key="rating")
    assert "cheat" not in rating_board
    assert [r.name for r in daily_selectors.leaderboard(day, viewer_id=viewer.pk)] == ["honest"]
    # Nothing shows the flagged person that they are flagged: they see their own rows.
    assert sorted(board_names(cheat, [cheat, honest])) == ["cheat", "honest"]
    assert [r.name for r in daily_selectors.leaderboard(day, viewer_id=cheat.pk)] == ["cheat", "honest"]


def test_clearing_puts_the_account_back_and_it_stays_cleared_without_new_evidence(strategy, admin_user):
    cheat, viewer = UserFactory(username="cheat"), UserFactory()
    rated_games(cheat, 8)
    assess()
    case = services.clear(Case.objects.get(user=cheat).pk, by=admin_user, note="a strong player")
    assert case.status == Case.Status.CLEARED and standing(cheat) == Profile.Standing.GOOD
    assert case.reviewed_by == admin_user and case.note == "a strong player"
    assert "cheat" in board_names(viewer, [cheat])
    services.judge(cheat.pk)
    assert Case.objects.get(user=cheat).status == Case.Status.CLEARED
    # New suspicious games bring it back to the queue.
    rated_games(cheat, 2 * M.MIN_SUSPICIOUS_GAMES + 2)
    assess()
    assert Case.objects.get(user=cheat).status == Case.Status.FLAGGED


def test_marking_takes_the_account_off_every_board_and_says_so_once(strategy, admin_user):
    cheat, viewer = UserFactory(username="cheat"), UserFactory()
    rated_games(cheat, 8)
    assess()
    heard = []
    events.subscribe(events.AccountMarked, heard.append)
    try:
        case = services.mark(Case.objects.get(user=cheat).pk, by=admin_user)
        with pytest.raises(services.FairPlayError):
            services.mark(case.pk, by=admin_user)
    finally:
        events.unsubscribe(events.AccountMarked, heard.append)
    assert standing(cheat) == Profile.Standing.MARKED
    assert [e.user_id for e in heard] == [cheat.pk]
    assert heard[0].since <= case.reviewed_at - services.REFUND_WINDOW + dt.timedelta(seconds=1)
    # Off the boards even to themselves, and told so on the fair-play page with the way to appeal.
    assert "cheat" not in board_names(cheat, [cheat, viewer])
    page = client_for(cheat).get(reverse("fairplay:page"))
    assert b'id="marked-notice"' in page.content and b"data-appeal" in page.content
    assert b'id="marked-notice"' not in client_for(viewer).get(reverse("fairplay:page")).content


def test_a_marked_accounts_rating_is_on_no_friends_list(strategy, admin_user):
    cheat, honest, viewer = UserFactory(username="cheat"), UserFactory(username="honest"), UserFactory()
    for friend in (cheat, honest):
        befriend(viewer, friend)
        PlayerRating.objects.create(user=friend, rating=1700, rd=60, games=20)

    def badges() -> dict[str, bool]:
        html = client_for(viewer).get(reverse("accounts:friends")).content.decode()
        rows = {u: html[html.index(f'data-friend="{u.pk}"') :].split("</li>")[0] for u in (cheat, honest)}
        return {u.username: 'data-rating="1700"' in row for u, row in rows.items()}

    assert badges() == {"cheat": True, "honest": True}
    rated_games(cheat, 8)
    assess()
    services.mark(Case.objects.get(user=cheat).pk, by=admin_user)
    assert badges() == {"cheat": False, "honest": True}


def test_only_flagged_or_marked_accounts_are_cleared(admin_user):
    case = Case.objects.create(user=UserFactory())
    with pytest.raises(services.FairPlayError):
        services.clear(case.pk, by=admin_user)
    assert Case.objects.get(pk=case.pk).status == Case.Status.OPEN


def test_decision_times_come_from_the_servers_clock(strategy):
    game, host, friend = two_player_game(rated=True)
    from tests.support.ratings import play_out

    play_out(game, [host, friend])
    turn = Turn.objects.filter(game=game, player__user=host).first()
    assert len(turn.roll_times) == len(turn.rolls) and turn.chosen_at is not None
    assert turn.chosen_at.timestamp() >= turn.roll_times[-1]
    services.assess_game(game.pk)
    points = GameSignals.objects.get(game=game, user=host).points
    # One roll a turn: the stop after it is timed with its box (None), the box from the roll.
    timed = [p[0] for p in points if p[0] is not None]
    assert timed and all(t >= 0 for t in timed)


def test_decision_seconds_follow_the_analysis_order():
    # Rolled at 0, 4 and 10 s, chosen at 13 s: hold 4 s, hold 6 s, box 3 s.
    assert positions.decision_seconds([100.0, 104.0, 110.0], 113.0, 115.0) == [4.0, 6.0, 3.0]
    # Stopped after the second roll: the stop is timed with its box.
    assert positions.decision_seconds([100.0, 104.0], None, 109.0) == [4.0, None, 5.0]
    assert positions.decision_seconds([], None, 1.0) == []


@pytest.fixture
def my_turn_game(db):
    game, host, friend = two_player_game(rated=True)
    return game, host, friend


def test_the_page_reports_being_hidden_once_per_turn(my_turn_game):
    game, host, friend = my_turn_game
    url = reverse("fairplay:hidden", args=[game.pk])
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    client = client_for(host)
    for _ in range(3):
        assert client.post(url, {"turn": turn.number}).status_code == 204
    assert HiddenTurn.objects.filter(game=game, user=host).count() == 1


@pytest.mark.parametrize(
    "who, turn_offset, status",
    [("friend", 0, 409), ("host", 1, 409), ("guest", 0, 403)],
)
def test_a_hidden_report_for_a_turn_not_ones_own_is_refused(my_turn_game, client, who, turn_offset, status):
    game, host, friend = my_turn_game
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    c = client if who == "guest" else client_for(host if who == "host" else friend)
    answer = c.post(reverse("fairplay:hidden", args=[game.pk]), {"turn": turn.number + turn_offset})
    assert answer.status_code == status and answer.json()["error"]
    assert not HiddenTurn.objects.exists()


def test_a_hidden_report_for_someone_elses_game_is_the_same_404_as_for_no_game(my_turn_game):
    """Not an oracle: a game one has no seat in answers as a game that does not exist (as every other
    game endpoint does), whatever the turn asked for."""
    game, host, friend = my_turn_game
    stranger = client_for(UserFactory(username="stranger"))
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    missing = stranger.post(reverse("fairplay:hidden", args=[game.pk + 1000]), {"turn": turn.number})
    assert missing.status_code == 404 and missing.json() == {"error": "There is no such game."}
    for asked in (turn.number, turn.number + 1, "x"):
        theirs = stranger.post(reverse("fairplay:hidden", args=[game.pk]), {"turn": asked})
        assert (theirs.status_code, theirs.content) == (404, missing.content)
    assert not HiddenTurn.objects.exists()


def test_a_hidden_report_needs_the_csrf_token(my_turn_game):
    game, host, friend = my_turn_game
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    c = client_for(host, enforce_csrf_checks=True)
    assert c.post(reverse("fairplay:hidden", args=[game.pk]), {"turn": turn.number}).status_code == 403
    assert not HiddenTurn.objects.exists()


def test_a_malformed_hidden_report_is_a_400(my_turn_game):
    game, host, friend = my_turn_game
    answer = client_for(host).post(reverse("fairplay:hidden", args=[game.pk]), {"turn": "x" * 30})
    assert answer.status_code == 400 and not HiddenTurn.objects.exists()


def test_the_game_page_asks_for_the_report_only_on_ones_own_turn_of_a_rated_game(my_turn_game):
    game, host, friend = my_turn_game
    url = reverse("dicegame:game", args=[game.pk])
    assert b"data-hidden-report" in client_for(host).get(url).content
    assert b"data-hidden-report" not in client_for(friend).get(url).content


def test_the_fair_play_page_says_the_rules_in_both_languages(client):
    en = client.get(reverse("fairplay:page"))
    assert en.status_code == 200 and b"The model, not a threshold" in en.content
    nl = client_for(UserFactory(), language="nl").get(reverse("fairplay:page"))
    assert b"Het model, geen drempel" in nl.content


def test_the_fair_play_page_says_what_counts_and_what_the_model_cannot_tell_apart(client):
    en = client.get(reverse("fairplay:page")).content.decode()
    assert "data-not-yours" in en and "A box the auto-commit wrote after your last roll is not yours" in en
    assert f"up to {round(100 * M.ALLOWANCE)}% of the decisions" in en
    assert "data-solver-level" in en and "is play at the solver" in en
    nl = client_for(UserFactory(), language="nl").get(reverse("fairplay:page")).content.decode()
    assert "niveau van de solver zelf" in nl and f"tot {round(100 * M.ALLOWANCE)}% van de beslissingen" in nl


def test_the_review_queue_shows_the_evidence_and_staff_decide_there(strategy, admin_client, admin_user):
    cheat = UserFactory(username="cheat")
    games = rated_games(cheat, 8)
    assess()
    case = Case.objects.get(user=cheat)
    listing = admin_client.get(reverse("admin:fairplay_case_changelist") + "?status__exact=flagged")
    assert listing.status_code == 200 and b"cheat" in listing.content
    page = admin_client.get(reverse("admin:fairplay_case_evidence", args=[case.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count("data-game-review") == len(games)
    assert 'class="chart scatter-chart"' in html and html.count('class="chart-dot suspicious"') >= 3
    assert f"{case.evidence:.1f}" in html
    # The review links open for staff, although the games are not theirs.
    assert admin_client.get(reverse("review:review", args=[games[0].pk])).status_code == 200
    decide = reverse("admin:fairplay_case_decide", args=[case.pk])
    assert admin_client.get(decide).status_code == 405
    admin_client.post(decide, {"decision": "clear", "note": "known strong player"})
    case.refresh_from_db()
    assert case.status == Case.Status.CLEARED and case.note == "known strong player"
    assert standing(cheat) == Profile.Standing.GOOD


def test_the_review_queue_is_for_staff_only(strategy):
    cheat = UserFactory(username="cheat")
    rated_games(cheat, 8)
    assess()
    case = Case.objects.get(user=cheat)
    player = client_for(UserFactory())
    assert player.get(reverse("admin:fairplay_case_evidence", args=[case.pk])).status_code == 302
    player.post(reverse("admin:fairplay_case_decide", args=[case.pk]), {"decision": "clear"})
    assert Case.objects.get(pk=case.pk).status == Case.Status.FLAGGED


def test_the_clock_process_assesses_daily_games_too(strategy):
    from dicegame.play import sweeper

    player = UserFactory()
    game = make_game([player], kind=Game.Kind.SOLO, strengths=["hard"])
    Game.objects.filter(pk=game.pk).update(daily_date=dt.date(2026, 11, 30))
    casual = make_game([player], kind=Game.Kind.SOLO, strengths=["hard"])
    sweeper.sweep_apart(force=True)
    assert GameSignals.objects.filter(game=game, user=player).exists()
    assert not GameSignals.objects.filter(game=casual).exists()  # a solo game ranks nobody


def test_signals_of_an_older_model_are_assessed_again(strategy):
    cheat = UserFactory(username="cheat")
    (game,) = rated_games(cheat, 1)
    assess()
    GameSignals.objects.filter(game=game).update(version=M.MODEL_VERSION - 1, table=b"stale")
    assert services.pending_games() == [game.pk]
    assess()
    rows = GameSignals.objects.filter(game=game, user=cheat)
    assert [r.version for r in rows] == [M.MODEL_VERSION]
    assert len(rows[0].signals.records) == rows[0].decisions
