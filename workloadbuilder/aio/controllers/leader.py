"""``LeaderElection``: one leader among replicas, on a ``coordination.k8s.io/v1`` Lease, with
client-go's ``tools/leaderelection`` semantics.

The Lease holds the leader's record: ``holderIdentity``, ``leaseDurationSeconds``,
``acquireTime``, ``renewTime`` (MicroTime, six fraction digits) and ``leaseTransitions``. Every
write is a create or an update carrying the ``resourceVersion`` last read (a 409 means someone
else wrote first: nothing is taken). A candidate takes the Lease over only once the record it
observes has not changed for ``leaseDurationSeconds``, measured on the *local* monotonic clock
from when it saw that record change, never from the ``renewTime`` another host wrote (so
clock skew between hosts does not matter). A leader renews every ``retry_period``; once
``renew_deadline`` has passed since its last successful renewal was sent (or it sees another
holder), it stops leading at once, well before anyone may take over (``renew_deadline <
lease_duration``). Releasing writes an empty holder with a one-second duration, as client-go's
``release`` does, so a candidate takes over at its next try.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar

from ..errors import APIError, ObjectRef
from ..metrics import LEADER_STATUS
from ..wire.answers import checked_object
from ..wire.resources import Resource
from ..wire.transport import RetryPolicy, Transport, transport_for

__all__ = ["LeaderElection", "LeaseUnavailableError", "LostLeadershipError"]

_log = logging.getLogger("workloadbuilder.aio")
_T = TypeVar("_T")

LEASES = Resource("coordination.k8s.io", "v1", "leases", "Lease")
JITTER = 1.2
"""client-go's ``JitterFactor``: a candidate waits ``retry_period * (1 + up to 1.2)``."""


class LeaseUnavailableError(APIError):
    """The Lease cannot be used at all: the server does not serve ``coordination.k8s.io/v1``
    leases (404), or this client may not read or write them (403). Retrying will not help."""


class LostLeadershipError(Exception):
    """``run()`` stopped leading before ``lead()`` returned: renewals failed past the renew
    deadline, or another holder took the Lease. ``lead()`` was cancelled."""


class _Record(NamedTuple):
    """The leader election record a Lease's spec holds."""

    holder: str
    duration: int
    acquire_time: str
    renew_time: str
    transitions: int

    @staticmethod
    def of(lease: Mapping[str, Any]) -> _Record:
        spec = lease.get("spec")
        spec = spec if isinstance(spec, Mapping) else {}

        def number(key: str) -> int:
            value = spec.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        def text(key: str) -> str:
            value = spec.get(key)
            return value if isinstance(value, str) else ""

        return _Record(
            text("holderIdentity"),
            number("leaseDurationSeconds"),
            text("acquireTime"),
            text("renewTime"),
            number("leaseTransitions"),
        )

    def spec(self) -> dict[str, Any]:
        return {
            "holderIdentity": self.holder,
            "leaseDurationSeconds": self.duration,
            "acquireTime": self.acquire_time,
            "renewTime": self.renew_time,
            "leaseTransitions": self.transitions,
        }


