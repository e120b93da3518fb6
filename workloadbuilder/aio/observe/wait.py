"""``wait_scheduled``: watch a group until the scheduler has placed it once."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from contextlib import aclosing
from typing import Any, Final

from workloadbuilder.api.scheduling_v1alpha3 import CompositePodGroup
from workloadbuilder.api.scheduling_v1beta1 import PodGroup

from ..cache.cache import Cache
from ..cache.groups import GroupLike, condition, condition_type, group_ref, group_resource
from ..cache.reader import Reads, cache_of
from ..errors import (
    APIError,
    MissingAPI,
    MissingAPIError,
    NoAnswerError,
    ObjectRef,
    error_from_status,
)
from ..wire.queries import Pacer, read_listing
from ..wire.resources import parse
from ..wire.transport import RetryPolicy, Transport, transport_for
from ..wire.watch import RELIST, about, watch_events
from .diagnose import Verdict, verdict_of

__all__ = ["NotScheduledError", "wait_scheduled"]

_VERDICT_SECONDS: Final = 5.0
_VERDICT_SHARE: Final = 0.25
"""Once the server answers, the last ``_VERDICT_SHARE`` of the timeout (at most
``_VERDICT_SECONDS``) reads the namespace for the verdict: the whole call ends by its timeout."""


class NotScheduledError(TimeoutError):
    """The group was not placed by the deadline.

    ``status``, ``reason`` and ``message`` are those of its ``...InitiallyScheduled``
    condition (``"False"``, ``Unschedulable`` / ``SchedulerError`` / ``Invalid``, the
    scheduler's message); all ``None`` when the scheduler wrote nothing, as it does while a
    gang waits for its members to exist and on a composite's children. ``exists`` is False
    when the group itself is missing. ``verdict`` is :func:`diagnose`'s at the deadline (``None``
    if it could not be read: ``unread`` then says why, and so does the message); ``blocking``
    the children that keep a composite from being placed.
    """

    def __init__(
        self,
        group: ObjectRef,
        timeout: float,
        obj: Mapping[str, Any] | None,
        verdict: Verdict | None = None,
        unread: Exception | None = None,
    ) -> None:
        self.group, self.exists, self.verdict = group, obj is not None, verdict
        self.unread = unread
        self.blocking: tuple[ObjectRef, ...] = verdict.blocking if verdict else ()
        wanted = condition_type(group.kind)
        found = condition(obj, wanted) if obj is not None else None
        self.status: str | None = found.get("status") if found else None
        self.reason: str | None = found.get("reason") if found else None
        self.message: str | None = found.get("message") if found else None
        if verdict is not None and obj is not None:
            why = f"{verdict.state}: {verdict.summary}"
        elif obj is None:
            why = "it does not exist; create it (pods naming a missing group stay Pending)"
        elif found is None:
            why = (
                f"no {wanted} condition yet: the scheduler writes nothing while a"
                " gang waits for its members to exist; diagnose() tells how many exist"
            )
        else:
            why = f"{wanted} is {self.status}, {self.reason}: {self.message}"
        if unread is not None:
            why += f" (no verdict: it could not be read: {unread})"
        super().__init__(f"{group} was not scheduled within {timeout:g}s: {why}")


def _scheduled(ref: ObjectRef, obj: Mapping[str, Any] | None) -> bool:
    found = condition(obj, condition_type(ref.kind)) if obj is not None else None
    return found is not None and found.get("status") == "True"


def _model(ref: ObjectRef, obj: Mapping[str, Any]) -> PodGroup | CompositePodGroup:
    group: PodGroup | CompositePodGroup = parse(group_resource(ref.kind), obj)
    return group


async def wait_scheduled(
    api_client: Any,
    group: GroupLike,
    *,
    timeout: float,
    retry: RetryPolicy | None = None,
    cache: Cache | None = None,
) -> PodGroup | CompositePodGroup:
    """Wait until ``group``'s ``PodGroupInitiallyScheduled`` (or, for a CompositePodGroup,
    ``CompositePodGroupInitiallyScheduled``) condition is True, and return the group as read.

    ``api_client`` is a kubernetes-asyncio ``ApiClient`` or a ``kubernetes.aio`` one. The group
    is watched, not polled: a watch that expires (410) is followed by a fresh list, a watch the
    server ends or a dropped connection is resumed from the last resourceVersion seen; lists
    are retried by ``retry``. Raises ``MissingAPIError`` (naming the feature gate) when the
    group's API is not served, and :class:`NotScheduledError` at the deadline, with the
    condition's reason and message and :func:`diagnose`'s verdict (for a composite: which
    children block it, and why). The whole call ends by ``timeout`` (seconds): every request
    counts, and the verdict is read in its last quarter (at most 5 s). When the API server
    answered nothing within it, ``NoAnswerError`` (a ``TimeoutError`` too) says so, and
    nothing about the group.
    With a ``cache`` (or an ``aio.Client``'s), the group is followed in it: no request of
    its own.
    """
    ref = group_ref(group)
    transport = transport_for(api_client, retry)
    chosen = cache_of(api_client, cache)
    if chosen is not None:
        return await _wait_cached(Reads(transport, chosen), ref, timeout)
    resource = group_resource(ref.kind)
    by_name = f"metadata.name={ref.name}"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    watch_until = deadline - min(_VERDICT_SECONDS, timeout * _VERDICT_SHARE)
    latest: Mapping[str, Any] | None = None
    resource_version: str | None = None
    answered = False
    pacer = Pacer()
    try:
        async with asyncio.timeout_at(deadline) as bound:
            while True:
                if resource_version is None:
                    listing = await read_listing(
                        transport, resource, ref.namespace, field_selector=by_name
                    )
                    if not answered:  # the server answers: keep the rest for the verdict
                        answered = True
                        bound.reschedule(max(watch_until, loop.time()))
                    latest = next((i for i in listing.items if about(i, ref)), None)
                    resource_version = listing.resource_version
                    if latest is not None and _scheduled(ref, latest):
                        return _model(ref, latest)
                remaining = math.ceil(watch_until - loop.time())
                events = watch_events(
                    transport,
                    resource,
                    ref.namespace,
                    resource_version=resource_version,
                    timeout_seconds=remaining,
                    field_selector=by_name,
                    name=ref.name,
                )
                seen = False
                async with aclosing(events) as stream:
                    async for event in stream:
                        seen = True
                        obj = event.object
                        if event.type == RELIST:
                            resource_version = None  # an event may be lost: list again
                            seen = False  # and back off: the server may keep doing it
                            break
                        if event.type == "ERROR":
                            code = int(obj.get("code") or 0)
                            if code == 410:
                                resource_version = None  # expired: list again
                            elif code != 429 and code < 500:
                                raise _watch_error(ref, obj)
                            seen = code == 410  # throttled or failing: pause, then resume
                            break
                        rv = (obj.get("metadata") or {}).get("resourceVersion")
                        resource_version = str(rv) if rv else resource_version
                        if event.type == "BOOKMARK":
                            continue
                        latest = None if event.type == "DELETED" else obj
                        if _scheduled(ref, latest):
                            assert latest is not None
                            return _model(ref, latest)
                await pacer.next_round(progressed=seen)  # an empty or refused watch: no spin
    except TimeoutError:
        if not answered:
            raise NoAnswerError(
                f"waiting for {ref} to be scheduled: the API server did not answer within"
                f" {timeout:g} s, so nothing is known of the group",
                target=ref,
            ) from None
        found, verdict, unread = await _verdict(transport, ref, deadline)
        if found is not None and _scheduled(ref, found):  # placed meanwhile
            return _model(ref, found)
        raise NotScheduledError(ref, timeout, latest, verdict, unread) from None
    except APIError as exc:
        if exc.status == 404:  # the group's API is not served: name its feature gate
            missing = MissingAPI(
                resource.group, resource.version, resource.plural, resource.gates, resource.hint
            )
            raise MissingAPIError([missing]) from None
        raise


async def _verdict(
    transport: Transport, ref: ObjectRef, deadline: float
) -> tuple[Mapping[str, Any] | None, Verdict | None, Exception | None]:
    """The group as read at the end, the verdict on it, read by ``deadline``, and why what is
    ``None`` could not be read."""
    try:
        async with asyncio.timeout_at(deadline):
            snapshot = await Reads(transport).snapshot(ref.namespace)
    except TimeoutError:
        return None, None, TimeoutError("the API server did not answer before the deadline")
    except (APIError, MissingAPIError) as exc:
        return None, None, exc
    try:
        return snapshot.group(ref.kind, ref.name), verdict_of(snapshot, ref), None
    except MissingAPIError as exc:
        return snapshot.group(ref.kind, ref.name), None, exc


def _watch_error(ref: ObjectRef, status: Mapping[str, Any]) -> APIError:
    """The typed error of a refused watch (a 403 is a ``ForbiddenError`` naming the rule)."""
    said = f"watching {ref} failed: {status.get('message') or ''}"
    return error_from_status(int(status.get("code") or 0), {**status, "message": said}, "", ref)


async def _wait_cached(
    reader: Reads, ref: ObjectRef, timeout: float
) -> PodGroup | CompositePodGroup:
    """``wait_scheduled`` on the cache: look at each change of the group's kind."""
    resource = group_resource(ref.kind)
    latest: Mapping[str, Any] | None = None
    try:
        async with asyncio.timeout(timeout):
            while True:
                assert reader.cache is not None
                latest = await reader.get(resource, ref.namespace, ref.name)
                if resource.kind in reader.cache.unserved:
                    missing = MissingAPI(
                        resource.group,
                        resource.version,
                        resource.plural,
                        resource.gates,
                        resource.hint,
                    )
                    raise MissingAPIError([missing])
                if latest is not None and _scheduled(ref, latest):
                    return _model(ref, latest)
                await reader.cache.changed(resource.kind)
    except TimeoutError:
        unread: Exception | None = None
        try:
            verdict: Verdict | None = verdict_of(await reader.snapshot(ref.namespace), ref)
        except (APIError, MissingAPIError) as exc:
            verdict, unread = None, exc
        raise NotScheduledError(ref, timeout, latest, verdict, unread) from None
