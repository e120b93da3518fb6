"""wait_scheduled over real HTTP: it watches, returns once placed, raises with the scheduler's
reason and message, and survives an expired watch (410) and a server restart."""

from __future__ import annotations

import asyncio

import pytest
from kubernetes.aio.client import ApiClient as OfficialApiClient
from kubernetes.aio.client import Configuration as OfficialConfiguration

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer, GangSimulator

from .seed import (
    GROUP,
    GROUP_UNSCHEDULABLE,
    NS,
    SCHEDULING,
    composite,
    namespace,
    nodes,
    pod,
    pod_group,
    situation,
)

REF = {"kind": "PodGroup", "metadata": {"name": GROUP, "namespace": NS}}


def group_gets(server: FakeAPIServer) -> tuple[int, int]:
    """(lists, watches) sent for the PodGroup collection."""
    gets = [
        r
        for r in server.requests
        if r.method == "GET" and r.path.endswith(f"/namespaces/{NS}/podgroups")
    ]
    watches = sum(1 for r in gets if r.query.get("watch") == "true")
    return len(gets) - watches, watches


async def test_returns_for_the_fit_by_watching() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        simulator = await situation(server, created=3, node_count=4)
        pod(server, "p4")

        async def schedule_later() -> None:
            while server.open_watches == 0:
                await asyncio.sleep(0.01)
            await simulator.step()

        scheduler = asyncio.create_task(schedule_later())
        placed = await aio.wait_scheduled(api, REF, timeout=10)
        await scheduler
    assert isinstance(placed, wb.PodGroup)
    assert placed.status is not None and placed.status.conditions is not None
    (cond,) = placed.status.conditions
    # real-apiserver-observed.md (c): True, reason Scheduled, message ""
    assert (cond.type, cond.status, cond.reason, cond.message) == (
        "PodGroupInitiallyScheduled",
        "True",
        "Scheduled",
        "",
    )
    assert group_gets(server) == (1, 1)  # one list, one watch: no polling


async def test_returns_at_once_when_already_placed_and_accepts_models() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=4, node_count=4)
        stored = server.get_object(SCHEDULING, "v1beta1", "podgroups", NS, GROUP)
        assert stored is not None
        placed = await aio.wait_scheduled(api, wb.PodGroup.from_server(stored), timeout=5)
    assert placed.metadata.name == GROUP
    assert group_gets(server) == (1, 0)


async def test_raises_with_unschedulable_for_four_created_three_fit() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=4, node_count=3)
        with pytest.raises(aio.NotScheduledError) as caught:
            await aio.wait_scheduled(api, REF, timeout=1)
    error = caught.value
    assert isinstance(error, TimeoutError)
    assert (error.status, error.reason, error.message) == (
        "False",
        "Unschedulable",
        GROUP_UNSCHEDULABLE,
    )
    assert "Unschedulable" in str(error) and GROUP_UNSCHEDULABLE in str(error)


async def test_raises_with_no_condition_while_waiting_for_members() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        await situation(server, created=3, node_count=4)
        with pytest.raises(aio.NotScheduledError) as caught:
            await aio.wait_scheduled(api, REF, timeout=0.5)
    assert (caught.value.exists, caught.value.status, caught.value.reason) == (True, None, None)


async def test_raises_for_a_missing_group() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        with pytest.raises(aio.NotScheduledError) as caught:
            await aio.wait_scheduled(api, REF, timeout=0.5)
    assert caught.value.exists is False
    assert "does not exist" in str(caught.value)


