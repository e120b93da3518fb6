"""Parse-time behaviour: unknown fields, tolerant parsing, unions, blocks, emptiness, timestamps."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from conformance_corpus import FULL_POD_GROUP, SEED_POD_GROUP, SEED_WORKLOAD
from oracles import assert_schema_valid
from pydantic import ValidationError

from workloadbuilder.api import (
    K8sModel,
    batch_v1,
    meta_v1,
    scheduling_v1alpha3,
    scheduling_v1beta1,
)

b1, a3 = scheduling_v1beta1, scheduling_v1alpha3
Loc = tuple[str | int, ...]


def _with(doc: dict[str, Any], path: Loc, value: Any) -> dict[str, Any]:
    """A deep copy of ``doc`` with ``value`` set at ``path`` (keys and list indices)."""
    out = copy.deepcopy(doc)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


def _without(doc: dict[str, Any], path: Loc) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    del target[path[-1]]
    return out


def _only_error(err: pytest.ExceptionInfo[ValidationError]) -> Any:
    errors = err.value.errors()
    assert len(errors) == 1, errors
    return errors[0]


# --------------------------------------------------------------------------- unknown fields

UNKNOWN_FIELDS: list[tuple[type[K8sModel], dict[str, Any], Loc]] = [
    (b1.PodGroup, SEED_POD_GROUP, ("status2",)),
    (b1.PodGroup, SEED_POD_GROUP, ("metadata", "labelz")),
    (b1.PodGroup, SEED_POD_GROUP, ("spec", "schedulingPolicy", "gang", "maxCount")),
    (b1.PodGroup, SEED_POD_GROUP, ("spec", "schedulingPolicy", "basicc")),
    (b1.PodGroup, FULL_POD_GROUP, ("metadata", "ownerReferences", 1, "controler")),
    (b1.PodGroup, FULL_POD_GROUP, ("spec", "resourceClaims", 0, "claimName")),
    (b1.PodGroup, FULL_POD_GROUP, ("spec", "disruptionMode", "all", "gracePeriod")),
    (b1.PodGroup, FULL_POD_GROUP, ("status", "conditions", 1, "lastProbeTime")),
    (b1.PodGroup, FULL_POD_GROUP, ("spec", "workloadRef", "podGroupTemplateRef")),
    (
        b1.Workload,
        SEED_WORKLOAD,
        ("spec", "compositePodGroupTemplates", 0, "podGroupTemplates", 1, "replicas"),
    ),
    (
        b1.Workload,
        SEED_WORKLOAD,
        (
            "spec",
            "compositePodGroupTemplates",
            0,
            "podGroupTemplates",
            0,
            "schedulingConstraints",
            "topology",
            0,
            "level",
        ),
    ),
    (
        a3.WorkloadPodGroupSchedulingPolicy,
        {"gang": {"minCount": 1}},
        ("gang", "maxCount"),
    ),
    (
        batch_v1.JobSchedulingConfiguration,
        {"resourceClaims": [{"name": "gpu", "resourceClaimName": "gpus"}]},
        ("resourceClaims", 0, "deviceClass"),
    ),
    (
        a3.WorkloadCompositePodGroupSchedulingPolicy,
        {"gang": {"minGroupCount": 2}},
        ("gang", "minCount"),
    ),
]


@pytest.mark.parametrize(
    ("cls", "doc", "loc"), UNKNOWN_FIELDS, ids=[".".join(map(str, c[2])) for c in UNKNOWN_FIELDS]
)
def test_unknown_field_rejected_at_its_json_path(
    cls: type[K8sModel], doc: dict[str, Any], loc: Loc
) -> None:
    bad = _with(doc, loc, {"some": "value"})
    with pytest.raises(ValidationError) as err:
        cls.model_validate(bad)
    error = _only_error(err)
    assert error["type"] == "extra_forbidden"
    assert error["loc"] == loc


@pytest.mark.parametrize(
    ("cls", "doc", "loc"), UNKNOWN_FIELDS, ids=[".".join(map(str, c[2])) for c in UNKNOWN_FIELDS]
)
def test_from_server_ignores_unknown_fields(
    cls: type[K8sModel], doc: dict[str, Any], loc: Loc
) -> None:
    newer = _with(doc, loc, {"some": "value"})
    assert cls.from_server(newer).to_dict() == doc


def test_from_server_still_checks_known_fields() -> None:
    bad = _with(SEED_POD_GROUP, ("spec", "schedulingPolicy", "gang", "minCount"), "4")
    with pytest.raises(ValidationError) as err:
        b1.PodGroup.from_server(bad)
    assert _only_error(err)["loc"] == ("spec", "schedulingPolicy", "gang", "minCount")


@pytest.mark.parametrize(
    ("loc", "value", "error_type"),
    [
        (("spec", "schedulingPolicy", "gang", "minCount"), "4", "int_type"),
        (("spec", "schedulingPolicy", "gang", "minCount"), 4.0, "int_type"),
        (("spec", "schedulingPolicy", "gang", "minCount"), True, "int_type"),
        (("spec", "schedulingPolicy", "gang", "minCount"), 2**31, "less_than_equal"),
        (("spec", "priority"), -(2**31) - 1, "greater_than_equal"),
        (("spec", "preemptionPolicy"), "Sometimes", "literal_error"),
        (("apiVersion",), "scheduling.k8s.io/v1alpha3", "literal_error"),
        (("kind",), "Workload", "literal_error"),
        (("metadata", "name"), 7, "string_type"),
    ],
)
def test_wrong_types_rejected_at_their_json_path(loc: Loc, value: Any, error_type: str) -> None:
    with pytest.raises(ValidationError) as err:
        b1.PodGroup.model_validate(_with(SEED_POD_GROUP, loc, value))
    error = _only_error(err)
    assert (error["loc"], error["type"]) == (loc, error_type)


def test_required_fields_reported_at_their_json_path() -> None:
    with pytest.raises(ValidationError) as err:
        b1.PodGroup.model_validate(_without(SEED_POD_GROUP, ("spec", "schedulingPolicy")))
    assert (_only_error(err)["loc"], _only_error(err)["type"]) == (
        ("spec", "schedulingPolicy"),
        "missing",
    )


# --------------------------------------------------------------------------- unions

EXACTLY_ONE = "must specify exactly one of: "
ONE = "must specify one of: "
POLICY = "`basic`, `gang`"
DISRUPTION = "`single`, `all`"
CLAIM = "`resourceClaimName`, `resourceClaimTemplateName`"
TEMPLATES = "`podGroupTemplates`, `compositePodGroupTemplates`"
ROOT = ("spec", "compositePodGroupTemplates", 0)
WORKERS = (*ROOT, "podGroupTemplates", 0)

UNIONS: list[tuple[type[K8sModel], dict[str, Any], Loc, Any, str]] = [
    (b1.PodGroup, SEED_POD_GROUP, ("spec", "schedulingPolicy"), {}, ONE + POLICY),
    (
        b1.PodGroup,
        SEED_POD_GROUP,
        ("spec", "schedulingPolicy"),
        {"basic": {}, "gang": {"minCount": 1}},
        EXACTLY_ONE + POLICY,
    ),
    (
        a3.PodGroup,
        {**SEED_POD_GROUP, "apiVersion": a3.API_VERSION},
        ("spec", "disruptionMode"),
        {"single": {}, "all": {}},
        EXACTLY_ONE + DISRUPTION,
    ),
    (b1.PodGroup, SEED_POD_GROUP, ("spec", "disruptionMode"), {}, ONE + DISRUPTION),
    (b1.PodGroup, FULL_POD_GROUP, ("spec", "resourceClaims", 0), {"name": "x"}, ONE + CLAIM),
    (
        b1.PodGroup,
        FULL_POD_GROUP,
        ("spec", "resourceClaims", 1),
        {"name": "x", "resourceClaimName": "a", "resourceClaimTemplateName": "b"},
        EXACTLY_ONE + CLAIM,
    ),
    (b1.Workload, SEED_WORKLOAD, ("spec",), {}, ONE + TEMPLATES),
    (b1.Workload, SEED_WORKLOAD, ("spec",), {"podGroupTemplates": []}, ONE + TEMPLATES),
    (
        b1.Workload,
        SEED_WORKLOAD,
        ("spec",),
        {
            "podGroupTemplates": [{"name": "a", "schedulingPolicy": {"basic": {}}}],
            "compositePodGroupTemplates": SEED_WORKLOAD["spec"]["compositePodGroupTemplates"],
        },
        EXACTLY_ONE + TEMPLATES,
    ),
    (
        b1.Workload,
        SEED_WORKLOAD,
        (*ROOT, "schedulingPolicy"),
        {"basic": {}, "gang": {"minGroupCount": 2}},
        EXACTLY_ONE + POLICY,
    ),
    (b1.Workload, SEED_WORKLOAD, (*ROOT, "disruptionMode"), {}, ONE + DISRUPTION),
    (b1.Workload, SEED_WORKLOAD, (*WORKERS, "schedulingPolicy"), {}, ONE + POLICY),
    (
        a3.CompositePodGroup,
        {
            "apiVersion": a3.API_VERSION,
            "kind": "CompositePodGroup",
            "metadata": {"name": "root"},
            "spec": {
                "workloadRef": {"workloadName": "w", "templateName": "root"},
                "schedulingPolicy": {"basic": {}},
            },
        },
        ("spec", "schedulingPolicy"),
        {"basic": {}, "gang": {"minGroupCount": 1}},
        EXACTLY_ONE + POLICY,
    ),
]


@pytest.mark.parametrize(
    ("cls", "doc", "loc", "value", "message"),
    UNIONS,
    ids=[f"{c[0].__name__}:{'.'.join(map(str, c[2]))}:{c[4][:20]}" for c in UNIONS],
)
def test_api_union_enforced_with_the_api_servers_message(
    cls: type[K8sModel], doc: dict[str, Any], loc: Loc, value: Any, message: str
) -> None:
    with pytest.raises(ValidationError) as err:
        cls.model_validate(_with(doc, loc, value))
    error = _only_error(err)
    assert error["loc"] == loc
    assert error["msg"] == f"Value error, {message}"
    # ... and from_server does not relax unions.
    with pytest.raises(ValidationError):
        cls.from_server(_with(doc, loc, value))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: b1.PodGroupSchedulingPolicy(), ONE + POLICY),
        (
            lambda: b1.PodGroupSchedulingPolicy(
                basic=b1.BasicSchedulingPolicy(), gang=b1.GangSchedulingPolicy(min_count=2)
            ),
            EXACTLY_ONE + POLICY,
        ),
        (lambda: b1.CompositeDisruptionMode(), ONE + DISRUPTION),
        (lambda: b1.PodGroupResourceClaim(name="gpu"), ONE + CLAIM),
        (lambda: b1.WorkloadSpec(pod_group_templates=[]), ONE + TEMPLATES),
    ],
)
def test_api_union_enforced_when_built_in_python(build: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        build()


# --------------------------------------------------------------------------- building blocks

LENIENT_BLOCKS: list[tuple[type[K8sModel], dict[str, Any]]] = [
    (a3.WorkloadPodGroupSchedulingPolicy, {"basic": {}, "gang": {"minCount": 2}}),
    (a3.WorkloadPodGroupSchedulingPolicy, {}),
    (a3.WorkloadPodGroupSchedulingPolicy, {"gang": {"minCount": 0}}),
    (a3.WorkloadPodGroupSchedulingPolicy, {"gang": {"minCount": -5}}),
    (a3.WorkloadPodGroupSchedulingPolicy, {"gang": {"minCount": 2**40}}),
    (a3.WorkloadPodGroupSchedulingPolicy, {"gang": {}}),
    (a3.WorkloadPodGroupDisruptionMode, {"single": {}, "all": {}}),
    (a3.WorkloadPodGroupDisruptionMode, {}),
    (a3.WorkloadPodGroupResourceClaim, {"name": "gpu"}),
    (
        a3.WorkloadPodGroupResourceClaim,
        {"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"},
    ),
    (
        a3.WorkloadPodGroupSchedulingConstraints,
        {"topology": [{"key": "a"}, {"key": "b"}, {"key": "not a label key!"}]},
    ),
    (a3.WorkloadCompositePodGroupSchedulingPolicy, {"basic": {}, "gang": {"minGroupCount": 2}}),
    (a3.WorkloadCompositePodGroupSchedulingPolicy, {"gang": {"minGroupCount": 0}}),
    (a3.WorkloadCompositePodGroupSchedulingPolicy, {"gang": {"minGroupCount": -5}}),
    (a3.WorkloadCompositePodGroupSchedulingPolicy, {"gang": {}}),
    (a3.WorkloadCompositePodGroupDisruptionMode, {"single": {}, "all": {}}),
    (a3.WorkloadCompositePodGroupDisruptionMode, {}),
    (
        batch_v1.JobSchedulingConfiguration,
        {
            "schedulingPolicy": {"basic": {}, "gang": {"minCount": -5}},
            "disruptionMode": {"single": {}, "all": {}},
            "resourceClaims": [
                {"name": f"c{i}", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}
                for i in range(6)
            ],
        },
    ),
    (batch_v1.JobSchedulingConfiguration, {"schedulingPolicy": {"gang": {"minCount": 0}}}),
]


@pytest.mark.parametrize(
    ("cls", "doc"), LENIENT_BLOCKS, ids=[repr(c[1])[:60] for c in LENIENT_BLOCKS]
)
def test_building_block_holds_any_structurally_typed_value(
    cls: type[K8sModel], doc: dict[str, Any]
) -> None:
    """Blocks keep what the controller's user wrote, so that ``validate()`` can report it at
    the controller's own path; only the API objects compiled from them enforce the rules."""
    assert cls.model_validate(doc).to_dict() == doc
    assert cls.from_server(doc).to_dict() == doc


