"""The pytest fixtures on an existing cluster, as envtest's USE_EXISTING_CLUSTER: here the
cluster is ``python -m workloadbuilder.testing`` started as a separate process, and the tests
are a user's, run by pytest in an empty project under pytest's default settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from server_process import server_process

USER_TESTS = """
import json
import os

import pytest
from kubernetes_asyncio import client

PODGROUP = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "PodGroup",
    "metadata": {"name": "pg"},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
}


async def test_in_its_own_namespace(kube_cluster):
    api = client.CustomObjectsApi(kube_cluster.api)
    await api.create_namespaced_custom_object(
        "scheduling.k8s.io", "v1beta1", kube_cluster.namespace, "podgroups", PODGROUP
    )
    got = await api.get_namespaced_custom_object(
        "scheduling.k8s.io", "v1beta1", kube_cluster.namespace, "podgroups", "pg"
    )
    assert got["spec"]["disruptionMode"] == {"single": {}}  # defaulted by the server
    with open(os.environ["RECORD"], "a") as out:
        out.write(json.dumps({"namespace": kube_cluster.namespace,
                              "fake": kube_cluster.server is not None}) + "\\n")


async def test_another_namespace(kube_cluster):
    with open(os.environ["RECORD"], "a") as out:
        out.write(json.dumps({"namespace": kube_cluster.namespace,
                              "fake": kube_cluster.server is not None}) + "\\n")


async def test_simulator(gang_simulator):
    await gang_simulator.step()


async def test_faults(fake_apiserver):
    fake_apiserver.faults.add(status=503)
"""


def _pytest(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WORKLOADBUILDER_")}
    environment.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**environment, **env},
    )


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "test_user.py").write_text(USER_TESTS)  # no pytest configuration at all
    return tmp_path


@pytest.mark.slow
def test_by_default_the_fixtures_run_on_a_fake_apiserver(project: Path) -> None:
    record = project / "record.jsonl"
    result = _pytest(project, RECORD=str(record))
    assert "4 passed" in result.stdout, result.stdout[-3000:]
    first, second = _records(record)
    assert first["fake"] is True and first["namespace"] != second["namespace"]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["option", "environment"])
def test_on_an_existing_cluster_each_test_has_its_own_namespace_deleted_after(
    project: Path, how: str
) -> None:
    from kubernetes import client, config

    record = project / "record.jsonl"
    with server_process("--namespace", "unrelated") as kubeconfig:
        if how == "option":
            result = _pytest(
                project,
                "--kube-cluster",
                str(kubeconfig),
                "--kube-context",
                "fake",
                RECORD=str(record),
            )
        else:
            result = _pytest(
                project,
                RECORD=str(record),
                WORKLOADBUILDER_TEST_KUBECONFIG=str(kubeconfig),
                WORKLOADBUILDER_TEST_CONTEXT="fake",
            )
        assert "2 passed, 2 skipped" in result.stdout, result.stdout[-3000:]
        assert (
            "fake_apiserver and gang_simulator (the simulator, fault injection,"
            " in-process access) are simulator-only: the tests run on the cluster of"
            f" {kubeconfig}, context fake (--kube-cluster or $WORKLOADBUILDER_TEST_KUBECONFIG)"
        ) in result.stdout.replace("\n", " ")
        assert result.stdout.count("are simulator-only") == 2
        records = _records(record)
        assert [r["fake"] for r in records] == [False, False]
        namespaces = {str(r["namespace"]) for r in records}
        assert len(namespaces) == 2
        assert all(n.startswith("wbt-test-") for n in namespaces)

        api = config.new_client_from_config(config_file=str(kubeconfig))
        try:
            left = {n.metadata.name for n in client.CoreV1Api(api).list_namespace().items}
        finally:
            api.close()
    assert "unrelated" in left and "default" in left
    assert not namespaces & left  # each test's namespace is gone, with its objects


@pytest.mark.slow
def test_a_missing_kubeconfig_fails_the_tests_saying_so(project: Path) -> None:
    result = _pytest(project, "--kube-cluster", str(project / "nowhere"), RECORD="x")
    assert f"no kubeconfig at {project / 'nowhere'}" in result.stdout, result.stdout[-3000:]
