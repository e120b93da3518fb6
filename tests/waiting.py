"""Waiting in a test for what another task or process makes true, without a fixed sleep."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable


async def eventually(check: Callable[[], bool | Awaitable[bool]], seconds: float = 10.0) -> None:
    """Wait until ``check()`` holds (awaited when it is a coroutine; polled every 20 ms);
    ``AssertionError`` after ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await _holds(check):
        if loop.time() > deadline:
            raise AssertionError(f"not true within {seconds}s")
        await asyncio.sleep(0.02)


async def _holds(check: Callable[[], bool | Awaitable[bool]]) -> bool:
    found = check()
    return bool(await found) if inspect.isawaitable(found) else bool(found)