def test_building_block_still_rejects_wrong_types() -> None:
    with pytest.raises(ValidationError) as err:
        a3.WorkloadPodGroupSchedulingPolicy.model_validate({"gang": {"minCount": "4"}})
    assert _only_error(err)["loc"] == ("gang", "minCount")


@pytest.mark.parametrize(
    ("block", "api", "doc"),
    [
        (
            a3.WorkloadPodGroupSchedulingPolicy,
            b1.PodGroupSchedulingPolicy,
            {"basic": {}, "gang": {"minCount": 2}},
        ),
        (a3.WorkloadPodGroupDisruptionMode, b1.DisruptionMode, {"single": {}, "all": {}}),
        (
            a3.WorkloadCompositePodGroupSchedulingPolicy,
            b1.CompositePodGroupSchedulingPolicy,
            {"basic": {}, "gang": {"minGroupCount": 2}},
        ),
        (a3.WorkloadCompositePodGroupDisruptionMode, b1.CompositeDisruptionMode, {}),
        (a3.WorkloadPodGroupResourceClaim, b1.PodGroupResourceClaim, {"name": "gpu"}),
    ],
)
def test_the_api_counterpart_of_a_lenient_block_enforces_the_union(
    block: type[K8sModel], api: type[K8sModel], doc: dict[str, Any]
) -> None:
    block.model_validate(doc)
    with pytest.raises(ValidationError, match="must specify"):
        api.model_validate(doc)


