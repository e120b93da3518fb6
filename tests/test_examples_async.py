"""The examples that need a cluster, each run as its own process against the test API server.

The server runs in the test's event loop on 127.0.0.1; the example finds it through
``KUBECONFIG``, as it would find a real cluster.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.testing import FakeAPIServer, GangSimulator
from workloadbuilder.testing.server import DEFAULT_RESOURCES, ResourceType

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NS = "ml"
SCHEDULING = "scheduling.k8s.io"
TRAINING_RUNS = ResourceType(
    "training.example.com", "v1", "TrainingRun", "trainingruns", status=True
)
RUNS = ("training.example.com", "v1", "trainingruns")
WITH_RUNS = pytest.mark.fake_apiserver(resources=[*DEFAULT_RESOURCES, TRAINING_RUNS])


def env_for(server: FakeAPIServer) -> dict[str, str]:
    return {**os.environ, "KUBECONFIG": str(server.kubeconfig_path), "PYTHONUNBUFFERED": "1"}


async def run_example(server: FakeAPIServer, *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        cwd=ROOT,
        env=env_for(server),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, out.decode(), err.decode()


def namespace(server: FakeAPIServer) -> None:
    server.create_object(
        "", "v1", "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
    )


def training_run(server: FakeAPIServer, min_available: int) -> dict[str, Any]:
    run = {
        "apiVersion": "training.example.com/v1",
        "kind": "TrainingRun",
        "metadata": {"name": "resnet", "namespace": NS},
        "spec": {"workers": 4, "minAvailable": min_available},
    }
    return server.create_object(*RUNS, run)


def pod_groups(server: FakeAPIServer) -> list[dict[str, Any]]:
    return server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)


def min_counts(server: FakeAPIServer) -> tuple[list[int], list[int]]:
    """The gang minCount of every Workload template and of every PodGroup."""
    templates = [
        t["schedulingPolicy"]["gang"]["minCount"]
        for w in server.list_objects(SCHEDULING, "v1beta1", "workloads", NS)
        for t in w["spec"]["podGroupTemplates"]
    ]
    groups = [g["spec"]["schedulingPolicy"]["gang"]["minCount"] for g in pod_groups(server)]
    return templates, groups


async def eventually(check: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.2)


async def test_elastic_training_resized_from_four_to_three(fake_apiserver: FakeAPIServer) -> None:
    namespace(fake_apiserver)
    code, out, err = await run_example(fake_apiserver, str(EXAMPLES / "elastic_resize.py"), NS)
    assert code == 0, err
    (group,) = pod_groups(fake_apiserver)
    name = group["metadata"]["name"]
    assert out.splitlines() == [f"applied {name}: minCount 4", f"resized {name}: minCount 3"]
    # the Workload's template changes with the PodGroup (the Job controller's elastic scaling)
    assert min_counts(fake_apiserver) == ([3], [3])


@pytest.mark.slow
@WITH_RUNS
async def test_the_asyncio_reconciler_creates_then_keeps_in_sync(
    fake_apiserver: FakeAPIServer,
) -> None:
    namespace(fake_apiserver)
    run = training_run(fake_apiserver, 4)
    script = str(EXAMPLES / "asyncio_reconciler.py")
    code, out, err = await run_example(fake_apiserver, script, NS, "--once")
    assert code == 0, err
    assert out.startswith("resnet: created ")
    (group,) = pod_groups(fake_apiserver)
    owner = group["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["uid"], owner["controller"]) == (
        "TrainingRun",
        run["metadata"]["uid"],
        True,
    )

    code, out, err = await run_example(fake_apiserver, script, NS, "--once")
    assert (code, out) == (0, "resnet: up to date\n"), err

    run["spec"]["minAvailable"] = 3
    fake_apiserver.update_object(*RUNS, run)
    code, out, err = await run_example(fake_apiserver, script, NS, "--once")
    assert code == 0, err
    assert out.startswith("resnet: resized ")
    assert min_counts(fake_apiserver) == ([3], [3])

    run = fake_apiserver.get_object(*RUNS, NS, "resnet") or {}
    run["spec"]["minAvailable"] = 0
    fake_apiserver.update_object(*RUNS, run)
    code, out, err = await run_example(fake_apiserver, script, NS, "--once")
    assert out == (
        "resnet: invalid: spec.minAvailable: Invalid value: 0: must be greater than or equal to 1\n"
    ), err


@WITH_RUNS
async def test_the_asyncio_reconciler_follows_changes_by_watch_without_polling(
    fake_apiserver: FakeAPIServer,
) -> None:
    """Left running, it reconciles a new run and a change as the watch delivers them, and
    lists the runs once (its cache's list), never again."""
    namespace(fake_apiserver)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLES / "asyncio_reconciler.py"),
        NS,
        cwd=ROOT,
        env=env_for(fake_apiserver),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )

    def of_runs(watch: bool) -> list[Any]:
        return [
            r
            for r in fake_apiserver.requests
            if r.path.endswith("/trainingruns") and (r.query.get("watch") == "true") is watch
        ]

    try:
        await eventually(lambda: bool(of_runs(watch=True)))
        run = training_run(fake_apiserver, 4)
        await eventually(lambda: min_counts(fake_apiserver) == ([4], [4]))
        run = fake_apiserver.get_object(*RUNS, NS, "resnet") or {}
        run["spec"]["minAvailable"] = 3
        fake_apiserver.update_object(*RUNS, run)
        await eventually(lambda: min_counts(fake_apiserver) == ([3], [3]))
        await asyncio.sleep(1.0)
        assert len(of_runs(watch=False)) == 1
    finally:
        process.send_signal(signal.SIGINT)  # Ctrl-C: it stops cleanly
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert [line.split(": ")[1].split(" ")[0] for line in lines] == ["created", "resized"], lines


