"""``preflight``: does the cluster serve every API the objects need? Cached on the client core."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from ..errors import APIError, MissingAPI, MissingAPIError
from ..rbac.permissions import required_rules
from ..rbac.reviews import check_permissions
from ..wire.answers import describe
from ..wire.resources import (
    COMPOSITE_POD_GROUPS,
    JOBS,
    POD_GROUPS,
    WORKLOADS,
    Resource,
    SchedulingObject,
    as_document,
    resource_of,
)
from ..wire.transport import RetryPolicy, Transport, transport_for

__all__ = ["preflight"]

GATE_STAGES: Final = {
    "GenericWorkload": "beta",
    "CompositePodGroup": "alpha",
    "TopologyAwareWorkloadScheduling": "alpha",
    "DRAWorkloadResourceClaims": "beta",
    "PodGroupPreemptionPolicy": "alpha",
    "WorkloadWithJob": "alpha",
}
"""Each gate's stage in Kubernetes 1.37, every one off by default (kube-scheduler's
``pkg/features/kube_features.go``, and kube-apiserver's for ``WorkloadWithJob``)."""


_FIELD_GATES: Final = {
    "schedulingConstraints": "TopologyAwareWorkloadScheduling",
    "resourceClaims": "DRAWorkloadResourceClaims",
    "preemptionPolicy": "PodGroupPreemptionPolicy",
}
"""The gated fields of Workload templates and PodGroups, and the gate each needs."""

_UNPROBED: Final = ("workloadRef", "parentCompositePodGroupName")
"""Left out of a PodGroup probe: references whose objects may not exist yet."""

Path = tuple[str | int, ...]


def _staged(missing: MissingAPI) -> MissingAPI:
    """``missing`` with its hint led by each gate's stage: an alpha gate is a test cluster's."""
    stages = [
        f"{gate} is {GATE_STAGES[gate]} in 1.37, off by default"
        for gate in missing.feature_gates
        if gate in GATE_STAGES
    ]
    return replace(missing, hint="; ".join([*stages, missing.hint] if missing.hint else stages))


_WORKLOAD_WITH_JOB = MissingAPI(
    "batch",
    "v1",
    "jobs",
    ("WorkloadWithJob", "GenericWorkload"),
    "the API server drops Job.spec.scheduling without it",
)


async def served_resources(transport: Transport, resource: Resource) -> frozenset[str]:
    """The resources served in ``resource``'s group/version (empty if the group/version is not)."""
    cache = transport.discovery.served
    key = resource.api_version
    if key in cache:
        return cache[key]
    try:
        response = await transport.request("GET", resource.group_version_path)
    except APIError as exc:
        if exc.status == 404:
            return frozenset()  # not cached: the cluster may be reconfigured and asked again
        raise
    body = response.body
    listed = body.get("resources") if isinstance(body, Mapping) else None
    if not isinstance(listed, list) or body.get("kind", "APIResourceList") != "APIResourceList":
        raise APIError(
            f"discovery of {resource.api_version}: the server answered HTTP {response.status}"
            f" with {describe(response)}, not an APIResourceList; nothing of it was used",
            status=response.status,
        )
    names = frozenset(str(r.get("name", "")) for r in listed if isinstance(r, Mapping))
    cache[key] = names
    return names


_COMPOSITE_TEMPLATES = replace(
    COMPOSITE_POD_GROUPS,
    hint=(
        "a Workload with spec.compositePodGroupTemplates needs it: the API server forbids them"
        " without the gate, and each is stamped as a CompositePodGroup"
    ),
)


def _needed(objects: Iterable[Mapping[str, Any]]) -> tuple[list[Resource], list[Mapping[str, Any]]]:
    resources: dict[Resource, None] = {}
    scheduled_jobs: list[Mapping[str, Any]] = []
    for doc in objects:
        resource = resource_of(doc)
        resources[resource] = None
        if resource is WORKLOADS and (doc.get("spec") or {}).get("compositePodGroupTemplates"):
            resources[_COMPOSITE_TEMPLATES] = None
        if resource is JOBS and (doc.get("spec") or {}).get("scheduling") is not None:
            resources[WORKLOADS] = None
            resources[POD_GROUPS] = None
            scheduled_jobs.append(doc)
    if COMPOSITE_POD_GROUPS in resources:  # named once, for the CompositePodGroup itself
        resources.pop(_COMPOSITE_TEMPLATES, None)
    return list(resources), scheduled_jobs


async def _job_scheduling_served(transport: Transport, job: Mapping[str, Any]) -> bool:
    """Whether ``Job.spec.scheduling`` survives a dry-run create (gate WorkloadWithJob)."""
    if transport.discovery.job_scheduling:
        return True
    meta = job.get("metadata") or {}
    namespace = str(meta.get("namespace") or "default")
    probe = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"generateName": "workloadbuilder-preflight-", "namespace": namespace},
        "spec": dict(job.get("spec") or {}),
    }
    try:
        response = await transport.request(
            "POST", JOBS.path(namespace), query=[("dryRun", "All")], body=probe
        )
    except APIError as exc:
        if exc.status == 422 and "spec.scheduling" in str(exc.status_body):
            return False
        raise
    body = response.body
    if not isinstance(body, Mapping) or body.get("kind") != "Job":
        raise APIError(
            f"probing Job.spec.scheduling with a dry-run create in namespace {namespace}: the"
            f" server answered HTTP {response.status} with {describe(response)}, not the Job",
            status=response.status,
        )
    served = (body.get("spec") or {}).get("scheduling") is not None
    transport.discovery.job_scheduling = served
    return served


