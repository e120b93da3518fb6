"""GangSimulator against the test API server: the release's acceptance scenarios."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from workloadbuilder.testing.server import FakeAPIServer
from workloadbuilder.testing.sim import GangSimulator, SimNode

NS = "default"
ZONE = "topology.kubernetes.io/zone"
PODS = f"/api/v1/namespaces/{NS}/pods"
PODGROUPS = f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NS}/podgroups"
COMPOSITES = f"/apis/scheduling.k8s.io/v1alpha3/namespaces/{NS}/compositepodgroups"


class Cluster:
    """The server seen through plain REST calls."""

    def __init__(self, http: aiohttp.ClientSession) -> None:
        self.http = http

    async def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        async with self.http.request(method, path, json=body) as response:
            payload: dict[str, Any] = await response.json(content_type=None)
            assert response.status < 300, payload
            return payload

    async def pod(self, name: str, group: str | None, cpu: str = "2") -> None:
        spec: dict[str, Any] = {
            "containers": [
                {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
            ]
        }
        if group:
            spec["schedulingGroup"] = {"podGroupName": group}
        await self.call(
            "POST",
            PODS,
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec},
        )

    async def pod_group(
        self, name: str, min_count: int, parent: str | None = None, **spec: Any
    ) -> None:
        body: dict[str, Any] = {
            "schedulingPolicy": {"gang": {"minCount": min_count}},
            "workloadRef": {"workloadName": "train", "templateName": name},
            **spec,
        }
        if parent:
            body["parentCompositePodGroupName"] = parent
        obj = {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": name},
            "spec": body,
        }
        await self.call("POST", PODGROUPS, obj)

    async def composite(self, name: str, min_group_count: int) -> None:
        obj = {
            "apiVersion": "scheduling.k8s.io/v1alpha3",
            "kind": "CompositePodGroup",
            "metadata": {"name": name},
            "spec": {
                "schedulingPolicy": {"gang": {"minGroupCount": min_group_count}},
                "workloadRef": {"workloadName": "train", "templateName": name},
            },
        }
        await self.call("POST", COMPOSITES, obj)

    async def nodes_of(self, *names: str) -> dict[str, str | None]:
        return {n: (await self.call("GET", f"{PODS}/{n}"))["spec"].get("nodeName") for n in names}

    async def condition(self, path: str, type_: str) -> dict[str, Any] | None:
        obj = await self.call("GET", path)
        conditions = (obj.get("status") or {}).get("conditions") or []
        return next((c for c in conditions if c["type"] == type_), None)


@pytest.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as srv:
        yield srv


@pytest.fixture
async def cluster(server: FakeAPIServer) -> AsyncIterator[Cluster]:
    async with aiohttp.ClientSession(server.url) as http:
        yield Cluster(http)


def nodes(*cpus: str, zones: str = "") -> list[SimNode]:
    return [
        SimNode(f"n{i}", {"cpu": c}, {ZONE: zones[i]} if zones else {}) for i, c in enumerate(cpus)
    ]


WORKERS = [f"workers-{i}" for i in range(4)]


async def test_gang_waits_until_min_count_pods_exist(
    server: FakeAPIServer, cluster: Cluster
) -> None:
    await cluster.pod_group("workers", 4)
    for name in WORKERS[:3]:
        await cluster.pod(name, "workers")
    result = await GangSimulator(server, nodes("8", "8")).step()
    assert result.bound == {}
    assert result.conditions == {}
    assert set(result.pending) == {f"{NS}/{n}" for n in WORKERS[:3]}
    assert await cluster.condition(f"{PODGROUPS}/workers", "PodGroupInitiallyScheduled") is None


async def test_gang_stays_pending_when_only_three_fit(
    server: FakeAPIServer, cluster: Cluster
) -> None:
    await cluster.pod_group("workers", 4)
    for name in WORKERS:
        await cluster.pod(name, "workers", cpu="4")
    result = await GangSimulator(server, nodes("8", "4")).step()
    assert result.bound == {}
    assert set((await cluster.nodes_of(*WORKERS)).values()) == {None}
    condition = await cluster.condition(f"{PODGROUPS}/workers", "PodGroupInitiallyScheduled")
    assert condition is not None
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    assert condition["message"] == (  # real-apiserver-observed.md, gang scheduling (b)
        "0/1 placements are available, first placement status: pod group is unschedulable,"
        " No preemption victims found for incoming preemptor"
    )
    assert condition["lastTransitionTime"].endswith("Z")
    assert "observedGeneration" not in condition  # observed: PodGroup conditions carry none


async def test_gang_binds_all_when_four_fit(server: FakeAPIServer, cluster: Cluster) -> None:
    await cluster.pod_group("workers", 4)
    for name in WORKERS:
        await cluster.pod(name, "workers", cpu="4")
    result = await GangSimulator(server, nodes("8", "8")).step()
    assert len(result.bound) == 4
    assert await cluster.nodes_of(*WORKERS) == dict(
        zip(WORKERS, ["n0", "n0", "n1", "n1"], strict=True)
    )
    condition = await cluster.condition(f"{PODGROUPS}/workers", "PodGroupInitiallyScheduled")
    assert condition is not None
    assert (condition["status"], condition["reason"]) == ("True", "Scheduled")


async def test_pod_with_missing_pod_group_stays_pending(
    server: FakeAPIServer, cluster: Cluster
) -> None:
    await cluster.pod("orphan", "nowhere")
    result = await GangSimulator(server, nodes("8")).step()
    assert result.pending == {f"{NS}/orphan": f"pod group {NS}/nowhere not found"}
    assert await cluster.nodes_of("orphan") == {"orphan": None}


async def test_losing_a_worker_keeps_condition_true(
    server: FakeAPIServer, cluster: Cluster
) -> None:
    await cluster.pod_group("workers", 4)
    for name in WORKERS:
        await cluster.pod(name, "workers")
    sim = GangSimulator(server, nodes("8"))
    await sim.step()
    await sim.evict(NS, "workers-0")
    lost = await cluster.call("GET", f"{PODS}/workers-0")
    assert (lost["status"]["phase"], lost["status"]["reason"]) == ("Failed", "Evicted")
    result = await sim.step()
    assert result.conditions == {}
    condition = await cluster.condition(f"{PODGROUPS}/workers", "PodGroupInitiallyScheduled")
    assert condition is not None and condition["status"] == "True"


async def release(cluster: Cluster, worker_cpu: str) -> None:
    """The release's ``workload-root`` (gang 2) over ``workers`` (gang 4) and ``driver`` (1)."""
    await cluster.composite("workload-root", 2)
    await cluster.pod_group("workers", 4, parent="workload-root")
    await cluster.pod_group("driver", 1, parent="workload-root")
    for name in WORKERS:
        await cluster.pod(name, "workers", cpu=worker_cpu)
    await cluster.pod("driver-0", "driver", cpu="1")


