"""Fault injection and the record of received requests."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, Literal

FaultKind = Literal["status", "conflict", "delay", "drop"]


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the server received it."""

    method: str
    path: str
    query: dict[str, str]
    content_type: str
    body: bytes
    user_agent: str
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    """Every request header (also ``Authorization``: kept out of the repr)."""

    def json(self) -> Any:
        """The body decoded as JSON (``None`` if empty)."""
        return json.loads(self.body) if self.body else None


@dataclass
class Fault:
    """One injected fault; ``times`` counts the requests it still applies to."""

    kind: FaultKind
    method: str | None
    path: str
    times: int
    status: int = 0
    retry_after: int = 1
    seconds: float = 0.0
    message: str | None = None
    every: int = 1
    seen: int = 0

    def matches(self, method: str, path: str) -> bool:
        """Whether a request with ``method`` and URL ``path`` triggers this fault."""
        return (self.method is None or self.method == method) and fnmatchcase(path, self.path)


class Faults:
    """Make the next requests matching a method and a path pattern fail or stall.

    ``path`` is a shell-style pattern on the URL path (``*`` also matches ``/``), such as
    ``"*/podgroups/*"``; ``method=None`` matches every method. Faults apply in the order they
    were added: a request triggers the first pending fault that matches it.
    """

    def __init__(self) -> None:
        self._pending: list[Fault] = []

    def _add(self, fault: Fault) -> Fault:
        if fault.times < 1:
            raise ValueError(f"times must be at least 1, got {fault.times}")
        if fault.method is not None:
            fault.method = fault.method.upper()
        self._pending.append(fault)
        return fault

    def add(
        self,
        *,
        status: int,
        method: str | None = None,
        path: str = "*",
        times: int = 1,
        retry_after: int = 1,
        message: str | None = None,
        every: int = 1,
    ) -> Fault:
        """Answer with ``status``: 429 as the API server's max-inflight filter does (plain
        text and ``Retry-After``), 409 as a resourceVersion conflict on the addressed object,
        any other 4xx/5xx (e.g. 500, 503) as a JSON ``Status`` carrying ``message``.

        ``every=2`` fails every other matching request (the 1st, 3rd, ...), serving the rest;
        ``times`` counts the failed ones."""
        if not 400 <= status <= 599:
            raise ValueError(f"status must be an HTTP error code (400-599), got {status}")
        if every < 1:
            raise ValueError(f"every must be at least 1, got {every}")
        kind: FaultKind = "conflict" if status == 409 else "status"
        return self._add(
            Fault(
                kind,
                method,
                path,
                times,
                status=status,
                retry_after=retry_after,
                message=message,
                every=every,
            )
        )

    def conflict(self, *, method: str | None = None, path: str = "*", times: int = 1) -> Fault:
        """Answer 409 ``the object has been modified`` (same as ``add(status=409)``)."""
        return self.add(status=409, method=method, path=path, times=times)

    def delay(
        self, seconds: float, *, method: str | None = None, path: str = "*", times: int = 1
    ) -> Fault:
        """Hold matching requests for ``seconds`` before serving them normally."""
        if seconds < 0:
            raise ValueError(f"seconds must not be negative, got {seconds}")
        return self._add(Fault("delay", method, path, times, seconds=seconds))

    def drop_connection(
        self, *, method: str | None = None, path: str = "*", times: int = 1
    ) -> Fault:
        """Close the connection without answering."""
        return self._add(Fault("drop", method, path, times))

    def clear(self) -> None:
        """Forget every pending fault."""
        self._pending.clear()

    @property
    def pending(self) -> list[Fault]:
        """The faults not yet used up, in order."""
        return list(self._pending)

    def take(self, method: str, path: str) -> Fault | None:
        """The first pending fault matching the request, counting one use of it."""
        for fault in self._pending:
            if fault.matches(method, path):
                fault.seen += 1
                if (fault.seen - 1) % fault.every:
                    continue
                fault.times -= 1
                if fault.times == 0:
                    self._pending.remove(fault)
                return fault
        return None
