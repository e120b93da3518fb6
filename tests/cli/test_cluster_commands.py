"""apply and delete against the test API server over real HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from cluster_support import GROUP_NAME, NS, TRAINING, WORKLOAD, cli, create_namespace
from typer.testing import CliRunner

from workloadbuilder.cli import app
from workloadbuilder.testing import FakeAPIServer


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
    assert result.stderr.startswith("error: the kubeconfig ")
    assert result.stderr.rstrip().endswith("/none does not exist")
    assert len(result.stderr.splitlines()) == 1
