"""diagnose over real HTTP on the seed's situations (minCount 4: 3 created / 4 created, 3 fit /
4 fit / placed then a worker lost), preemption, a missing group, image pulls and composites.
Scheduler messages expected here are quoted from `real-apiserver-observed.md`."""

from __future__ import annotations

from typing import Any

from kubernetes.aio.client import ApiClient as OfficialApiClient
from kubernetes.aio.client import Configuration as OfficialConfiguration

from workloadbuilder import aio
from workloadbuilder.aio import GroupState, MemberProblem
from workloadbuilder.testing import FakeAPIServer, GangSimulator

from .seed import (
    GROUP,
    GROUP_UNSCHEDULABLE,
    MISFIT,
    NS,
    WAITING,
    composite,
    namespace,
    nodes,
    pod,
    pod_group,
    situation,
)

REF = {"kind": "PodGroup", "metadata": {"name": GROUP, "namespace": NS}}


async def test_three_of_four_created_is_waiting_for_members() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=3, node_count=4)
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.WAITING_FOR_MEMBERS
    assert (verdict.present, verdict.required) == (3, 4)
    assert (verdict.reason, verdict.message) == (None, None)  # the scheduler wrote nothing
    assert [m.name for m in verdict.members] == ["p1", "p2", "p3"]
    assert all(m.problem is None and m.events == () for m in verdict.members)
    assert "3 of 4" in verdict.summary


async def test_four_created_three_fit_is_unschedulable_with_the_schedulers_messages() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=4, node_count=3)
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.UNSCHEDULABLE
    assert (verdict.reason, verdict.message) == ("Unschedulable", GROUP_UNSCHEDULABLE)
    assert (verdict.present, verdict.required) == (4, 4)
    messages = sorted(m.scheduler_message or "" for m in verdict.members)
    assert messages == sorted([WAITING] * 3 + [MISFIT])
    for member in verdict.members:
        (event,) = member.events
        assert (event.type, event.reason, event.message) == (
            "Warning",
            "FailedScheduling",
            member.scheduler_message,
        )
    assert GROUP_UNSCHEDULABLE in verdict.summary


async def test_four_fit_is_scheduled() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=4, node_count=4)
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.SCHEDULED
    assert (verdict.reason, verdict.message) == ("Scheduled", "")
    assert sorted(m.node or "" for m in verdict.members) == [f"node-{i}" for i in range(4)]
    assert all(m.problem is None for m in verdict.members)
    assert all(
        [(e.type, e.reason) for e in m.events] == [("Normal", "Scheduled")] for m in verdict.members
    )


async def test_placed_then_a_worker_lost_is_degraded() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        simulator = await situation(server, created=4, node_count=4)
        await simulator.evict(NS, "p2")
        await simulator.step()  # the condition stays True: the scheduler never reverts it
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.DEGRADED
    assert (verdict.reason, verdict.message) == ("Scheduled", "")
    assert (verdict.present, verdict.required) == (3, 4)
    (lost,) = [m for m in verdict.members if m.problem is not None]
    assert (lost.name, lost.problem, lost.phase) == ("p2", MemberProblem.EVICTED, "Failed")


async def test_placed_then_a_worker_deleted_is_degraded() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=4, node_count=4)
        server.delete_object("", "v1", "pods", NS, "p4", grace_period_seconds=0)  # gone at once
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.DEGRADED
    assert (verdict.present, verdict.required) == (3, 4)
    assert all(m.problem is None for m in verdict.members)
    assert "lost: the missing pods are gone (deleted)" in verdict.summary


async def test_a_failed_member_and_an_image_pull_are_degraded() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=4, node_count=4)
        server.patch_status("", "v1", "pods", NS, "p1", {"phase": "Failed", "message": "OOM"})
        waiting = {"reason": "ImagePullBackOff", "message": 'Back-off pulling image "trainer"'}
        statuses = [{"name": "m", "state": {"waiting": waiting}, "ready": False}]
        server.patch_status("", "v1", "pods", NS, "p3", {"containerStatuses": statuses})
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.DEGRADED
    problems = {m.name: m.problem for m in verdict.members if m.problem}
    assert problems == {"p1": MemberProblem.FAILED, "p3": MemberProblem.IMAGE_PULL}
    (pull,) = [m for m in verdict.members if m.name == "p3"]
    assert "ImagePullBackOff" in pull.detail


