"""What is worth trying again, and how long to wait first: the one retry rule of ``aio``.

A request is retried (``Transport``, through tenacity, under a ``RetryPolicy``) when its answer
is retryable (``retryable_status``: 429 or any 5xx, as client-go's ``IsTooManyRequests`` /
``IsInternalError`` family) or no answer came (a dropped connection, a timeout:
``retryable_connection_error``); a connection that cannot be made at all only with
``retry_unreachable``; a ``Retry-After`` is honoured (``retry_after``). An informer's lists and
watches never give up: they wait per ``Backoff``, client-go's reflector backoff, and the same
rule tells a passing failure from a refusal. ``CONFLICT_ROUNDS`` bounds a read-and-write loop
that lost a race, as client-go's ``retry.DefaultRetry``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

import aiohttp
from tenacity import RetryCallState, wait_exponential_jitter

__all__ = [
    "CONFLICT_ROUNDS",
    "Backoff",
    "RetryPolicy",
    "Retryable",
    "WaitRetryAfter",
    "default_retry",
    "retry_after",
    "retryable_connection_error",
    "retryable_status",
]

CONFLICT_ROUNDS: Final = 5
"""Rounds of a read-then-write that lost a race (client-go's ``retry.DefaultRetry``: 5 steps)."""


def retryable_status(status: int) -> bool:
    """Whether an answer of HTTP ``status`` may succeed if asked again: 429 (too many
    requests) and every 5xx. Any other error answer (400, 401, 403, 404, 409, 422, ...) would
    be given again: it is returned, never retried."""
    return status == 429 or status >= 500


def retryable_connection_error(exc: BaseException) -> bool:
    """Whether a failure to get an answer is worth another try: a dropped connection or a
    timeout, not a certificate problem (that does not heal by retrying)."""
    if isinstance(exc, aiohttp.ClientSSLError | aiohttp.ServerFingerprintMismatch):
        return False
    return isinstance(exc, aiohttp.ClientConnectionError | asyncio.TimeoutError)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The seconds a ``Retry-After`` header asks for (``None``: none, or an HTTP date)."""
    value = headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to backoff


@dataclass(frozen=True)
class RetryPolicy:
    """How failures that are safe to retry are retried.

    Safe: 429, 5xx, dropped connections and timeouts. Each wait is capped exponential backoff
    with jitter (``initial_wait * 2**n`` plus up to ``jitter`` seconds, at most ``max_wait``),
    and at least what the server's ``Retry-After`` asks (itself capped at ``max_retry_after``).
    ``attempts`` counts every try of one request; ``request_timeout`` bounds each try
    (seconds, the whole answer included; ``None``: unbounded), so a server that never answers
    holds one call for at most about ``attempts * request_timeout`` plus the waits.

    A connection that cannot be made (refused, a host name that does not resolve, no route) is
    an ``UnreachableError`` at once, as client-go returns it: the address or the network is
    wrong, and the caller's requeue is the place to try again. ``retry_unreachable=True``
    retries it like a dropped connection (a server that is restarting).
    """

    attempts: int = 10
    initial_wait: float = 0.05
    max_wait: float = 5.0
    jitter: float = 0.1
    max_retry_after: float = 30.0
    request_timeout: float | None = 30.0
    retry_unreachable: bool = False

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"RetryPolicy.attempts must be at least 1, got {self.attempts}")
        for name in ("initial_wait", "max_wait", "jitter", "max_retry_after"):
            if getattr(self, name) < 0:
                raise ValueError(f"RetryPolicy.{name} must not be negative")
        if self.request_timeout is not None and self.request_timeout <= 0:
            raise ValueError("RetryPolicy.request_timeout must be positive (None: no timeout)")

    @staticmethod
    def current() -> RetryPolicy:
        """The policy of calls given no ``retry=``: the one ``default_retry`` set, else the
        defaults."""
        return _DEFAULT_RETRY.get() or RetryPolicy()


_DEFAULT_RETRY: ContextVar[RetryPolicy | None] = ContextVar("default_retry", default=None)


@contextmanager
def default_retry(policy: RetryPolicy) -> Iterator[None]:
    """Within the block (and the tasks it starts), calls given no ``retry=`` use ``policy``."""
    token = _DEFAULT_RETRY.set(policy)
    try:
        yield
    finally:
        _DEFAULT_RETRY.reset(token)


class Retryable(Exception):
    """A failure worth another try; ``retry_after`` is the server's wish, if it said one."""

    def __init__(
        self,
        description: str,
        retry_after: float | None = None,
        *,
        status: int = 0,
        status_body: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(description)
        self.description = description
        self.retry_after = retry_after
        self.status = status  # 0: no answer came (a dropped connection, a timeout)
        self.status_body = dict(status_body or {})


class WaitRetryAfter:
    """tenacity wait: the server's ``Retry-After`` when given, else capped backoff + jitter."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._backoff = wait_exponential_jitter(
            multiplier=policy.initial_wait, max=policy.max_wait, jitter=policy.jitter
        )

    def __call__(self, state: RetryCallState) -> float:
        backoff = float(self._backoff(state))
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, Retryable) and exc.retry_after is not None:
            return max(min(exc.retry_after, self._policy.max_retry_after), backoff)
        return backoff


class Backoff:
    """client-go's reflector backoff (``NewExponentialBackoffManager(800ms, 30s, 2min, 2.0,
    1.0)``): each wait doubles from ``initial`` up to ``cap``, plus up to ``jitter`` times
    itself at random; a wait asked for more than ``reset`` seconds after the last one starts
    again from ``initial`` (the server was followed in between).

    ``clock`` gives the time in seconds (the event loop's by default), ``rand`` a number in
    [0, 1). ``step`` is the last wait before jitter, ``waits`` how many were given.
    """

    def __init__(
        self,
        initial: float = 0.8,
        cap: float = 30.0,
        *,
        factor: float = 2.0,
        jitter: float = 1.0,
        reset: float = 120.0,
        clock: Callable[[], float] | None = None,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.initial, self.cap, self.factor = initial, cap, factor
        self.jitter, self.reset = jitter, reset
        self._clock = clock
        self._rand = rand
        self.step = 0.0
        self.waits = 0
        self._last: float | None = None

    def _now(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    def next(self) -> float:
        """The seconds to wait now."""
        now = self._now()
        if self._last is None or now - self._last > self.reset or self.step == 0.0:
            self.step = self.initial
        else:
            self.step = min(self.step * self.factor, self.cap)
        self._last = now
        self.waits += 1
        return self.step * (1 + self.jitter * self._rand())

    async def wait(self) -> None:
        """Sleep for ``next()`` seconds."""
        await asyncio.sleep(self.next())
