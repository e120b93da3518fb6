"""The bundled examples run and print what they promise."""

import subprocess
import sys
from pathlib import Path

import yaml

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_training_run_prints_workload_and_runtime_objects() -> None:
    result = run(str(EXAMPLES / "training_run.py"))
    assert result.returncode == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    assert [d["kind"] for d in docs] == ["Workload", "CompositePodGroup", "PodGroup", "PodGroup"]
    workers = docs[2]
    assert workers["spec"]["schedulingPolicy"] == {"gang": {"minCount": 4}}
    assert workers["spec"]["parentCompositePodGroupName"] == docs[1]["metadata"]["name"]


def test_training_run_reports_errors_at_the_runs_own_paths(tmp_path: Path) -> None:
    bad = (EXAMPLES / "training-run.yaml").read_text().replace("minAvailable: 4", "minAvailable: 0")
    (tmp_path / "run.yaml").write_text(bad)
    result = run(str(EXAMPLES / "training_run.py"), str(tmp_path / "run.yaml"))
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "spec.replicaSpecs[workers].minAvailable: Invalid value: 0:"
        " must be greater than or equal to 1"
    )


def test_standalone_gang_prints_the_pod_group() -> None:
    result = run(str(EXAMPLES / "standalone_gang.py"))
    assert result.returncode == 0, result.stderr
    doc = yaml.safe_load(result.stdout)
    assert doc["spec"] == {"schedulingPolicy": {"gang": {"minCount": 4}}}


def test_observe_gang_prints_each_verdict_on_the_four_situations() -> None:
    result = run(str(EXAMPLES / "observe_gang.py"))
    assert result.returncode == 0, result.stderr
    states = [line.split()[-1] for line in result.stdout.splitlines() if "state:" in line]
    assert states == ["WaitingForMembers", "Unschedulable", "Scheduled", "Degraded"]
    waits = [line for line in result.stdout.splitlines() if "wait_scheduled" in line]
    assert "reason Unschedulable" in waits[1] and "returned" in waits[2]
