"""``audit``: trace the actual objects of a namespace, as the scheduling docs tell platform
teams to, and report what keeps gangs from working, each finding with what to do."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from workloadbuilder.api.scheduling_v1beta1 import PodGroup
from workloadbuilder.runtime import check_pod_claims

from ..cache.cache import Cache
from ..cache.groups import condition, condition_type, group_resource
from ..cache.members import active
from ..cache.reader import Reads, reader_for
from ..cache.snapshot import Snapshot, name_of, pod_group_of
from ..errors import APIError, ObjectRef
from ..wire.queries import get_document
from ..wire.resources import JOBS, POD_GROUPS, PODS, WORKLOADS, Resource, parse
from ..wire.transport import RetryPolicy, Transport, transport_for

__all__ = ["Finding", "FindingKind", "Severity", "audit"]

Obj = Mapping[str, Any]

OTHER_GROUP_MARKERS: Final[tuple[tuple[str, str, str], ...]] = (
    ("annotation", "scheduling.k8s.io/group-name", "Volcano"),
    ("annotation", "scheduling.volcano.sh/group-name", "Volcano"),
    ("label", "scheduling.x-k8s.io/pod-group", "scheduler-plugins coscheduling"),
    ("annotation", "pod-group-name", "KAI Scheduler"),
    ("label", "kueue.x-k8s.io/pod-group-name", "Kueue"),
    ("annotation", "kueue.x-k8s.io/pod-group-name", "Kueue"),
)
"""Pod labels and annotations by which other group systems put a pod in their own group."""


@dataclass(frozen=True, order=True)
class Finding:
    """One problem: on which object, what it is, and what to do about it."""

    object: ObjectRef
    kind: FindingKind
    severity: Severity
    message: str
    action: str

    def __str__(self) -> str:
        return f"{self.severity} {self.kind} {self.object}: {self.message}; {self.action}"


class FindingKind(StrEnum):
    """The kinds of problem :func:`audit` finds."""

    MISSING_POD_GROUP = "MissingPodGroup"
    TOO_FEW_MEMBERS = "TooFewMembers"
    INCONSISTENT_MEMBERS = "InconsistentMembers"
    UNEVEN_REQUESTS = "UnevenRequests"
    CLAIM_MISMATCH = "ClaimMismatch"
    MISSING_WORKLOAD = "MissingWorkload"
    MISSING_TEMPLATE = "MissingTemplate"
    MISSING_PARENT = "MissingParent"
    MISSING_CONTROLLER = "MissingController"
    GROUPED_TWICE = "GroupedTwice"
    MIN_GROUP_COUNT_TOO_HIGH = "MinGroupCountTooHigh"


class Severity(StrEnum):
    """``Error``: scheduling will not work as meant; ``Warning``: it may not."""

    ERROR = "Error"
    WARNING = "Warning"


async def audit(
    api_client: Any,
    namespace: str,
    *,
    retry: RetryPolicy | None = None,
    cache: Cache | None = None,
) -> list[Finding]:
    """Walk the pods, PodGroups, CompositePodGroups and Workloads of ``namespace`` and return
    what is wrong with how they reference each other, sorted by object (empty when clean).

    ``api_client`` is a kubernetes-asyncio ``ApiClient`` or a ``kubernetes.aio`` one. Raises
    ``MissingAPIError`` (naming the ``GenericWorkload`` gate) when the cluster does not serve
    the scheduling API; CompositePodGroups read as none when only their API is off. With a
    ``cache`` (or an ``aio.Client``'s), the namespace is read from it (a Workload's
    ``spec.controllerRef`` that names a kind the cache does not hold is still read live).
    """
    transport = transport_for(api_client, retry)
    reader = reader_for(api_client, cache, transport)
    snapshot = await reader.snapshot(namespace)
    missing = snapshot.missing_api(POD_GROUPS, WORKLOADS)
    if missing is not None:
        raise missing
    findings = [
        *_pods(snapshot),
        *_members(snapshot),
        *_groups(snapshot),
        *[f async for f in _controllers(transport, reader, snapshot)],
    ]
    return sorted(findings)


def _ref(resource: Resource, namespace: str, obj: Obj) -> ObjectRef:
    return ObjectRef(resource.kind, namespace, name_of(obj), resource.api_version)


def _group_ref(kind: str, namespace: str, obj: Obj) -> ObjectRef:
    return _ref(group_resource(kind), namespace, obj)


def _meta(obj: Obj, key: str) -> Mapping[str, str]:
    value = (obj.get("metadata") or {}).get(key)
    return value if isinstance(value, Mapping) else {}


def _pods(snapshot: Snapshot) -> Iterator[Finding]:
    """Pods naming a missing PodGroup, grouped twice, or with claims unlike their group's."""
    ns = snapshot.namespace
    for pod in snapshot.pods:
        group_name = pod_group_of(pod)
        if group_name is None:
            continue
        ref = _ref(PODS, ns, pod)
        group = snapshot.group("PodGroup", group_name)
        if group is None:
            yield Finding(
                ref,
                FindingKind.MISSING_POD_GROUP,
                Severity.ERROR,
                f"spec.schedulingGroup.podGroupName names PodGroup {group_name!r}, which does"
                " not exist; the pod stays Pending with no condition and no event",
                f"create PodGroup {ns}/{group_name}, or fix the name (it is immutable: recreate"
                " the pod)",
            )
        for where, key, system in OTHER_GROUP_MARKERS:
            value = _meta(pod, "labels" if where == "label" else "annotations").get(key)
            if value:
                yield Finding(
                    ref,
                    FindingKind.GROUPED_TWICE,
                    Severity.ERROR,
                    f"the pod is in PodGroup {group_name!r} and also in {system}'s group"
                    f" {value!r} ({where} {key})",
                    f"use one group system: remove the {where} {key}, or drop"
                    " spec.schedulingGroup and let that scheduler handle the pod",
                )
        if group is not None:
            yield from _claims(ref, pod, group)


