"""The command line in kubectl's idiom: -f and standard input, objects found from the spec,
the kubeconfig context's namespace, --version, completion, help, one-line usage errors."""

from __future__ import annotations

import importlib.metadata
import json
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_paths import ROOT
from cluster_support import GROUP_NAME, NS, TRAINING, WORKLOAD, add_workers, cli, create_namespace
from rich.progress import Progress
from server_process import command, server_process
from typer.testing import CliRunner

from workloadbuilder.cli import _cluster, app
from workloadbuilder.spec import load_spec
from workloadbuilder.testing import FakeAPIServer

COMMANDS = [
    *("schema", "build", "validate", "explain", "simulate", "migrate"),
    *("apply", "status", "diagnose", "inspect", "delete"),
]


def test_no_arguments_prints_the_help_and_exits_0(runner: CliRunner) -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 0
    assert "Usage: workloadbuilder" in result.stdout
    assert all(c in result.stdout for c in COMMANDS)


def test_version_and_shell_completion(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--version"])
    assert (result.exit_code, result.stdout) == (
        0,
        f"workloadbuilder {importlib.metadata.version('workloadbuilder')}\n",
    )
    helped = runner.invoke(app, ["--help"]).stdout
    assert "--install-completion" in helped and "--show-completion" in helped
    # what the installed completion script asks the command (shell detection aside)
    for words, expected in (
        ("workloadbuilder sta", "status\n"),
        ("workloadbuilder migrate --to ", "v1beta1\nv1alpha3\n"),
    ):
        env = {
            "_WORKLOADBUILDER_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split(" ")) - 1),
        }
        completed = runner.invoke(app, [], prog_name="workloadbuilder", env=env)
        assert (completed.exit_code, completed.stdout) == (0, expected), completed.output


@pytest.mark.parametrize("command_name", COMMANDS)
def test_help_shows_metavars_and_choices_not_python_types(
    runner: CliRunner, command_name: str
) -> None:
    text = runner.invoke(app, [command_name, "--help"], terminal_width=200).stdout
    assert not re.search(r"<(bool|str|int|path|list\[[^>]*\]|[A-Za-z]+Path)>", text), text
    if command_name == "migrate":
        assert "v1beta1|v1alpha3" in text
    if command_name in ("build", "migrate"):
        assert "yaml|json" in text


def test_a_spec_is_read_from_f_and_standard_input(runner: CliRunner) -> None:
    positional = runner.invoke(app, ["build", str(TRAINING)])
    by_f = runner.invoke(app, ["build", "-f", str(TRAINING)])
    piped = runner.invoke(app, ["build", "-f", "-"], input=TRAINING.read_bytes())
    assert positional.exit_code == by_f.exit_code == piped.exit_code == 0
    assert positional.stdout == by_f.stdout == piped.stdout
    checked = runner.invoke(app, ["validate", "-"], input=TRAINING.read_bytes())
    assert checked.stdout == "<stdin>: valid\n"


def test_an_invalid_spec_on_standard_input_is_located_at_stdin(runner: CliRunner) -> None:
    bad = TRAINING.read_text().replace("minCount: 4", "minCount: 0")
    result = runner.invoke(app, ["validate", "-f", "-"], input=bad)
    assert result.exit_code == 1
    assert result.stderr.startswith("<stdin>:")
    assert "spec.root.schedulingPolicy.gang.minCount: Invalid value: 0" in result.stderr


@pytest.mark.parametrize(
    "args", [["build"], ["build", str(TRAINING), "-f", str(TRAINING)], ["status"], ["delete"]]
)
def test_one_spec_or_name_is_required(runner: CliRunner, args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: give ")


def _kubeconfig_with_namespace(server: FakeAPIServer, path: Path, namespace: str) -> Path:
    config = yaml.safe_load(server.kubeconfig_path.read_text())
    config["contexts"].append(
        {"name": "training", "context": {"cluster": "fake", "user": "fake", "namespace": namespace}}
    )
    config["current-context"] = "training"
    path.write_text(yaml.safe_dump(config))
    return path


async def test_the_namespace_defaults_to_the_kubeconfig_contexts(
    fake_apiserver: FakeAPIServer, tmp_path: Path
) -> None:
    server = fake_apiserver
    create_namespace(server)
    assert (await cli(server, "apply", "-f", str(TRAINING))).exit_code == 0
    kubeconfig = str(_kubeconfig_with_namespace(server, tmp_path / "config", NS))
    found = await cli(server, "status", WORKLOAD, "--kubeconfig", kubeconfig)
    assert found.exit_code == 0, found.output
    assert found.stdout.splitlines()[1].split()[0] == GROUP_NAME
    # --context fake names the context whose namespace is "default": not found there
    other = await cli(server, "status", WORKLOAD, "--kubeconfig", kubeconfig, "--context", "fake")
    assert other.stderr == f'error: Workload "{WORKLOAD}" not found in namespace "default"\n'


async def test_status_and_delete_find_the_objects_from_the_spec(
    fake_apiserver: FakeAPIServer,
) -> None:
    server = fake_apiserver
    create_namespace(server)
    assert (await cli(server, "apply", "-f", str(TRAINING))).exit_code == 0
    listed = await cli(server, "status", "-f", str(TRAINING), "-o", "json")
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.stdout)["groups"]
    assert (row["name"], row["template"]) == (GROUP_NAME, "workers")
    wrong = await cli(server, "status", "-f", str(TRAINING), "-n", "elsewhere")
    assert wrong.exit_code == 2 and "does not match --namespace elsewhere" in wrong.stderr

    deleted = await cli(server, "delete", "-f", str(TRAINING))
    assert deleted.stdout.splitlines() == [
        f"podgroup.scheduling.k8s.io/{GROUP_NAME} deleted",
        f"workload.scheduling.k8s.io/{WORKLOAD} deleted",
    ]
    assert server.list_objects("scheduling.k8s.io", "v1beta1", "podgroups", NS) == []
    again = await cli(server, "delete", "-f", str(TRAINING))
    assert (again.exit_code, again.stderr) == (
        1,
        f'error: Workload "{WORKLOAD}" not found in namespace "{NS}"\n',
    )
    ignored = await cli(server, "delete", "-f", str(TRAINING), "--ignore-not-found")
    assert (ignored.exit_code, ignored.stdout, ignored.stderr) == (0, "", "")


async def test_apply_advances_per_object_and_tells_what_to_run(
    fake_apiserver: FakeAPIServer,
) -> None:
    server = fake_apiserver
    create_namespace(server)
    objects = load_spec(ROOT / "examples" / "specs" / "release.yaml").objects()
    server.faults.add(method="PATCH", path="*/podgroups/*", status=403, times=10)
    progress = Progress(disable=True)
    async with server.api_client() as client:
        with pytest.raises(_cluster.ClusterError) as failed:
            await _cluster.apply_objects(
                client, objects, field_manager="t", force=False, dry_run=False, progress=progress
            )
    (task,) = progress.tasks
    pod_groups = sum(1 for o in objects if o.kind == "PodGroup")
    assert task.total == len(objects)
    assert task.completed == len(objects) - pod_groups  # the Workload and its composite
    assert failed.value.lines[-1] == (
        f"{len(objects) - pod_groups} of {len(objects)} objects applied; fix the cause and run"
        " the same `workloadbuilder apply` again: it applies the rest and changes nothing else"
    )
    assert "call apply()" not in str(failed.value)
    server.faults.clear()
    completed = await cli(server, "apply", "-f", str(ROOT / "examples" / "specs" / "release.yaml"))
    assert completed.exit_code == 0 and len(completed.stdout.splitlines()) == len(objects)


async def test_inspect_never_shortens_names(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    create_namespace(server)
    add_workers(server, range(1))
    long_name = "worker-" + "x" * 200
    pod = server.get_object("", "v1", "pods", NS, "worker-0")
    assert pod is not None
    pod["metadata"] = {"name": long_name, "namespace": NS}
    server.create_object("", "v1", "pods", pod)
    env_narrow = await cli(server, "inspect", "-n", NS)
    assert f"Pod {NS}/{long_name}" in env_narrow.stdout


@pytest.mark.slow
def test_status_f_watch_and_delete_f_against_a_separate_server_process() -> None:
    with server_process("--namespace", NS) as kubeconfig:
        assert command(kubeconfig, ["apply", "-f", str(TRAINING)]).returncode == 0
        status = command(kubeconfig, ["status", "-f", str(TRAINING)])
        assert status.returncode == 0, status.stderr
        header, row = status.stdout.splitlines()
        assert header.split()[:5] == ["NAME", "GROUP", "KIND", "STATE", "MEMBERS"]
        assert row.split()[:5] == [GROUP_NAME, "workers", "PodGroup", "WaitingForMembers", "0/4"]

        program = str(Path(sys.executable).with_name("workloadbuilder"))
        watch = subprocess.Popen(
            [program, "status", "-f", str(TRAINING), "-w"],
            stdout=subprocess.PIPE,
            text=True,
            env={"KUBECONFIG": str(kubeconfig)},
        )
        try:
            assert watch.stdout is not None
            assert watch.stdout.readline().split()[0] == "NAME"
            assert watch.stdout.readline().split()[4] == "0/4"
            _create_pod(kubeconfig, GROUP_NAME)
            deadline = time.monotonic() + 30
            changed = ""
            while time.monotonic() < deadline and not changed:
                ready, _, _ = select.select([watch.stdout], [], [], 1)
                if ready:
                    changed = watch.stdout.readline()
            assert changed.split()[:5] == [
                GROUP_NAME,
                "workers",
                "PodGroup",
                "WaitingForMembers",
                "1/4",
            ]
        finally:
            watch.terminate()
            watch.wait(timeout=30)

        deleted = command(kubeconfig, ["delete", "-f", str(TRAINING)])
        assert deleted.returncode == 0, deleted.stderr
        assert deleted.stdout.splitlines()[-1] == f"workload.scheduling.k8s.io/{WORKLOAD} deleted"


def _create_pod(kubeconfig: Path, group: str) -> None:
    """A member pod, created with the official client as another program would."""
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(kubeconfig))
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "worker-0", "namespace": NS},
        "spec": {
            "schedulingGroup": {"podGroupName": group},
            "containers": [{"name": "main", "image": "pause"}],
        },
    }
    try:
        client.CoreV1Api(api).create_namespaced_pod(NS, pod)
    finally:
        api.close()
