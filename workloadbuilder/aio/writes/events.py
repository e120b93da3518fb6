"""Events on the owner, as the Job controller records them (core/v1 ``Event``), best effort."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from ...api.meta_v1 import OwnerReference
from ..errors import APIError
from ..wire.resources import EVENTS
from ..wire.transport import Transport

__all__ = [
    "COMPOSITE_POD_GROUP_CREATED",
    "FAILED_WORKLOAD_COMPILATION",
    "FAILED_WORKLOAD_CREATE",
    "IMMUTABLE_CHANGE_NOT_APPLIED",
    "POD_GROUP_CREATED",
    "WORKLOAD_CREATED",
    "Event",
    "record_event",
]

_log = logging.getLogger("workloadbuilder.aio")

WORKLOAD_CREATED = "WorkloadCreated"
POD_GROUP_CREATED = "PodGroupCreated"
COMPOSITE_POD_GROUP_CREATED = "CompositePodGroupCreated"
FAILED_WORKLOAD_COMPILATION = "FailedWorkloadCompilation"
FAILED_WORKLOAD_CREATE = "FailedWorkloadCreate"
IMMUTABLE_CHANGE_NOT_APPLIED = "ImmutableChangeNotApplied"
"""Ours, not the Job controller's: a change of the tree that a live object cannot take."""


@dataclass(frozen=True)
class Event:
    """One event on an owner: ``type`` (``Normal``/``Warning``), reason, message;
    ``recorded`` is False when the server refused it (the log says why: events are best
    effort, so the reconcile went on)."""

    type: Literal["Normal", "Warning"]
    reason: str
    message: str
    recorded: bool = True


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def event_document(
    owner: OwnerReference, namespace: str, event: Event, component: str
) -> dict[str, Any]:
    """The core/v1 Event for ``event`` on ``owner``, named as client-go's recorder names it."""
    now = _now()
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{owner.name}.{time.time_ns():x}", "namespace": namespace},
        "involvedObject": {
            "apiVersion": owner.api_version,
            "kind": owner.kind,
            "name": owner.name,
            "namespace": namespace,
            "uid": owner.uid,
        },
        "reason": event.reason,
        "message": event.message,
        "type": event.type,
        "source": {"component": component},
        "reportingComponent": component,
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
    }


async def record_event(
    transport: Transport, owner: OwnerReference, namespace: str, event: Event, component: str
) -> bool:
    """Create the event; ``False`` (and a warning in the log) when the server refuses it.

    Events are best effort, as with client-go's recorder: a refused event never fails the
    reconcile that records it.
    """
    doc = event_document(owner, namespace, event, component)
    try:
        await transport.request("POST", EVENTS.path(namespace), body=doc)
    except APIError as exc:
        if exc.status != 409:  # 409: a retried create that had already succeeded
            _log.warning(
                "could not record event %s on %s %s/%s: %s",
                event.reason,
                owner.kind,
                namespace,
                owner.name,
                exc.message,
            )
            return False
    return True
