"""The bundled examples run and print what they promise, checked against the 1.37 schemas."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
import yaml
from oracles import assert_schema_valid
from typer.testing import CliRunner

from workloadbuilder.cli import app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, check=False, cwd=ROOT
    )


def documents(result: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert result.returncode == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    for doc in docs:
        assert_schema_valid(doc)
    return docs


def test_readme_first_command_prints_the_training_example() -> None:
    readme = (ROOT / "README.md").read_text()
    first = next(line.strip() for line in readme.splitlines() if line.startswith("    "))
    steps = [shlex.split(step) for step in first.split(" && ")]
    assert steps[2][:3] == ["pip", "install", "-e"] and "[cli]" in steps[2][3]
    commands = [s for s in steps if s[0] == "workloadbuilder"]
    assert [c[1] for c in commands] == ["build", "explain"]
    build, explain = (
        subprocess.run(
            [str(BIN / "workloadbuilder"), *args], capture_output=True, text=True, cwd=ROOT
        )
        for _, *args in commands
    )
    assert [d["kind"] for d in documents(build)] == ["Workload", "PodGroup"]
    assert explain.returncode == 0 and "4 pod(s) must exist" in explain.stdout


def test_job_gang_defaults_min_count_to_parallelism() -> None:
    job, workload, group = documents(run(str(EXAMPLES / "job_gang.py")))
    assert job["spec"]["scheduling"] == {
        "schedulingPolicy": {"gang": {}},
        "disruptionMode": {"all": {}},
    }
    (template,) = workload["spec"]["podGroupTemplates"]
    # upstream: gang without minCount defaults to parallelism; the template is <job>-pgt-0
    assert template == {
        "name": "trainer-pgt-0",
        "schedulingPolicy": {"gang": {"minCount": 8}},
        "disruptionMode": {"all": {}},
    }
    assert workload["spec"]["controllerRef"] == {
        "apiGroup": "batch",
        "kind": "Job",
        "name": "trainer",
    }
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 8}}
    assert group["spec"]["workloadRef"]["templateName"] == "trainer-pgt-0"


def test_shared_claim_pods_declare_the_groups_claim_exactly() -> None:
    workload, group, *pods = documents(run(str(EXAMPLES / "shared_claim.py")))
    claim = {"name": "interconnect", "resourceClaimTemplateName": "imex-channel"}
    assert workload["spec"]["podGroupTemplates"][0]["resourceClaims"] == [claim]
    assert group["spec"]["resourceClaims"] == [claim]
    assert len(pods) == 4
    for pod in pods:
        assert pod["spec"]["schedulingGroup"] == {"podGroupName": group["metadata"]["name"]}
        assert pod["spec"]["resourceClaims"] == [claim]


def test_polyaxon_plugin_names_its_extra_where_polyaxon_is_not_installed() -> None:
    """Polyaxon pins kubernetes<37: the example runs in tests/contrib_polyaxon's environment
    (.ci/run); here it says what it needs and stops cleanly."""
    result = run(str(EXAMPLES / "polyaxon_plugin.py"))
    if find_spec("polyaxon") is None:
        assert (result.returncode, result.stdout) == (0, "")
        assert result.stderr.strip() == (
            "skipped: workloadbuilder.contrib.polyaxon needs the [polyaxon] extra:"
            " pip install 'workloadbuilder[polyaxon]' (polyaxon not installed)"
        )
    else:
        kinds = [d["kind"] for d in yaml.safe_load_all(result.stdout)]
        assert kinds == ["KfJob", "Workload", "CompositePodGroup", "PodGroup", "PodGroup"]


def test_standalone_gang_prints_the_pod_group() -> None:
    (doc,) = documents(run(str(EXAMPLES / "standalone_gang.py")))
    assert doc["spec"] == {"schedulingPolicy": {"gang": {"minCount": 4}}}


SPECS = sorted((EXAMPLES / "specs").glob("*.yaml"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_every_example_spec_is_placed_on_the_example_nodes(spec: Path) -> None:
    nodes = str(EXAMPLES / "nodes.yaml")
    result = CliRunner().invoke(app, ["simulate", str(spec), "--nodes", nodes, "-o", "json"])
    assert result.exit_code == 0, result.output
    verdicts = [g["verdict"] for g in json.loads(result.stdout)["groups"]]
    assert verdicts and set(verdicts) == {"placed"}


@pytest.mark.slow
def test_observe_gang_prints_each_verdict_on_the_four_situations() -> None:
    result = run(str(EXAMPLES / "observe_gang.py"))
    assert result.returncode == 0, result.stderr
    states = [line.split()[-1] for line in result.stdout.splitlines() if "state:" in line]
    # the seed's four, the launcher + workers that cannot fit, and the elastic gang: placed
    # with an extra pending, still placed after losing one above minCount, placed once resized
    assert states == [
        "WaitingForMembers",
        "Unschedulable",
        "Scheduled",
        "Degraded",
        "Unschedulable",
        "Scheduled",
        "Scheduled",
        "Scheduled",
    ]
    waits = [line for line in result.stdout.splitlines() if "wait_scheduled" in line]
    assert "reason Unschedulable" in waits[1] and "returned" in waits[2]
    assert "blocked by train-workers-" in waits[4]
    assert "2 cannot: 3 Insufficient cpu" in result.stdout


@pytest.mark.slow
def test_preemption_example_evicts_by_disruption_mode() -> None:
    result = run(str(EXAMPLES / "preemption.py"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # a plain preemptor evicts one member of the all-mode gang (real-apiserver-observed.md, 1a);
    # a gang preemptor adds a whole-group unit back before a single pod of equal priority
    # (kube-scheduler's moreImportantVictim), so it evicts a member of the single-mode gang
    assert "evicted ml/b-all-1 (by Pod ml/inference)" in out
    assert "evicted ml/a-single-0 (by PodGroup ml/train)" in out
    assert "b-all-0 (by" not in out and "a-single-1 (by" not in out
    assert "inference: nominatedNodeName node-3" in out
    assert "diagnose b-all: state: Preempted" in out
    assert "diagnose a-single: state: Preempted" in out
    # while its victim terminates, the retry's message (observed, 1a: "later retries ... gave
    # the message ... preemption: not eligible due to a terminating pod on the nominated node.")
    assert (
        "inference: PodScheduled False: 0/4 nodes are available: 4 Insufficient cpu. no new"
        " claims to deallocate, preemption: not eligible due to a terminating pod on the"
        " nominated node.\n"
    ) in out
    assert "bound ml/inference to node-3" in out and "bound ml/train-0 to node-0" in out
    assert "victims gone before binding: True" in out


@pytest.mark.parametrize("example", ["elastic_resize.py", "asyncio_reconciler.py"])
def test_a_cluster_example_without_a_cluster_says_which_kubeconfig_it_looked_for(
    example: str, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-kubeconfig"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_")}
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / example)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**env, "KUBECONFIG": str(missing)},
    )
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: no cluster: no kubeconfig at {missing} ")
