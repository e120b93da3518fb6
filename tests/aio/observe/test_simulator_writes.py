"""What the simulator writes on pods, groups and events, against what a real kube-scheduler
wrote (`real-apiserver-observed.md`, "Gang scheduling" (a)-(c) and "How victims are evicted",
with 1.37's condition name ``PodGroupInitiallyScheduled``). Every expected string below is
quoted from those observations: 3 nodes of 2 cpu, pods of 1500m, ``minCount: 4``."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.testing import FakeAPIServer, GangSimulator

from .seed import GROUP_UNSCHEDULABLE, MISFIT, NS, WAITING, ZONE, nodes, situation


def pods(server: FakeAPIServer) -> dict[str, dict[str, Any]]:
    return {p["metadata"]["name"]: p for p in server.list_objects("", "v1", "pods", NS)}


def events(server: FakeAPIServer) -> list[tuple[str, str, str, str]]:
    return sorted(
        (e["involvedObject"]["name"], e["type"], e["reason"], e["message"])
        for e in server.list_objects("", "v1", "events", NS)
    )


def group(server: FakeAPIServer) -> dict[str, Any]:
    found = server.get_object("scheduling.k8s.io", "v1beta1", "podgroups", NS, "pg")
    assert found is not None
    return found


@pytest.fixture
async def server() -> Any:
    async with FakeAPIServer() as srv:
        yield srv


async def test_a_waiting_for_members_writes_nothing(server: FakeAPIServer) -> None:
    simulator = await situation(server, created=3, node_count=4)
    rv = server.resource_version
    await simulator.step()
    assert server.resource_version == rv  # no write at all, pass after pass
    assert all((p.get("status") or {}).get("conditions") is None for p in pods(server).values())
    assert all(p["spec"].get("nodeName") is None for p in pods(server).values())
    assert events(server) == []
    assert not group(server).get("status")  # the server's status: {}, untouched


async def test_b_four_created_three_fit(server: FakeAPIServer) -> None:
    sim = await situation(server, created=4, node_count=3)
    written = pods(server)
    messages = {}
    for name, pod in written.items():
        assert pod["spec"].get("nodeName") is None
        (cond,) = pod["status"]["conditions"]
        assert (cond["type"], cond["status"], cond["reason"]) == (
            "PodScheduled",
            "False",
            "Unschedulable",
        )
        assert cond["observedGeneration"] == 1
        messages[name] = cond["message"]
    assert sorted(messages.values()) == sorted([WAITING] * 3 + [MISFIT])
    (cond,) = group(server)["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
        "PodGroupInitiallyScheduled",
        "False",
        "Unschedulable",
        GROUP_UNSCHEDULABLE,
    )
    expected = sorted((n, "Warning", "FailedScheduling", m) for n, m in messages.items())
    assert events(server) == expected
    rv = server.resource_version
    await sim.step()  # the same outcome again: no new writes, as the real scheduler's loop
    assert server.resource_version == rv


async def test_c_four_fit_then_the_fourth_node_arrives(server: FakeAPIServer) -> None:
    await situation(server, created=4, node_count=3)
    before = group(server)["status"]["conditions"][0]["lastTransitionTime"]
    await GangSimulator(server, nodes(4)).step()
    placed = pods(server)
    assert sorted(p["spec"]["nodeName"] for p in placed.values()) == [
        "node-0",
        "node-1",
        "node-2",
        "node-3",
    ]  # one per node
    for name, pod in placed.items():
        (cond,) = pod["status"]["conditions"]
        assert (cond["type"], cond["status"]) == ("PodScheduled", "True")
        assert "reason" not in cond and "message" not in cond
        zone = "ab"[int(pod["spec"]["nodeName"][-1]) % 2]
        assert pod["metadata"]["labels"] == {ZONE: zone}
        node = pod["spec"]["nodeName"]
        scheduled = (name, "Normal", "Scheduled", f"Successfully assigned {NS}/{name} to {node}")
        assert scheduled in events(server)
    (cond,) = group(server)["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
        "PodGroupInitiallyScheduled",
        "True",
        "Scheduled",
        "",
    )
    assert cond["lastTransitionTime"] >= before


async def test_preemption_victim_gets_disruption_target_and_an_event(
    server: FakeAPIServer,
) -> None:
    sim = await situation(server, created=4, node_count=4)
    victim = pods(server)["p2"]
    seen: list[dict[str, Any]] = []
    async with server.api_client() as api:
        from kubernetes_asyncio import client, watch

        core = client.CoreV1Api(api)
        rv = server.resource_version
        preemptor = {"kind": "PodGroup", "metadata": {"name": "high", "uid": "uid-high"}}
        await sim.preempt(NS, "p2", by=preemptor)
        async with watch.Watch().stream(
            core.list_namespaced_pod, NS, resource_version=rv, timeout_seconds=1
        ) as stream:
            async for event in stream:
                seen.append(event["raw_object"])
    target = next(
        c
        for o in seen
        for c in o["status"].get("conditions") or []
        if c["type"] == "DisruptionTarget"
    )
    assert (target["status"], target["reason"], target["message"]) == (
        "True",
        "PreemptionByScheduler",
        "default-scheduler: preempting to accommodate a higher priority podgroup",
    )
    assert target["observedGeneration"] == victim["metadata"]["generation"]
    preempted = [e for e in events(server) if e[2] == "Preempted"]
    assert preempted == [
        ("p2", "Normal", "Preempted", "Preempted by podgroup uid-high on node cluster")
    ]
    (event,) = [
        e for e in server.list_objects("", "v1", "events", NS) if e["reason"] == "Preempted"
    ]
    assert (event["action"], event["reportingComponent"]) == ("Preempting", "default-scheduler")
    assert event["involvedObject"]["uid"] == victim["metadata"]["uid"]
    delete = [r for r in server.requests if r.method == "DELETE" and r.path.endswith("/pods/p2")]
    assert len(delete) == 1  # default options: the pod's own grace period, 30 s by default
    terminating = pods(server)["p2"]["metadata"]
    assert terminating["deletionGracePeriodSeconds"] == 30
    # the victim's group gets no condition: it keeps True / Scheduled / ""
    (cond,) = group(server)["status"]["conditions"]
    assert (cond["status"], cond["reason"], cond["message"]) == ("True", "Scheduled", "")


async def test_preemption_by_a_plain_pod_names_the_pod_and_node(server: FakeAPIServer) -> None:
    sim = await situation(server, created=4, node_count=4)
    node = pods(server)["p1"]["spec"]["nodeName"]
    await sim.preempt(NS, "p1", by={"kind": "Pod", "metadata": {"name": "hi", "uid": "uid-hi"}})
    assert [e for e in events(server) if e[2] == "Preempted"] == [
        ("p1", "Normal", "Preempted", f"Preempted by pod uid-hi on node {node}")
    ]
