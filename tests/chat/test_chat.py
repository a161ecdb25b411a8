"""Chat at the table: who may say what, the checks on a line, the rate limit and the duplicate rule,
blocks, reports, time-outs, the drawer fetched on demand, and the erasure of a person's lines."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Block, Profile
from chat import selectors, services
from chat.models import ChatLine, ChatPanic, ChatReport, ChatTimeout
from dicegame import events
from dicegame.models import Game
from tests.support.chat import seasoned, table
from tests.support.factories import GameFactory, PlayerFactory, TurnFactory, UserFactory, befriend, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def friends():
    ann, bob = seasoned("ann"), seasoned("bob")
    befriend(ann, bob)
    return ann, bob, table(ann, bob)


def say(user, game, text, kind="text", table=None):
    return services.line_post(game_id=game.pk, user=user, kind=kind, text=text, table=table)


def test_friends_say_a_line_a_phrase_and_a_reaction(friends):
    ann, bob, game = friends
    say(ann, game, "nice roll")
    say(bob, game, "gg", kind="phrase")
    say(bob, game, "fire", kind="reaction")
    lines = selectors.visible_lines(game=game, user_id=ann.pk, room="players")
    assert [(line.kind, line.shown) for line in lines] == [
        ("text", "nice roll"),
        ("phrase", "Good game!"),
        ("reaction", "🔥"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \t ",
        "x" * 141,
        "hi\x00there",
        "\u202e\u202d ",
        "\u200b\u2060",
        None,
        "https://evil.example.com/x",
    ],
)
def test_bad_lines_are_refused_and_store_nothing(friends, text):
    ann, _bob, game = friends
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, text)
    assert refused.value.status == 400 and refused.value.message
    assert not ChatLine.objects.exists()


def test_unknown_phrase_or_reaction_is_refused(friends):
    ann, _bob, game = friends
    for kind, key in (("phrase", "insult"), ("reaction", "💩"), ("shout", "hi")):
        with pytest.raises(services.ChatRefused):
            say(ann, game, key, kind=kind)
    assert not ChatLine.objects.exists()


def test_links_go_except_to_penta_s_own_pages(friends, settings):
    ann, _bob, game = friends
    settings.PENTA_SITE_URL = "https://penta.example"
    line = say(ann, game, "see https://spam.com/win and https://penta.example/games/1/ ok")
    assert line.text == "see and https://penta.example/games/1/ ok"
    assert say(ann, game, "visit www.spam.org now").text == "visit now"


def test_direction_overrides_are_removed(friends):
    ann, _bob, game = friends
    assert say(ann, game, "a\u202eb").text == "ab"


def test_a_game_one_is_not_in_is_refused_to_its_players_room():
    ann, bob, eve = seasoned("ann"), seasoned("bob"), seasoned("eve")
    game = table(ann, bob)
    with pytest.raises(services.ChatRefused) as refused:
        say(eve, game, "hello")
    assert refused.value.status == 404
    assert not ChatLine.objects.exists()


def test_no_chat_in_a_solo_or_local_game():
    ann = seasoned("ann")
    game = GameFactory(kind=Game.Kind.SOLO)
    PlayerFactory(game=game, user=ann)
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "hi", kind="phrase")
    assert refused.value.status == 400


def test_strangers_have_phrases_only_unless_both_allow_chat():
    ann, bob = seasoned("ann"), seasoned("bob")
    game = table(ann, bob)
    say(ann, game, "hi", kind="phrase")
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "hello stranger")
    assert refused.value.status == 403
    Profile.objects.update_or_create(user=ann, defaults={"chat_strangers": True})
    with pytest.raises(services.ChatRefused):
        say(ann, game, "hello stranger")
    Profile.objects.update_or_create(user=bob, defaults={"chat_strangers": True})
    assert say(ann, game, "hello stranger").kind == "text"


def test_a_new_account_has_phrases_but_no_free_text_yet():
    ann, bob = UserFactory(username="newbie"), seasoned("bob")
    befriend(ann, bob)
    game = table(ann, bob)
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "hello")
    assert refused.value.status == 403 and "finished 3 games" in refused.value.message
    say(ann, game, "hi", kind="phrase")


def test_the_drawer_tells_a_new_account_before_it_types():
    ann, bob = UserFactory(username="newbie"), seasoned("bob")
    befriend(ann, bob)
    game = table(ann, bob)
    drawer = client_for(ann).get(reverse("chat:drawer", args=[game.pk])).content.decode()
    assert "data-chat-limited" in drawer and "finished 3 games" in drawer and "data-chat-form" not in drawer
    assert "data-chat-phrase" in drawer
    assert "data-chat-form" in client_for(bob).get(reverse("chat:drawer", args=[game.pk])).content.decode()


def test_panic_mode_keeps_free_text_to_established_accounts_for_its_time(friends, admin_client):
    ann, bob, game = friends
    veteran = seasoned("vera")
    for _ in range(selectors.ESTABLISHED_GAMES - selectors.MIN_FINISHED_GAMES):
        PlayerFactory(game=GameFactory(status=Game.Status.FINISHED), user=veteran)
    type(veteran).objects.filter(pk=veteran.pk).update(date_joined=timezone.now() - dt.timedelta(days=30))
    befriend(veteran, ann)
    their_game = table(veteran, ann)
    answer = admin_client.post(reverse("admin:chat_chatpanic_add"), {"hours": "1", "reason": "a raid"})
    assert answer.status_code == 302 and selectors.panic_active()

    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "hello")
    assert refused.value.status == 403 and "long-standing players" in refused.value.message
    say(ann, game, "hi", kind="phrase")  # keys stay open to everyone
    say(veteran, their_game, "calm down, all")
    drawer = client_for(bob).get(reverse("chat:drawer", args=[game.pk])).content.decode()
    assert "data-chat-limited" in drawer and "long-standing players" in drawer

    # It ends by itself, or when staff end it.
    assert not selectors.panic_active(timezone.now() + dt.timedelta(hours=1, seconds=1))
    admin_client.post(
        reverse("admin:chat_chatpanic_changelist"),
        {"action": "end_now", "_selected_action": [ChatPanic.objects.get().pk]},
    )
    assert not selectors.panic_active()
    say(ann, game, "hello")


def test_panic_mode_needs_a_reason_and_a_bounded_length():
    with pytest.raises(services.ChatRefused):
        services.panic_start(hours=1, reason="  ")
    with pytest.raises(services.ChatRefused):
        services.panic_start(hours=services.PANIC_MAX_HOURS + 1, reason="forever")
    assert not ChatPanic.objects.exists()


def test_rate_limit_per_person_and_game(friends):
    ann, bob, game = friends
    for n in range(services.RATE_LINES):
        say(ann, game, f"line {n}")
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "one too many")
    assert refused.value.status == 429
    say(bob, game, "my own limit")
    assert ChatLine.objects.filter(sender=ann).count() == services.RATE_LINES


def test_the_same_line_again_is_dropped(friends):
    ann, _bob, game = friends
    say(ann, game, "slowpoke")
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "  SLOWPOKE ")
    assert refused.value.status == 409
    assert ChatLine.objects.count() == 1


def test_a_blocked_person_s_lines_are_never_shown(friends):
    ann, bob, game = friends
    say(bob, game, "hello ann")
    Block.objects.create(blocker=ann, blocked=bob)
    assert selectors.visible_lines(game=game, user_id=ann.pk, room="players") == []
    assert len(selectors.visible_lines(game=game, user_id=bob.pk, room="players")) == 1


def test_a_timeout_silences_the_person_with_its_reason(friends):
    ann, _bob, game = friends
    services.timeout_set(user_id=ann.pk, length="15m", reason="spam")
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "hi", kind="phrase")
    assert refused.value.status == 403 and "spam" in refused.value.message
    ChatTimeout.objects.update(until=timezone.now() - dt.timedelta(seconds=1))
    say(ann, game, "hi", kind="phrase")


def test_a_line_with_the_game_as_read_before_reads_no_game_and_the_rules_afresh(friends):
    """A socket keeps the game for its player's next lines (the cost of a line); what the rules ask of
    the person (a time-out, a mute, panic mode) is still read for every line."""
    ann, _bob, game = friends
    kept = selectors.table(game.pk)
    assert selectors.table_settled(kept, ann.pk)
    with CaptureQueriesContext(connection) as queries:
        say(ann, game, "fire", kind="reaction", table=kept)
    assert not [q for q in queries.captured_queries if Game._meta.db_table in q["sql"]]

    services.timeout_set(user_id=ann.pk, length="24h", reason="flooding")
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "gg", kind="phrase", table=kept)
    assert refused.value.status == 403 and "flooding" in refused.value.message
    ChatTimeout.objects.all().delete()
    Profile.objects.update_or_create(user=ann, defaults={"muted_at": timezone.now()})
    with pytest.raises(services.ChatRefused):
        say(ann, game, "gg", kind="phrase", table=kept)
    assert ChatLine.objects.count() == 1


def test_the_game_is_kept_only_for_a_player_of_a_started_game(friends):
    ann, bob, game = friends
    watcher = seasoned("wim")
    assert selectors.table_settled(selectors.table(game.pk), bob.pk)
    assert not selectors.table_settled(selectors.table(game.pk), watcher.pk)
    assert not selectors.table_settled(selectors.table(game.pk), None)
    room = table(ann, bob, status=Game.Status.OPEN)
    assert not selectors.table_settled(selectors.table(room.pk), ann.pk)


@pytest.mark.django_db(transaction=True)
def test_a_line_for_a_game_that_went_meanwhile_is_refused_and_stores_nothing():
    ann, bob = seasoned("ann"), seasoned("bob")
    befriend(ann, bob)
    game = table(ann, bob)
    kept = selectors.table(game.pk)
    Game.objects.filter(pk=game.pk).delete()
    with pytest.raises(services.ChatRefused) as refused:
        say(ann, game, "gg", kind="phrase", table=kept)
    assert refused.value.status == 404
    assert not ChatLine.objects.exists()


def test_a_staff_mute_silences_chat(friends):
    ann, _bob, game = friends
    Profile.objects.update_or_create(user=ann, defaults={"muted_at": timezone.now()})
    with pytest.raises(services.ChatRefused):
        say(ann, game, "hi", kind="phrase")


def test_hidden_lines_are_not_shown(friends):
    ann, bob, game = friends
    line = say(bob, game, "rude")
    services.lines_hide([line.pk])
    assert selectors.visible_lines(game=game, user_id=ann.pk, room="players") == []


def test_a_report_carries_the_line_and_its_context_once(friends):
    ann, bob, game = friends
    say(ann, game, "before")
    line = say(bob, game, "the rude one")
    report = services.line_report(line_id=line.pk, user=ann)
    assert ">> " in report.context and "the rude one" in report.context and "before" in report.context
    with pytest.raises(services.ChatRefused) as again:
        services.line_report(line_id=line.pk, user=ann)
    assert again.value.status == 409
    with pytest.raises(services.ChatRefused):
        services.line_report(line_id=line.pk, user=bob)
    assert ChatReport.objects.count() == 1


def test_spectators_have_their_own_room_hidden_from_players_of_a_rated_game():
    ann, bob, eve = seasoned("ann"), seasoned("bob"), seasoned("eve")
    befriend(ann, bob)
    befriend(ann, eve)  # a friend of a player may watch
    game = table(ann, bob, rated=True)
    line = say(eve, game, "go ann")
    assert line.room == "spectators"
    assert selectors.rooms_for(table=selectors.table(game.pk), user_id=ann.pk) == ["players"]
    assert selectors.rooms_for(table=selectors.table(game.pk), user_id=eve.pk) == ["spectators"]
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    assert selectors.rooms_for(table=selectors.table(game.pk), user_id=ann.pk) == ["players", "spectators"]


def test_a_correspondence_line_notifies_the_others_once_per_conversation(friends):
    ann, bob, _ = friends
    game = table(ann, bob, pace=Game.Pace.CORRESPONDENCE)
    told = []
    handler = told.append
    events.subscribe(events.PersonNotified, handler)
    try:
        say(ann, game, "your move")
        say(ann, game, "hello?")
        say(bob, game, "soon")
    finally:
        events.unsubscribe(events.PersonNotified, handler)
    assert [event.user_id for event in told] == [bob.pk]
    assert "ann" in told[0].notice().text


def test_an_erased_account_s_lines_go(friends):
    ann, bob, game = friends
    say(ann, game, "mine")
    say(bob, game, "his")
    services.on_account_erased(events.AccountErased(ann.pk))
    assert list(ChatLine.objects.values_list("text", flat=True)) == ["his"]


# -- the pages ----------------------------------------------------------------------------------------


def test_the_drawer_is_fetched_on_demand_and_shows_lines(friends):
    ann, bob, game = friends
    say(bob, game, "hi ann")
    TurnFactory(player=game.players.get(seat=0))
    page = client_for(ann).get(reverse("dicegame:game", args=[game.pk])).content.decode()
    assert "chat.css" not in page and "hi ann" not in page
    assert reverse("chat:drawer", args=[game.pk]) in page
    drawer = client_for(ann).get(reverse("chat:drawer", args=[game.pk]))
    body = drawer.content.decode()
    assert drawer.status_code == 200 and "hi ann" in body and "chat.css" in body
    assert 'aria-live="polite"' in body


def test_the_drawer_of_a_game_one_may_not_see_is_404(friends):
    _ann, _bob, game = friends
    stranger = client_for(UserFactory(username="eve"))
    assert stranger.get(reverse("chat:drawer", args=[game.pk])).status_code == 404


def test_posting_a_line_needs_csrf_and_a_refusal_is_a_4xx_with_its_message(friends):
    ann, _bob, game = friends
    url = reverse("chat:say", args=[game.pk])
    strict = client_for(ann, enforce_csrf_checks=True)
    assert strict.post(url, {"kind": "text", "text": "hi"}).status_code == 403
    client = client_for(ann)
    answer = client.post(url, {"kind": "text", "text": "   "})
    assert answer.status_code == 400 and "Say something first." in answer.content.decode()
    assert client.post(url, {"kind": "text", "text": "hello bob"}).status_code == 200
    assert ChatLine.objects.get().text == "hello bob"


def test_report_view(friends):
    ann, bob, game = friends
    line = say(bob, game, "rude")
    answer = client_for(ann).post(reverse("chat:report", args=[line.pk]))
    assert answer.status_code == 200 and ChatReport.objects.filter(line=line, reporter=ann).exists()


def test_chat_settings_are_saved(friends):
    ann, _bob, _game = friends
    client_for(ann).post(reverse("chat:settings"), {"chat_strangers": "on"})
    profile = Profile.objects.get(user=ann)
    assert profile.chat_strangers and not profile.chat_reactions
    page = client_for(ann).get(reverse("dicegame:settings")).content.decode()
    assert "data-chat-settings" in page


def test_the_review_offers_the_game_s_chat(friends):
    ann, bob, game = friends
    say(bob, game, "gg", kind="phrase")
    TurnFactory(player=game.players.get(seat=0))
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())
    page = client_for(ann).get(reverse("review:review", args=[game.pk]))
    assert page.status_code == 200
    assert reverse("chat:drawer", args=[game.pk]) in page.content.decode()
    drawer = client_for(ann).get(reverse("chat:drawer", args=[game.pk])).content.decode()
    assert "Good game!" in drawer


def test_staff_time_a_person_out_and_hide_lines_in_the_admin(friends, admin_client):
    ann, bob, game = friends
    line = say(bob, game, "rude")
    answer = admin_client.post(
        reverse("admin:chat_chattimeout_add"), {"user": bob.pk, "length": "24h", "reason": "rudeness"}
    )
    assert answer.status_code == 302
    timeout = ChatTimeout.objects.get(user=bob)
    assert timeout.reason == "rudeness"
    assert dt.timedelta(hours=23) < timeout.until - timezone.now() <= dt.timedelta(hours=24)
    with pytest.raises(services.ChatRefused):
        say(bob, game, "again", kind="phrase")
    services.line_report(line_id=line.pk, user=ann)
    assert admin_client.get(reverse("admin:chat_chatreport_changelist")).status_code == 200
    admin_client.post(
        reverse("admin:chat_chatreport_changelist"),
        {"action": "hide_lines", "_selected_action": [ChatReport.objects.get().pk]},
    )
    line.refresh_from_db()
    assert line.hidden and ChatReport.objects.get().status == "handled"
