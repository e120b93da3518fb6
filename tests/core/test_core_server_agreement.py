"""``validate()`` agrees with the test server's independent rules on every generated tree.

* a tree ``validate()`` accepts compiles to a Workload, and stamps PodGroups and
  CompositePodGroups, that the server's rules (every feature gate on) accept;
* a Workload the server's rules reject was compiled from a tree ``validate()`` rejects, and
  every message the server gives is among ``validate()``'s (at the controller's path there,
  so only the text after the path is compared).

A disagreement is a bug in one of the two; the cases found are pinned below with the source
that decides them.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from property_bound import bounded
from test_core_properties import PERMISSIVE, trees

from workloadbuilder import Builder, BuildError, BuildOptions, WorkloadItem, gang, instantiate, leaf
from workloadbuilder.api.meta_v1 import OwnerReference
from workloadbuilder.testing.common.resources import FEATURE_GATES
from workloadbuilder.testing.rules import apply_defaults, validate_object

GATES = frozenset(FEATURE_GATES)


def server_causes(obj: Any) -> list[dict[str, str]]:
    doc = copy.deepcopy(obj.to_dict())
    group, version = doc["apiVersion"].split("/")
    apply_defaults(group, doc["kind"], doc)
    return validate_object(group, version, doc["kind"], doc, None, GATES)


def _last_name(field: str) -> str:
    return re.sub(r"\[[^\]]*\]", "", field).rsplit(".", 1)[-1]


def _after_path(message: str, field: str) -> str:
    assert message.startswith(field + ": "), (message, field)
    return message[len(field) + 2 :]


@pytest.mark.slow
@settings(
    max_examples=bounded(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    derandomize=True,
)
@given(root=trees())
def test_validate_agrees_with_the_server_rules(root: WorkloadItem) -> None:
    builder = Builder(root, PERMISSIVE)
    errors = builder.validate()
    try:
        workload = builder.build_workload()
    except BuildError:
        assert errors, "validate() accepted a tree that does not build"
        return
    causes = server_causes(workload)
    if not errors:
        assert causes == [], "validate() accepted a Workload the server rejects"
        for obj in instantiate(builder):
            assert server_causes(obj) == [], f"the server rejects a stamped {obj.kind}"
        return
    ours = {_after_path(str(e), e.field) for e in errors}
    fields = {_last_name(e.field) for e in errors}
    for cause in causes:
        # A StatusCause carries the path in ``field`` and the error body in ``message``. The
        # same problem may be worded by the building block's rule (a zero minCount is
        # "Invalid ... >= 1" there, "Required" in the compiled template): then the field
        # names it.
        assert cause["message"] in ours or _last_name(cause["field"]) in fields, (
            cause,
            sorted(ours),
        )


def test_too_many_topology_constraints_are_only_too_many_on_both_sides() -> None:
    """kubernetes/kubernetes ``pkg/apis/scheduling/v1beta1/zz_generated.validations.go``:
    ``validate.MaxItems(ctx, op, fldPath, obj, oldObj, 1).MarkShortCircuit()`` on
    ``topology``, then ``return // do not proceed``: the keys of a too-long list are not
    checked. (The test server used to check them too: found by the property above.)"""
    from workloadbuilder import leaf

    root = leaf("w", topology=["topology.kubernetes.io/zone", ""])
    workload = Builder(root, PERMISSIVE).build_workload()
    causes = server_causes(workload)
    assert causes == [
        {
            "reason": "FieldValueTooMany",
            "message": "Too many: 2: must have at most 1 item",
            "field": "spec.podGroupTemplates[0].schedulingConstraints.topology",
        }
    ]
    assert [e.detail for e in Builder(root, PERMISSIVE).validate()] == ["must have at most 1 item"]


# The owner every object carries: apimachinery's validateOwnerReference
# (pkg/api/validation/objectmeta.go) decides, and the test server implements it on its own.
@pytest.mark.parametrize(
    ("api_version", "kind", "name", "uid"),
    [
        ("batch/", "Job", "j", "u"),
        ("/", "Job", "j", "u"),
        ("a/b/c", "Job", "j", "u"),
        ("", "Job", "j", "u"),
        ("batch/v1", "", "", ""),
        ("Bad_Group/v1", "Job", "j", "u"),
        ("batch/v1", "Job/x", "..", "u"),
        ("batch/v1", "%", "a/b", "u"),
        ("batch/v1", "Job", "j", "u"),
        ("v1", "Job", "j", "u"),
        ("/v1", "Job", "j", "u"),
    ],
)
def test_validate_reports_the_owner_reference_the_server_refuses(
    api_version: str, kind: str, name: str, uid: str
) -> None:
    owner = OwnerReference(api_version=api_version, kind=kind, name=name, uid=uid)

    def builder(check_api_server_rules: bool) -> Builder:
        options = BuildOptions(
            name="wl",
            namespace="ns",
            owner=owner,
            allowed_policies=PERMISSIVE.allowed_policies,
            check_api_server_rules=check_api_server_rules,
        )
        return Builder(leaf("w", policy=gang(2)), options)

    ours = sorted(str(e) for e in builder(True).validate())
    unchecked = builder(False)
    try:
        objects = [unchecked.build_workload(), *instantiate(unchecked)]
    except BuildError:  # an apiVersion the build cannot read: validate() must name it
        assert ours
        assert all(e.startswith("metadata.ownerReferences[0].apiVersion") for e in ours)
        return
    # The Workload carries every rule; each runtime object the owner reference's.
    workload_causes = server_causes(objects[0])
    assert sorted(f"{c['field']}: {c['message']}" for c in workload_causes) == ours
    own = [e for e in ours if e.startswith("metadata.")]
    for obj in objects[1:]:
        assert sorted(f"{c['field']}: {c['message']}" for c in server_causes(obj)) == own
