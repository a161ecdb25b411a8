"""The order in which a process works out winning chances (winprob.queue): fair between people and
between games, one position waiting per game, a bounded number of games per person."""

import threading

from hypothesis import given
from hypothesis import strategies as st

from winprob.queue import FairQueue


def drain(queue: FairQueue) -> list:
    out = []
    while (job := queue.take(timeout=0)) is not None:
        out.append(job[0])
    return out


def test_a_game_whose_positions_keep_coming_does_not_starve_another_game():
    """Issue 22, item 5: the bar stayed on the same figures for four written boxes. The worker took the
    newest job first; a busy game was always the newest, and a quieter game's position waited as long
    as the busy one kept moving."""
    queue = FairQueue(per_driver=4)
    queue.put(("bar", 1), "user:busy", lambda: "busy 1")
    queue.put(("bar", 2), "user:victim", lambda: "victim")
    taken = []
    for position in range(2, 6):
        key, work = queue.take(timeout=0)
        taken.append(work())
        # While the worker was busy, the busy game moved on again.
        queue.put(("bar", 1), "user:busy", lambda position=position: f"busy {position}")
    assert taken[:2] == ["busy 1", "victim"]
    assert "victim" in taken


def test_people_take_turns_however_many_games_each_has():
    queue = FairQueue(per_driver=10)
    for game in range(1, 11):  # ten games of one person
        queue.put(("bar", game), "user:many", lambda: None)
    queue.put(("bar", 100), "user:one", lambda: None)
    queue.put(("bar", 200), "guest:abc", lambda: None)
    order = drain(queue)
    # Each person's first game comes within the first round, whatever the others have waiting.
    assert order[:3] == [("bar", 1), ("bar", 100), ("bar", 200)]
    assert order[3:] == [("bar", g) for g in range(2, 11)]


def test_a_newer_position_replaces_the_waiting_one_in_its_place():
    queue = FairQueue(per_driver=4)
    queue.put(("bar", 1), "user:a", lambda: "old")
    queue.put(("bar", 2), "user:a", lambda: "other")
    queue.put(("bar", 1), "user:a", lambda: "new")
    assert queue.waiting() == 2
    first = queue.take(timeout=0)
    assert first[0] == ("bar", 1) and first[1]() == "new"
    assert queue.take(timeout=0)[0] == ("bar", 2)
    assert queue.take(timeout=0) is None


def test_a_person_has_at_most_so_many_games_waiting():
    queue = FairQueue(per_driver=3)
    assert all(queue.put(("bar", g), "user:a", lambda: None) for g in range(3))
    assert not queue.put(("bar", 3), "user:a", lambda: None)  # one more game: refused
    assert queue.put(("bar", 0), "user:a", lambda: None)  # a game already waiting: replaced
    assert queue.put(("bar", 9), "user:b", lambda: None)  # somebody else: welcome
    assert queue.waiting("user:a") == 3 and ("bar", 3) not in queue
    queue.take(timeout=0)
    assert queue.put(("bar", 3), "user:a", lambda: None)  # room again once one was taken


def test_take_waits_for_work_put_from_another_thread():
    queue = FairQueue(per_driver=1)
    timer = threading.Timer(0.05, lambda: queue.put(("bar", 1), "user:a", lambda: "done"))
    timer.start()
    key, work = queue.take(timeout=10)
    assert key == ("bar", 1) and work() == "done"
    assert queue.take(timeout=0.01) is None


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 6)), min_size=1, max_size=60))
def test_no_person_waits_more_than_one_round_of_the_others(puts):
    """Whatever was put, between two of one person's jobs every other person waiting gives at most one,
    each game appears once, and nothing is lost but what the cap refused."""
    queue = FairQueue(per_driver=3)
    accepted = {}
    for person, game in puts:
        key = ("bar", person * 100 + game)
        if queue.put(key, f"user:{person}", lambda: None):
            accepted[key] = person
    order = drain(queue)
    assert sorted(order) == sorted(accepted)
    owners = [accepted[key] for key in order]
    for i, person in enumerate(owners):
        later = owners[i + 1 :]
        if person in later:
            between = later[: later.index(person)]
            assert len(between) == len(set(between))
