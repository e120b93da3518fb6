"""Server-side printing: ``meta.k8s.io`` ``Table`` and ``PartialObjectMetadata`` answers.

``kubectl get`` asks for ``as=Table`` and prints what the server computes. The columns and
cells follow the API server's printers: pods (Name, Ready, Status, Restarts, Age, then IP,
Node, Nominated Node and Readiness Gates at priority 1), PodGroups (Name, Policy, Workload,
Status, Age, as observed), Jobs, Namespaces, Nodes, Events, PriorityClasses and Leases; any other
kind gets the default Name / Created At table. Columns the printers describe with an API
field's documentation carry that text (``field_docs``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from workloadbuilder.testing.common.custom_types import CustomResourceType
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.server import custom_columns
from workloadbuilder.testing.server import field_docs as docs
from workloadbuilder.testing.server.columns import AGE, AGE_DOC, NAME, Column, human_duration

Cell = str | int | bool
_NONE = "<none>"
_WEBHOOKS_DOC = "Webhooks indicates the number of webhooks registered in this configuration"


def _col(name: str, description: str, priority: int = 0, kind: str = "string") -> Column:
    return (name, kind, "", priority, description)


def _since(stamp: Any, now: datetime) -> str:
    if not isinstance(stamp, str) or not stamp:
        return "<unknown>"
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    return human_duration((now - then).total_seconds())


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for cond in _list(_get(obj, "status", "conditions")):
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def _text(value: Any, empty: str = _NONE) -> str:
    return value if isinstance(value, str) and value else empty


# -- per-kind printers ---------------------------------------------------------------------


def _pod(obj: dict[str, Any], now: datetime) -> list[Cell]:
    containers = _list(_get(obj, "spec", "containers"))
    reason = _text(_get(obj, "status", "phase"), "")
    reason = _text(_get(obj, "status", "reason"), reason)
    for cond in _list(_get(obj, "status", "conditions")):
        if _get(cond, "type") == "PodScheduled" and _get(cond, "reason") == "SchedulingGated":
            reason = "SchedulingGated"
    restarts, ready, running, last_restart = 0, 0, False, ""
    for status in reversed(_list(_get(obj, "status", "containerStatuses"))):
        count = _get(status, "restartCount")
        restarts += count if isinstance(count, int) else 0
        finished = _get(status, "lastState", "terminated", "finishedAt")
        if isinstance(finished, str) and finished > last_restart:
            last_restart = finished
        waiting, done = _get(status, "state", "waiting"), _get(status, "state", "terminated")
        if _text(_get(waiting, "reason"), ""):
            reason = _get(waiting, "reason")
        elif _text(_get(done, "reason"), ""):
            reason = _get(done, "reason")
        elif isinstance(done, dict):
            signal = done.get("signal")
            reason = f"Signal:{signal}" if signal else f"ExitCode:{done.get('exitCode', 0)}"
        elif _get(status, "ready") is True and _get(status, "state", "running") is not None:
            running, ready = True, ready + 1
    if reason == "Completed" and running:
        ready_cond = _condition(obj, "Ready")
        reason = "Running" if ready_cond and ready_cond.get("status") == "True" else "NotReady"
    if _get(obj, "metadata", "deletionTimestamp"):
        if _get(obj, "status", "reason") == "NodeLost":
            reason = "Unknown"
        elif _get(obj, "status", "phase") not in ("Succeeded", "Failed"):
            reason = "Terminating"
    ips = _list(_get(obj, "status", "podIPs"))
    gates = _list(_get(obj, "spec", "readinessGates"))
    gates_text = _NONE
    if gates:
        wanted = {_get(g, "conditionType") for g in gates}
        true = sum(
            1
            for c in _list(_get(obj, "status", "conditions"))
            if _get(c, "type") in wanted and _get(c, "status") == "True"
        )
        gates_text = f"{true}/{len(gates)}"
    return [
        _text(_get(obj, "metadata", "name"), ""),
        f"{ready}/{len(containers)}",
        reason,
        f"{restarts} ({_since(last_restart, now)} ago)"
        if restarts and last_restart
        else str(restarts),
        _since(_get(obj, "metadata", "creationTimestamp"), now),
        _text(_get(ips[0], "ip") if ips else _get(obj, "status", "podIP")),
        _text(_get(obj, "spec", "nodeName")),
        _text(_get(obj, "status", "nominatedNodeName")),
        gates_text,
    ]


def _group_printer(condition: str) -> Callable[[dict[str, Any], datetime], list[Cell]]:
    def cells(obj: dict[str, Any], now: datetime) -> list[Cell]:
        policy = _get(obj, "spec", "schedulingPolicy")
        kind = "Gang" if _get(policy, "gang") is not None else "Basic"
        if not isinstance(policy, dict) or not policy:
            kind = _NONE
        cond = _condition(obj, condition)
        status = "Pending"
        if cond is not None:
            status = {"True": "Scheduled", "False": "Unschedulable"}.get(
                str(cond.get("status")), "Pending"
            )
        return [
            _text(_get(obj, "metadata", "name"), ""),
            kind,
            _text(_get(obj, "spec", "workloadRef", "workloadName")),
            status,
            _since(_get(obj, "metadata", "creationTimestamp"), now),
        ]

    return cells


def _workload(obj: dict[str, Any], now: datetime) -> list[Cell]:
    spec = _get(obj, "spec") or {}
    names = [
        _text(_get(t, "name"), "")
        for key in ("podGroupTemplates", "compositePodGroupTemplates")
        for t in _list(_get(spec, key))
    ]
    owner = _get(spec, "controllerRef")
    return [
        _text(_get(obj, "metadata", "name"), ""),
        ",".join(names) or _NONE,
        f"{_get(owner, 'kind')}/{_get(owner, 'name')}" if isinstance(owner, dict) else _NONE,
        _since(_get(obj, "metadata", "creationTimestamp"), now),
    ]


def _job(obj: dict[str, Any], now: datetime) -> list[Cell]:
    spec, status = _get(obj, "spec") or {}, _get(obj, "status") or {}
    succeeded = status.get("succeeded") if isinstance(status, dict) else None
    done = succeeded if isinstance(succeeded, int) else 0
    completions, parallelism = _get(spec, "completions"), _get(spec, "parallelism")
    if isinstance(completions, int):
        progress = f"{done}/{completions}"
    elif isinstance(parallelism, int) and parallelism > 1:
        progress = f"{done}/1 of {parallelism}"
    else:
        progress = f"{done}/1"
    state = "Running"
    for kind, label in (
        ("Complete", "Complete"),
        ("Failed", "Failed"),
        ("", "Terminating"),
        ("SuccessCriteriaMet", "SuccessCriteriaMet"),
        ("FailureTarget", "FailureTarget"),
        ("Suspended", "Suspended"),
    ):
        if not kind:
            if _get(obj, "metadata", "deletionTimestamp"):
                state = label
                break
            continue
        cond = _condition(obj, kind)
        if cond is not None and cond.get("status") == "True":
            state = label
            break
    start, end = _get(status, "startTime"), _get(status, "completionTime")
    elapsed = ""
    if isinstance(start, str) and start:
        finish = now
        if isinstance(end, str) and end:
            finish = datetime.fromisoformat(end.replace("Z", "+00:00"))
        elapsed = _since(start, finish)
    containers = _list(_get(spec, "template", "spec", "containers"))
    labels = _get(spec, "selector", "matchLabels")
    selector = ",".join(f"{k}={v}" for k, v in sorted((labels or {}).items()))
    return [
        _text(_get(obj, "metadata", "name"), ""),
        state,
        progress,
        elapsed,
        _since(_get(obj, "metadata", "creationTimestamp"), now),
        ",".join(_text(_get(c, "name"), "") for c in containers),
        ",".join(_text(_get(c, "image"), "") for c in containers),
        selector or _NONE,
    ]


def _namespace(obj: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        _text(_get(obj, "metadata", "name"), ""),
        _text(_get(obj, "status", "phase"), ""),
        _since(_get(obj, "metadata", "creationTimestamp"), now),
    ]


def _node(obj: dict[str, Any], now: datetime) -> list[Cell]:
    ready = _condition(obj, "Ready")
    state = "Unknown"
    if ready is not None:
        state = "Ready" if ready.get("status") == "True" else "NotReady"
    if _get(obj, "spec", "unschedulable") is True:
        state += ",SchedulingDisabled"
    labels = _get(obj, "metadata", "labels") or {}
    roles = sorted(
        k.removeprefix("node-role.kubernetes.io/")
        for k in labels
        if k.startswith("node-role.kubernetes.io/") and k != "node-role.kubernetes.io/"
    )
    if labels.get("kubernetes.io/role"):
        roles.append(labels["kubernetes.io/role"])
    addresses = _list(_get(obj, "status", "addresses"))

    def address(kind: str) -> str:
        return _text(next((a.get("address") for a in addresses if _get(a, "type") == kind), ""))

    info = _get(obj, "status", "nodeInfo") or {}
    return [
        _text(_get(obj, "metadata", "name"), ""),
        state,
        ",".join(roles) or _NONE,
        _since(_get(obj, "metadata", "creationTimestamp"), now),
        _text(_get(info, "kubeletVersion"), ""),
        address("InternalIP"),
        address("ExternalIP"),
        _text(_get(info, "osImage"), "<unknown>"),
        _text(_get(info, "kernelVersion"), "<unknown>"),
        _text(_get(info, "containerRuntimeVersion"), "<unknown>"),
    ]


def _event(obj: dict[str, Any], now: datetime) -> list[Cell]:
    first = _get(obj, "firstTimestamp") or _get(obj, "eventTime")
    last = _get(obj, "series", "lastObservedTime") or _get(obj, "lastTimestamp") or first
    count = _get(obj, "series", "count") or _get(obj, "count") or 1
    involved = _get(obj, "involvedObject") or {}
    source = _text(_get(obj, "source", "component"), "") or _text(
        _get(obj, "reportingController"), ""
    )
    host = _text(_get(obj, "source", "host"), "") or _text(_get(obj, "reportingInstance"), "")
    return [
        _since(last, now),
        _text(_get(obj, "type"), ""),
        _text(_get(obj, "reason"), ""),
        f"{str(_get(involved, 'kind') or '').lower()}/{_get(involved, 'name') or ''}",
        _text(_get(involved, "fieldPath"), ""),
        ", ".join(p for p in (source, host) if p),
        _text(_get(obj, "message"), ""),
        _since(first, now),
        count if isinstance(count, int) else 1,
        _text(_get(obj, "metadata", "name"), ""),
    ]


def _priority_class(obj: dict[str, Any], now: datetime) -> list[Cell]:
    value = _get(obj, "value")
    return [
        _text(_get(obj, "metadata", "name"), ""),
        value if isinstance(value, int) else 0,
        _get(obj, "globalDefault") is True,
        _since(_get(obj, "metadata", "creationTimestamp"), now),
        _text(_get(obj, "preemptionPolicy"), ""),
    ]


def _webhook_configuration(obj: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        _text(_get(obj, "metadata", "name"), ""),
        len(_list(_get(obj, "webhooks"))),
        _since(_get(obj, "metadata", "creationTimestamp"), now),
    ]


def _lease(obj: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        _text(_get(obj, "metadata", "name"), ""),
        _text(_get(obj, "spec", "holderIdentity"), ""),
        _since(_get(obj, "metadata", "creationTimestamp"), now),
    ]


def _binding(obj: dict[str, Any], now: datetime) -> list[Cell]:
    """``Kind/name`` of the role; users, groups and ``namespace/name`` service accounts."""
    ref = _get(obj, "roleRef") or {}
    found: dict[str, list[str]] = {"User": [], "Group": [], "ServiceAccount": []}
    for subject in _list(_get(obj, "subjects")):
        kind, name = _get(subject, "kind"), _text(_get(subject, "name"), "")
        if kind == "ServiceAccount":
            name = f"{_text(_get(subject, 'namespace'), '')}/{name}"
        if kind in found:
            found[kind].append(name)
    return [
        _text(_get(obj, "metadata", "name"), ""),
        f"{_text(_get(ref, 'kind'), '')}/{_text(_get(ref, 'name'), '')}",
        _since(_get(obj, "metadata", "creationTimestamp"), now),
        ", ".join(found["User"]),
        ", ".join(found["Group"]),
        ", ".join(found["ServiceAccount"]),
    ]


def _binding_columns(kind: str, role_doc: str) -> list[Column]:
    return [
        NAME,
        _col("Role", role_doc),
        AGE,
        _col("Users", f"Users in the {kind}", 1),
        _col("Groups", f"Groups in the {kind}", 1),
        _col("ServiceAccounts", f"ServiceAccounts in the {kind}", 1),
    ]


_ROLE_REF = (
    "If the RoleRef cannot be resolved, the Authorizer must return an error. This field is "
    "immutable."
)


def _default(obj: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        _text(_get(obj, "metadata", "name"), ""),
        _text(_get(obj, "metadata", "creationTimestamp"), ""),
    ]


_GROUP_COLUMNS = [
    NAME,
    _col("Policy", "The scheduling policy of the group: Gang or Basic."),
    _col("Workload", "The Workload this group was created from."),
    _col("Status", "Whether the group has been scheduled."),
    AGE,
]
_PRINTERS: dict[tuple[str, str], tuple[list[Column], Callable[..., list[Cell]]]] = {
    ("", "pods"): (
        [
            NAME,
            _col("Ready", "The aggregate readiness state of this pod for accepting traffic."),
            _col("Status", "The aggregate status of the containers in this pod."),
            _col(
                "Restarts",
                "The number of times the containers in this pod have been restarted and when "
                "the last container in this pod has restarted.",
            ),
            AGE,
            _col("IP", docs.POD_IP, 1),
            _col("Node", docs.NODE_NAME, 1),
            _col("Nominated Node", docs.NOMINATED_NODE, 1),
            _col("Readiness Gates", docs.READINESS_GATES, 1),
        ],
        _pod,
    ),
    ("scheduling.k8s.io", "podgroups"): (
        _GROUP_COLUMNS,
        _group_printer("PodGroupInitiallyScheduled"),
    ),
    ("scheduling.k8s.io", "compositepodgroups"): (
        _GROUP_COLUMNS,
        _group_printer("CompositePodGroupInitiallyScheduled"),
    ),
    ("scheduling.k8s.io", "workloads"): (
        [
            NAME,
            _col("Templates", "The names of the top-level templates."),
            _col("Controller", "The object that manages this Workload (spec.controllerRef)."),
            AGE,
        ],
        _workload,
    ),
    ("batch", "jobs"): (
        [
            NAME,
            _col("Status", "Status of the job."),
            _col("Completions", docs.JOB_SUCCEEDED),
            _col("Duration", "Time required to complete the job."),
            AGE,
            _col("Containers", "Names of each container in the template.", 1),
            _col("Images", "Images referenced by each container in the template.", 1),
            _col("Selector", docs.JOB_SELECTOR, 1),
        ],
        _job,
    ),
    ("", "namespaces"): (
        [NAME, _col("Status", "The status of the namespace"), AGE],
        _namespace,
    ),
    ("rbac.authorization.k8s.io", "rolebindings"): (
        _binding_columns(
            "roleBinding",
            "RoleRef can reference a Role in the current namespace or a ClusterRole in the "
            "global namespace. " + _ROLE_REF,
        ),
        _binding,
    ),
    ("rbac.authorization.k8s.io", "clusterrolebindings"): (
        _binding_columns(
            "clusterRoleBinding",
            "RoleRef can only reference a ClusterRole in the global namespace. " + _ROLE_REF,
        ),
        _binding,
    ),
    ("", "nodes"): (
        [
            NAME,
            _col("Status", "The status of the node"),
            _col("Roles", "The roles of the node"),
            AGE,
            _col("Version", docs.KUBELET_VERSION),
            _col("Internal-IP", docs.NODE_ADDRESSES, 1),
            _col("External-IP", docs.NODE_ADDRESSES, 1),
            _col("OS-Image", docs.OS_IMAGE, 1),
            _col("Kernel-Version", docs.KERNEL_VERSION, 1),
            _col("Container-Runtime", docs.CONTAINER_RUNTIME, 1),
        ],
        _node,
    ),
    ("", "events"): (
        [
            _col("Last Seen", docs.EVENT_LAST),
            _col("Type", docs.EVENT_TYPE),
            _col("Reason", docs.EVENT_REASON),
            _col("Object", docs.EVENT_OBJECT),
            _col("Subobject", docs.EVENT_FIELD_PATH, 1),
            _col("Source", docs.EVENT_SOURCE, 1),
            _col("Message", docs.EVENT_MESSAGE),
            _col("First Seen", docs.EVENT_FIRST, 1),
            _col("Count", docs.EVENT_COUNT, 1),
            (*NAME[:3], 1, NAME[4]),
        ],
        _event,
    ),
    ("scheduling.k8s.io", "priorityclasses"): (
        [
            NAME,
            _col("Value", docs.CLASS_VALUE, kind="integer"),
            _col("Global-Default", docs.CLASS_GLOBAL_DEFAULT, kind="boolean"),
            AGE,
            _col("PreemptionPolicy", docs.CLASS_PREEMPTION),
        ],
        _priority_class,
    ),
    ("coordination.k8s.io", "leases"): ([NAME, _col("Holder", docs.LEASE_HOLDER), AGE], _lease),
    **{
        ("admissionregistration.k8s.io", plural): (
            [NAME, _col("Webhooks", _WEBHOOKS_DOC, kind="integer"), AGE],
            _webhook_configuration,
        )
        for plural in ("validatingwebhookconfigurations", "mutatingwebhookconfigurations")
    },
}
_DEFAULT: tuple[list[Column], Callable[..., list[Cell]]] = (
    [NAME, ("Created At", "date", "", 0, AGE_DOC)],
    _default,
)


def _printer(rt: ResourceType) -> tuple[list[Column], Callable[..., list[Any]]]:
    """The columns and row printer of ``rt`` (a custom resource's come from its definition)."""
    if isinstance(rt, CustomResourceType):
        return custom_columns.columns(rt), custom_columns.printer(rt)
    return _PRINTERS.get((rt.group, rt.plural), _DEFAULT)


def columns(rt: ResourceType) -> list[dict[str, Any]]:
    """The ``columnDefinitions`` of ``rt``'s table."""
    cols, _ = _printer(rt)
    return [
        {"name": n, "type": t, "format": f, "description": d, "priority": p}
        for n, t, f, p, d in cols
    ]


def partial(obj: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    """``PartialObjectMetadata`` of an object: its metadata only."""
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": obj.get("metadata", {}),
    }


def partial_list(listing: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    """``PartialObjectMetadataList`` of a list."""
    return {
        "kind": "PartialObjectMetadataList",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": listing.get("metadata", {}),
        "items": [partial(i, version) for i in listing["items"]],
    }


def table(
    rt: ResourceType,
    objects: list[dict[str, Any]],
    list_meta: dict[str, Any],
    *,
    include_object: str = "Metadata",
    version: str = "v1",
    with_columns: bool = True,
    now: datetime | None = None,
) -> dict[str, Any]:
    """A ``Table`` of ``objects``; ``include_object`` is ``None``, ``Metadata`` or ``Object``."""
    _, printer = _printer(rt)
    moment = now or datetime.now(UTC)
    rows = []
    for obj in objects:
        embedded: dict[str, Any] | None = None
        if include_object == "Object":
            embedded = obj
        elif include_object == "Metadata":
            embedded = partial(obj, version)
        rows.append({"cells": printer(obj, moment), "object": embedded})
    out: dict[str, Any] = {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": list_meta,
    }
    if with_columns:
        out["columnDefinitions"] = columns(rt)
    out["rows"] = rows
    return out
