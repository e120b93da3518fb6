"""Counts that can never be met, reported by validate(), spec files and ``workloadbuilder
validate`` at the count's own path (the controller's, through ``field_paths``).

Expected from the scheduling semantics (DESIGN.md): the scheduler waits until ``minCount``
member pods exist, so a gang whose ``minCount`` exceeds the pods its controller creates never
forms; a composite gang needs ``minGroupCount`` satisfiable children, and each child template
stamps one child group per execution. The API server accepts both (they are our rules)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

import workloadbuilder as wb
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)
from workloadbuilder.cli import app
from workloadbuilder.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "examples" / "specs" / "training.yaml"
RELEASE = ROOT / "examples" / "specs" / "release.yaml"

OPTIONS = wb.BuildOptions(
    "wl",
    "ns",
    {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True},
    allowed_policies=frozenset(wb.SchedulingPolicyOption),
    allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
)
OFF = dataclasses.replace(OPTIONS, check_satisfiable_counts=False)


def rendered(errors: wb.ErrorList) -> list[str]:
    return [str(e) for e in errors]


def test_a_gang_above_its_replicas_is_reported_at_min_count() -> None:
    errors = wb.validate(wb.leaf("workers", policy=wb.gang(5), replicas=4), OPTIONS)
    assert rendered(errors) == [
        "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: 5: must be no"
        " more than the 4 replicas the controller creates: the gang can never form"
    ]
    assert wb.validate(wb.leaf("workers", policy=wb.gang(4), replicas=4), OPTIONS) == []
    assert wb.validate(wb.leaf("workers", policy=wb.gang(5)), OPTIONS) == []  # replicas unknown


def test_a_composite_above_its_children_is_reported_at_min_group_count() -> None:
    root = wb.composite(
        "train",
        [wb.leaf("launcher", policy=wb.gang(1)), wb.leaf("workers", policy=wb.gang(4))],
        path=wb.FieldPath("spec", "run"),
        policy=wb.gang(min_group_count=3),
    )
    assert rendered(wb.validate(root, OPTIONS)) == [
        "spec.run.schedulingPolicy.gang.minGroupCount: Invalid value: 3: must be no more than"
        " the number of child templates (2): it can never be met"
    ]


def test_the_rules_are_switched_off_like_the_api_server_rules() -> None:
    assert OPTIONS.check_satisfiable_counts is True  # on by default
    assert wb.validate(wb.leaf("workers", policy=wb.gang(5), replicas=4), OFF) == []
    assert wb.Builder(wb.leaf("w", policy=wb.gang(5), replicas=4), OFF).build_workload()


def test_a_plugins_min_available_is_reported_at_the_plugins_own_path() -> None:
    policy = wb.FieldPath("spec", "schedulingPolicy")
    item = wb.WorkloadItem(
        "run",
        path=policy,
        input=wb.WorkloadInput(
            policy=wb.PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=6)
                ),
                field_paths={"gang.minCount": policy.child("minAvailable")},
            )
        ),
        replicas=5,
    )
    (error,) = wb.validate(item, OPTIONS)
    assert error.field == "spec.schedulingPolicy.minAvailable"
    assert (error.type, error.bad_value) == (wb.ErrorType.INVALID, 6)


def test_a_count_a_callback_resolves_is_checked_too() -> None:
    def job_default(config: wb.SchedulingConfig) -> wb.SchedulingConfig:
        return dataclasses.replace(
            config, policy=wb.SchedulingPolicy(gang=wb.GangSchedulingPolicy(8))
        )

    item = wb.leaf("w", policy=wb.gang(), replicas=4, callbacks=[job_default])
    (error,) = wb.validate(item, OPTIONS)
    assert error.field.endswith("schedulingPolicy.gang.minCount") and error.bad_value == 8


@pytest.mark.parametrize(
    ("replicas", "raised"), [(True, TypeError), ("4", TypeError), (-1, ValueError)]
)
def test_replicas_must_be_a_count(replicas: object, raised: type[Exception]) -> None:
    with pytest.raises(raised, match="replicas"):
        wb.leaf("w", replicas=replicas)  # type: ignore[arg-type]


def test_replicas_belong_to_leaves() -> None:
    with pytest.raises(ValueError, match="composite workload item 'c' has children"):
        wb.WorkloadItem("c", children=(wb.leaf("w"),), replicas=2)
    assert wb.leaf("w", replicas=2) != wb.leaf("w", replicas=3)


def test_spec_files_and_the_validate_command_report_them(tmp_path: Path) -> None:
    short = tmp_path / "short.yaml"
    short.write_text(TRAINING.read_text().replace("replicas: 4", "replicas: 3"))
    errors = load_spec(short).validate()
    assert [e.field for e in errors] == ["spec.root.schedulingPolicy.gang.minCount"]
    result = CliRunner().invoke(app, ["validate", str(short)])
    assert result.exit_code == 1
    assert "valid" not in result.stdout
    assert "spec.root.schedulingPolicy.gang.minCount: Invalid value: 4" in result.output
    assert "can never form" in result.output

    over = tmp_path / "over.yaml"
    over.write_text(RELEASE.read_text().replace("minGroupCount: 2", "minGroupCount: 3"))
    result = CliRunner().invoke(app, ["validate", str(over)])
    assert result.exit_code == 1
    assert "spec.root.schedulingPolicy.gang.minGroupCount: Invalid value: 3" in result.output

    assert CliRunner().invoke(app, ["validate", str(TRAINING)]).stdout.endswith("valid\n")
