"""A game socket's chat lane (live.chat_socket): its work runs in the order handed over, one failure does
not end it, and a socket that has closed takes no more."""

from __future__ import annotations

import asyncio

import pytest

from live.chat_socket import ChatSocket


@pytest.mark.asyncio
async def test_the_lane_runs_its_work_in_order_past_a_failure():
    socket = ChatSocket()
    done: list[int] = []

    async def job(n: int) -> None:
        await asyncio.sleep(0.01 * (3 - n))  # the first handed over takes longest
        if n == 1:
            raise RuntimeError("one line's failure")
        done.append(n)

    for n in range(3):
        socket.chat_later(job, n)
    for _ in range(100):
        if len(done) == 2:
            break
        await asyncio.sleep(0.01)
    assert done == [0, 2]
    socket.chat_stop()


@pytest.mark.asyncio
async def test_a_closed_socket_takes_no_more_chat_work():
    socket = ChatSocket()
    ran: list[str] = []

    async def job() -> None:
        ran.append("ran")

    socket.chat_stop()
    socket.chat_later(job)
    await asyncio.sleep(0.05)
    assert socket.chat_worker is None and ran == []
