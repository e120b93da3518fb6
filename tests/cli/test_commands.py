"""The ``workloadbuilder`` command, run in-process (typer's runner) and as installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
import yaml
from cli_paths import NODES, ROOT, SPECS
from oracles import assert_schema_valid
from typer.testing import CliRunner

from workloadbuilder.cli import app

TRAINING = SPECS / "training.yaml"


def test_build_prints_a_yaml_stream_the_137_schema_accepts(runner: CliRunner) -> None:
    result = runner.invoke(app, ["build", str(TRAINING)])
    assert result.exit_code == 0, result.output
    docs = list(yaml.safe_load_all(result.stdout))
    assert [d["kind"] for d in docs] == ["Workload", "PodGroup"]
    for doc in docs:
        assert_schema_valid(doc)
    workload, group = docs
    assert workload["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 4}}
    assert group["spec"]["workloadRef"] == {
        "workloadName": workload["metadata"]["name"],
        "templateName": "workers",
    }


def test_build_json_is_a_list_kubectl_applies(runner: CliRunner) -> None:
    result = runner.invoke(app, ["build", str(SPECS / "release.yaml"), "-o", "json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List")
    kinds = [d["kind"] for d in listed["items"]]
    assert kinds == ["Workload", "CompositePodGroup", "PodGroup", "PodGroup"]
    for doc in listed["items"]:
        assert_schema_valid(doc)


def test_validate_prints_every_error_with_file_and_line(runner: CliRunner, tmp_path: Path) -> None:
    text = TRAINING.read_text().replace("minCount: 4", "minCount: -1")
    text = text.replace("disruptionModes: [Single, All]", "disruptionModes: [Single]")
    spec = tmp_path / "bad.yaml"
    spec.write_text(text)
    lines = text.splitlines()
    result = runner.invoke(app, ["validate", str(spec)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{spec}:{lines.index('        minCount: -1') + 1}:"
        " spec.root.schedulingPolicy.gang.minCount: Invalid value: -1:"
        " must be greater than or equal to 1",
        f"{spec}:{lines.index('    disruptionMode:') + 1}: spec.root.disruptionMode:"
        " Forbidden: the disruptionMode `all` is not supported by this controller",
    ]


def test_validate_a_valid_spec(runner: CliRunner) -> None:
    result = runner.invoke(app, ["validate", str(TRAINING)])
    assert (result.exit_code, result.stdout) == (0, f"{TRAINING}: valid\n")


def test_explain_outlines_each_group(runner: CliRunner) -> None:
    result = runner.invoke(app, ["explain", str(SPECS / "release.yaml")])
    assert result.exit_code == 0, result.output
    out = result.stdout
    for line in (
        "workload-root (CompositePodGroup): gang over its groups:"
        " at least 2 of 2 must fit together",
        "topology: all in one domain of topology.kubernetes.io/zone",
        "workers (PodGroup): gang: at least 4 pods must fit together",
        "topology: all in one domain of topology.example.com/rack",
        "disruption: all (losing one pod disrupts the whole group)",
        # 4 workers + 1 driver: the composite gang needs both of its groups
        "5 pod(s) must exist before the scheduler even looks",
    ):
        assert line in out


def test_explain_warns_of_a_gang_that_can_never_form(runner: CliRunner, tmp_path: Path) -> None:
    spec = tmp_path / "short.yaml"
    spec.write_text(TRAINING.read_text().replace("replicas: 4", "replicas: 3"))
    result = runner.invoke(app, ["explain", str(spec)])
    assert result.exit_code == 0
    assert "only 3 replicas for minCount 4: the gang can never form" in result.stdout


def test_simulate_places_the_gang(runner: CliRunner) -> None:
    result = runner.invoke(app, ["simulate", str(TRAINING), "--nodes", str(NODES), "-o", "json"])
    assert result.exit_code == 0, result.output
    (group,) = json.loads(result.stdout)["groups"]
    assert (group["template"], group["verdict"]) == ("workers", "placed")


def test_simulate_tells_waiting_from_unschedulable(runner: CliRunner, tmp_path: Path) -> None:
    waiting = tmp_path / "waiting.yaml"
    waiting.write_text(TRAINING.read_text().replace("replicas: 4", "replicas: 3"))
    result = runner.invoke(app, ["simulate", str(waiting), "--nodes", str(NODES), "-o", "json"])
    assert result.exit_code == 1
    (group,) = json.loads(result.stdout)["groups"]
    assert group["verdict"] == "waiting for members"
    assert group["detail"].startswith("3 of minCount 4 pods exist")

    big = tmp_path / "big.yaml"
    big.write_text(TRAINING.read_text().replace('cpu: "2"', 'cpu: "6"'))
    one_node = tmp_path / "nodes.yaml"
    one_node.write_text("- name: only\n  allocatable: {cpu: '8', memory: 32Gi}\n")
    result = runner.invoke(app, ["simulate", str(big), "--nodes", str(one_node)])
    assert result.exit_code == 1
    assert "unschedulable" in result.stdout
    # WHY is the members' cause (their node-fit message), not the group's "0/1 placements"
    assert "1 of 4 members fit; 3 cannot: 1 Insufficient cpu" in result.stdout


def test_simulate_with_node_objects(runner: CliRunner, tmp_path: Path) -> None:
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(
        yaml.safe_dump_all(
            [
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {"name": f"n{i}", "labels": {"topology.kubernetes.io/zone": "a"}},
                    "status": {"allocatable": {"cpu": "4", "memory": "16Gi"}},
                }
                for i in range(2)
            ]
        )
    )
    result = runner.invoke(app, ["simulate", str(TRAINING), "--nodes", str(nodes)])
    assert result.exit_code == 0, result.output
    assert "placed" in result.stdout


def test_schema_prints_the_json_schema(runner: CliRunner) -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(TRAINING.read_text()))


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["build", "missing.yaml"],
            2,
            "error: cannot read missing.yaml: No such file or directory",
        ),
        (["simulate", str(TRAINING), "--nodes", "none.yaml"], 2, "error: cannot read none.yaml"),
        (
            ["migrate", str(TRAINING), "--to", "v1"],
            2,
            "error: Invalid value for '--to': 'v1' is not one of 'v1beta1', 'v1alpha3'",
        ),
        (
            ["build", str(TRAINING), "-o", "xml"],
            2,
            "error: Invalid value for '--output' / '-o': 'xml' is not one of 'yaml', 'json'",
        ),
        (["build", "--bogus"], 2, "error: No such option: --bogus; see 'workloadbuilder build -h'"),
    ],
)
def test_one_line_errors_and_exit_codes(
    runner: CliRunner, args: list[str], code: int, message: str
) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == code
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(message)


COMMANDS = [
    *("schema", "build", "validate", "explain", "simulate", "migrate"),
    *("apply", "status", "diagnose", "inspect", "delete"),
]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(runner: CliRunner, command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Example: workloadbuilder " + command in result.stdout


@pytest.mark.parametrize(
    "prefix", [["workloadbuilder"], [sys.executable, "-m", "workloadbuilder"]], ids=["script", "-m"]
)
def test_the_installed_command(prefix: list[str]) -> None:
    if prefix[0] == "workloadbuilder":
        prefix = [str(Path(sys.executable).with_name("workloadbuilder"))]
    result = subprocess.run(
        [*prefix, "build", str(TRAINING)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert [d["kind"] for d in yaml.safe_load_all(result.stdout)] == ["Workload", "PodGroup"]
