"""Sending pushes side by side (notifications.senders) and what each one leaves behind: two senders and a
slow device never push the same device twice (each delivery is written as it happens, and the claim is
renewed while pushes are under way); a device that keeps failing is dropped after its failure budget;
and in the game clock, a slow push service holds up neither the games, nor the mails, nor any other
work kept apart (the pushes run in a loop of their own)."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.selectors import are_friends
from dicegame.play import sweeper
from notifications import pushing, senders, services
from notifications.models import Notification, PushDelivery, PushSubscription
from tests.support import tls
from tests.support.factories import UserFactory, befriend
from tests.support.games import started_two_player_game
from tests.support.hostile_push import HostilePushService
from tests.support.notifications import sender_thread, subscribe, your_turn
from tests.support.push_service import BrowserSubscription

DAY = 24 * 3600
PENDING, SENT, FAILED = Notification.State.PENDING, Notification.State.SENT, Notification.State.FAILED


@pytest.fixture
def hostile(settings, monkeypatch):
    tls.ensure()
    # Any HTTP client of the sender trusts the tests' CA (requests reads REQUESTS_CA_BUNDLE).
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", settings.PENTA_PUSH_CA_BUNDLE)
    with HostilePushService() as service:
        yield service


def correspondence_game(host, friend):
    """The host's turn, a day a move: "your turn" is due for the host."""
    if not are_friends(a=host.pk, b=friend.pk):
        befriend(host, friend)
    return started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)


# -- finding 7: delivered twice ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_senders_and_a_slow_device_push_the_fast_device_once(
    settings, monkeypatch, hostile, push_service
):
    """The claim (1 s here) runs out long before the slow device's push (3 s): the first sender renews
    it, and has written the fast device's delivery the moment it ended."""
    settings.PENTA_PUSH_TIMEOUT_SECONDS = 3
    hostile.slow_seconds = 30  # never in time
    monkeypatch.setattr(services, "CLAIM_SECONDS", 1)
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(host, friend)
    game = correspondence_game(host, friend)
    slow = subscribe(host, hostile.endpoint("slow", "laptop"))  # first in the device list
    phone = BrowserSubscription(push_service.endpoint("phone"))
    fast = subscribe(host, phone)

    first = sender_thread(services.send_due)
    first.start()
    time.sleep(0.5)
    waiting = first.is_alive()  # for the slow device
    written = PushDelivery.objects.filter(subscription=fast).exists()
    time.sleep(1.0)  # past the first claim's end
    second = services.send_due()
    first.join(timeout=30)

    assert not first.is_alive()
    assert len(push_service.received_at(phone.endpoint)) == 1
    assert len(hostile.visits_to("slow")) == 1  # nor was the slow one tried twice at once
    assert second == 0
    # The fast device's delivery was written while the slow one was still under way.
    assert waiting and written
    notification = your_turn(host, game)
    assert (notification.state, notification.attempts) == (PENDING, 1)
    assert notification.claimed_until is None
    slow.refresh_from_db()
    assert slow.failures == 1

    # The retry goes to the slow device only.
    hostile.slow_seconds = 0
    assert services.send_due(now=notification.due_at) == 1
    assert len(push_service.received_at(phone.endpoint)) == 1
    assert len(hostile.visits_to("slow")) == 2
    assert your_turn(host, game).state == SENT


@pytest.mark.django_db(transaction=True)
def test_a_claim_is_renewed_while_its_pushes_are_under_way(settings, monkeypatch, hostile):
    settings.PENTA_PUSH_TIMEOUT_SECONDS = 2
    hostile.slow_seconds = 30
    monkeypatch.setattr(services, "CLAIM_SECONDS", 0.4)
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(host, friend)
    game = correspondence_game(host, friend)
    subscribe(host, hostile.endpoint("slow"))
    notification = your_turn(host, game)

    sender = sender_thread(services.send_due)
    sender.start()
    claims = set()
    while sender.is_alive():
        claims.add(Notification.objects.get(pk=notification.pk).claimed_until)
        time.sleep(0.05)

    claims.discard(None)
    # Renewed every 0.1 s, each time to 0.4 s past the time the sender has reached.
    assert len(claims) >= 5, claims
    assert max(claims) - min(claims) >= timedelta(seconds=1.5)
    notification.refresh_from_db()
    assert notification.claimed_until is None and notification.attempts == 1