def _gated_paths(value: Any, path: Path = ()) -> list[tuple[Path, str]]:
    """Where ``value`` (a spec) sets a gated field, and the gate of each."""
    found: list[tuple[Path, str]] = []
    if isinstance(value, Mapping):
        for key, child in value.items():
            if key in _FIELD_GATES and child not in (None, [], {}, ""):
                found.append(((*path, key), _FIELD_GATES[key]))
            elif isinstance(child, (Mapping, list)):
                found += _gated_paths(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += _gated_paths(child, (*path, i))
    return found


def _has(value: Any, path: Path) -> bool:
    for step in path:
        if isinstance(step, int):
            if not isinstance(value, list) or step >= len(value):
                return False
        elif not isinstance(value, Mapping) or step not in value:
            return False
        value = value[step]
    return value not in (None, [], {}, "")


def _shown(path: Path) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)[1:]


async def _field_gates(transport: Transport, doc: Mapping[str, Any]) -> list[MissingAPI]:
    """The gates a Workload's or PodGroup's fields need that the cluster lacks: a dry-run
    create (``generateName``) answered ``Forbidden`` at such a field, or without it."""
    resource = resource_of(doc)
    spec = {k: v for k, v in dict(doc.get("spec") or {}).items() if k not in _UNPROBED}
    used = [(("spec", *path), gate) for path, gate in _gated_paths(spec)]
    if not used:
        return []
    namespace = str((doc.get("metadata") or {}).get("namespace") or "default")
    probe = {
        "apiVersion": resource.api_version,
        "kind": resource.kind,
        "metadata": {"generateName": "workloadbuilder-preflight-", "namespace": namespace},
        "spec": spec,
    }
    refused: set[str] = set()
    answer: Any = None
    try:
        response = await transport.request(
            "POST", resource.path(namespace), query=[("dryRun", "All")], body=probe
        )
        answer = response.body
    except APIError as exc:
        if exc.status == 404:
            return []  # no namespace yet: nothing to tell
        if exc.status != 422:
            raise
        causes = (exc.status_body.get("details") or {}).get("causes") or []
        refused = {
            str(c.get("field", ""))
            for c in causes
            if isinstance(c, Mapping) and c.get("reason") == "FieldValueForbidden"
        }
    missing: dict[str, list[str]] = {}
    for path, gate in used:
        where = _shown(path)
        if where in refused or (answer is not None and not _has(answer, path)):
            missing.setdefault(gate, []).append(where)
    return [
        MissingAPI(
            resource.group,
            resource.version,
            resource.plural,
            (gate,),
            f"the API server refuses or drops {', '.join(fields)} without it",
        )
        for gate, fields in missing.items()
    ]


async def preflight(
    api_client: Any,
    objects: Iterable[SchedulingObject | Mapping[str, Any]],
    *,
    retry: RetryPolicy | None = None,
    permissions: bool | Sequence[str] = False,
) -> None:
    """Check that the cluster serves every group/version/resource ``objects`` need.

    Raises ``MissingAPIError`` naming what is missing and the feature gate(s) to enable, each
    with its stage in 1.37: ``GenericWorkload`` for Workload/PodGroup v1beta1,
    ``CompositePodGroup`` for CompositePodGroup v1alpha3 and for a Workload with
    ``compositePodGroupTemplates``, ``WorkloadWithJob`` for a Job with ``spec.scheduling``
    (probed with a dry-run create); then, for a Workload or PodGroup that sets
    ``schedulingConstraints``, ``resourceClaims`` or ``preemptionPolicy``, a dry-run create
    tells whether ``TopologyAwareWorkloadScheduling``, ``DRAWorkloadResourceClaims`` or
    ``PodGroupPreemptionPolicy`` is on (each time: the cluster's gates may change). What is
    served is cached on the client core (an ``aio.Client``'s, or the one a bare ``ApiClient``
    gets at its first use): asked once per client, but for what was missing.

    ``permissions=True`` first asks the server (SelfSubjectAccessReviews) whether the caller
    may ``preflight`` and ``apply`` the objects in their namespaces, and a sequence of verbs
    (``("reconcile_job", "cache")``, see ``aio.required_rules``) whether it may run those;
    every permission it lacks is named in one ``MissingPermissionsError``.
    """
    transport = transport_for(api_client, retry)
    docs = [as_document(o) for o in objects]
    if permissions:  # first: the probes below are dry-run creates, refused without them
        verbs = ("preflight", "apply") if permissions is True else tuple(permissions)
        namespaces = dict.fromkeys(
            str((d.get("metadata") or {}).get("namespace") or "default") for d in docs
        )
        for namespace in namespaces or ("default",):
            await check_permissions(transport, required_rules(*verbs, namespace=namespace))
    await check(transport, docs)
    missing: list[MissingAPI] = []
    for doc in docs:
        if resource_of(doc) in (WORKLOADS, POD_GROUPS):
            missing += [m for m in await _field_gates(transport, doc) if m not in missing]
    if missing:
        raise MissingAPIError([_staged(m) for m in missing])


async def check(transport: Transport, docs: list[dict[str, Any]]) -> None:
    """``preflight`` on an existing transport."""
    resources, scheduled_jobs = _needed(docs)
    missing: list[MissingAPI] = []
    for resource in resources:
        if resource.plural not in await served_resources(transport, resource):
            missing.append(
                MissingAPI(
                    resource.group, resource.version, resource.plural, resource.gates, resource.hint
                )
            )
    if (
        not missing
        and scheduled_jobs
        and not await _job_scheduling_served(transport, scheduled_jobs[0])
    ):
        missing.append(_WORKLOAD_WITH_JOB)
    if missing:
        raise MissingAPIError([_staged(m) for m in missing])