# --------------------------------------------------------------------------- emitted JSON


def test_empty_optional_lists_and_maps_are_not_emitted() -> None:
    doc = {
        "metadata": {"name": "pg", "labels": {}, "annotations": {}, "finalizers": []},
        "spec": {
            "schedulingPolicy": {"basic": {}},
            "schedulingConstraints": {"topology": []},
            "resourceClaims": [],
        },
        "status": {"conditions": [], "resourceClaimStatuses": []},
    }
    assert b1.PodGroup.model_validate(doc).to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "pg"},
        "spec": {"schedulingPolicy": {"basic": {}}, "schedulingConstraints": {}},
        "status": {},
    }


def test_empty_lists_set_in_python_are_not_emitted() -> None:
    constraints = b1.PodGroupSchedulingConstraints(topology=[])
    assert constraints.topology is None
    assert constraints.to_dict() == {}
    job = batch_v1.JobSchedulingConfiguration(resource_claims=[])
    assert job.to_dict() == {}
    template = b1.CompositePodGroupTemplate(
        name="root",
        scheduling_policy=b1.CompositePodGroupSchedulingPolicy(
            basic=b1.CompositeBasicSchedulingPolicy()
        ),
        pod_group_templates=[],
        composite_pod_group_templates=[],
    )
    assert template.to_dict() == {"name": "root", "schedulingPolicy": {"basic": {}}}