# -- bounds: one person's slow devices, and what comes due meanwhile ----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_one_persons_slow_devices_hold_two_senders_and_no_one_elses_push(settings, hostile, push_service):
    settings.PENTA_PUSH_TIMEOUT_SECONDS = 1
    hostile.slow_seconds = 30
    femke, dave = UserFactory(username="femke"), UserFactory(username="dave")
    correspondence_game(femke, UserFactory(username="hana"))
    for n in range(services.DEVICES_MAX):
        subscribe(femke, hostile.endpoint("slow", f"femke-{n}"))
    correspondence_game(dave, UserFactory(username="carol"))
    Notification.objects.filter(kind=Notification.Kind.REMINDER).delete()
    phone = BrowserSubscription(push_service.endpoint("dave"))
    subscribe(dave, phone)

    started = time.monotonic()
    services.send_due()

    [to_dave] = push_service.received_at(phone.endpoint)
    assert to_dave.at - started < 0.5
    visits = hostile.visits_to("slow")
    assert len(visits) == services.DEVICES_MAX
    # At most senders.PER_PERSON of hers at any moment (each lasts its 1 s deadline).
    for visit in visits:
        at_once = [v for v in visits if v.came <= visit.came < v.came + 0.8]
        assert len(at_once) <= senders.PER_PERSON


@pytest.mark.django_db(transaction=True)
def test_slow_devices_of_several_people_make_room_for_everyone_elses_push(settings, hostile, push_service):
    """Quick pushes go senders.QUICK at a time; each push that turns slow makes room for another."""
    settings.PENTA_PUSH_TIMEOUT_SECONDS = 2
    hostile.slow_seconds = 30
    slow_people = [UserFactory(username=f"slow{n}") for n in range(senders.QUICK + 2)]
    for person in slow_people:
        correspondence_game(person, UserFactory(username=f"{person.username}-friend"))
        subscribe(person, hostile.endpoint("slow", person.username))
    dave = UserFactory(username="dave")
    correspondence_game(dave, UserFactory(username="carol"))
    Notification.objects.filter(kind=Notification.Kind.REMINDER).delete()
    phone = BrowserSubscription(push_service.endpoint("dave"))
    subscribe(dave, phone)

    started = time.monotonic()
    services.send_due()

    [to_dave] = push_service.received_at(phone.endpoint)
    assert to_dave.at - started < 3 * senders.SLOW_SECONDS + 0.3
    assert len(hostile.visits_to("slow")) == len(slow_people)
    assert time.monotonic() - started < 2 + 1.5  # all the slow ones side by side, not one after another


@pytest.mark.django_db(transaction=True)
def test_a_push_that_comes_due_during_a_slow_one_does_not_wait_for_it(settings, hostile, push_service):
    settings.PENTA_PUSH_TIMEOUT_SECONDS = 4
    hostile.slow_seconds = 30
    femke, dave = UserFactory(username="femke"), UserFactory(username="dave")
    correspondence_game(femke, UserFactory(username="hana"))
    subscribe(femke, hostile.endpoint("slow", "femke"))
    phone = BrowserSubscription(push_service.endpoint("dave"))
    subscribe(dave, phone)

    sweep = sender_thread(services.send_push_due)
    sweep.start()
    time.sleep(0.3)
    correspondence_game(dave, UserFactory(username="carol"))  # dave's turn comes due now
    due = time.monotonic()
    sweep.join(timeout=30)

    [to_dave] = push_service.received_at(phone.endpoint)
    assert to_dave.at - due < services.SEND_EVERY_SECONDS + 0.5  # not after femke's 4 s
    [slow] = hostile.visits_to("slow")
    assert to_dave.at < slow.came + 4


# -- the failure budget ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_device_that_keeps_failing_is_dropped_after_its_budget_and_not_before(push_service):
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(host, friend)
    broken = subscribe(host, push_service.endpoint("broken"))
    working = BrowserSubscription(push_service.endpoint("working"))
    subscribe(host, working)
    push_service.answer(broken.endpoint, *[500] * 20)
    games = [correspondence_game(host, friend) for _ in range(2)]
    Notification.objects.filter(kind=Notification.Kind.REMINDER).delete()  # "your turn" alone
    started = timezone.now()

    # Two notifications, five attempts each, within a few hours: a push service down for an afternoon.
    now = started
    for _ in range(len(services.RETRY_SECONDS) + 1):
        services.send_due(now=now)
        now += timedelta(hours=2)
    broken.refresh_from_db()
    assert broken.failures == pushing.FAILURES_TO_DROP
    assert broken.failing_since == started
    assert {your_turn(host, g).state for g in games} == {FAILED}

    # A day after the first failure, one more: the budget is spent.
    later = correspondence_game(host, friend)
    Notification.objects.filter(kind=Notification.Kind.REMINDER).delete()
    services.send_due(now=started + pushing.FAILING_FOR)

    assert not PushSubscription.objects.filter(pk=broken.pk).exists()
    assert len(push_service.received_at(broken.endpoint)) == pushing.FAILURES_TO_DROP + 1
    assert len(push_service.received_at(working.endpoint)) == 3  # one for each game, never held up
    # The failing device's notification is not given up for it: only the working device is left.
    assert your_turn(host, later).state == PENDING
    assert services.send_due(now=started + pushing.FAILING_FOR + timedelta(hours=1)) == 1
    assert your_turn(host, later).state == SENT


