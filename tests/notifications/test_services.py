"""What is queued when play moves on (once per turn and kind, for the person to move), what a sender
takes (each due notification by one sender), and a person's devices and address as the services keep
them."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Player, Turn
from dicegame.play import rooms
from dicegame.rules.turn import REMINDER_SHARE
from notifications import services
from notifications.models import MailSettings, Notification, PushSubscription
from tests.support.factories import UserFactory, actor, befriend
from tests.support.games import current, play_turn, race, started_two_player_game
from tests.support.notifications import subscribe
from tests.support.push_service import BrowserSubscription

DAY = 24 * 3600


def kinds_for(user) -> list[tuple[str, int]]:
    return list(
        Notification.objects.filter(user=user)
        .order_by("turn_number", "kind")
        .values_list("kind", "turn_number")
    )


@pytest.mark.django_db
class TestQueued:
    def test_a_turn_of_a_correspondence_game_queues_your_turn_and_a_reminder(self, host, friend):
        game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        turn = current(game.pk)
        your_turn = Notification.objects.get(user=host, kind=Notification.Kind.YOUR_TURN)
        reminder = Notification.objects.get(user=host, kind=Notification.Kind.REMINDER)
        assert (your_turn.game, your_turn.turn_number) == (game, 1)
        assert abs((your_turn.due_at - turn.started_at).total_seconds()) < 1
        assert reminder.due_at == turn.deadline_at - timedelta(seconds=DAY * REMINDER_SHARE)
        assert not Notification.objects.filter(user=friend).exists()  # not theirs to move yet

    def test_the_next_turn_is_for_the_next_person(self, host, friend):
        game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        play_turn(game, host)
        assert kinds_for(friend) == [("reminder", 2), ("your_turn", 2)]
        assert kinds_for(host) == [("reminder", 1), ("your_turn", 1)]

    def test_a_turn_that_starts_with_its_player_on_the_game_s_page_queues_no_your_turn(self, host, friend):
        """The board tells them; the reminder of a correspondence move is still queued (it is due later,
        and the sweep looks again then)."""
        game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        Player.objects.filter(game=game, user=friend).update(connected=True)
        play_turn(game, host)
        assert kinds_for(friend) == [("reminder", 2)]
        Player.objects.filter(game=game, user=host).update(connected=False)
        play_turn(game, friend)
        assert kinds_for(host) == [("reminder", 1), ("your_turn", 1), ("reminder", 3), ("your_turn", 3)]

    def test_a_live_game_queues_your_turn_but_no_reminder(self, host, friend):
        started_two_player_game(host, friend, turn_seconds=60)
        assert kinds_for(host) == [("your_turn", 1)]

    def test_games_without_friends_and_computer_seats_queue_nothing(self, host, friend):
        play.game_create_solo(actor=actor(host))
        play.game_create_vs_computer(actor=actor(host), strengths=["easy"])
        room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=DAY)
        rooms.room_add_computer(game_id=room.pk, actor=actor(host), strength="easy")
        rooms.room_start(game_id=room.pk, actor=actor(host))
        assert kinds_for(host) == [("reminder", 1), ("your_turn", 1)]
        play_turn(room, host)  # the computer's turn: nobody to tell
        assert Notification.objects.filter(turn_number=2).count() == 0

    def test_the_database_holds_one_per_person_turn_and_kind(self, host, friend):
        game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        with pytest.raises(IntegrityError), transaction.atomic():
            Notification.objects.create(
                user=host, game=game, turn_number=1, kind=Notification.Kind.YOUR_TURN, due_at=timezone.now()
            )

    def test_a_reminder_is_not_sent_before_it_is_due_nor_after_the_move(self, push_service, host, friend):
        game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        subscribe(host, push_service.endpoint("phone"))
        assert services.send_due() == 1  # your turn; the reminder waits
        reminder = Notification.objects.get(user=host, kind=Notification.Kind.REMINDER)
        assert reminder.state == Notification.State.PENDING
        play_turn(game, host)
        assert services.send_due(now=reminder.due_at + timedelta(seconds=1)) == 0
        reminder.refresh_from_db()
        assert reminder.state == Notification.State.SKIPPED
        assert len(push_service.received) == 1

    def test_a_due_reminder_says_how_little_time_is_left(self, push_service, host, friend):
        started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        browser = BrowserSubscription(push_service.endpoint("phone"))
        subscribe(host, browser)
        reminder = Notification.objects.get(user=host, kind=Notification.Kind.REMINDER)
        assert services.send_due(now=reminder.due_at) == 2
        payloads = [browser.decrypt(r.body) for r in push_service.received]
        assert payloads[-1]["title"] == "Penta: time"
        assert "only 4\xa0hours left" in payloads[-1]["body"]  # a fifth of a day before the end


@pytest.mark.django_db(transaction=True)
def test_two_senders_at_once_send_each_notification_once(push_service):
    host, friend = UserFactory(), UserFactory()
    befriend(host, friend)
    subscribe(host, push_service.endpoint("phone"))
    for _ in range(3):
        started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    results = race(3, services.send_due)
    assert sum(results) == 3, results
    assert len(push_service.received) == 3
    assert set(Notification.objects.filter(kind="your_turn").values_list("state", flat=True)) == {"sent"}


@pytest.mark.django_db
class TestClaims:
    def test_a_claim_keeps_others_off_until_it_lapses(self, push_service, host, friend):
        started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        subscribe(host, push_service.endpoint("phone"))
        now = timezone.now()
        Notification.objects.update(claimed_until=now + timedelta(seconds=60))  # a sender took it, then died
        assert services.send_due(now=now) == 0 and not push_service.received
        assert services.send_due(now=now + timedelta(seconds=61)) == 1
        assert len(push_service.received) == 1

    def test_a_notification_given_up_after_its_retries_is_failed(self, push_service, host, friend):
        started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        endpoint = push_service.endpoint("phone")
        subscribe(host, endpoint)
        Notification.objects.filter(kind=Notification.Kind.REMINDER).delete()  # only the one in question
        push_service.status = 500
        now = timezone.now()
        for _ in range(len(services.RETRY_SECONDS) + 1):
            services.send_due(now=now)
            notification = Notification.objects.get(user=host, kind=Notification.Kind.YOUR_TURN)
            now = max(now, notification.due_at) + timedelta(seconds=1)
        assert notification.state == Notification.State.FAILED
        assert notification.attempts == len(services.RETRY_SECONDS) + 1
        assert "500" in notification.error
        services.send_due(now=now + timedelta(days=1))
        assert len(push_service.received_at(endpoint)) == len(services.RETRY_SECONDS) + 1


@pytest.mark.django_db
class TestDevices:
    def test_the_same_browser_again_updates_its_device(self, host, push_service):
        first = subscribe(host, push_service.endpoint("phone"), language="en")
        again = subscribe(host, push_service.endpoint("phone"), language="nl")
        assert first.pk == again.pk and PushSubscription.objects.get().language == "nl"

    def test_a_shared_browser_follows_whoever_subscribed_last(self, host, friend, push_service):
        subscribe(host, push_service.endpoint("shared"))
        subscribe(friend, push_service.endpoint("shared"))
        assert PushSubscription.objects.get().user == friend

    def test_at_most_ten_devices(self, host, push_service):
        for n in range(services.DEVICES_MAX):
            subscribe(host, push_service.endpoint(f"device-{n}"))
        with pytest.raises(GameActionError, match="At most 10 devices") as exc:
            subscribe(host, push_service.endpoint("one-more"))
        assert exc.value.status == 409
        assert PushSubscription.objects.count() == services.DEVICES_MAX

    @pytest.mark.parametrize(
        ("endpoint", "p256dh", "auth", "message"),
        [
            ("ftp://push.example/1", None, None, "push address"),
            ("http://push.example/1", None, None, "push address"),  # not https, not this machine
            ("not a url", None, None, "push address"),
            ("https://push.example/1", "AAAA", None, "key"),
            ("https://push.example/1", None, "!!notbase64!!", "secret"),
        ],
    )
    def test_a_device_that_cannot_be_pushed_to_is_refused(self, host, endpoint, p256dh, auth, message):
        browser = BrowserSubscription(endpoint)
        with pytest.raises(GameActionError, match=message) as exc:
            services.push_subscribe(
                user=host,
                endpoint=endpoint,
                p256dh=p256dh or browser.p256dh,
                auth=auth or browser.auth,
                label="",
                language="en",
            )
        assert exc.value.status == 400
        assert not PushSubscription.objects.exists()

    def test_removing_someone_elses_device_is_refused(self, host, friend, push_service):
        device = subscribe(host, push_service.endpoint("phone"))
        with pytest.raises(GameActionError, match="no such device") as exc:
            services.push_unsubscribe(user=friend, device_id=device.pk)
        assert exc.value.status == 404
        assert PushSubscription.objects.filter(pk=device.pk).exists()


@pytest.mark.django_db
class TestAddress:
    def test_a_new_address_waits_for_its_confirmation_and_the_same_one_keeps_it(self, host):
        services.mail_address_set(user=host, address="a@example.com", digest=True, language="en")
        MailSettings.objects.update(confirmed_at=timezone.now())
        mail = services.mail_address_set(user=host, address="a@example.com", digest=False, language="nl")
        assert mail.confirmed_at is not None and not mail.digest and mail.language == "nl"
        mail = services.mail_address_set(user=host, address="b@example.com", digest=True, language="nl")
        assert mail.confirmed_at is None and not mail.sends_digest
        assert list(
            Notification.objects.filter(kind=Notification.Kind.CONFIRM).values_list("address", flat=True)
        ) == ["a@example.com", "b@example.com"]

    def test_at_most_three_confirmation_mails_a_day(self, host):
        for n in range(services.CONFIRMATIONS_A_DAY):
            services.mail_address_set(user=host, address=f"a{n}@example.com", digest=True, language="en")
        with pytest.raises(GameActionError, match="Too many confirmation mails") as exc:
            services.mail_address_set(user=host, address="more@example.com", digest=True, language="en")
        assert exc.value.status == 429
        assert MailSettings.objects.get().address == "a2@example.com"
        assert Notification.objects.filter(kind=Notification.Kind.CONFIRM).count() == 3

    def test_no_digest_is_queued_for_an_address_not_confirmed(self, host, friend):
        game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        Turn.objects.filter(game=game).update(started_at=timezone.now() - timedelta(hours=2))
        services.mail_address_set(user=host, address="a@example.com", digest=True, language="en")
        services.queue_digests()
        assert not Notification.objects.filter(kind=Notification.Kind.DIGEST).exists()
        MailSettings.objects.update(confirmed_at=timezone.now())
        services.queue_digests()
        services.queue_digests()
        assert Notification.objects.filter(kind=Notification.Kind.DIGEST, user=host).count() == 1
