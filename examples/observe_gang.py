"""Tell apart what the scheduler does with a ``minCount: 4`` gang, in four situations.

Runs a local FakeAPIServer with its GangSimulator (nodes of 2 cpu, pods of 1500m, as in the
real cluster the scheduling docs' cases were observed on) and prints, per situation, the
verdict of ``workloadbuilder.aio.diagnose`` and what ``wait_scheduled`` does::

    python examples/observe_gang.py
"""

from __future__ import annotations

import asyncio

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode

NAMESPACE = "ml-training"


def gang() -> wb.PodGroup:
    return wb.PodGroup.model_validate(
        {
            "metadata": {"name": "workers", "namespace": NAMESPACE},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
        }
    )


def worker(name: str, group: wb.PodGroup) -> dict[str, object]:
    pod = {
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "containers": [
                {"name": "main", "image": "trainer", "resources": {"requests": {"cpu": "1500m"}}}
            ]
        },
    }
    return wb.set_scheduling_group(pod, group)


async def situation(title: str, created: int, nodes: int, lose_worker: bool = False) -> None:
    group = gang()
    async with FakeAPIServer() as server, server.api_client() as api:
        server.create_object("", "v1", "namespaces", {"metadata": {"name": NAMESPACE}})
        await aio.apply(api, [group], field_manager="example")
        for i in range(created):
            server.create_object("", "v1", "pods", worker(f"workers-{i}", group))
        cluster = [SimNode(f"node-{i}", {"cpu": "2"}) for i in range(nodes)]
        simulator = GangSimulator(server, cluster)
        await simulator.step()
        if lose_worker:
            await simulator.evict(NAMESPACE, "workers-1")
        verdict = await aio.diagnose(api, group)
        try:
            await aio.wait_scheduled(api, group, timeout=1)
            waited = "returned: placed"
        except aio.NotScheduledError as error:
            waited = f"raised NotScheduledError (reason {error.reason})"
    print(f"== {title}")
    print(f"   state:   {verdict.state}")
    print(f"   members: {verdict.present} of {verdict.required} required")
    print(f"   summary: {verdict.summary}")
    for member in verdict.members:
        if member.problem or member.scheduler_message:
            why = member.detail if member.problem else member.scheduler_message
            print(f"   - {member.name}: {member.problem or 'PodScheduled=False'}: {why}")
    print(f"   wait_scheduled(timeout=1) {waited}")


async def main() -> None:
    await situation("3 of 4 members created", created=3, nodes=4)
    await situation("4 created, 3 fit", created=4, nodes=3)
    await situation("4 fit", created=4, nodes=4)
    await situation("placed, then a worker lost", created=4, nodes=4, lose_worker=True)


if __name__ == "__main__":
    asyncio.run(main())