@pytest.mark.parametrize(
    ("cls", "doc"),
    [
        (b1.PodGroupSchedulingPolicy, {"basic": {}}),
        (b1.DisruptionMode, {"single": {}}),
        (b1.DisruptionMode, {"all": {}}),
        (b1.CompositeDisruptionMode, {"all": {}}),
        (b1.CompositePodGroupSchedulingPolicy, {"basic": {}}),
        (a3.WorkloadPodGroupSchedulingPolicy, {"gang": {}}),
        (a3.WorkloadCompositePodGroupSchedulingPolicy, {"gang": {}}),
        (a3.WorkloadPodGroupDisruptionMode, {"all": {}}),
        (batch_v1.JobSchedulingConfiguration, {}),
        (b1.PodGroupSchedulingConstraints, {}),
    ],
)
def test_empty_objects_are_kept(cls: type[K8sModel], doc: dict[str, Any]) -> None:
    assert cls.model_validate(doc).to_dict() == doc


def test_emitted_json_is_camel_case_without_nulls() -> None:
    spec = b1.PodGroupSpec(
        scheduling_policy=b1.PodGroupSchedulingPolicy(gang=b1.GangSchedulingPolicy(min_count=3)),
        parent_composite_pod_group_name="root",
        workload_ref=b1.WorkloadReference(workload_name="w", template_name="t"),
    )
    assert spec.to_dict() == {
        "workloadRef": {"workloadName": "w", "templateName": "t"},
        "parentCompositePodGroupName": "root",
        "schedulingPolicy": {"gang": {"minCount": 3}},
    }