async def test_a_preempted_member_is_preempted() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        pod_group(server)
        for i in range(1, 5):  # a controller's finalizer keeps the victim visible, Terminating
            pod(server, f"p{i}")
        server.patch_object(
            "", "v1", "pods", NS, "p1", {"metadata": {"finalizers": ["example.com/keep"]}}
        )
        simulator = GangSimulator(server, nodes(4))
        await simulator.step()
        high = {"kind": "PodGroup", "metadata": {"name": "high", "uid": "uid-high"}}
        await simulator.preempt(NS, "p1", by=high)
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.PREEMPTED
    (victim,) = [m for m in verdict.members if m.problem is not None]
    assert victim.name == "p1" and victim.problem is MemberProblem.PREEMPTED
    # real-apiserver-observed.md, "How victims are evicted"
    assert (
        victim.detail == "default-scheduler: preempting to accommodate a higher priority podgroup"
    )
    assert ("Normal", "Preempted", "Preempted by podgroup uid-high on node cluster") in [
        (e.type, e.reason, e.message) for e in victim.events
    ]


async def test_pods_naming_a_missing_group() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        pod(server, "orphan", group="missing-pg")
        await GangSimulator(server, nodes(1)).step()
        ref = {"kind": "PodGroup", "metadata": {"name": "missing-pg", "namespace": NS}}
        verdict = await aio.diagnose(api, ref)
    assert verdict.state is GroupState.MISSING
    assert [m.name for m in verdict.members] == ["orphan"]
    # real-apiserver-observed.md (d): the pod stays Pending with no condition and no event
    (member,) = verdict.members
    assert (member.node, member.scheduler_message, member.events) == (None, None, ())


async def test_enough_members_not_yet_tried_is_pending() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        pod_group(server)
        for i in range(1, 5):
            pod(server, f"p{i}")
        verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.PENDING


def release(server: FakeAPIServer, workers: int) -> None:
    """The release's ``workload-root`` (minGroupCount 2) over workers (4) and driver (1)."""
    namespace(server)
    composite(server, "workload-root", 2)
    for name, count in (("workers", 4), ("driver", 1)):
        pod_group(
            server,
            name,
            count,
            parentCompositePodGroupName="workload-root",
            workloadRef={"workloadName": "train", "templateName": name},
        )
    for i in range(workers):
        pod(server, f"workers-{i}", group="workers", cpu="1")
    pod(server, "driver-0", group="driver", cpu="1")


ROOT: dict[str, Any] = {"kind": "CompositePodGroup", "metadata": {"name": "workload-root"}}
ROOT["metadata"]["namespace"] = NS


async def test_composite_names_the_child_that_keeps_min_group_count_from_being_met() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        release(server, workers=3)
        await GangSimulator(server, nodes(4)).step()
        verdict = await aio.diagnose(api, ROOT)
    assert verdict.state is GroupState.WAITING_FOR_MEMBERS
    # workers has 3 of its 4 pods: only driver can be tried, 1 of minGroupCount 2
    assert (verdict.present, verdict.required) == (1, 2)
    states = {c.group.name: c.state for c in verdict.children}
    assert states == {"driver": GroupState.PENDING, "workers": GroupState.WAITING_FOR_MEMBERS}
    assert [b.name for b in verdict.blocking] == ["workers"]


async def test_composite_scheduled_then_a_child_degraded() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        release(server, workers=4)
        simulator = GangSimulator(server, nodes(4))
        await simulator.step()
        placed = await aio.diagnose(api, ROOT)
        await simulator.evict(NS, "workers-0")
        degraded = await aio.diagnose(api, ROOT)
    assert placed.state is GroupState.SCHEDULED
    assert {c.group.name: c.state for c in placed.children} == {
        "driver": GroupState.SCHEDULED,
        "workers": GroupState.SCHEDULED,
    }
    assert degraded.state is GroupState.DEGRADED
    assert {c.group.name: c.state for c in degraded.children}["workers"] is GroupState.DEGRADED


async def test_the_official_clients_kubernetes_aio() -> None:
    async with FakeAPIServer() as server:
        await situation(server, created=4, node_count=3)
        async with OfficialApiClient(OfficialConfiguration(host=server.url)) as api:
            verdict = await aio.diagnose(api, REF)
    assert verdict.state is GroupState.UNSCHEDULABLE


async def test_composite_that_cannot_be_placed_is_unschedulable() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        release(server, workers=4)  # 4 workers of 1 cpu and a driver, on one 2-cpu node
        await GangSimulator(server, nodes(1)).step()
        verdict = await aio.diagnose(api, ROOT)
    assert verdict.state is GroupState.UNSCHEDULABLE
    assert verdict.reason == "Unschedulable"
    workers = next(c for c in verdict.children if c.group.name == "workers")
    misfits = [
        m
        for m in workers.members
        if m.scheduler_message and "Insufficient cpu" in m.scheduler_message
    ]
    assert misfits  # the members say why: the node-fit message


async def test_the_client_object_binds_the_same_coroutines() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=4, node_count=4)
        client = aio.Client(api, "observer")
        verdict = await client.diagnose(REF)
        placed = await client.wait_scheduled(REF, timeout=5)
        findings = await client.audit(NS)
    assert verdict.state is GroupState.SCHEDULED
    assert placed.metadata.name == GROUP
    assert findings == []
