"""batch/v1 Jobs deleted without a propagation policy: orphaned, as the API server does it.

For compatibility, batch/v1's default garbage-collection policy is ``OrphanDependents``: the
API server answers 200 with the Job (``deletionTimestamp`` set and the ``orphan`` finalizer
added) and the warning ``child pods are preserved by default when jobs are deleted; ...``.
The garbage collector then releases the Job's pods and removes it; here that happens at once.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.testing.apply.merge import copy_json
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.engine.verbs import Engine, Result, now

WARNING = (
    "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background "
    "to remove them or set propagationPolicy=Orphan to suppress this warning"
)


def orphans_by_default(rt: ResourceType) -> bool:
    """Whether a DELETE without a policy orphans the dependents of ``rt``'s objects."""
    return (rt.group, rt.version, rt.kind) == ("batch", "v1", "Job")


def delete_orphaning(
    engine: Engine,
    rt: ResourceType,
    namespace: str | None,
    name: str,
    dry_run: bool,
    preconditions: dict[str, Any] | None = None,
) -> Result:
    """Delete a Job with the ``Orphan`` policy; answer with the Job as the API server does."""
    answer = copy_json(engine.get(rt, namespace, name))
    meta = answer["metadata"]
    already = bool(meta.get("deletionTimestamp"))
    result = engine.delete(rt, namespace, name, "Orphan", dry_run, preconditions=preconditions)
    if result.body.get("kind") == rt.kind:
        answer = result.body
        meta = answer["metadata"]
    if not already:
        meta.setdefault("deletionTimestamp", now())
        meta.setdefault("deletionGracePeriodSeconds", 0)
        meta["generation"] = meta.get("generation", 1) + 1
        meta["resourceVersion"] = str(engine.store.rv)
    if "orphan" not in (meta.get("finalizers") or []):
        meta["finalizers"] = [*(meta.get("finalizers") or []), "orphan"]
    return Result(200, answer, [WARNING])
