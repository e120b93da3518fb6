"""Who a higher-priority pod or gang evicts, in each disruption mode, and what everyone shows.

Runs a local FakeAPIServer with its GangSimulator on 4 nodes of 2 cpu. Two low-priority
gangs are running: ``a-single`` (``disruptionMode: {single: {}}``) and ``b-all``
(``disruptionMode: {all: {}}``). A high-priority plain pod arrives (it evicts one pod, whatever
the victim's mode), then a high-priority gang (it keeps a whole ``all``-mode group before a
single pod of equal priority, so it evicts a member of ``a-single``). It prints who was
evicted by whom, what ``workloadbuilder.aio.diagnose`` says of each side, and that each
preemptor bound only once its victims had finished::

    python examples/preemption.py
"""

from __future__ import annotations

import asyncio
from typing import Any

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode

NAMESPACE = "ml"
SCHEDULING = "scheduling.k8s.io"


def gang(name: str, priority_class: str, mode: str, min_count: int) -> wb.PodGroup:
    return wb.PodGroup.model_validate(
        {
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {
                "schedulingPolicy": {"gang": {"minCount": min_count}},
                "disruptionMode": {mode: {}},
                "priorityClassName": priority_class,
            },
        }
    )


def pod(name: str, priority_class: str, group: wb.PodGroup | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "priorityClassName": priority_class,
            "containers": [
                {"name": "main", "image": "trainer", "resources": {"requests": {"cpu": "1500m"}}}
            ],
        },
    }
    return wb.set_scheduling_group(body, group) if group is not None else body


def show(title: str, result: Any) -> None:
    print(f"== {title}")
    for victim, preemptor in sorted(result.preempted.items()):
        print(f"  evicted {victim} (by {preemptor})")
    for name, node in sorted(result.bound.items()):
        print(f"  bound {name} to {node}")


async def tell(api: Any, group: wb.PodGroup) -> None:
    verdict = await aio.diagnose(api, group)
    print(f"  diagnose {group.metadata.name}: state: {verdict.state.value}")
    print(f"    {verdict.summary}")


async def main() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        server.create_object("", "v1", "namespaces", {"metadata": {"name": NAMESPACE}})
        for name, value in (("low", 100), ("high", 1000)):
            server.create_object(
                SCHEDULING, "v1", "priorityclasses", {"metadata": {"name": name}, "value": value}
            )
        simulator = GangSimulator(server, [SimNode(f"node-{i}", {"cpu": "2"}) for i in range(4)])
        low = [gang("a-single", "low", "single", 2), gang("b-all", "low", "all", 2)]
        await aio.apply(api, low, field_manager="example")
        for group in low:
            for i in range(2):
                server.create_object(
                    "", "v1", "pods", pod(f"{group.metadata.name}-{i}", "low", group)
                )
        show("two low-priority gangs arrive", await simulator.step())

        server.create_object("", "v1", "pods", pod("inference", "high"))
        show("a high-priority plain pod arrives", await simulator.step())
        plain = server.get_object("", "v1", "pods", NAMESPACE, "inference") or {}
        print(f"  inference: nominatedNodeName {plain['status'].get('nominatedNodeName')}")

        train = gang("train", "high", "single", 1)
        await aio.apply(api, [train], field_manager="example")
        server.create_object("", "v1", "pods", pod("train-0", "high", train))
        show("a high-priority gang (minCount 1) arrives", await simulator.step())

        print("== what each side shows while the victims terminate")
        for group in [*low, train]:
            await tell(api, group)
        plain = server.get_object("", "v1", "pods", NAMESPACE, "inference") or {}
        (scheduled,) = [c for c in plain["status"]["conditions"] if c["type"] == "PodScheduled"]
        print(f"  inference: PodScheduled {scheduled['status']}: {scheduled['message']}")

        simulator.advance(30)  # the grace period passes on the simulator's clock
        result = await simulator.step()
        print(f"== 30 s later: the stand-in kubelet finished {', '.join(sorted(result.finished))}")
        show("the preemptors bind", result)
        left = {p["metadata"]["name"] for p in server.list_objects("", "v1", "pods", NAMESPACE)}
        gone = sorted(n.split("/")[1] for n in result.finished)
        print(f"  victims gone before binding: {not left & set(gone)}")


if __name__ == "__main__":
    asyncio.run(main())