async def test_release_composite_binds_all_five(server: FakeAPIServer, cluster: Cluster) -> None:
    await release(cluster, worker_cpu="2")
    result = await GangSimulator(server, nodes("8", "8")).step()
    assert len(result.bound) == 5
    assert None not in (await cluster.nodes_of(*WORKERS, "driver-0")).values()
    root = await cluster.condition(
        f"{COMPOSITES}/workload-root", "CompositePodGroupInitiallyScheduled"
    )
    assert root is not None and (root["status"], root["reason"]) == ("True", "Scheduled")


async def test_release_composite_binds_none(server: FakeAPIServer, cluster: Cluster) -> None:
    await release(cluster, worker_cpu="5")
    result = await GangSimulator(server, nodes("8", "8", "8")).step()
    assert result.bound == {}
    assert set((await cluster.nodes_of(*WORKERS, "driver-0")).values()) == {None}
    root = await cluster.condition(
        f"{COMPOSITES}/workload-root", "CompositePodGroupInitiallyScheduled"
    )
    assert root is not None and (root["status"], root["reason"]) == ("False", "Unschedulable")


async def test_topology_gang_binds_in_one_zone(server: FakeAPIServer, cluster: Cluster) -> None:
    await cluster.pod_group("workers", 4, schedulingConstraints={"topology": [{"key": ZONE}]})
    for name in WORKERS:
        await cluster.pod(name, "workers", cpu="4")
    sim = GangSimulator(server, nodes("8", "8", "8", "8", zones="abba"))
    await sim.step()
    placed = set((await cluster.nodes_of(*WORKERS)).values())
    zones = {n.labels[ZONE] for n in sim.nodes if n.name in placed}
    assert zones == {"a"}


