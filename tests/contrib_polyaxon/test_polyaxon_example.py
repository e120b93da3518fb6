"""examples/polyaxon_plugin.py on the real Polyaxon package: what it prints, and its errors at
the polyaxonfile's paths (``component.run`` in an operation). Expected values from the
polyaxonfile's own numbers and Polyaxon's semantics (``minAvailable`` counts the run's pods)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip(
    "polyaxon", reason="Polyaxon pins kubernetes<37: .ci/run tests it in its own environment"
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "polyaxon_plugin.py"
RUN = ROOT / "examples" / "polyaxon-run.yaml"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )


def documents(*args: str) -> list[dict[str, Any]]:
    result = run(*args)
    assert result.returncode == 0, result.stderr
    return list(yaml.safe_load_all(result.stdout))


def test_the_kfjob_is_linked_and_the_groups_are_stamped() -> None:
    kfjob, workload, parent, launcher, worker = documents()
    spec = kfjob["mpiJobSpec"]
    assert "schedulingPolicy" not in spec
    replicas = spec["replicaSpecs"]
    for role, group in (("Launcher", launcher), ("Worker", worker)):
        template = replicas[role]["template"]
        assert template["spec"]["schedulingGroup"] == {"podGroupName": group["metadata"]["name"]}
        assert template["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "research"
    assert replicas["Worker"]["replicas"] == 3  # {{ workers }}
    assert parent["spec"]["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    # minAvailable: 4 of the run's pods = the launcher's 1 + 3 workers
    assert launcher["spec"]["schedulingPolicy"] == {"gang": {"minCount": 1}}
    assert worker["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    assert {g["spec"]["priorityClassName"] for g in (parent, launcher, worker)} == {"training-high"}
    (owner,) = workload["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"]) == ("KfJob", kfjob["metadata"]["name"])


def test_without_composites_the_gangs_are_independent() -> None:
    kinds = [d["kind"] for d in documents(str(RUN), "--independent")]
    assert kinds == ["KfJob", "Workload", "PodGroup", "PodGroup"]


def test_errors_are_at_the_polyaxonfiles_paths(tmp_path: Path) -> None:
    text = (
        RUN.read_text()
        .replace("minAvailable: 4", "minAvailable: 10")
        .replace(
            "priorityClass: training-high",
            "priorityClass: Training\n      minResources: 8\n      scheduleTimeoutSeconds: 60",
        )
    )
    (tmp_path / "run.yaml").write_text(text)
    result = run(str(tmp_path / "run.yaml"))
    assert (result.returncode, result.stdout) == (1, "")
    lines = result.stderr.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        "component.run.schedulingPolicy.minResources",
        "component.run.schedulingPolicy.scheduleTimeoutSeconds",
        "component.run.schedulingPolicy.minAvailable",
        "component.run.schedulingPolicy.priorityClass",
    ]
    # the value written, not the 9 workers it would leave beside the launcher
    assert lines[2] == (
        "component.run.schedulingPolicy.minAvailable: Invalid value: 10: must be no more than"
        " the 4 pods of the run: the gang can never form"
    )
    assert 'Invalid value: "Training": a lowercase RFC 1123 subdomain' in lines[3]
