"""An item's own template fields (its name, its priority class) reported at the controller's
fields ``WorkloadItem.field_paths`` names, as the blocks' ``field_paths`` do for theirs.

The messages are apimachinery's (``IsDNS1123Subdomain``, ``IsDNS1123Label``), and the priority
rule the API server's: every template of a Workload has the same priority class.
"""

from __future__ import annotations

import pytest

import workloadbuilder as wb

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or"
    " '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used"
    " for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
OPTIONS = wb.BuildOptions(
    name="wl",
    namespace="ml",
    owner={"apiVersion": "example.com/v1", "kind": "Run", "name": "r", "uid": "u"},
    allowed_policies=frozenset(wb.SchedulingPolicyOption),
    allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
)
POLICY = wb.FieldPath("run", "schedulingPolicy")


def item(priority: str, **more: object) -> wb.WorkloadItem:
    return wb.WorkloadItem(
        "run",
        path=POLICY,
        default_config=wb.SchedulingConfig(
            policy=wb.SchedulingPolicy(gang=wb.GangSchedulingPolicy(min_count=2)),
            priority_class_name=priority,
        ),
        **more,  # type: ignore[arg-type]
    )


def test_an_invalid_priority_class_is_reported_at_its_own_path() -> None:
    placed = item("High_Priority", field_paths={"priorityClassName": POLICY.child("priorityClass")})
    (error,) = wb.validate(placed, OPTIONS)
    assert str(error) == (
        f'run.schedulingPolicy.priorityClass: Invalid value: "High_Priority": {SUBDOMAIN}'
    )
    (unplaced,) = wb.validate(item("High_Priority"), OPTIONS)
    assert unplaced.field == "run.schedulingPolicy"  # without the key: the item's path


def test_an_invalid_name_is_reported_at_its_own_path() -> None:
    bad = wb.WorkloadItem(
        "Run",
        path=POLICY,
        default_config=wb.SchedulingConfig(
            policy=wb.SchedulingPolicy(basic=wb.BasicSchedulingPolicy())
        ),
        field_paths={"name": "run.name"},
    )
    errors = wb.validate(bad, OPTIONS)
    assert errors and {e.field for e in errors} == {"run.name"}


def test_priority_classes_that_differ_are_reported_at_the_second_ones_path() -> None:
    tree = wb.composite(
        "run",
        [
            wb.WorkloadItem(
                "a",
                default_config=wb.SchedulingConfig(priority_class_name="high"),
                field_paths={"priorityClassName": "spec.a.priority"},
            ),
            wb.WorkloadItem(
                "b",
                default_config=wb.SchedulingConfig(priority_class_name="low"),
                field_paths={"priorityClassName": "spec.b.priority"},
            ),
        ],
        policy=wb.basic(),
        priority_class_name="high",
    )
    fields = [e.field for e in wb.validate(tree, OPTIONS)]
    assert fields == ["spec.b.priority"]


def test_field_paths_of_an_item_name_only_its_template_fields() -> None:
    with pytest.raises(ValueError, match="'queue' of 'run' is not a template field"):
        item("high", field_paths={"queue": "run.queue"})
    with pytest.raises(TypeError, match="maps a template field"):
        item("high", field_paths=["priorityClassName"])
    placed = item("high", field_paths={"priorityClassName": "run.priority"})
    assert placed == item(
        "high", field_paths={"priorityClassName": wb.FieldPath("run", "priority")}
    )
    assert placed != item("high")
    assert hash(placed) == hash(item("high", field_paths={"priorityClassName": "run.priority"}))