def _claims(ref: ObjectRef, pod: Obj, group: Obj) -> Iterator[Finding]:
    """A pod claim named like one of the group's must declare the same source."""
    try:
        model: PodGroup = parse(POD_GROUPS, group)  # an APIError if it is not a PodGroup
        check_pod_claims(
            ref.name,
            (pod.get("spec") or {}).get("resourceClaims") or [],
            model.spec.resource_claims or [],
        )
    except ValueError as mismatch:
        yield Finding(
            ref,
            FindingKind.CLAIM_MISMATCH,
            Severity.ERROR,
            str(mismatch).split(";")[0],
            "declare the claim in the pod exactly as the PodGroup's spec.resourceClaims does,"
            " or give the pod's own claim another name",
        )


def _requests(pod: Obj) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    containers = (pod.get("spec") or {}).get("containers") or []
    return tuple(
        (
            str(c.get("name")),
            tuple(sorted(((c.get("resources") or {}).get("requests") or {}).items())),
        )
        for c in containers
    )


_UNIFORM: Final = (
    ("schedulerName", "default-scheduler"),
    ("priorityClassName", ""),
    ("preemptionPolicy", "PreemptLowerPriority"),
)


def _members(snapshot: Snapshot) -> Iterator[Finding]:
    """Groups with too few members created, or members that differ where they must not."""
    ns = snapshot.namespace
    for group in snapshot.pod_groups:
        ref = _group_ref("PodGroup", ns, group)
        members = snapshot.members(name_of(group))
        gang = ((group.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
        min_count = int(gang.get("minCount") or 1) if isinstance(gang, Mapping) else 0
        present = sum(1 for pod in members if active(pod))  # neither terminal nor deleting
        if present < min_count:
            placed = condition(group, condition_type("PodGroup")) or {}
            if placed.get("status") == "True":
                told = (
                    f"{present} active member pods remain and minCount is {min_count}: the"
                    " group was placed once and its condition stays True"
                )
            else:
                told = (
                    f"{present} active member pods exist and minCount is {min_count}: the"
                    " scheduler waits, writing nothing, until enough exist"
                )
            yield Finding(
                ref,
                FindingKind.TOO_FEW_MEMBERS,
                Severity.ERROR,
                told,
                f"create {min_count - present} more pods with spec.schedulingGroup"
                f".podGroupName: {name_of(group)}, or lower minCount (resize)",
            )
        for field, default in _UNIFORM:
            values: dict[str, list[str]] = defaultdict(list)
            for pod in members:
                values[str((pod.get("spec") or {}).get(field) or default)].append(name_of(pod))
            if len(values) > 1:
                seen = "; ".join(f"{v!r}: {', '.join(p)}" for v, p in sorted(values.items()))
                yield Finding(
                    ref,
                    FindingKind.INCONSISTENT_MEMBERS,
                    Severity.ERROR,
                    f"members differ in spec.{field} ({seen})",
                    f"give every member the same spec.{field}: a gang is scheduled by one"
                    " scheduler at one priority",
                )
        shapes: dict[tuple[Any, ...], list[str]] = defaultdict(list)
        for pod in members:
            shapes[_requests(pod)].append(name_of(pod))
        if len(shapes) > 1:
            groups = sorted(shapes.values())
            yield Finding(
                ref,
                FindingKind.UNEVEN_REQUESTS,
                Severity.WARNING,
                "members' resource requests differ: "
                + " vs ".join(", ".join(names) for names in groups),
                "check that the difference is meant: minCount counts pods, not resources, so"
                " the placement depends on which members are tried",
            )


def _templates(spec: Obj, key: str) -> Iterator[str]:
    """Template names under ``key`` anywhere in a Workload's template tree."""
    for composite in spec.get("compositePodGroupTemplates") or []:
        if key == "compositePodGroupTemplates":
            yield str(composite.get("name"))
        yield from _templates(composite, key)
    if key == "podGroupTemplates":
        yield from (str(t.get("name")) for t in spec.get("podGroupTemplates") or [])


def _groups(snapshot: Snapshot) -> Iterator[Finding]:
    """Groups referencing a missing Workload, template or parent; composites asking too much."""
    ns = snapshot.namespace
    workloads = {name_of(w): w for w in snapshot.workloads}
    pools = (("PodGroup", snapshot.pod_groups), ("CompositePodGroup", snapshot.composites))
    for kind, pool in pools:
        for group in pool:
            ref, spec = _group_ref(kind, ns, group), group.get("spec") or {}
            yield from _workload_ref(ref, spec, workloads)
            parent = spec.get("parentCompositePodGroupName")
            if parent and snapshot.group("CompositePodGroup", parent) is None:
                yield Finding(
                    ref,
                    FindingKind.MISSING_PARENT,
                    Severity.ERROR,
                    f"spec.parentCompositePodGroupName names CompositePodGroup {parent!r},"
                    " which does not exist; the group's pods cannot be scheduled",
                    f"create CompositePodGroup {ns}/{parent} (parents before children)",
                )
    for composite in snapshot.composites:
        gang = ((composite.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
        wanted = int(gang.get("minGroupCount") or 1) if isinstance(gang, Mapping) else 0
        children = snapshot.children(name_of(composite))
        if wanted > len(children):
            yield Finding(
                _group_ref("CompositePodGroup", ns, composite),
                FindingKind.MIN_GROUP_COUNT_TOO_HIGH,
                Severity.ERROR,
                f"minGroupCount is {wanted} but {len(children)} child groups name it as parent",
                f"create the {wanted - len(children)} missing child groups; minGroupCount"
                " cannot change (a lower one needs a new Workload and groups)",
            )


def _workload_ref(ref: ObjectRef, spec: Obj, workloads: Mapping[str, Obj]) -> Iterator[Finding]:
    workload_ref = spec.get("workloadRef") or {}
    workload_name = workload_ref.get("workloadName")
    if not workload_name:
        return
    workload = workloads.get(workload_name)
    if workload is None:
        yield Finding(
            ref,
            FindingKind.MISSING_WORKLOAD,
            Severity.ERROR,
            f"spec.workloadRef.workloadName names Workload {workload_name!r}, which does not exist",
            f"create Workload {ref.namespace}/{workload_name} before its groups, or recreate"
            " the group with the right workloadRef (it is immutable)",
        )
        return
    key = "compositePodGroupTemplates" if ref.kind == "CompositePodGroup" else "podGroupTemplates"
    template = workload_ref.get("templateName")
    have = sorted(_templates(workload.get("spec") or {}, key))
    if template not in have:
        yield Finding(
            ref,
            FindingKind.MISSING_TEMPLATE,
            Severity.ERROR,
            f"spec.workloadRef.templateName {template!r} is not one of Workload"
            f" {workload_name!r}'s {key} (have {have})",
            "stamp the group from a template the Workload has (templates cannot be added to"
            " an existing Workload)",
        )


async def _controllers(
    transport: Transport, reader: Reads, snapshot: Snapshot
) -> AsyncIterator[Finding]:
    """Workloads whose ``spec.controllerRef`` names an object that does not exist."""
    ns = snapshot.namespace
    for workload in snapshot.workloads:
        owner = (workload.get("spec") or {}).get("controllerRef")
        if not isinstance(owner, Mapping) or not owner.get("kind") or not owner.get("name"):
            continue
        group, kind, name = str(owner.get("apiGroup") or ""), owner["kind"], owner["name"]
        resource = JOBS if reader.cached and (group, kind) == ("batch", "Job") else None
        resource = resource or await _resource_for(transport, group, str(kind))
        what = f"{kind} {name!r}" + (f" (apiGroup {group})" if group else "")
        if resource is None:
            problem = f"spec.controllerRef names {what}, a kind this server does not serve"
        elif await _exists(transport, reader, resource, ns, str(name)):
            continue
        else:
            problem = f"spec.controllerRef names {what}, which does not exist"
        yield Finding(
            _ref(WORKLOADS, ns, workload),
            FindingKind.MISSING_CONTROLLER,
            Severity.ERROR,
            problem + "; nothing will create or clean up this Workload's groups",
            "delete the orphaned Workload and its groups, or recreate the controller object",
        )


async def _exists(
    transport: Transport, reader: Reads, resource: Resource, namespace: str, name: str
) -> bool:
    """Whether the object exists: from the cache when it holds the kind, else a GET."""
    if reader.cached and resource == JOBS:
        return await reader.get(resource, namespace, name) is not None
    return await get_document(transport, resource, namespace, name) is not None


async def _resource_for(transport: Transport, group: str, kind: str) -> Resource | None:
    """The namespaced resource serving ``kind`` in ``group`` (discovery), if any."""
    versions: Sequence[str]
    if group:
        found = await _get_or_none(transport, f"/apis/{group}")
        if found is None:
            return None
        preferred = (found.get("preferredVersion") or {}).get("version")
        listed = [str(v.get("version")) for v in found.get("versions") or []]
        versions = [v for v in [preferred, *listed] if v]
    else:
        versions = ["v1"]
    for version in dict.fromkeys(versions):
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        listing = await _get_or_none(transport, path)
        for r in (listing or {}).get("resources") or []:
            if r.get("kind") == kind and "/" not in str(r.get("name")) and r.get("namespaced"):
                return Resource(group, version, str(r["name"]), kind)
    return None


async def _get_or_none(transport: Transport, path: str) -> Mapping[str, Any] | None:
    try:
        response = await transport.request("GET", path)
    except APIError as exc:
        if exc.status == 404:
            return None
        raise
    return response.body if isinstance(response.body, Mapping) else None