PEERING_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "kopfpeerings.kopf.dev"},
    "spec": {
        "group": "kopf.dev",
        "scope": "Namespaced",
        "names": {"plural": "kopfpeerings", "kind": "KopfPeering"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "status": {
                                "type": "object",
                                "x-kubernetes-preserve-unknown-fields": True,
                            }
                        },
                    }
                },
            }
        ],
    },
}
"""kopf's namespaced peering kind, as its documentation has users install it."""
CRDS = ("apiextensions.k8s.io", "v1", "customresourcedefinitions")
PEERINGS = ("kopf.dev", "v1", "kopfpeerings")


def kopf_peering(server: FakeAPIServer) -> None:
    server.create_object(*CRDS, PEERING_CRD)
    peering = {"apiVersion": "kopf.dev/v1", "kind": "KopfPeering"}
    server.create_object(*PEERINGS, {**peering, "metadata": {"name": "default", "namespace": NS}})


def peers(server: FakeAPIServer) -> dict[str, Any]:
    peering = server.get_object(*PEERINGS, NS, "default") or {}
    found: dict[str, Any] = peering.get("status") or {}
    return found


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["--standalone", "--peering=default"])
async def test_the_kopf_operator_reconciles_runs(fake_apiserver: FakeAPIServer, mode: str) -> None:
    """The operator against the test server, its kind installed from the example's CRD: the
    run gets its Workload, PodGroup and pods, the simulator schedules the gang, the operator
    writes the verdict to the run's status, and a resize follows spec.minAvailable. With
    peering, kopf also keeps its keep-alive in a KopfPeering (a second custom kind)."""
    namespace(fake_apiserver)
    install_training_runs(fake_apiserver, mode)
    err = await run_the_kopf_operator(
        fake_apiserver, [mode, "--namespace", NS], env_for(fake_apiserver), mode
    )
    assert b"Traceback" not in err, err.decode()


def install_training_runs(server: FakeAPIServer, mode: str) -> None:
    """The example's CRD, and kopf's peering kind and object unless ``mode`` is standalone."""
    crd = yaml.safe_load((EXAMPLES / "trainingrun-crd.yaml").read_text())
    server.create_object(*CRDS, crd)
    if mode != "--standalone":
        kopf_peering(server)


async def run_the_kopf_operator(
    server: FakeAPIServer, args: list[str], env: dict[str, str], mode: str
) -> bytes:
    """Run ``kopf run ARGS examples/kopf_operator.py`` with ``env`` through a run's life:
    create, schedule, resize, delete; what the operator logged to stderr."""
    simulator = GangSimulator(server)
    kopf = Path(sys.executable).with_name("kopf")
    process = await asyncio.create_subprocess_exec(
        str(kopf),
        "run",
        *args,
        str(EXAMPLES / "kopf_operator.py"),
        cwd=EXAMPLES,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        run = training_run(server, 4)
        await eventually(lambda: min_counts(server) == ([4], [4]))
        await eventually(lambda: len(server.list_objects("", "v1", "pods", NS)) == 4)
        (group,) = pod_groups(server)
        for pod in server.list_objects("", "v1", "pods", NS):
            assert pod["spec"]["schedulingGroup"] == {"podGroupName": group["metadata"]["name"]}
            assert pod["metadata"]["ownerReferences"][0]["uid"] == run["metadata"]["uid"]
        step = await simulator.step()
        assert len(step.bound) == 4
        await eventually(lambda: run_status(server).get("phase") == "Scheduled")
        status = run_status(server)
        assert (status["podGroup"], status["reason"]) == (group["metadata"]["name"], "Scheduled")
        # kopf keeps each handler's return value in the run's status
        assert status["reconcile_run"]["podGroups"] == [group["metadata"]["name"]]
        run = server.get_object(*RUNS, NS, "resnet") or run
        run["spec"]["minAvailable"] = 2
        server.update_object(*RUNS, run)
        await eventually(lambda: min_counts(server) == ([2], [2]))
        if mode != "--standalone":
            # one peer, as kopf's Peer.as_dict() writes it
            assert [sorted(p) for p in peers(server).values()] == [
                ["lastseen", "lifetime", "priority"]
            ]
        # each handler's verdict, as kopf keeps it per handler: on create the 4 pods exist but
        # the scheduler has not tried them (Pending); after the resize 4 run, minCount 2
        name = group["metadata"]["name"]
        assert run_status(server)["reconcile_run"]["verdicts"] == {name: "Pending"}
        await eventually(
            lambda: (
                (run_status(server).get("reconcile_run/spec") or {}).get("verdicts")
                == {name: "Scheduled"}
            )
        )
        server.delete_object(*RUNS, NS, "resnet")
        await eventually(lambda: not server.list_objects(SCHEDULING, "v1beta1", "workloads", NS))
        # the run's pods were bound: they terminate until the stand-in kubelet removes them,
        # and only then does PodGroup protection let the group go
        await simulator.finish_terminating()
        await eventually(lambda: pod_groups(server) == [])
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), 30)
    return err


def run_status(server: FakeAPIServer) -> dict[str, Any]:
    stored = server.get_object(*RUNS, NS, "resnet") or {}
    status: dict[str, Any] = stored.get("status") or {}
    return status
