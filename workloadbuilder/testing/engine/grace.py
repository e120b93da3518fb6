"""Graceful deletion of pods, as the pod registry's ``CheckGracefulDelete`` and
``rest.BeforeDelete`` decide it.

A pod's grace period is the DELETE's ``gracePeriodSeconds``, else its own
``spec.terminationGracePeriodSeconds`` (30 by default); a negative one counts as 1. A pod that
was never bound (no ``spec.nodeName``) or has finished (phase ``Succeeded`` / ``Failed``) has
its grace cut to 0. The first graceful DELETE sets ``deletionTimestamp = now + grace`` and
``deletionGracePeriodSeconds = grace`` and bumps ``metadata.generation``; the pod then stays,
Terminating, until a DELETE with grace 0 (a kubelet, or a force delete) removes it. A later
DELETE may shorten the grace, never lengthen it. Other kinds have no grace period.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from workloadbuilder.testing.common.resources import ResourceType

_DEFAULT_GRACE = 30
_FINISHED = ("Succeeded", "Failed")


def is_pod(rt: ResourceType) -> bool:
    """Whether deletion of ``rt`` is graceful (pods only)."""
    return (rt.group, rt.plural) == ("", "pods")


def grace_of(pod: dict[str, Any], requested: int | None) -> int:
    """The grace period a DELETE gives ``pod`` (seconds; 0: at once)."""
    spec = pod.get("spec") or {}
    if requested is None:
        own = spec.get("terminationGracePeriodSeconds")
        requested = own if isinstance(own, int) else _DEFAULT_GRACE
    if requested < 0:
        requested = 1
    phase = (pod.get("status") or {}).get("phase")
    if not spec.get("nodeName") or phase in _FINISHED:
        return 0
    return requested


def mark(pod: dict[str, Any], grace: int) -> bool:
    """Set the deletion fields on ``pod`` for ``grace``; False when a DELETE changes nothing
    (the pod is already terminating with a grace as short or shorter)."""
    meta = pod["metadata"]
    current = meta.get("deletionGracePeriodSeconds")
    if meta.get("deletionTimestamp") and isinstance(current, int) and current <= grace:
        return False
    stamp = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=grace)
    if not meta.get("deletionTimestamp"):
        meta["generation"] = int(meta.get("generation") or 1) + 1
    meta["deletionTimestamp"] = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    meta["deletionGracePeriodSeconds"] = grace
    return True
