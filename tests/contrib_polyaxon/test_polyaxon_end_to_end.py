"""A Polyaxon run on the test server: the KfJob CRD, the KfJob Polyaxon's converter makes,
linked and created; its Workload and groups owned by it; a stand-in for the operator that
makes a pod per replica from the KfJob's templates; the gang scheduler's verdict; and deleting
the KfJob collecting everything.

The scheduler's rules are the 1.37 scheduling docs': a gang binds only when ``minCount`` pods
exist and fit, a composite only when ``minGroupCount`` of its children can, and a group that
cannot is marked ``PodGroupInitiallyScheduled=False`` with reason ``Unschedulable``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import kubernetes.client as k8s
import pytest
from polyaxon_support import MPI, NAMESPACE, PYTORCH, convert

from workloadbuilder.aio import MissingAPIError
from workloadbuilder.contrib import polyaxon as wbp
from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode

CRDS = ("apiextensions.k8s.io", "v1", "customresourcedefinitions")
KFJOBS = ("polyaxon.com", "v1", "kfjobs")
SCHEDULING = "scheduling.k8s.io"
PLURALS = {
    "Workload": "workloads",
    "PodGroup": "podgroups",
    "CompositePodGroup": "compositepodgroups",
}
KFJOB_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "kfjobs.polyaxon.com"},
    "spec": {
        "group": "polyaxon.com",
        "scope": "Namespaced",
        "names": {"plural": "kfjobs", "singular": "kfjob", "kind": "KfJob"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            }
        ],
    },
}
SPEC_KEYS = {"pytorchjob": "pytorchJobSpec", "mpijob": "mpiJobSpec"}


def nodes(count: int) -> list[SimNode]:
    """Nodes that each fit one pod of the runs: a 1-cpu main container plus Polyaxon's
    sidecar (0.1 cpu; its init container's 0.1 runs before)."""
    return [SimNode(f"n{i}", {"cpu": "1500m", "memory": "8Gi", "pods": "10"}) for i in range(count)]


def start_run(server: FakeAPIServer, content: str, *, composite: bool = True) -> dict[str, Any]:
    """What a plugin does: convert, link, create the KfJob, then its Workload and groups."""
    server.create_object(*CRDS, KFJOB_CRD)
    server.create_object(
        "",
        "v1",
        "namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
    )
    priority = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "value": 1000}
    priority["metadata"] = {"name": "training-high"}
    server.create_object(SCHEDULING, "v1", "priorityclasses", priority)
    operation, kfjob = convert(content)
    run = wbp.convert(operation, composite=composite)
    assert not run.errors
    wbp.link_kfjob(kfjob, run)
    body = k8s.ApiClient().sanitize_for_serialization(kfjob)  # as Polyaxon's executor sends it
    created = server.create_object(*KFJOBS, body)
    release = wbp.builder(run, created).release()
    for obj in release.ordered:
        doc = obj.to_dict()
        group, version = doc["apiVersion"].split("/")
        server.create_object(group, version, PLURALS[doc["kind"]], doc)
    operate(server, created, run.kind)
    return created


def operate(server: FakeAPIServer, kfjob: dict[str, Any], kind: str) -> None:
    """A stand-in for the operator: each replica's pods from its template, owned by the KfJob."""
    meta = kfjob["metadata"]
    owner = {
        "apiVersion": kfjob["apiVersion"],
        "kind": kfjob["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    for role, replica in kfjob[SPEC_KEYS[kind]]["replicaSpecs"].items():
        template = replica["template"]
        for i in range(replica.get("replicas") or 1):
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    **template["metadata"],
                    "name": f"{meta['name']}-{role.lower()}-{i}",
                    "namespace": meta["namespace"],
                    "ownerReferences": [owner],
                },
                "spec": template["spec"],
            }
            server.create_object("", "v1", "pods", pod)


def pods(server: FakeAPIServer) -> list[dict[str, Any]]:
    return server.list_objects("", "v1", "pods", NAMESPACE)


def groups(server: FakeAPIServer, version: str = "v1beta1", plural: str = "podgroups") -> list[Any]:
    return server.list_objects(SCHEDULING, version, plural, NAMESPACE)


def condition(group: dict[str, Any]) -> tuple[str, str]:
    (found,) = [
        c for c in group["status"]["conditions"] if c["type"].endswith("InitiallyScheduled")
    ]
    return found["status"], found["reason"]


async def eventually(check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.1)


