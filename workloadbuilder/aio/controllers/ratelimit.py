"""Rate limiters of a work queue's re-queues, with client-go's ``workqueue`` semantics.

A limiter answers ``when(key)``: how many seconds to wait before the key is handed out again.
``ItemExponentialFailureRateLimiter`` backs off per key (``base * 2**failures``, capped);
``BucketRateLimiter`` is a token bucket shared by all keys (``qps`` refilled per second, at
most ``burst`` saved); ``MaxOfRateLimiter`` waits the longest of several. The default,
``default_rate_limiter()``, is client-go's ``DefaultControllerRateLimiter``: 5 ms doubling
per failure up to 1000 s, and at most 10 re-queues a second overall after a burst of 100.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Protocol

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "default_rate_limiter",
]

_MAX_EXPONENT = 1023  # 2.0**1024 overflows a float; the cap applies long before


class RateLimiter(Protocol):
    """What a work queue asks of a limiter."""

    def when(self, key: Hashable) -> float:
        """Seconds to wait before ``key`` is queued again (counts one failure of it)."""
        ...

    def forget(self, key: Hashable) -> None:
        """Stop tracking ``key`` (it succeeded): its next failure starts over."""
        ...

    def num_requeues(self, key: Hashable) -> int:
        """How many times ``key`` was re-queued since it was last forgotten."""
        ...


class ItemExponentialFailureRateLimiter:
    """Per-key exponential backoff: ``base_delay * 2**n`` for the key's ``n``-th failure
    (counting from 0), at most ``max_delay`` seconds."""

    def __init__(self, base_delay: float = 0.005, max_delay: float = 1000.0) -> None:
        if base_delay < 0 or max_delay < 0:
            raise ValueError("base_delay and max_delay must not be negative")
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._failures: dict[Hashable, int] = {}

    def __repr__(self) -> str:
        return f"ItemExponentialFailureRateLimiter({self.base_delay!r}, {self.max_delay!r})"

    def when(self, key: Hashable) -> float:
        exponent = self._failures.get(key, 0)
        self._failures[key] = exponent + 1
        if exponent > _MAX_EXPONENT:
            return self.max_delay
        return min(self.base_delay * 2.0**exponent, self.max_delay)

    def forget(self, key: Hashable) -> None:
        self._failures.pop(key, None)

    def num_requeues(self, key: Hashable) -> int:
        return self._failures.get(key, 0)


class BucketRateLimiter:
    """A token bucket over all keys: ``burst`` re-queues at once, then ``qps`` a second.

    Each ``when`` takes a token; without one the answer is how long until the bucket would
    hold it (the reservation is kept, as ``rate.Limiter.Reserve`` keeps it). ``now`` reads a
    monotonic clock in seconds (injectable for tests). It tracks no key.
    """

    def __init__(
        self, qps: float = 10.0, burst: int = 100, *, now: Callable[[], float] = time.monotonic
    ) -> None:
        if qps <= 0:
            raise ValueError(f"qps must be positive, got {qps}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst}")
        self.qps = qps
        self.burst = burst
        self._now = now
        self._tokens = float(burst)
        self._last: float | None = None

    def __repr__(self) -> str:
        return f"BucketRateLimiter(qps={self.qps!r}, burst={self.burst!r})"

    def when(self, key: Hashable) -> float:
        now = self._now()
        elapsed = 0.0 if self._last is None else max(0.0, now - self._last)
        self._last = now
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.qps) - 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.qps

    def forget(self, key: Hashable) -> None:
        return None

    def num_requeues(self, key: Hashable) -> int:
        return 0


class MaxOfRateLimiter:
    """The longest wait of ``limiters``; every one of them counts each failure."""

    def __init__(self, *limiters: RateLimiter) -> None:
        if not limiters:
            raise ValueError("MaxOfRateLimiter needs at least one limiter")
        self.limiters = limiters

    def __repr__(self) -> str:
        return f"MaxOfRateLimiter{self.limiters!r}"

    def when(self, key: Hashable) -> float:
        return max([limiter.when(key) for limiter in self.limiters])  # every one counts it

    def forget(self, key: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(key)

    def num_requeues(self, key: Hashable) -> int:
        return max(limiter.num_requeues(key) for limiter in self.limiters)


def default_rate_limiter(*, now: Callable[[], float] = time.monotonic) -> MaxOfRateLimiter:
    """client-go's ``DefaultControllerRateLimiter``: per-key 5 ms doubling up to 1000 s, and
    10 qps with a burst of 100 overall."""
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(0.005, 1000.0), BucketRateLimiter(10.0, 100, now=now)
    )