async def test_topology_gang_pending_when_no_zone_fits(
    server: FakeAPIServer, cluster: Cluster
) -> None:
    await cluster.pod_group("workers", 4, schedulingConstraints={"topology": [{"key": ZONE}]})
    for name in WORKERS:
        await cluster.pod(name, "workers", cpu="4")
    result = await GangSimulator(server, nodes("8", "8", zones="ab")).step()
    assert result.bound == {}
    (status, reason, message) = result.conditions[f"PodGroup {NS}/workers"]
    assert (status, reason) == ("False", "Unschedulable")
    assert message == (  # real-apiserver-observed.md, topology 2a
        "0/2 placements are available, first placement status: pod group is unschedulable,"
        " workload aware preemption is not supported for pod groups with scheduling constraints"
    )


async def test_evicting_an_unbound_pod_is_refused(server: FakeAPIServer, cluster: Cluster) -> None:
    await cluster.pod("lonely", None, cpu="100")
    sim = GangSimulator(server, nodes("8"))
    result = await sim.step()
    assert result.pending == {
        f"{NS}/lonely": "no node fits: insufficient free resources or nodeSelector mismatch"
    }
    with pytest.raises(ValueError, match="not bound to a node"):
        await sim.evict(NS, "lonely")


async def test_steps_are_deterministic() -> None:
    outcomes = []
    for _ in range(2):
        async with FakeAPIServer() as srv, aiohttp.ClientSession(srv.url) as http:
            c = Cluster(http)
            await c.pod_group("workers", 2)
            for name in ["w-b", "w-a", "w-c"]:
                await c.pod(name, "workers", cpu="3")
            await c.pod("plain", None, cpu="5")
            outcomes.append(await GangSimulator(srv).step())
    assert outcomes[0] == outcomes[1]
    assert outcomes[0].bound == {
        f"{NS}/plain": "node-0",
        f"{NS}/w-a": "node-0",
        f"{NS}/w-b": "node-1",
        f"{NS}/w-c": "node-1",
    }


async def test_default_nodes_span_two_zones(server: FakeAPIServer) -> None:
    sim = GangSimulator(server)
    assert [n.name for n in sim.nodes] == ["node-0", "node-1", "node-2", "node-3"]
    assert [n.labels[ZONE] for n in sim.nodes] == ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match="unique"):
        GangSimulator(server, [SimNode("x"), SimNode("x")])


async def test_works_without_composite_api() -> None:
    versions = ["v1", "scheduling.k8s.io/v1beta1"]
    async with (
        FakeAPIServer(group_versions=versions) as srv,
        aiohttp.ClientSession(srv.url) as http,
    ):
        c = Cluster(http)
        await c.pod_group("workers", 1)
        await c.pod("w-0", "workers")
        result = await GangSimulator(srv).step()
    assert result.bound == {f"{NS}/w-0": "node-0"}


async def test_tree_spanning_two_workloads_is_invalid(
    server: FakeAPIServer, cluster: Cluster
) -> None:
    await cluster.composite("root", 1)
    await cluster.pod_group("a", 1, parent="root")
    other = {"workloadName": "other", "templateName": "b"}
    await cluster.pod_group("b", 1, parent="root", workloadRef=other)
    await cluster.pod("a-0", "a")
    result = await GangSimulator(server, nodes("8")).step()
    assert result.bound == {}
    root = await cluster.condition(f"{COMPOSITES}/root", "CompositePodGroupInitiallyScheduled")
    assert root is not None
    assert (root["status"], root["reason"]) == ("False", "Invalid")
    assert root["message"] == "the group hierarchy spans several Workloads: 'other', 'train'"


async def test_a_pod_whose_quantity_is_beyond_the_simulators_range_waits(
    server: FakeAPIServer, cluster: Cluster
) -> None:
    # ParseQuantity keeps any exponent that fits an int32, so the API server stores this pod;
    # the simulator neither hangs computing 10**999999999 nor stops scheduling the others.
    await cluster.pod("huge", None, cpu="1e999999999")
    await cluster.pod("small", None)
    result = await GangSimulator(server, nodes("8")).step()
    assert set(result.bound) == {f"{NS}/small"}
    assert "beyond the simulator's range" in result.pending[f"{NS}/huge"]
