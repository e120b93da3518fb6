"""Inputs that crashed deep inside or were misread: each is a typed error naming the field, or
read as documented.

- ``set_scheduling_group``: the fields it reads (a claim's name, ``podGroupName``, the
  namespace) must be strings; a malformed PodGroup is a ``BuildError`` with its field errors.
- ``migrate``: one document (a mapping) is a stream of one, text is a ``TypeError``; templates
  with different priority settings are reported field by field with both values (the 1.37 API
  server's rule and words, kubernetes/kubernetes ``pkg/apis/scheduling/validation``
  "detected multiple priority configurations"), checked against the test server's 422.
- A building block of an item without a path is reported at its template field, the path the
  API server reports for the same Workload (checked against the test server's 422 causes).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

import workloadbuilder as wb
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)
from workloadbuilder.item import (
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.common.errors import APIStatusError

SCHEDULING = "scheduling.k8s.io"
GROUP: dict[str, Any] = {
    "metadata": {"name": "g", "namespace": "ns"},
    "spec": {
        "schedulingPolicy": {"basic": {}},
        "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}],
    },
}


def pod(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p", "namespace": "ns"}, "spec": spec}


@pytest.mark.parametrize(
    ("linked", "field"),
    [
        (pod(resourceClaims=[{"name": ["gpu"]}]), "spec.resourceClaims[0].name"),
        (pod(resourceClaims=[{"name": {"gpu": 1}}]), "spec.resourceClaims[0].name"),
        (pod(schedulingGroup={"podGroupName": ["g"]}), "spec.schedulingGroup.podGroupName"),
        ({"metadata": {"name": "p", "namespace": ["ns"]}, "spec": {}}, "metadata.namespace"),
    ],
)
def test_a_field_the_link_reads_must_be_a_string(linked: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"{field} must be a string")) as caught:
        wb.set_scheduling_group(linked, GROUP)
    assert type(caught.value) is ValueError


def test_a_pod_spec_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValueError, match=r"pod\.spec must be"):
        wb.set_scheduling_group({"metadata": {"name": "p"}, "spec": []}, GROUP)


def test_a_malformed_pod_group_is_a_build_error_naming_its_fields() -> None:
    bad = {"metadata": {"name": "g"}, "spec": {"resourceClaims": [{"name": ["x"]}]}}
    with pytest.raises(wb.BuildError) as caught:
        wb.set_scheduling_group(pod(), bad)
    fields = sorted(e.field for e in caught.value.errors)
    assert fields == ["spec.resourceClaims[0].name", "spec.schedulingPolicy"]
    with pytest.raises(TypeError, match="pod_group must be a PodGroup"):
        wb.set_scheduling_group(pod(), 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a valid PodGroup name"):
        wb.set_scheduling_group(pod(), "Not_A_Name")


V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


def workload_136(*templates: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": V1ALPHA2,
        "kind": "Workload",
        "metadata": {"name": "trainer", "namespace": "ml"},
        "spec": {"podGroupTemplates": list(templates)},
    }


def test_migrate_reads_one_mapping_as_one_document() -> None:
    doc = workload_136({"name": "a", "schedulingPolicy": {"basic": {}}})
    single = wb.migrate(doc)
    assert single == wb.migrate([doc])
    assert [d["kind"] for d in single.documents] == ["Workload"]
    for text in ("apiVersion: v1", b"kind: Workload"):
        with pytest.raises(TypeError, match="parse YAML text first"):
            wb.migrate(text)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not int"):
        wb.migrate(5)  # type: ignore[arg-type]


def test_different_priority_settings_are_named_field_by_field() -> None:
    doc = workload_136(
        {"name": "a", "schedulingPolicy": {"basic": {}}, "priorityClassName": "high"},
        {"name": "b", "schedulingPolicy": {"basic": {}}, "priority": 5},
    )
    result = wb.migrate(doc)
    detail = "detected multiple priority configurations"
    assert [str(f.error) for f in result.findings] == [
        f"spec.podGroupTemplates[1].priorityClassName: Invalid value: null: {detail}:"
        ' spec.podGroupTemplates[0].priorityClassName is "high"',
        f"spec.podGroupTemplates[1].priority: Invalid value: 5: {detail}:"
        " spec.podGroupTemplates[0].priority is unset",
    ]
    # The 1.37 rule is real: the test server refuses the migrated Workload for it.
    server = FakeAPIServer()
    server.create_object("", "v1", "namespaces", {"metadata": {"name": "ml"}})
    with pytest.raises(APIStatusError) as caught:
        server.create_object(SCHEDULING, "v1beta1", "workloads", result.documents[0])
    assert detail in caught.value.status["message"]


def test_migrate_survives_keys_and_kinds_of_any_type() -> None:
    ref = {"workload": {1: "x", "workloadName": "w", "z": 2}}
    group = {
        "apiVersion": V1ALPHA2,
        "kind": "PodGroup",
        "metadata": {"name": "g"},
        "spec": {"schedulingPolicy": {"basic": {}}, "podGroupTemplateRef": ref},
    }
    fields = [f.error.field for f in wb.migrate([group]).findings]
    assert fields == [
        "spec.podGroupTemplateRef.workload.1",
        "spec.podGroupTemplateRef.workload.z",
        "spec.workloadRef.templateName",  # required in 1.37, and missing
    ]
    odd = {**group, "kind": ["Workload"]}
    [finding] = wb.migrate([odd]).findings
    assert finding.error.field == "kind" and finding.kind == ""


def test_blocks_of_an_item_without_a_path_are_reported_at_their_template_fields() -> None:
    claim = {"name": "g", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}
    policy = {"basic": {}, "gang": {}}
    topology = {"topology": [{"key": "a"}, {"key": "b"}]}
    item = WorkloadItem(
        "workers",
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data=WorkloadPodGroupSchedulingPolicy.model_validate(policy)),
            constraints=ConstraintsInput(
                pod_group_data=WorkloadPodGroupSchedulingConstraints.model_validate(topology)
            ),
            disruption_mode=DisruptionModeInput(
                pod_group_data=WorkloadPodGroupDisruptionMode.model_validate({})
            ),
            resource_claims=ResourceClaimsInput(
                pod_group_data=(WorkloadPodGroupResourceClaim.model_validate(claim),)
            ),
        ),
    )  # fmt: skip
    options = wb.BuildOptions(
        name="wl",
        namespace="ml",
        owner={"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u"},
        allowed_policies=frozenset(wb.SchedulingPolicyOption),
        allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
    )
    ours = {e.field for e in wb.validate(item, options)}
    assert ours == {
        "spec.podGroupTemplates[0].schedulingPolicy",
        "spec.podGroupTemplates[0].schedulingConstraints.topology",
        "spec.podGroupTemplates[0].disruptionMode",
        "spec.podGroupTemplates[0].resourceClaims[0]",
    }
    template = {
        "name": "workers",
        "schedulingPolicy": policy,
        "schedulingConstraints": topology,
        "disruptionMode": {},
        "resourceClaims": [claim],
    }
    workload = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "wl", "namespace": "ml"},
        "spec": {"podGroupTemplates": [copy.deepcopy(template)]},
    }
    server = FakeAPIServer()
    server.create_object("", "v1", "namespaces", {"metadata": {"name": "ml"}})
    with pytest.raises(APIStatusError) as caught:
        server.create_object(SCHEDULING, "v1beta1", "workloads", workload)
    theirs = {c["field"] for c in caught.value.status["details"]["causes"]}
    assert ours <= theirs