def test_to_yaml_parses_back_in_api_order() -> None:
    obj = b1.PodGroup.model_validate(FULL_POD_GROUP)
    text = obj.to_yaml()
    assert yaml.safe_load(text) == FULL_POD_GROUP
    assert text.startswith("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n")
    assert list(yaml.safe_load(text)) == ["apiVersion", "kind", "metadata", "spec", "status"]


def test_api_objects_default_their_type_meta() -> None:
    pod_group = b1.PodGroup(
        spec=b1.PodGroupSpec(
            scheduling_policy=b1.PodGroupSchedulingPolicy(basic=b1.BasicSchedulingPolicy())
        )
    )
    doc = pod_group.to_dict()
    assert doc == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {},
        "spec": {"schedulingPolicy": {"basic": {}}},
    }
    assert_schema_valid(doc)


# --------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize(
    ("given", "emitted"),
    [
        ("2026-07-24T10:11:12Z", "2026-07-24T10:11:12Z"),
        ("2026-07-24T12:11:12+02:00", "2026-07-24T10:11:12Z"),
        ("2026-07-24T10:11:12.987654Z", "2026-07-24T10:11:12Z"),
        # metav1.Time decodes with time.Parse(time.RFC3339, ...): an offset is required, so
        # "2026-07-24T10:11:12" is rejected (tests/core/test_core_any_input.py).
    ],
)
def test_timestamps_are_emitted_in_utc_with_second_precision(given: str, emitted: str) -> None:
    condition = meta_v1.Condition.model_validate(
        {
            "type": "PodGroupInitiallyScheduled",
            "status": "True",
            "lastTransitionTime": given,
            "reason": "Scheduled",
            "message": "",
        }
    )
    assert condition.to_dict()["lastTransitionTime"] == emitted
    assert_schema_valid(condition.to_dict(), "io.k8s.apimachinery.pkg.apis.meta.v1.Condition")


def test_snake_case_keys_are_accepted_and_emitted_in_camel_case() -> None:
    """Like the official client, a document may use the Python names; it is emitted as JSON."""
    policy = b1.GangSchedulingPolicy.model_validate({"min_count": 2})
    assert policy.to_dict() == {"minCount": 2}
