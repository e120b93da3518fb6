"""The seed's gang situations on a FakeAPIServer, sized as the real cluster that was observed
(`real-apiserver-observed.md`, "Gang scheduling"): nodes of 2 cpu, pods of 1500m, minCount 4."""

from __future__ import annotations

from typing import Any

from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode

NS = "c"
GROUP = "pg"
ZONE = "topology.kubernetes.io/zone"
SCHEDULING = "scheduling.k8s.io"

# Quoted from real-apiserver-observed.md, gang scheduling (b); 1.37 renames the condition.
GROUP_UNSCHEDULABLE = (
    "0/1 placements are available, first placement status: pod group is unschedulable,"
    " No preemption victims found for incoming preemptor"
)
WAITING = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled,"
    " one or more plugins asked to wait and no plugin rejected pod"
)
MISFIT = (
    "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption:"
    " not eligible due to workload aware preemption enabled"
)


def nodes(count: int) -> list[SimNode]:
    return [SimNode(f"node-{i}", {"cpu": "2"}, {ZONE: "ab"[i % 2]}) for i in range(count)]


def namespace(server: FakeAPIServer, name: str = NS) -> None:
    server.create_object("", "v1", "namespaces", {"metadata": {"name": name}})


def pod_group(
    server: FakeAPIServer, name: str = GROUP, min_count: int | None = 4, **spec: Any
) -> dict[str, Any]:
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    return server.create_object(
        SCHEDULING,
        "v1beta1",
        "podgroups",
        {
            "apiVersion": f"{SCHEDULING}/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"schedulingPolicy": policy, **spec},
        },
    )


def composite(
    server: FakeAPIServer, name: str, min_group_count: int, workload: str = "train"
) -> None:
    server.create_object(
        SCHEDULING,
        "v1alpha3",
        "compositepodgroups",
        {
            "metadata": {"name": name, "namespace": NS},
            "spec": {
                "schedulingPolicy": {"gang": {"minGroupCount": min_group_count}},
                "workloadRef": {"workloadName": workload, "templateName": name},
            },
        },
    )


def pod(
    server: FakeAPIServer, name: str, group: str | None = GROUP, cpu: str = "1500m", **spec: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "containers": [{"name": "m", "image": "trainer", "resources": {"requests": {"cpu": cpu}}}],
        **spec,
    }
    if group:
        body["schedulingGroup"] = {"podGroupName": group}
    return server.create_object(
        "", "v1", "pods", {"metadata": {"name": name, "namespace": NS}, "spec": body}
    )


async def situation(server: FakeAPIServer, created: int, node_count: int) -> GangSimulator:
    """``created`` members of a ``minCount: 4`` gang, one scheduling pass on ``node_count``."""
    namespace(server)
    pod_group(server)
    for i in range(1, created + 1):
        pod(server, f"p{i}")
    simulator = GangSimulator(server, nodes(node_count))
    await simulator.step()
    return simulator
