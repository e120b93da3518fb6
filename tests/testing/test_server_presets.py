"""Presets: ``all``, a default 1.37 cluster (``default-1.37``) and its beta features on
(``beta-1.37``), from ``FakeAPIServer``, the pytest marker and option, and the command line.

Expected stages and defaults are kube-scheduler's ``pkg/features/kube_features.go`` of 1.37
(``GenericWorkload``: 1.37 Beta, Default false; ``DRAWorkloadResourceClaims``: 1.37 Beta,
Default false; ``CompositePodGroup`` and ``PodGroupPreemptionPolicy``: 1.37 Alpha, Default false;
``TopologyAwareWorkloadScheduling``: 1.36 Alpha, Default false) and kube-apiserver's for
``WorkloadWithJob`` (1.36 Alpha, Default false; alpha in 1.37 per KEP-5547). A version a
cluster does not serve answers as observed on a real server: 404 ``the server could not find
the requested resource`` with ``details: {}``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from server_process import server_process

from workloadbuilder.testing import GATES, PRESETS, FakeAPIServer
from workloadbuilder.testing.__main__ import parser
from workloadbuilder.testing.common.errors import APIStatusError

UPSTREAM_1_37 = {
    "GenericWorkload": ("beta", False),
    "CompositePodGroup": ("alpha", False),
    "TopologyAwareWorkloadScheduling": ("alpha", False),
    "DRAWorkloadResourceClaims": ("beta", False),
    "PodGroupPreemptionPolicy": ("alpha", False),
    "WorkloadWithJob": ("alpha", False),
}
NOT_FOUND = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "the server could not find the requested resource",
    "reason": "NotFound",
    "details": {},
    "code": 404,
}


def _pod_group(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, **spec},
    }


async def _get(server: FakeAPIServer, path: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.get(server.url + path) as resp:
        return resp.status, await resp.json(content_type=None)


def test_the_gate_table_is_upstreams() -> None:
    assert {g.name: (g.stage, g.default) for g in GATES} == UPSTREAM_1_37
    for g in GATES:
        assert "kube_features.go" in g.source and g.name in g.source
        assert g.turns_on


def test_the_presets_gates() -> None:
    assert PRESETS["all"].gates == frozenset(UPSTREAM_1_37)
    assert PRESETS["default-1.37"].gates == frozenset()
    assert PRESETS["beta-1.37"].gates == {"GenericWorkload", "DRAWorkloadResourceClaims"}
    assert FakeAPIServer().gates == frozenset(UPSTREAM_1_37)  # the default stays "all"
    assert FakeAPIServer(preset="default-1.37").gates == frozenset()


def test_an_unknown_preset_or_version_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"unknown preset 'cluster'.*default-1\.37"):
        FakeAPIServer(preset="cluster")
    with pytest.raises(ValueError, match="unknown feature gate 'Gang'"):
        FakeAPIServer(preset="default-1.37", feature_gates={"Gang": True})
    with pytest.raises(ValueError, match="not a group/version"):
        FakeAPIServer(runtime_config={"a/b/c": True})


@pytest.mark.fake_apiserver(preset="default-1.37")
async def test_a_default_cluster_serves_no_workload_api(fake_apiserver: FakeAPIServer) -> None:
    status, group = await _get(fake_apiserver, "/apis/scheduling.k8s.io")
    assert status == 200
    assert [v["version"] for v in group["versions"]] == ["v1"]
    for version in ("v1beta1", "v1alpha3"):
        status, body = await _get(fake_apiserver, f"/apis/scheduling.k8s.io/{version}")
        assert (status, body) == (404, NOT_FOUND)
    status, body = await _get(
        fake_apiserver, "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups"
    )
    assert (status, body) == (404, NOT_FOUND)
    status, _ = await _get(fake_apiserver, "/apis/scheduling.k8s.io/v1/priorityclasses")
    assert status == 200
    assert not fake_apiserver.serves("scheduling.k8s.io", "v1beta1", "workloads")


@pytest.mark.fake_apiserver(preset="beta-1.37")
async def test_the_beta_preset_serves_v1beta1_without_the_alpha_fields(
    fake_apiserver: FakeAPIServer,
) -> None:
    assert fake_apiserver.serves("scheduling.k8s.io", "v1beta1", "podgroups")
    assert not fake_apiserver.serves("scheduling.k8s.io", "v1alpha3", "podgroups")
    assert not fake_apiserver.serves("scheduling.k8s.io", "v1alpha3", "compositepodgroups")
    fake_apiserver.create_object(
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        _pod_group("claims", resourceClaims=[{"name": "gpu", "resourceClaimName": "gpus"}]),
    )
    created = fake_apiserver.create_object(
        "scheduling.k8s.io", "v1beta1", "podgroups", _pod_group("plain")
    )
    assert "preemptionPolicy" not in created["spec"]  # its admission default is gated
    for field, value in (
        ("preemptionPolicy", "Never"),
        ("schedulingConstraints", {"topology": [{"key": "topology.kubernetes.io/zone"}]}),
    ):
        with pytest.raises(APIStatusError) as caught:
            fake_apiserver.create_object(
                "scheduling.k8s.io", "v1beta1", "podgroups", _pod_group("pg", **{field: value})
            )
        assert caught.value.status["details"]["causes"] == [
            {"reason": "FieldValueForbidden", "message": "Forbidden", "field": f"spec.{field}"}
        ]


@pytest.mark.fake_apiserver(
    preset="default-1.37",
    feature_gates={"GenericWorkload": True},
    runtime_config={"scheduling.k8s.io/v1beta1": True},
)
async def test_flags_over_a_preset(fake_apiserver: FakeAPIServer) -> None:
    assert fake_apiserver.gates == {"GenericWorkload"}
    assert fake_apiserver.serves("scheduling.k8s.io", "v1beta1", "podgroups")
    assert not fake_apiserver.serves("scheduling.k8s.io", "v1alpha3", "podgroups")


def test_a_gate_without_its_version_serves_nothing() -> None:
    server = FakeAPIServer(preset="default-1.37", feature_gates={"GenericWorkload": True})
    assert not server.serves("scheduling.k8s.io", "v1beta1", "podgroups")
    server = FakeAPIServer(runtime_config={"scheduling.k8s.io/v1alpha3": False})
    assert server.serves("scheduling.k8s.io", "v1beta1", "podgroups")
    assert not server.serves("scheduling.k8s.io", "v1alpha3", "compositepodgroups")


@pytest.mark.slow
def test_the_pytest_option_sets_the_preset_the_marker_overrides_it(tmp_path: Path) -> None:
    (tmp_path / "test_preset.py").write_text(
        "import pytest\n\n"
        "async def test_option(fake_apiserver):\n"
        "    assert fake_apiserver.preset == 'default-1.37'\n"
        "    assert not fake_apiserver.gates\n\n"
        "@pytest.mark.fake_apiserver(preset='all')\n"
        "async def test_marker(fake_apiserver):\n"
        "    assert fake_apiserver.preset == 'all'\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--fake-apiserver-preset",
            "default-1.37",
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


@pytest.mark.slow
def test_the_ini_option_sets_the_preset(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nfake_apiserver_preset = beta-1.37\n")
    (tmp_path / "test_ini.py").write_text(
        "async def test_ini(fake_apiserver):\n    assert fake_apiserver.preset == 'beta-1.37'\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / "pytest.ini").write_text("[pytest]\nfake_apiserver_preset = cluster\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode != 0
    assert "fake_apiserver_preset = 'cluster': use one of all, default-1.37, beta-1.37" in (
        done.stdout + done.stderr
    )


def test_the_command_line_reads_preset_gates_and_versions() -> None:
    args = parser().parse_args(
        [
            "--preset",
            "default-1.37",
            "--feature-gates",
            "GenericWorkload=true,CompositePodGroup=false",
            "--runtime-config",
            "scheduling.k8s.io/v1beta1=true",
        ]
    )
    assert args.preset == "default-1.37"
    assert args.feature_gates == {"GenericWorkload": True, "CompositePodGroup": False}
    assert args.runtime_config == {"scheduling.k8s.io/v1beta1": True}
    assert parser().parse_args([]).preset == "all"
    with pytest.raises(SystemExit):
        parser().parse_args(["--feature-gates", "Gang=true"])
    with pytest.raises(SystemExit):
        parser().parse_args(["--preset", "cluster"])


def test_the_standalone_server_serves_its_preset() -> None:
    from kubernetes import client, config

    with server_process("--preset", "default-1.37") as kubeconfig:
        api = config.new_client_from_config(config_file=str(kubeconfig))
        try:
            groups = client.ApisApi(api).get_api_versions().groups
        finally:
            api.close()
    scheduling = next(g for g in groups if g.name == "scheduling.k8s.io")
    assert [v.version for v in scheduling.versions] == ["v1"]


@pytest.mark.fake_apiserver(preset="beta-1.37")
async def test_without_workload_with_job_a_jobs_scheduling_is_dropped(
    fake_apiserver: FakeAPIServer,
) -> None:
    """``pkg/api/job``'s ``DropDisabledFields``: the gate off, a create loses spec.scheduling
    (before validation, so no error), as the Job strategy's PrepareForCreate does."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "trainer", "namespace": "default"},
        "spec": {
            "parallelism": 2,
            "scheduling": {"schedulingPolicy": {"gang": {"minCount": 2}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "trainer"}],
                }
            },
        },
    }
    created = fake_apiserver.create_object("batch", "v1", "jobs", job)
    assert "scheduling" not in created["spec"]
    stored = fake_apiserver.get_object("batch", "v1", "jobs", "default", "trainer")
    assert stored is not None
    assert "scheduling" not in stored["spec"]