@pytest.mark.django_db
def test_a_failure_budget_starts_afresh_after_a_success(push_service, host, friend):
    device = subscribe(host, push_service.endpoint("flaky"))
    push_service.answer(device.endpoint, 500, 503, 502)
    game = correspondence_game(host, friend)
    now = timezone.now()
    for _ in range(3):
        services.send_due(now=now)
        now = your_turn(host, game).due_at
    device.refresh_from_db()
    assert (device.failures, device.failing_since is not None) == (3, True)

    assert services.send_due(now=now) == 1

    device.refresh_from_db()
    assert (device.failures, device.failing_since) == (0, None)
    assert device.last_sent_at == now


# -- the clock: a slow push holds up nothing else ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_in_the_clock_a_slow_push_holds_up_neither_the_games_nor_the_mail_nor_other_work(
    settings, monkeypatch, hostile, push_service, smtp
):
    """The clock as it runs in production (run_clocks): the games' sweep, and the work kept apart as
    registered (the pushes in a loop of their own). While one push dribbles for 3 s, another person's
    push and mail go at once, and the games' sweep and another work kept apart (a stand-in for the
    analyses) keep their pace."""
    settings.PENTA_PUSH_TIMEOUT_SECONDS = 3
    hostile.dribble_seconds = 0.5
    femke, dave, erin = (UserFactory(username=name) for name in ("femke", "dave", "erin"))
    correspondence_game(femke, UserFactory(username="hana"))
    slow = subscribe(femke, hostile.endpoint("dribble", "femke"))
    fast = BrowserSubscription(push_service.endpoint("dave"))
    subscribe(dave, fast)
    correspondence_game(dave, UserFactory(username="carol"))
    services.mail_address_set(user=erin, address="erin@example.com", digest=False, language="en")
    other_work = []
    game_sweeps = []

    def analysis_stand_in() -> int:
        other_work.append(time.monotonic())
        return 0

    # The notifications' own works kept apart, as registered, and a stand-in for the others.
    apart = [p for p in sweeper._periodic if p.apart and p.work.__module__ == services.__name__]
    monkeypatch.setattr(sweeper, "_periodic", apart)
    sweeper.register(analysis_stand_in, every=0.0, apart=True)  # in the shared loop kept apart

    async def run() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(4.5, stop.set)
        await sweeper.run_clocks(
            0.1, thread_sensitive=False, stop=stop, on_sweep=lambda _n: game_sweeps.append(time.monotonic())
        )

    mailed = []

    def watch_the_mailbox() -> None:
        while not mailed and time.monotonic() - started < 10:
            if smtp.mails:
                mailed.append(time.monotonic())
            time.sleep(0.01)

    started = time.monotonic()
    watcher = threading.Thread(target=watch_the_mailbox)
    watcher.start()
    asyncio.run(run())
    watcher.join()

    [dribbled] = hostile.visits_to("dribble")
    assert dribbled.came - started < 1.5
    assert dribbled.ended is not None and dribbled.ended - dribbled.came < 3 + 1.5  # cut at the deadline
    [to_dave] = push_service.received_at(fast.endpoint)
    assert to_dave.at - started < 1.5
    [mail] = smtp.mails
    assert mail.rcpt_tos == ["erin@example.com"]
    assert mailed[0] - started < 1.5
    # While the slow push lasted, the rest kept going: no gap of a second in either.
    during = (dribbled.came, dribbled.ended)
    for times in (game_sweeps, other_work):
        inside = [t for t in times if during[0] <= t <= during[1]]
        assert len(inside) >= 4, times
        assert max(b - a for a, b in itertools.pairwise(inside)) < 1.0
    slow.refresh_from_db()
    assert slow.failures == 1
