"""Tell apart what the scheduler does with a gang: a ``minCount: 4`` gang in four situations,
a training run whose workers cannot fit beside their launcher, and an elastic gang.

Runs a local FakeAPIServer with its GangSimulator (nodes of 2 cpu, pods of 1500m, as in the
real cluster the scheduling docs' cases were observed on) and prints, per situation, the
verdict of ``workloadbuilder.aio.diagnose`` and what ``wait_scheduled`` does::

    python examples/observe_gang.py
"""

from __future__ import annotations

import asyncio
from typing import Any

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode

NAMESPACE = "ml-training"
OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "1", "controller": True}


def gang(min_count: int = 4) -> wb.PodGroup:
    return wb.PodGroup.model_validate(
        {
            "metadata": {"name": "workers", "namespace": NAMESPACE},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
        }
    )


def pod(name: str, group: wb.PodGroup, cpu: str = "1500m") -> dict[str, Any]:
    body = {
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "containers": [
                {"name": "main", "image": "trainer", "resources": {"requests": {"cpu": cpu}}}
            ]
        },
    }
    return wb.set_scheduling_group(body, group)


def nodes(count: int) -> list[SimNode]:
    return [SimNode(f"node-{i}", {"cpu": "2"}) for i in range(count)]


async def waited(api: Any, group: Any) -> str:
    try:
        await aio.wait_scheduled(api, group, timeout=1)
    except aio.NotScheduledError as error:
        blocking = ", ".join(b.name for b in error.blocking)
        return f"raised NotScheduledError (reason {error.reason})" + (
            f", blocked by {blocking}" if blocking else ""
        )
    return "returned: placed"


def show(title: str, verdict: aio.Verdict, wait: str) -> None:
    print(f"== {title}")
    print(f"   state:   {verdict.state}")
    print(f"   members: {verdict.present} of {verdict.required} required")
    print(f"   summary: {verdict.summary}")
    for member in verdict.members:
        if member.problem or member.scheduler_message:
            why = member.detail if member.problem else member.scheduler_message
            print(f"   - {member.name}: {member.problem or 'PodScheduled=False'}: {why}")
    for child in verdict.children:
        print(f"   - child {child.group.name}: {child.state}: {child.cause or child.summary}")
    print(f"   wait_scheduled(timeout=1) {wait}")


async def situation(title: str, created: int, node_count: int, lose_worker: bool = False) -> None:
    group = gang()
    async with FakeAPIServer() as server, server.api_client() as api:
        server.create_object("", "v1", "namespaces", {"metadata": {"name": NAMESPACE}})
        await aio.apply(api, [group], field_manager="example")
        for i in range(created):
            server.create_object("", "v1", "pods", pod(f"workers-{i}", group))
        simulator = GangSimulator(server, nodes(node_count))
        await simulator.step()
        if lose_worker:
            await simulator.evict(NAMESPACE, "workers-1")
        show(title, await aio.diagnose(api, group), await waited(api, group))


async def training_run() -> None:
    """A launcher (1 cpu) and 4 workers (1500m), minGroupCount 2, on 3 nodes of 2 cpu."""
    root = wb.composite(
        "train",
        [wb.leaf("launcher", policy=wb.gang(1)), wb.leaf("workers", policy=wb.gang(4))],
        policy=wb.gang(min_group_count=2),
    )
    options = wb.BuildOptions(
        "train", NAMESPACE, OWNER, allowed_policies={wb.SchedulingPolicyOption.GANG}
    )
    objects = [wb.build_workload(root, options), *wb.instantiate(wb.Builder(root, options))]
    async with FakeAPIServer() as server, server.api_client() as api:
        server.create_object("", "v1", "namespaces", {"metadata": {"name": NAMESPACE}})
        await aio.apply(api, objects, field_manager="example")
        composite, launcher, workers = objects[1:]
        assert isinstance(launcher, wb.PodGroup) and isinstance(workers, wb.PodGroup)
        server.create_object("", "v1", "pods", pod("launcher-0", launcher, cpu="1"))
        for i in range(4):
            server.create_object("", "v1", "pods", pod(f"workers-{i}", workers))
        await GangSimulator(server, nodes(3)).step()
        title = "launcher + 4 workers, 2 workers cannot fit"
        show(title, await aio.diagnose(api, composite), await waited(api, composite))


async def elastic() -> None:
    """minCount 4 with 5 pods: placed on 4 nodes with an extra pending, then a worker lost
    (the extra takes its node); on 3 nodes it cannot be placed until resized to 3."""
    group = gang()
    async with FakeAPIServer() as server, server.api_client() as api:
        server.create_object("", "v1", "namespaces", {"metadata": {"name": NAMESPACE}})
        await aio.apply(api, [group], field_manager="example")
        for i in range(5):
            server.create_object("", "v1", "pods", pod(f"workers-{i}", group))
        simulator = GangSimulator(server, nodes(4))
        await simulator.step()
        show(
            "elastic: 5 pods for minCount 4, 4 fit",
            await aio.diagnose(api, group),
            await waited(api, group),
        )
        await simulator.evict(NAMESPACE, "workers-1")
        await simulator.step()
        title = "elastic: a worker evicted, the extra takes its node"
        show(title, await aio.diagnose(api, group), await waited(api, group))
    async with FakeAPIServer() as server, server.api_client() as api:
        server.create_object("", "v1", "namespaces", {"metadata": {"name": NAMESPACE}})
        await aio.apply(api, [group], field_manager="example")
        for i in range(4):
            server.create_object("", "v1", "pods", pod(f"workers-{i}", group))
        simulator = GangSimulator(server, nodes(3))
        await simulator.step()
        await aio.resize(api, group, 3)
        await simulator.step()
        title = "elastic: 4 pods on 3 nodes, resized to minCount 3"
        show(title, await aio.diagnose(api, group), await waited(api, group))


async def main() -> None:
    await situation("3 of 4 members created", created=3, node_count=4)
    await situation("4 created, 3 fit", created=4, node_count=3)
    await situation("4 fit", created=4, node_count=4)
    await situation("placed, then a worker lost", created=4, node_count=4, lose_worker=True)
    await training_run()
    await elastic()


if __name__ == "__main__":
    asyncio.run(main())