def micro_time(moment: datetime | None = None) -> str:
    """``metav1.MicroTime`` as JSON: UTC with exactly six fraction digits."""
    return (moment or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaderElection:
    """Lead among the replicas that elect on Lease ``namespace``/``name``, as ``identity``.

    ``lease_duration``: how long a candidate waits, after it saw the record last change,
    before it takes the Lease over; ``renew_deadline``: how long a leader keeps trying to renew
    before it stops leading; ``retry_period``: the wait between tries. Seconds; client-go's
    defaults for controllers (15, 10, 2). ``release_on_cancel``: a leader that stops (``lead()``
    returned or raised, or ``run()`` was cancelled) clears the holder so another takes over at
    once, instead of after ``lease_duration``. ``on_new_leader`` is called after a try that
    observed a holder other than the last one it was told (client-go's ``OnNewLeader``): with
    ``""`` when a candidate found the Lease released and did not take it in that try; a
    replica's own release is not reported to it. Requests go through the client's core
    (retries, counters, credentials handling), each bounded by the time left.
    """

    def __init__(
        self,
        api_client: Any,
        name: str,
        namespace: str,
        identity: str,
        *,
        lease_duration: float = 15.0,
        renew_deadline: float = 10.0,
        retry_period: float = 2.0,
        release_on_cancel: bool = True,
        on_new_leader: Callable[[str], None] | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        if not identity:
            raise ValueError("identity is empty: name this replica (e.g. its pod name)")
        if not name or not namespace:
            raise ValueError("the Lease's name and namespace are required")
        for label, value in (
            ("lease_duration", lease_duration),
            ("renew_deadline", renew_deadline),
            ("retry_period", retry_period),
        ):
            if value <= 0:
                raise ValueError(f"{label} must be greater than zero, got {value}")
        if lease_duration <= renew_deadline:
            raise ValueError("lease_duration must be greater than renew_deadline")
        if renew_deadline <= JITTER * retry_period:
            raise ValueError(f"renew_deadline must be greater than retry_period*{JITTER}")
        self.name = name
        self.namespace = namespace
        self.identity = identity
        self.lease_duration = lease_duration
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self.release_on_cancel = release_on_cancel
        self._on_new_leader = on_new_leader
        self._transport: Transport = transport_for(api_client, retry)
        self._ref = ObjectRef("Lease", namespace, name, LEASES.api_version)
        self._lease: dict[str, Any] | None = None  # as last read or written
        self._observed: _Record | None = None
        self._observed_at = 0.0  # local monotonic time the observed record last changed
        self._renewed_at = 0.0  # when the last successful write of ours was sent
        self._leading = False
        self._running = False
        self._reported = ""  # as client-go's reportedLeader: a first "" is not told
        self._status = LEADER_STATUS.labels(name)

    def __repr__(self) -> str:
        return (
            f"LeaderElection({self.namespace}/{self.name}, identity={self.identity!r},"
            f" leader={self.leader!r}, is_leader={self.is_leader})"
        )

    @property
    def is_leader(self) -> bool:
        """Whether this replica leads now (``lead()`` runs)."""
        return self._leading

    def _set_leading(self, leading: bool) -> None:
        self._leading = leading
        self._status.set(1.0 if leading else 0.0)

    def check(self, max_tolerable_expired_lease: float = 20.0) -> str | None:
        """Why this replica is unhealthy, or ``None``: client-go's ``LeaderElector.Check``.

        While the Lease last observed names this replica as holder, the replica is unhealthy
        once that record has not been renewed for ``lease_duration`` plus
        ``max_tolerable_expired_lease`` seconds (it should have stopped leading long before:
        something is stuck). A replica that does not hold the Lease is healthy.
        """
        if self._observed is None or self._observed.holder != self.identity:
            return None
        if time.monotonic() - self._observed_at > self.lease_duration + max_tolerable_expired_lease:
            return f"failed election to renew leadership on lease {self.name}"
        return None

    @property
    def leader(self) -> str | None:
        """The holder last observed on the Lease (``None``: none known yet, or released)."""
        if self._observed is None or not self._observed.holder:
            return None
        return self._observed.holder

    async def run(self, lead: Callable[[], Awaitable[_T]]) -> _T:
        """Wait to become leader, then run ``lead()`` while leading; return what it returns.

        ``lead()`` is cancelled the moment leadership is lost, and ``run()`` then raises
        :class:`LostLeadershipError`; an exception of ``lead()`` propagates. When ``lead()``
        ends or ``run()`` is cancelled, the Lease is released (``release_on_cancel``).
        :class:`LeaseUnavailableError` when the server does not serve Leases or forbids them.
        One ``run()`` at a time per election; call it again after it ended to stand again.
        """
        if self._running:
            raise RuntimeError(f"{self!r} is already running: one run() at a time")
        self._running = True
        try:
            return await self._run(lead)
        finally:
            self._running = False

    async def _run(self, lead: Callable[[], Awaitable[_T]]) -> _T:
        try:
            await self._acquire()
        except asyncio.CancelledError:
            await self._release_if_asked()
            raise
        task: asyncio.Task[_T] = asyncio.ensure_future(lead())
        renewer = asyncio.ensure_future(self._renew())
        try:
            await asyncio.wait({task, renewer}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            await self._stop(task, renewer)
            await self._release_if_asked()
            raise
        if task.done():
            await self._stop(task, renewer)
            await self._release_if_asked()
            return task.result()
        await self._stop(task, renewer)  # leadership is lost: lead() is cancelled first
        await self._release_if_asked()
        error = renewer.exception()
        if error is not None:
            raise error
        holder = self.leader
        why = (
            f"{holder} holds it now"
            if holder is not None and holder != self.identity
            else f"no renewal succeeded within the renew deadline ({self.renew_deadline}s)"
        )
        raise LostLeadershipError(
            f"{self.identity} stopped leading Lease {self.namespace}/{self.name}: {why}"
        )

    # -- the loops ------------------------------------------------------------------------

    async def _acquire(self) -> None:
        """Try every ``retry_period`` (with jitter) until the Lease is ours."""
        while True:
            acquired = await self._bounded(self._try_acquire_or_renew(), self.renew_deadline)
            self._report()
            if acquired:
                self._set_leading(True)
                _log.info("%s became leader of %s", self.identity, self._ref)
                return
            await asyncio.sleep(self.retry_period * (1 + random.random() * JITTER))

    async def _renew(self) -> None:
        """Renew every ``retry_period``; return once leadership is lost."""
        while True:
            await asyncio.sleep(self.retry_period)
            while True:
                left = self._renewed_at + self.renew_deadline - time.monotonic()
                if left <= 0 or (self._observed and self._observed.holder != self.identity):
                    self._set_leading(False)
                    _log.warning("%s stopped leading %s", self.identity, self._ref)
                    return
                renewed = await self._bounded(self._try_acquire_or_renew(), left)
                self._report()
                if renewed:
                    break
                await asyncio.sleep(min(self.retry_period, max(0.0, left)))

    async def _bounded(self, attempt: Awaitable[bool], seconds: float) -> bool:
        """``attempt``'s answer; ``False`` when it failed (logged) or took over ``seconds``;
        :class:`LeaseUnavailableError` propagates."""
        try:
            async with asyncio.timeout(max(0.0, seconds)):
                return await attempt
        except LeaseUnavailableError:
            raise
        except TimeoutError:
            _log.info("%s: no answer within %.2fs", self._ref, seconds)
        except APIError as exc:
            _log.info("%s: %s", self._ref, exc.message)
            self._lease = None  # read it again before the next write
        return False

    async def _stop(self, task: asyncio.Task[Any], renewer: asyncio.Task[None]) -> None:
        self._set_leading(False)
        for pending in (task, renewer):
            pending.cancel()
        await asyncio.wait({task, renewer})

    # -- one try, as client-go's tryAcquireOrRenew ----------------------------------------

    async def _try_acquire_or_renew(self) -> bool:
        sent = time.monotonic()
        now = micro_time()
        ours = _Record(self.identity, math.ceil(self.lease_duration), now, now, 0)
        if self._leading and self._lease is not None and self._valid(sent):
            assert self._observed is not None
            ours = ours._replace(
                acquire_time=self._observed.acquire_time, transitions=self._observed.transitions
            )
            try:  # the fast path: our last write's resourceVersion
                if await self._write(ours, sent):
                    return True
            except APIError as exc:
                if isinstance(exc, LeaseUnavailableError):
                    raise
                _log.info("%s: renewing failed (%s); reading it", self._ref, exc.message)
        current = await self._get()
        if current is None:
            await self._create(ours, sent)
            return True
        self._observe(_Record.of(current))
        assert self._observed is not None
        if self._observed.holder and self._valid(sent) and self._observed.holder != self.identity:
            return False
        if self._observed.holder == self.identity:
            ours = ours._replace(
                acquire_time=self._observed.acquire_time, transitions=self._observed.transitions
            )
        else:
            ours = ours._replace(transitions=self._observed.transitions + 1)
        return await self._write(ours, sent)

    def _valid(self, now: float) -> bool:
        """Whether the observed record is still within its duration on the local clock."""
        assert self._observed is not None
        return self._observed_at + self._observed.duration > now

    def _observe(self, record: _Record, *, at: float | None = None) -> None:
        if record != self._observed:
            self._observed = record
            self._observed_at = time.monotonic() if at is None else at

    def _report(self) -> None:
        """After each try: tell ``on_new_leader`` of a holder other than the last told
        (client-go's ``maybeReportTransition``; ``""``: the Lease was found released)."""
        holder = self._observed.holder if self._observed is not None else None
        if holder is None or holder == self._reported:
            return
        self._reported = holder
        _log.info("%s: the leader is now %r", self._ref, holder)
        if self._on_new_leader is not None:
            try:
                self._on_new_leader(holder)
            except Exception:  # the election goes on whatever the callback does
                _log.exception("%s: on_new_leader failed", self._ref)

    # -- requests -------------------------------------------------------------------------

    async def _get(self) -> dict[str, Any] | None:
        try:
            response = await self._transport.request("GET", self._path(), target=self._ref)
        except APIError as exc:
            if exc.status == 404 and self._names_this_lease(exc):
                return None
            raise self._unavailable(exc) from None
        self._lease = checked_object(response, LEASES, self._ref, "reading")
        return self._lease

    async def _create(self, record: _Record, sent: float) -> None:
        body = {
            "apiVersion": LEASES.api_version,
            "kind": LEASES.kind,
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": record.spec(),
        }
        try:
            response = await self._transport.request(
                "POST", LEASES.path(self.namespace), body=body, target=self._ref
            )
        except APIError as exc:
            raise self._unavailable(exc) from None
        self._wrote(checked_object(response, LEASES, self._ref, "creating"), record, sent)

    async def _write(self, record: _Record, sent: float) -> bool:
        """Update the Lease last read or written (its ``resourceVersion``) to ``record``."""
        assert self._lease is not None
        body = {**self._lease, "spec": {**(self._lease.get("spec") or {}), **record.spec()}}
        try:
            response = await self._transport.request(
                "PUT", self._path(), body=body, target=self._ref
            )
        except APIError as exc:
            error = self._unavailable(exc)
            if isinstance(error, LeaseUnavailableError):
                raise error from None
            self._lease = None
            if exc.status in (404, 409):  # someone else wrote (or deleted) it first
                _log.info("%s: %s", self._ref, exc.message)
                return False
            raise
        self._wrote(checked_object(response, LEASES, self._ref, "updating"), record, sent)
        return True

    def _wrote(self, lease: dict[str, Any], record: _Record, sent: float) -> None:
        self._lease = lease
        self._observe(record, at=sent)
        self._renewed_at = sent

    async def release(self) -> bool:
        """Give the Lease up if this replica holds it (client-go's ``release``): an empty
        holder, a one-second duration, the same transitions. ``True`` when not held or done."""
        current = await self._get()
        if current is None:
            return True
        self._observe(_Record.of(current))
        assert self._observed is not None
        if self._observed.holder != self.identity:
            return True
        now = micro_time()
        released = _Record("", 1, now, now, self._observed.transitions)
        done = await self._write(released, time.monotonic())
        if done:
            _log.info("%s released %s", self.identity, self._ref)
        return done

    async def _release_if_asked(self) -> None:
        self._set_leading(False)
        if not self.release_on_cancel:
            return
        try:
            async with asyncio.timeout(self.renew_deadline):
                await self.release()
        except (APIError, TimeoutError) as exc:
            _log.warning("%s: could not release it: %s", self._ref, exc)

    def _path(self) -> str:
        return LEASES.path(self.namespace, self.name)

    def _names_this_lease(self, exc: APIError) -> bool:
        """A 404 about this Lease (not about the resource or its namespace)."""
        details = exc.status_body.get("details")
        details = details if isinstance(details, Mapping) else {}
        return exc.reason == "NotFound" and details.get("kind") in ("leases", "Lease")

    def _unavailable(self, exc: APIError) -> APIError:
        """403 and 404 as :class:`LeaseUnavailableError` saying what to do; others as is."""
        if exc.status == 403:
            said = (
                f"the server forbids it ({exc.message}); grant get, create and update on"
                f" leases.coordination.k8s.io in namespace {self.namespace}"
            )
        elif exc.status == 404 and not self._names_this_lease(exc):
            said = (
                f"the server does not serve coordination.k8s.io/v1 leases in namespace"
                f" {self.namespace} ({exc.message}); check the namespace exists and the"
                " server serves the coordination.k8s.io/v1 API"
            )
        else:
            return exc
        return LeaseUnavailableError(
            f"leader election on Lease {self.namespace}/{self.name}: {said}",
            status=exc.status,
            reason=exc.reason,
            status_body=exc.status_body,
            target=self._ref,
        )
