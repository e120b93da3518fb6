"""Helpers shared by the core tests: an owner, permissive options, rendered errors."""

from __future__ import annotations

from typing import Any

from workloadbuilder import BuildOptions, DisruptionModeOption, SchedulingPolicyOption
from workloadbuilder.api.meta_v1 import OwnerReference

ALL_POLICIES = frozenset(SchedulingPolicyOption)
ALL_MODES = frozenset(DisruptionModeOption)


def job_owner(name: str = "job", uid: str = "job-uid") -> OwnerReference:
    """Upstream's test owner: a batch/v1 Job controller reference."""
    return OwnerReference(
        api_version="batch/v1",
        kind="Job",
        name=name,
        uid=uid,
        controller=True,
        block_owner_deletion=True,
    )


def all_allowed(**changes: Any) -> BuildOptions:
    """Options allowing every policy and mode, with a Job owner (``changes`` override)."""
    values: dict[str, Any] = {
        "name": "wl",
        "namespace": "ns",
        "owner": job_owner(),
        "allowed_policies": ALL_POLICIES,
        "allowed_disruption_modes": ALL_MODES,
    }
    values.update(changes)
    return BuildOptions(**values)


def rendered(errors: Any) -> list[str]:
    """``str()`` of each error, in order."""
    return [str(e) for e in errors]