async def test_a_pytorch_run_is_scheduled_as_one_gang_and_collected_with_its_kfjob(
    fake_apiserver: FakeAPIServer,
) -> None:
    kfjob = start_run(fake_apiserver, PYTORCH)
    simulator = GangSimulator(fake_apiserver, nodes(4))
    (group,) = groups(fake_apiserver)
    members = pods(fake_apiserver)
    assert len(members) == 4
    for pod in members:
        assert pod["spec"]["schedulingGroup"] == {"podGroupName": group["metadata"]["name"]}
        assert pod["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "research"
    step = await simulator.step()
    assert len(step.bound) == 4
    (group,) = groups(fake_apiserver)
    assert condition(group)[0] == "True"
    # deleting the KfJob collects its Workload, its group and its pods
    fake_apiserver.delete_object(*KFJOBS, NAMESPACE, kfjob["metadata"]["name"])
    await eventually(
        lambda: not fake_apiserver.list_objects(SCHEDULING, "v1beta1", "workloads", NAMESPACE)
    )
    await simulator.finish_terminating()
    await eventually(lambda: not pods(fake_apiserver) and not groups(fake_apiserver))


async def test_a_run_that_cannot_fit_is_left_unschedulable(fake_apiserver: FakeAPIServer) -> None:
    start_run(fake_apiserver, PYTORCH)
    simulator = GangSimulator(fake_apiserver, nodes(3))  # 4 pods, room for 3
    step = await simulator.step()
    assert step.bound == {}
    assert not any(p["spec"].get("nodeName") for p in pods(fake_apiserver))
    (group,) = groups(fake_apiserver)
    assert condition(group) == ("False", "Unschedulable")


async def test_an_mpi_run_is_all_or_nothing(fake_apiserver: FakeAPIServer) -> None:
    """The launcher alone would fit; as a composite of both gangs, nothing binds."""
    start_run(fake_apiserver, MPI)
    simulator = GangSimulator(fake_apiserver, nodes(3))  # 1 launcher + 3 workers, room for 3
    step = await simulator.step()
    assert step.bound == {}
    (parent,) = groups(fake_apiserver, "v1alpha3", "compositepodgroups")
    assert condition(parent) == ("False", "Unschedulable")
    assert len(groups(fake_apiserver)) == 2


async def test_an_mpi_run_fits_as_a_whole(fake_apiserver: FakeAPIServer) -> None:
    kfjob = start_run(fake_apiserver, MPI)
    simulator = GangSimulator(fake_apiserver, nodes(4))
    step = await simulator.step()
    assert len(step.bound) == 4
    (parent,) = groups(fake_apiserver, "v1alpha3", "compositepodgroups")
    assert condition(parent)[0] == "True"
    fake_apiserver.delete_object(*KFJOBS, NAMESPACE, kfjob["metadata"]["name"])
    await eventually(lambda: not groups(fake_apiserver, "v1alpha3", "compositepodgroups"))
    await simulator.finish_terminating()
    await eventually(lambda: not pods(fake_apiserver) and not groups(fake_apiserver))


async def test_mpi_gangs_without_composites_are_independent(fake_apiserver: FakeAPIServer) -> None:
    """Without the composite, one gang binds without the other: what the gate buys."""
    start_run(fake_apiserver, MPI, composite=False)
    simulator = GangSimulator(fake_apiserver, nodes(3))
    step = await simulator.step()
    roles = {name.rpartition("-")[0].rpartition("-")[2] for name in step.bound}
    assert roles in ({"launcher"}, {"worker"})  # a whole gang, never both
    assert groups(fake_apiserver, "v1alpha3", "compositepodgroups") == []


async def test_composite_served_asks_the_cluster(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        assert await wbp.composite_served(api) is True


@pytest.mark.fake_apiserver(feature_gates={"CompositePodGroup": False})
async def test_without_the_composite_gate_the_plugin_chooses_independent_gangs(
    fake_apiserver: FakeAPIServer,
) -> None:
    async with fake_apiserver.api_client() as api:
        assert await wbp.composite_served(api) is False
    start_run(fake_apiserver, MPI, composite=False)  # accepted: no CompositePodGroup needed
    assert len(groups(fake_apiserver)) == 2


@pytest.mark.fake_apiserver(feature_gates={"GenericWorkload": False, "CompositePodGroup": False})
async def test_without_any_workload_api_the_plugin_is_told_which_gate(
    fake_apiserver: FakeAPIServer,
) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(MissingAPIError, match="GenericWorkload"):
            await wbp.composite_served(api)
