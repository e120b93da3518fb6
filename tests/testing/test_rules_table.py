"""One valid and one invalid case per API-server rule, checked against the 1.37 schemas."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import kubernetes_validate
import pytest

from workloadbuilder.testing.rules import apply_defaults, validate_object

GROUP = "scheduling.k8s.io"
ALL_GATES = frozenset(
    {
        "GenericWorkload",
        "CompositePodGroup",
        "TopologyAwareWorkloadScheduling",
        "DRAWorkloadResourceClaims",
        "PodGroupPreemptionPolicy",
        "WorkloadWithJob",
    }
)
NO_GATES: frozenset[str] = frozenset({"GenericWorkload"})

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
QNAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
# ValidatePodUpdate's message (kubernetes 1.36.3 pkg/apis/core/validation: updatablePodSpecFields
# joined by ","); after the newline the test server lists each changed field.
POD_UPDATES = (
    "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)\n"
)
PGTS = "spec.podGroupTemplates"
CPGTS = "spec.compositePodGroupTemplates"
T0 = PGTS + "[0]"


def pgt(name: str = "workers", min_count: int | None = 4, **extra: Any) -> dict[str, Any]:
    """A pod group template (gang ``min_count``, or basic when None)."""
    policy = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    return {"name": name, "schedulingPolicy": policy, **extra}


def cpgt(
    name: str, pgts: list[Any] | None = None, cpgts: list[Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """A composite template with gang ``minGroupCount: 1`` unless overridden."""
    tpl: dict[str, Any] = {"name": name, "schedulingPolicy": {"gang": {"minGroupCount": 1}}}
    if pgts:
        tpl["podGroupTemplates"] = pgts
    if cpgts:
        tpl["compositePodGroupTemplates"] = cpgts
    return {**tpl, **extra}


def workload(*templates: Any, composite: list[Any] | None = None, **spec: Any) -> dict[str, Any]:
    """A v1beta1 Workload ``ml/train`` with the given templates."""
    body: dict[str, Any] = dict(spec)
    if templates:
        body["podGroupTemplates"] = list(templates)
    if composite:
        body["compositePodGroupTemplates"] = composite
    return {
        "apiVersion": f"{GROUP}/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "train", "namespace": "ml"},
        "spec": body,
    }


def pod_group(**spec: Any) -> dict[str, Any]:
    """A v1beta1 PodGroup ``ml/train-workers`` (gang 4, single) with ``spec`` overrides."""
    body: dict[str, Any] = {
        "schedulingPolicy": {"gang": {"minCount": 4}},
        "disruptionMode": {"single": {}},
        "workloadRef": {"workloadName": "train", "templateName": "workers"},
    }
    body.update(spec)
    return {
        "apiVersion": f"{GROUP}/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train-workers", "namespace": "ml"},
        "spec": {k: v for k, v in body.items() if v is not None},
    }


def composite_group(**spec: Any) -> dict[str, Any]:
    """A v1alpha3 CompositePodGroup ``ml/train-root`` (gang 2) with ``spec`` overrides."""
    base = {
        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
        "workloadRef": {"workloadName": "train", "templateName": "root"},
    }
    obj = pod_group(**{**base, **spec})
    obj.update(apiVersion=f"{GROUP}/v1alpha3", kind="CompositePodGroup")
    obj["metadata"]["name"] = "train-root"
    return obj


def pod(**spec: Any) -> dict[str, Any]:
    """A v1 Pod ``ml/train-0`` with ``spec`` additions."""
    body = {"containers": [{"name": "main", "image": "busybox"}], **spec}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train-0", "namespace": "ml"},
        "spec": body,
    }


def job(scheduling: dict[str, Any] | None = None) -> dict[str, Any]:
    """A batch/v1 Job ``ml/train`` with an optional ``spec.scheduling``."""
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": "x"}]}}
    spec: dict[str, Any] = {"parallelism": 4, "template": template}
    if scheduling is not None:
        spec["scheduling"] = scheduling
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "ml"},
        "spec": spec,
    }


GANG_4 = {"schedulingPolicy": {"gang": {"minCount": 4}}}


def nested(depth: int) -> dict[str, Any]:
    """A chain of ``depth`` composite templates ending in one pod group template."""
    tpl = cpgt(f"c{depth}", pgts=[pgt(f"leaf{depth}")])
    for level in range(depth - 1, 0, -1):
        tpl = cpgt(f"c{level}", cpgts=[tpl])
    return tpl


def with_status(obj: dict[str, Any], **status: Any) -> dict[str, Any]:
    """``obj`` with a status."""
    return {**obj, "status": status}


def condition(**overrides: Any) -> dict[str, Any]:
    """A well-formed PodGroupInitiallyScheduled condition."""
    cond = {
        "type": "PodGroupInitiallyScheduled",
        "status": "True",
        "reason": "Scheduled",
        "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }
    cond.update(overrides)
    return {k: v for k, v in cond.items() if v is not None}


@dataclass
class Case:
    """One row: the object (and old object), the gates, and the expected cause(s)."""

    id: str
    obj: dict[str, Any]
    cause: tuple[str, str, str] | None = None  # reason, field, message
    old: dict[str, Any] | None = None
    gates: frozenset[str] = field(default=ALL_GATES)
    also: list[tuple[str, str, str]] = field(default_factory=list)


def invalid(msg: str) -> str:
    return "Invalid value: " + msg


LONG = "a" * 64
NINE = [pgt(f"t{i}") for i in range(9)]
EIGHT = NINE[:8]
REF = {"apiGroup": "batch", "kind": "Job", "name": "train"}
CLAIM = {"name": "gpus", "resourceClaimTemplateName": "gpu-template"}
TOPO = {"topology": [{"key": "topology.kubernetes.io/zone"}]}
ROOT = cpgt("root", pgts=[pgt("workers"), pgt("driver", 1)])

CASES = [
    # metadata
    Case("name ok", workload(pgt())),
    Case(
        "name subdomain",
        {**workload(pgt()), "metadata": {"name": "Train_1", "namespace": "ml"}},
        ("FieldValueInvalid", "metadata.name", invalid('"Train_1": ' + SUBDOMAIN_MSG)),
    ),
    # spec union
    Case(
        "spec union none",
        workload(),
        (
            "FieldValueInvalid",
            "spec",
            invalid('"": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`'),
        ),
    ),
    Case(
        "spec union both",
        workload(pgt("a"), composite=[cpgt("root", pgts=[pgt("b")])]),
        (
            "FieldValueInvalid",
            "spec",
            invalid(
                '"{podGroupTemplates, compositePodGroupTemplates}": must specify exactly one of: '
                "`podGroupTemplates`, `compositePodGroupTemplates`"
            ),
        ),
    ),
    # list sizes
    Case("eight templates", workload(*EIGHT)),
    Case(
        "nine templates",
        workload(*NINE),
        ("FieldValueTooMany", PGTS, "Too many: 9: must have at most 8 items"),
    ),
    Case("eight nested", workload(composite=[cpgt("root", pgts=EIGHT)])),
    Case(
        "nine nested",
        workload(composite=[cpgt("root", pgts=NINE)]),
        (
            "FieldValueTooMany",
            CPGTS + "[0].podGroupTemplates",
            "Too many: 9: must have at most 8 items",
        ),
    ),
    Case(
        "nine nested composites",
        workload(composite=[cpgt("root", cpgts=[cpgt(f"c{i}", [pgt(f"p{i}")]) for i in range(9)])]),
        (
            "FieldValueTooMany",
            CPGTS + "[0].compositePodGroupTemplates",
            "Too many: 9: must have at most 8 items",
        ),
    ),
    # gate for composites
    Case("composite gated on", workload(composite=[ROOT])),
    Case(
        "composite gated off",
        workload(composite=[ROOT]),
        ("FieldValueForbidden", CPGTS, "Forbidden"),
        gates=NO_GATES,
    ),
    # template names
    Case(
        "name required",
        workload(pgt("")),
        ("FieldValueRequired", T0 + ".name", "Required value"),
    ),
    Case(
        "name label",
        workload(pgt("Workers")),
        ("FieldValueInvalid", T0 + ".name", invalid('"Workers": ' + LABEL_MSG)),
    ),
    Case(
        "name dots",
        workload(pgt("a.b")),
        ("FieldValueInvalid", T0 + ".name", invalid('"a.b": must not contain dots')),
    ),
    Case(
        "name length",
        workload(pgt(LONG)),
        ("FieldValueInvalid", T0 + ".name", invalid(f'"{LONG}": must be no more than 63 bytes')),
    ),
    Case(
        "composite name label",
        workload(composite=[cpgt("Root", pgts=[pgt()])]),
        ("FieldValueInvalid", CPGTS + "[0].name", invalid('"Root": ' + LABEL_MSG)),
    ),
    Case(
        "duplicate in list",
        workload(pgt("workers"), pgt("workers")),
        ("FieldValueDuplicate", PGTS + "[1]", 'Duplicate value: "workers"'),
    ),
    Case(
        "duplicate across tree",
        workload(composite=[cpgt("root", pgts=[pgt("workers"), pgt("root")])]),
        (
            "FieldValueDuplicate",
            CPGTS + "[0].podGroupTemplates[1].name",
            'Duplicate value: "root"',
        ),
    ),
    Case(
        "duplicate across subtrees",
        workload(composite=[cpgt("root", cpgts=[cpgt("a", [pgt("x")]), cpgt("b", [pgt("x")])])]),
        (
            "FieldValueDuplicate",
            CPGTS + "[0].compositePodGroupTemplates[1].podGroupTemplates[0].name",
            'Duplicate value: "x"',
        ),
    ),
    # depth
    Case("depth 4", workload(composite=[nested(3)])),
    Case(
        "depth 5",
        workload(composite=[nested(4)]),
        (
            "FieldValueInvalid",
            CPGTS + "[0]",
            invalid(
                '[{"name":"c2","schedulingPolicy":{"gang":{"minGroupCount":1}},'
                '"compositePodGroupTemplates":[{"name":"c3","schedulingPolicy":{"gang":'
                '{"minGroupCount":1}},"compositePodGroupTemplates":[{"name":"c4",'
                '"schedulingPolicy":{"gang":{"minGroupCount":1}},"podGroupTemplates":'
                '[{"name":"leaf4","schedulingPolicy":{"gang":{"minCount":4}}}]}]}]}]: '
                "maximum template hierarchy depth is 4"
            ),
        ),
    ),
    # children
    Case(
        "composite without child",
        workload(composite=[cpgt("root", cpgts=[cpgt("empty")], pgts=[pgt()])]),
        (
            "FieldValueInvalid",
            CPGTS + "[0].compositePodGroupTemplates[0]",
            invalid(
                '"empty": must have at least one child PodGroupTemplate or '
                "CompositePodGroupTemplate"
            ),
        ),
    ),
    # priority consistency
    Case(
        "same priority",
        workload(pgt("a", priorityClassName="high"), pgt("b", priorityClassName="high")),
    ),
    Case(
        "priority differs in list",
        workload(pgt("a", priorityClassName="high"), pgt("b")),
        ("FieldValueInvalid", "spec", invalid("null: detected multiple priority configurations")),
    ),
    Case(
        "priority differs in tree",
        workload(composite=[cpgt("root", pgts=[pgt("a", priority=5)])]),
        (
            "FieldValueInvalid",
            "spec",
            invalid(
                "null: all priority and priorityClassName values must be identical, "
                "detected multiple values"
            ),
        ),
    ),
    # controllerRef
    Case("controllerRef ok", workload(pgt(), controllerRef=REF)),
    Case(
        "controllerRef kind required",
        workload(pgt(), controllerRef={"apiGroup": "batch", "name": "train"}),
        ("FieldValueRequired", "spec.controllerRef.kind", "Required value"),
    ),
    Case(
        "controllerRef name segment",
        workload(pgt(), controllerRef={**REF, "name": "a/b"}),
        ("FieldValueInvalid", "spec.controllerRef.name", invalid("\"a/b\": may not contain '/'")),
    ),
    Case(
        "controllerRef apiGroup",
        workload(pgt(), controllerRef={**REF, "apiGroup": "Batch"}),
        ("FieldValueInvalid", "spec.controllerRef.apiGroup", invalid('"Batch": ' + SUBDOMAIN_MSG)),
    ),
    # scheduling policy
    Case("basic policy", workload(pgt(min_count=None))),
    Case(
        "policy none",
        workload({"name": "workers", "schedulingPolicy": {}}),
        (
            "FieldValueInvalid",
            T0 + ".schedulingPolicy",
            invalid('"": must specify one of: `basic`, `gang`'),
        ),
    ),
    Case(
        "policy both",
        workload(pgt(schedulingPolicy={"basic": {}, "gang": {"minCount": 1}})),
        (
            "FieldValueInvalid",
            T0 + ".schedulingPolicy",
            invalid('"{basic, gang}": must specify exactly one of: `basic`, `gang`'),
        ),
    ),
    Case("minCount 1", workload(pgt(min_count=1))),
    Case(
        "minCount 0",
        workload(pgt(min_count=0)),
        ("FieldValueRequired", T0 + ".schedulingPolicy.gang.minCount", "Required value"),
    ),
    Case(
        "minCount negative",
        workload(pgt(min_count=-1)),
        (
            "FieldValueInvalid",
            T0 + ".schedulingPolicy.gang.minCount",
            invalid("-1: must be greater than or equal to 1"),
        ),
    ),
    Case(
        "minGroupCount 0",
        workload(composite=[{**ROOT, "schedulingPolicy": {"gang": {"minGroupCount": 0}}}]),
        ("FieldValueRequired", CPGTS + "[0].schedulingPolicy.gang.minGroupCount", "Required value"),
    ),
    # topology
    Case("topology ok", workload(pgt(schedulingConstraints=TOPO))),
    Case(
        "topology gated off",
        workload(pgt(schedulingConstraints=TOPO)),
        ("FieldValueForbidden", T0 + ".schedulingConstraints", "Forbidden"),
        gates=NO_GATES,
    ),
    Case(
        "composite topology needs no gate",
        workload(composite=[{**ROOT, "schedulingConstraints": TOPO}]),
        gates=frozenset({"CompositePodGroup"}),
    ),
    Case(
        "topology two",
        workload(pgt(schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]})),
        (
            "FieldValueTooMany",
            T0 + ".schedulingConstraints.topology",
            "Too many: 2: must have at most 1 item",
        ),
    ),
    Case(
        "topology key required",
        workload(pgt(schedulingConstraints={"topology": [{"key": ""}]})),
        ("FieldValueRequired", T0 + ".schedulingConstraints.topology[0].key", "Required value"),
    ),
    Case(
        "topology key format",
        workload(pgt(schedulingConstraints={"topology": [{"key": "zone!"}]})),
        (
            "FieldValueInvalid",
            T0 + ".schedulingConstraints.topology[0].key",
            invalid('"zone!": ' + QNAME_MSG),
        ),
    ),
    Case(
        "topology key prefix",
        workload(pgt(schedulingConstraints={"topology": [{"key": "Example.com/zone"}]})),
        (
            "FieldValueInvalid",
            T0 + ".schedulingConstraints.topology[0].key",
            invalid('"Example.com/zone": prefix part ' + SUBDOMAIN_MSG),
        ),
    ),
    # resource claims
    Case("claims ok", workload(pgt(resourceClaims=[CLAIM]))),
    Case(
        "claims gated off",
        workload(pgt(resourceClaims=[CLAIM])),
        ("FieldValueForbidden", T0 + ".resourceClaims", "Forbidden"),
        gates=NO_GATES,
    ),
    Case(
        "claims five",
        workload(pgt(resourceClaims=[{**CLAIM, "name": f"c{i}"} for i in range(5)])),
        ("FieldValueTooMany", T0 + ".resourceClaims", "Too many: 5: must have at most 4 items"),
    ),
    Case(
        "claim union none",
        workload(pgt(resourceClaims=[{"name": "gpus"}])),
        (
            "FieldValueInvalid",
            T0 + ".resourceClaims[0]",
            invalid('"": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'),
        ),
    ),
    Case(
        "claim union both",
        workload(pgt(resourceClaims=[{**CLAIM, "resourceClaimName": "c"}])),
        (
            "FieldValueInvalid",
            T0 + ".resourceClaims[0]",
            invalid(
                '"{resourceClaimName, resourceClaimTemplateName}": must specify exactly one of: '
                "`resourceClaimName`, `resourceClaimTemplateName`"
            ),
        ),
    ),
    Case(
        "claim name label",
        workload(pgt(resourceClaims=[{**CLAIM, "name": "GPU"}])),
        ("FieldValueInvalid", T0 + ".resourceClaims[0].name", invalid('"GPU": ' + LABEL_MSG)),
    ),
    Case(
        "claim ref subdomain",
        workload(pgt(resourceClaims=[{"name": "gpus", "resourceClaimName": "-x"}])),
        (
            "FieldValueInvalid",
            T0 + ".resourceClaims[0].resourceClaimName",
            invalid('"-x": ' + SUBDOMAIN_MSG),
        ),
    ),
    Case(
        "claim duplicate",
        workload(pgt(resourceClaims=[CLAIM, CLAIM])),
        ("FieldValueDuplicate", T0 + ".resourceClaims[1]", 'Duplicate value: "gpus"'),
    ),
    # disruption mode
    Case("disruption all", workload(pgt(disruptionMode={"all": {}}))),
    Case(
        "disruption none",
        workload(pgt(disruptionMode={})),
        (
            "FieldValueInvalid",
            T0 + ".disruptionMode",
            invalid('"": must specify one of: `single`, `all`'),
        ),
    ),
    Case(
        "disruption both",
        workload(pgt(disruptionMode={"single": {}, "all": {}})),
        (
            "FieldValueInvalid",
            T0 + ".disruptionMode",
            invalid('"{single, all}": must specify exactly one of: `single`, `all`'),
        ),
    ),
    # priority fields
    Case(
        "priorityClassName subdomain",
        workload(pgt(priorityClassName="High")),
        ("FieldValueInvalid", T0 + ".priorityClassName", invalid('"High": ' + SUBDOMAIN_MSG)),
    ),
    Case("priority max", workload(pgt(priority=1_000_000_000))),
    Case(
        "priority over max",
        workload(pgt(priority=1_000_000_001)),
        (
            "FieldValueInvalid",
            T0 + ".priority",
            invalid("1000000001: must be less than or equal to 1000000000"),
        ),
    ),
    Case("preemptionPolicy ok", workload(pgt(preemptionPolicy="Never"))),
    Case(
        "preemptionPolicy enum",
        workload(pgt(preemptionPolicy="Always")),
        (
            "FieldValueNotSupported",
            T0 + ".preemptionPolicy",
            'Unsupported value: "Always": supported values: "Never", "PreemptLowerPriority"',
        ),
    ),
    Case(
        "preemptionPolicy gated off",
        workload(pgt(preemptionPolicy="Never")),
        ("FieldValueForbidden", T0 + ".preemptionPolicy", "Forbidden"),
        gates=NO_GATES,
    ),
    # Workload updates
    Case("minCount mutable", workload(pgt(min_count=6)), old=workload(pgt())),
    Case(
        "controllerRef immutable",
        workload(pgt(), controllerRef={**REF, "name": "other"}),
        ("FieldValueInvalid", "spec.controllerRef", invalid("null: field is immutable")),
        old=workload(pgt(), controllerRef=REF),
    ),
    Case(
        "template added",
        workload(pgt("a"), pgt("b")),
        ("FieldValueForbidden", PGTS + "[1]", "Forbidden: item may not be added"),
        old=workload(pgt("a")),
    ),
    Case(
        "template removed",
        workload(pgt("a")),
        ("FieldValueForbidden", PGTS, "Forbidden: item may not be removed"),
        old=workload(pgt("a"), pgt("b")),
    ),
    Case(
        "nested template added",
        workload(composite=[cpgt("root", pgts=[pgt("a"), pgt("b")])]),
        (
            "FieldValueForbidden",
            CPGTS + "[0].podGroupTemplates[1]",
            "Forbidden: item may not be added",
        ),
        old=workload(composite=[cpgt("root", pgts=[pgt("a")])]),
    ),
    Case(
        "template field immutable",
        workload(pgt(disruptionMode={"all": {}})),
        ("FieldValueInvalid", T0 + ".disruptionMode", invalid("null: field is immutable")),
        old=workload(pgt()),
    ),
    Case(
        "gang cannot be set",
        workload(pgt(min_count=1)),
        (
            "FieldValueInvalid",
            T0 + ".schedulingPolicy.basic",
            invalid("null: field is immutable"),
        ),
        old=workload(pgt(min_count=None)),
        also=[
            (
                "FieldValueInvalid",
                T0 + ".schedulingPolicy.gang",
                invalid("null: field cannot be set once created"),
            )
        ],
    ),
    Case(
        "unchanged gated field ratchets",
        workload(pgt(min_count=5, schedulingConstraints=TOPO)),
        old=workload(pgt(schedulingConstraints=TOPO)),
        gates=NO_GATES,
    ),
    # PodGroup
    Case("pod group ok", pod_group()),
    Case(
        "pod group name",
        {**pod_group(), "metadata": {"name": "-pg", "namespace": "ml"}},
        ("FieldValueInvalid", "metadata.name", invalid('"-pg": ' + SUBDOMAIN_MSG)),
    ),
    Case(
        "pod group policy required",
        pod_group(schedulingPolicy={}),
        (
            "FieldValueInvalid",
            "spec.schedulingPolicy",
            invalid('"": must specify one of: `basic`, `gang`'),
        ),
    ),
    Case("pod group without workloadRef", pod_group(workloadRef=None)),
    Case(
        "workloadRef templateName required",
        pod_group(workloadRef={"workloadName": "train"}),
        ("FieldValueRequired", "spec.workloadRef.templateName", "Required value"),
    ),
    Case(
        "workloadRef workloadName subdomain",
        pod_group(workloadRef={"workloadName": "Train", "templateName": "workers"}),
        (
            "FieldValueInvalid",
            "spec.workloadRef.workloadName",
            invalid('"Train": ' + SUBDOMAIN_MSG),
        ),
    ),
    Case("parent ok", pod_group(parentCompositePodGroupName="train-root")),
    Case(
        "parent gated off",
        pod_group(parentCompositePodGroupName="train-root"),
        ("FieldValueForbidden", "spec.parentCompositePodGroupName", "Forbidden"),
        gates=NO_GATES,
    ),
    Case(
        "parent needs workloadRef",
        pod_group(parentCompositePodGroupName="train-root", workloadRef=None),
        (
            "FieldValueRequired",
            "spec.workloadRef",
            "Required value: must be set when parentCompositePodGroupName is set",
        ),
    ),
    Case(
        "disruptionMode required",
        pod_group(disruptionMode=None),
        ("FieldValueRequired", "spec.disruptionMode", "Required value"),
    ),
    Case("pod group claims ok", pod_group(resourceClaims=[CLAIM])),
    Case(
        "pod group claims five",
        pod_group(resourceClaims=[{**CLAIM, "name": f"c{i}"} for i in range(5)]),
        ("FieldValueTooMany", "spec.resourceClaims", "Too many: 5: must have at most 4 items"),
    ),
    Case(
        "pod group topology gated off",
        pod_group(schedulingConstraints=TOPO),
        ("FieldValueForbidden", "spec.schedulingConstraints", "Forbidden"),
        gates=NO_GATES,
    ),
    Case(
        "claim status matches",
        with_status(pod_group(resourceClaims=[CLAIM]), resourceClaimStatuses=[{"name": "gpus"}]),
    ),
    Case(
        "claim status unknown",
        with_status(pod_group(resourceClaims=[CLAIM]), resourceClaimStatuses=[{"name": "tpus"}]),
        (
            "FieldValueInvalid",
            "status.resourceClaimStatuses[0].name",
            invalid('"tpus": must match the name of an entry in `spec.resourceClaims`'),
        ),
    ),
    Case("condition ok", with_status(pod_group(), conditions=[condition()])),
    Case(
        "condition status",
        with_status(pod_group(), conditions=[condition(status="Yes")]),
        (
            "FieldValueNotSupported",
            "status.conditions[0].status",
            'Unsupported value: "Yes": supported values: "True", "False", "Unknown"',
        ),
    ),
    Case(
        "condition reason",
        with_status(pod_group(), conditions=[condition(reason=None)]),
        ("FieldValueRequired", "status.conditions[0].reason", "Required value: must be set"),
    ),
    Case(
        "pod group minCount mutable",
        pod_group(schedulingPolicy={"gang": {"minCount": 2}}),
        old=pod_group(),
    ),
    Case(
        "pod group priority immutable",
        pod_group(priority=10),
        ("FieldValueInvalid", "spec.priority", invalid("null: field is immutable")),
        old=pod_group(),
    ),
    Case(
        "pod group workloadRef immutable",
        pod_group(workloadRef={"workloadName": "other", "templateName": "workers"}),
        ("FieldValueInvalid", "spec.workloadRef", invalid("null: field is immutable")),
        old=pod_group(),
    ),
    Case(
        "pod group gang cannot be cleared",
        pod_group(schedulingPolicy={"basic": {}}),
        ("FieldValueInvalid", "spec.schedulingPolicy.basic", invalid("null: field is immutable")),
        old=pod_group(),
        also=[
            (
                "FieldValueInvalid",
                "spec.schedulingPolicy.gang",
                invalid("null: field cannot be cleared once set"),
            )
        ],
    ),
    # CompositePodGroup
    Case("composite group ok", composite_group()),
    Case(
        "composite group workloadRef required",
        composite_group(workloadRef=None),
        ("FieldValueRequired", "spec.workloadRef", "Required value"),
    ),
    Case(
        "composite group minGroupCount",
        composite_group(schedulingPolicy={"gang": {"minGroupCount": -2}}),
        (
            "FieldValueInvalid",
            "spec.schedulingPolicy.gang.minGroupCount",
            invalid("-2: must be greater than or equal to 1"),
        ),
    ),
    Case(
        "composite group parent",
        composite_group(parentCompositePodGroupName="Top"),
        (
            "FieldValueInvalid",
            "spec.parentCompositePodGroupName",
            invalid('"Top": ' + SUBDOMAIN_MSG),
        ),
    ),
    Case("composite group unchanged", composite_group(), old=composite_group()),
    # Pod membership
    Case("pod member", pod(schedulingGroup={"podGroupName": "train-workers"})),
    Case(
        "pod group name subdomain",
        pod(schedulingGroup={"podGroupName": "Train"}),
        (
            "FieldValueInvalid",
            "spec.schedulingGroup.podGroupName",
            invalid('"Train": ' + SUBDOMAIN_MSG),
        ),
    ),
    Case(
        "pod group union",
        pod(schedulingGroup={}),
        # observed (1.36.2) and 1.36.3's validateSchedulingGroup: reported at the member, null
        (
            "FieldValueInvalid",
            "spec.schedulingGroup.podGroupName",
            invalid("null: must specify one of: `podGroupName`"),
        ),
    ),
    Case(
        "pod group name empty",
        pod(schedulingGroup={"podGroupName": ""}),
        (
            "FieldValueInvalid",
            "spec.schedulingGroup.podGroupName",
            invalid('"": ' + SUBDOMAIN_MSG),
        ),
    ),
    Case(
        "pod group immutable",
        pod(schedulingGroup={"podGroupName": "b"}),
        (
            "FieldValueForbidden",
            "spec",
            POD_UPDATES + 'spec.schedulingGroup.podGroupName: "a" -> "b"',
        ),
        old=pod(schedulingGroup={"podGroupName": "a"}),
    ),
    # Job scheduling
    Case("job gang without minCount", job({"schedulingPolicy": {"gang": {}}})),
    Case(
        "job scheduling gated off",
        job(GANG_4),
        ("FieldValueForbidden", "spec.scheduling", "Forbidden"),
        gates=NO_GATES,
    ),
    Case(
        "job minCount zero",
        job({"schedulingPolicy": {"gang": {"minCount": 0}}}),
        (
            "FieldValueInvalid",
            "spec.scheduling.schedulingPolicy.gang.minCount",
            invalid("0: must be greater than or equal to 1"),
        ),
    ),
    Case(
        "job claims five",
        job({"resourceClaims": [{**CLAIM, "name": f"c{i}"} for i in range(5)]}),
        (
            "FieldValueTooMany",
            "spec.scheduling.resourceClaims",
            "Too many: 5: must have at most 4 items",
        ),
    ),
    Case(
        "job minCount mutable",
        job({"schedulingPolicy": {"gang": {"minCount": 2}}}),
        old=job(GANG_4),
    ),
    Case(
        "job scheduling cannot be set",
        job(GANG_4),
        (
            "FieldValueInvalid",
            "spec.scheduling",
            invalid("null: field cannot be set once created"),
        ),
        old=job(),
    ),
    Case(
        "job disruption immutable",
        job({**GANG_4, "disruptionMode": {"all": {}}}),
        (
            "FieldValueInvalid",
            "spec.scheduling.disruptionMode",
            invalid("null: field is immutable"),
        ),
        old=job(GANG_4),
    ),
    Case(
        "composite group policy immutable",
        composite_group(schedulingPolicy={"gang": {"minGroupCount": 3}}),
        ("FieldValueInvalid", "spec.schedulingPolicy", invalid("null: field is immutable")),
        old=composite_group(),
    ),
]


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case) -> None:
    obj = _strip_nulls(copy.deepcopy(case.obj))
    old = None if case.old is None else _strip_nulls(copy.deepcopy(case.old))
    group, _, version = obj["apiVersion"].rpartition("/")
    causes = validate_object(group, version, obj["kind"], obj, old, case.gates)
    if case.cause is None:
        assert causes == []
        kubernetes_validate.validate(obj, "1.37.0", strict=True)
    else:
        expected = [case.cause, *case.also]
        assert causes == [{"reason": r, "field": f, "message": m} for r, f, m in expected]


def test_every_rule_has_both_outcomes() -> None:
    assert len({c.id for c in CASES}) == len(CASES)
    assert sum(c.cause is None for c in CASES) >= 25


def test_defaulted_pod_group_is_valid() -> None:
    obj = pod_group(disruptionMode=None)
    apply_defaults(GROUP, "PodGroup", obj)
    assert obj["spec"]["disruptionMode"] == {"single": {}}
    assert validate_object(GROUP, "v1beta1", "PodGroup", obj, None, ALL_GATES) == []
    kubernetes_validate.validate(obj, "1.37.0", strict=True)
