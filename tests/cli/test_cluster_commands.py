"""apply, status, diagnose, inspect and delete against the test API server over real HTTP.

The command runs in a worker thread (its own event loop) with ``KUBECONFIG`` pointing at a
``FakeAPIServer`` served by the test's loop; the gang simulator schedules in between.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import SPECS
from typer.testing import CliRunner, Result

import workloadbuilder as wb
from workloadbuilder.cli import app
from workloadbuilder.spec import load_spec
from workloadbuilder.testing import FakeAPIServer

NS = "ml-training"
TRAINING = SPECS / "training.yaml"
SPEC = load_spec(TRAINING)
WORKLOAD = SPEC.options.name
(GROUP,) = (o for o in SPEC.objects() if isinstance(o, wb.PodGroup))
GROUP_NAME = GROUP.metadata.name or ""


async def cli(server: FakeAPIServer, *args: str) -> Result:
    env = {"KUBECONFIG": str(server.kubeconfig_path)}
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)


def create_namespace(server: FakeAPIServer) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
    server.create_object("", "v1", "namespaces", namespace)


def add_workers(server: FakeAPIServer, count: int) -> None:
    for i in range(count):
        pod: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"worker-{i}", "namespace": NS},
            "spec": {
                "containers": [
                    {"name": "main", "image": "pause", "resources": {"requests": {"cpu": "1"}}}
                ]
            },
        }
        server.create_object("", "v1", "pods", wb.set_scheduling_group(pod, GROUP))


async def test_apply_dry_run_apply_and_delete(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    create_namespace(server)
    dry = await cli(server, "apply", str(TRAINING), "--dry-run=server")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.splitlines() == [
        f"workload.scheduling.k8s.io/{WORKLOAD} serverside-applied (server dry run)",
        f"podgroup.scheduling.k8s.io/{GROUP_NAME} serverside-applied (server dry run)",
    ]
    assert server.list_objects("scheduling.k8s.io", "v1beta1", "workloads", NS) == []

    applied = await cli(server, "apply", str(TRAINING))
    assert applied.exit_code == 0, applied.output
    stored = server.get_object("scheduling.k8s.io", "v1beta1", "podgroups", NS, GROUP_NAME)
    assert stored is not None
    assert stored["spec"]["schedulingPolicy"] == {"gang": {"minCount": 4}}
    assert {m["manager"] for m in stored["metadata"]["managedFields"]} == {"workloadbuilder"}
    again = await cli(server, "apply", str(TRAINING))
    assert again.exit_code == 0 and again.stdout == applied.stdout

    deleted = await cli(server, "delete", WORKLOAD, "-n", NS)
    assert deleted.exit_code == 0, deleted.output
    assert deleted.stdout.splitlines() == [
        f"podgroup.scheduling.k8s.io/{GROUP_NAME} deleted",
        f"workload.scheduling.k8s.io/{WORKLOAD} deleted",
    ]
    gone = await cli(server, "delete", WORKLOAD, "-n", NS)
    assert gone.exit_code == 1
    assert gone.stderr == f'error: Workload "{WORKLOAD}" not found in namespace "{NS}"\n'


def test_an_invalid_spec_is_refused_before_any_request(tmp_path: Any) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(TRAINING.read_text().replace("minCount: 4", "minCount: 0"))
    result = CliRunner().invoke(app, ["apply", str(bad), "--kubeconfig", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert "spec.root.schedulingPolicy.gang.minCount: Invalid value: 0" in result.stderr


@pytest.mark.fake_apiserver(feature_gates={"GenericWorkload": False})
async def test_apply_preflight_names_the_gate(fake_apiserver: FakeAPIServer) -> None:
    create_namespace(fake_apiserver)
    result = await cli(fake_apiserver, "apply", str(TRAINING))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: the cluster does not serve")
    (line,) = result.stderr.splitlines()
    assert "enable the feature gate(s) GenericWorkload" in line


def test_a_missing_kubeconfig_is_one_line(tmp_path: Any) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none")}
    result = CliRunner().invoke(
        app, ["delete", "x", "--kubeconfig", str(tmp_path / "none")], env=env
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot load the kubeconfig")
    assert len(result.stderr.splitlines()) == 1