@pytest.mark.fake_apiserver(event_history=5)
async def test_survives_an_expired_watch_and_a_restart(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    async with server.api_client() as api:
        simulator = await situation(server, created=4, node_count=3)
        waiter = asyncio.create_task(aio.wait_scheduled(api, REF, timeout=15))
        while server.open_watches == 0:
            await asyncio.sleep(0.01)
        for i in range(10):  # push the watched resourceVersion out of the retained history
            pod(server, f"other-{i}", group=None, cpu="1m")
        await server.restart(downtime=0.3)  # ends the watch; the reconnect gets a 410
        while group_gets(server)[0] < 2:  # the 410 made it list again
            await asyncio.sleep(0.01)
        simulator.nodes = tuple(nodes(4))  # a fourth node arrives: the gang fits
        await simulator.step()
        placed = await waiter
    assert placed.metadata.name == GROUP
    lists, watches = group_gets(server)
    assert lists == 2 and watches >= 3


async def test_the_official_clients_kubernetes_aio() -> None:
    async with FakeAPIServer() as server:
        await situation(server, created=4, node_count=4)
        async with OfficialApiClient(OfficialConfiguration(host=server.url)) as api:
            placed = await aio.wait_scheduled(api, REF, timeout=5)
    assert placed.metadata.name == GROUP


async def test_a_composite_waits_for_its_own_condition() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        composite(server, "root", 1, workload="w")
        pod_group(
            server,
            min_count=1,
            parentCompositePodGroupName="root",
            workloadRef={"workloadName": "w", "templateName": GROUP},
        )
        pod(server, "p1")
        await GangSimulator(server, nodes(1)).step()
        root = {"kind": "CompositePodGroup", "metadata": {"name": "root", "namespace": NS}}
        placed = await aio.wait_scheduled(api, root, timeout=5)
    assert isinstance(placed, wb.CompositePodGroup)
    assert placed.status is not None and placed.status.conditions is not None
    assert placed.status.conditions[0].type == "CompositePodGroupInitiallyScheduled"


async def test_a_throttled_reconnect_is_resumed_without_relisting() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        simulator = await situation(server, created=4, node_count=3)
        waiter = asyncio.create_task(aio.wait_scheduled(api, REF, timeout=15))
        while server.open_watches == 0:
            await asyncio.sleep(0.01)
        server.faults.add(status=429, method="GET", path=f"*/namespaces/{NS}/podgroups", times=2)
        await server.restart()  # the next two watches are answered 429
        while server.faults.pending and not waiter.done():
            await asyncio.sleep(0.01)
        simulator.nodes = tuple(nodes(4))
        await simulator.step()
        placed = await waiter
    assert placed.metadata.name == GROUP
    lists, watches = group_gets(server)
    assert lists == 1 and watches >= 4  # resumed from the same resourceVersion


async def test_raises_with_invalid_for_a_rejected_hierarchy() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        composite(server, "root", 1, workload="one")
        pod_group(  # a child stamped from another Workload: the scheduler rejects the tree
            server,
            min_count=1,
            parentCompositePodGroupName="root",
            workloadRef={"workloadName": "other", "templateName": GROUP},
        )
        pod(server, "p1")
        await GangSimulator(server, nodes(1)).step()
        root = {"kind": "CompositePodGroup", "metadata": {"name": "root", "namespace": NS}}
        with pytest.raises(aio.NotScheduledError) as caught:
            await aio.wait_scheduled(api, root, timeout=0.5)
    assert (caught.value.status, caught.value.reason) == ("False", "Invalid")


@pytest.mark.parametrize(
    ("group", "says"),
    [
        ({"kind": "Job", "metadata": {"name": "p", "namespace": NS}}, "kind 'Job' is not a group"),
        ({"kind": "PodGroup", "metadata": {"name": "p"}}, "metadata.namespace"),
        ({"kind": "PodGroup", "metadata": {"name": ["p"], "namespace": NS}}, "metadata.name"),
    ],
)
async def test_a_group_that_cannot_be_found_is_refused_before_any_request(
    group: dict[str, object], says: str
) -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        for call in (aio.wait_scheduled(api, group, timeout=1), aio.diagnose(api, group)):
            with pytest.raises(ValueError, match=says):
                await call
        assert server.requests == []
