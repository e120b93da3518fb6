"""The placement pass on plain objects, without a server."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from workloadbuilder.testing.sim import SimNode
from workloadbuilder.testing.sim.place import plan
from workloadbuilder.testing.sim.quantity import parse_quantity

ZONE = "topology.kubernetes.io/zone"


def pod(name: str, group: str | None = None, cpu: str = "1", **spec: Any) -> dict[str, Any]:
    """A pod in ``ml`` requesting ``cpu``, optionally a member of ``group``."""
    body: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
        **spec,
    }
    if group:
        body["schedulingGroup"] = {"podGroupName": group}
    return {"metadata": {"name": name, "namespace": "ml"}, "spec": body}


def group(
    kind: str, name: str, policy: dict[str, Any], *, parent: str | None = None, **spec: Any
) -> dict[str, Any]:
    """A PodGroup or CompositePodGroup in ``ml`` stamped from Workload ``train``."""
    body: dict[str, Any] = {
        "schedulingPolicy": policy,
        "workloadRef": {"workloadName": "train", "templateName": name},
        **spec,
    }
    if parent:
        body["parentCompositePodGroupName"] = parent
    return {"metadata": {"name": name, "namespace": "ml", "generation": 1}, "spec": body}


def gang(name: str, min_count: int, **spec: Any) -> dict[str, Any]:
    return group("PodGroup", name, {"gang": {"minCount": min_count}}, **spec)


def composite(name: str, min_group_count: int, **spec: Any) -> dict[str, Any]:
    return group("CompositePodGroup", name, {"gang": {"minGroupCount": min_group_count}}, **spec)


def topology(key: str) -> dict[str, Any]:
    return {"topology": [{"key": key}]}


def nodes(*cpus: str, zones: str = "") -> list[SimNode]:
    """Nodes ``n0..`` with the given cpu; ``zones`` gives each node's zone letter."""
    return [
        SimNode(f"n{i}", {"cpu": cpu}, {ZONE: zones[i]} if zones else {})
        for i, cpu in enumerate(cpus)
    ]


def conditions(result: Any) -> dict[str, tuple[str, str]]:
    return {c.name: (c.status, c.reason) for c in result.conditions}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("500m", Fraction(1, 2)),
        ("2", Fraction(2)),
        ("1Gi", Fraction(2**30)),
        ("1G", Fraction(10**9)),
        ("128974848", Fraction(128974848)),
        ("129e6", Fraction(129 * 10**6)),
        ("1.5", Fraction(3, 2)),
        ("100Ki", Fraction(102400)),
        (3, Fraction(3)),
    ],
)
def test_quantities(text: str | int, value: Fraction) -> None:
    assert parse_quantity(text) == value


def test_bad_quantity_is_named() -> None:
    with pytest.raises(ValueError, match="'12x'"):
        parse_quantity("12x")
    with pytest.raises(ValueError, match="node 'n0'"):
        SimNode("n0", {"cpu": "lots"})
    # A pod the simulator cannot read waits, with the reason; the others are scheduled.
    result = plan(nodes("8"), [pod("p", cpu="2 cores"), pod("q")], [], [])
    assert result.pending["ml/p"].startswith("pod ml/p: invalid quantity '2 cores': expected")
    assert "ml/q" in result.binds


def test_quantities_beyond_the_simulators_range_are_refused_not_computed() -> None:
    for text in ("1e999999999", "1e2147483647", "123456789012345678901e999999"):
        with pytest.raises(ValueError, match="beyond the simulator's range"):
            parse_quantity(text)
    assert parse_quantity("1e1000") == Fraction(10) ** 1000


def test_quantities_are_read_as_the_api_server_reads_them() -> None:
    # quantity.go ParseQuantity: values finer than 1n round up (quantity_test.go
    # "0.0000000001" -> 1n, "3.001n" -> 4n); BinarySI is capped at 2**63-1 ("9Ei");
    # suffix.go reads an exponent as an int64 and keeps int32(exponent): 2**63-1 is -1.
    assert parse_quantity("1E-1001") == Fraction(1, 10**9)
    assert parse_quantity("3.001n") == Fraction(4, 10**9)
    assert parse_quantity("9Ei") == 2**63 - 1
    assert parse_quantity("1e9223372036854775807") == Fraction(1, 10)
    for bad in (float("inf"), float("nan"), [1], {"a": 1}, None):
        with pytest.raises(ValueError, match="invalid quantity"):
            parse_quantity(bad)


def test_gang_waits_for_min_count_pods() -> None:
    pods = [pod(f"w{i}", "workers") for i in range(3)]
    result = plan(nodes("8"), pods, [gang("workers", 4)], [])
    assert result.binds == {}
    assert result.conditions == []
    assert result.pending["ml/w0"] == "waiting for pods: 3 of 4 required by minCount exist"


def test_gang_unschedulable_when_too_few_fit() -> None:
    pods = [pod(f"w{i}", "workers", cpu="3") for i in range(4)]
    result = plan(nodes("8", "2"), pods, [gang("workers", 4)], [])
    assert result.binds == {}
    (change,) = result.conditions
    assert (change.type, change.status, change.reason) == (
        "PodGroupInitiallyScheduled",
        "False",
        "Unschedulable",
    )
    # real-apiserver-observed.md, gang scheduling (b): the group's and the members' messages
    assert change.message == (
        "0/1 placements are available, first placement status: pod group is unschedulable,"
        " No preemption victims found for incoming preemptor"
    )
    waiting = (
        "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled,"
        " one or more plugins asked to wait and no plugin rejected pod"
    )
    misfit = (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate,"
        " preemption: not eligible due to workload aware preemption enabled"
    )
    last = {k: w[-1] for k, w in result.unschedulable.items()}
    assert {k: (w.status, w.reason, w.message) for k, w in last.items()} == {
        "ml/w0": ("False", "Unschedulable", waiting),
        "ml/w1": ("False", "Unschedulable", waiting),
        "ml/w2": ("False", "Unschedulable", misfit),
        "ml/w3": ("False", "Unschedulable", misfit),
    }


def test_gang_binds_first_fit_by_name() -> None:
    pods = [pod(f"w{i}", "workers", cpu="3") for i in range(4)]
    result = plan(nodes("6", "6"), pods, [gang("workers", 4)], [])
    assert result.binds == {"ml/w0": "n0", "ml/w1": "n0", "ml/w2": "n1", "ml/w3": "n1"}
    assert conditions(result) == {"workers": ("True", "Scheduled")}


def test_gang_binds_members_beyond_min_count_that_fit() -> None:
    pods = [pod(f"w{i}", "workers", cpu="4") for i in range(3)]
    result = plan(nodes("8"), pods, [gang("workers", 2)], [])
    assert sorted(result.binds) == ["ml/w0", "ml/w1"]
    assert result.pending["ml/w2"].startswith("no node fits")


def test_admitted_group_is_never_rewritten() -> None:
    admitted = gang("workers", 2)
    admitted["status"] = {
        "conditions": [{"type": "PodGroupInitiallyScheduled", "status": "True", "reason": "X"}]
    }
    pods = [pod("w0", "workers", nodeName="n0"), pod("w1", "workers")]
    result = plan(nodes("8"), pods, [admitted], [])
    assert result.binds == {"ml/w1": "n0"}
    assert result.conditions == []


def test_missing_pod_group_leaves_pod_pending() -> None:
    result = plan(nodes("8"), [pod("p", "nowhere")], [], [])
    assert result.binds == {}
    assert result.pending == {"ml/p": "pod group ml/nowhere not found"}


def test_plain_and_basic_pods_bind_independently() -> None:
    basic = group("PodGroup", "web", {"basic": {}})
    pods = [pod("a", cpu="6"), pod("b", cpu="6"), pod("web-0", "web", cpu="1")]
    result = plan(nodes("8"), pods, [basic], [])
    assert result.binds == {"ml/a": "n0", "ml/web-0": "n0"}
    assert "ml/b" in result.pending
    assert conditions(result) == {"web": ("True", "Scheduled")}


def test_node_selector_and_extended_resources() -> None:
    gpu_pod = pod("g", cpu="1", nodeSelector={"accel": "yes"})
    gpu_pod["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "2"}
    cluster = [
        SimNode("a", {"cpu": "8", "nvidia.com/gpu": "4"}),
        SimNode("b", {"cpu": "8"}, {"accel": "yes"}),
        SimNode("c", {"cpu": "8", "nvidia.com/gpu": "1"}, {"accel": "yes"}),
        SimNode("d", {"cpu": "8", "nvidia.com/gpu": "2"}, {"accel": "yes"}),
    ]
    assert plan(cluster, [gpu_pod], [], []).binds == {"ml/g": "d"}


def test_bound_and_terminal_pods_account_correctly() -> None:
    failed = pod("old", cpu="8", nodeName="n0")
    failed["status"] = {"phase": "Failed"}
    running = pod("run", cpu="6", nodeName="n1")
    result = plan(nodes("8", "8"), [failed, running, pod("new", cpu="4")], [], [])
    assert result.binds == {"ml/new": "n0"}


def test_topology_gang_binds_in_one_zone() -> None:
    pods = [pod(f"w{i}", "workers", cpu="4") for i in range(4)]
    pg = gang("workers", 4, schedulingConstraints=topology(ZONE))
    result = plan(nodes("8", "8", "8", "8", zones="abba"), pods, [pg], [])
    assert set(result.binds.values()) == {"n0", "n3"}


def test_topology_gang_pending_when_no_zone_fits() -> None:
    pods = [pod(f"w{i}", "workers", cpu="4") for i in range(4)]
    pg = gang("workers", 4, schedulingConstraints=topology(ZONE))
    result = plan(nodes("8", "8", zones="ab"), pods, [pg], [])
    assert result.binds == {}
    (change,) = result.conditions
    assert change.reason == "Unschedulable"
    # real-apiserver-observed.md, topology 2a
    assert change.message == (
        "0/2 placements are available, first placement status: pod group is unschedulable,"
        " workload aware preemption is not supported for pod groups with scheduling constraints"
    )
    # every zone is tried, but the pods' outcome is the first placement's (zone a, one node)
    assert [w.message for w in result.unschedulable["ml/w3"]] == [
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption:"
        " not eligible due to placement-based pod group scheduling limitation"
    ]
    assert plan(nodes("8", "8", zones="ab"), pods, [gang("workers", 4)], []).binds


def release(worker_cpu: str = "2") -> tuple[list[Any], list[Any], list[Any]]:
    """The release scenario: workload-root (gang 2) over workers (gang 4) and driver (gang 1)."""
    pods = [pod(f"workers-{i}", "workers", cpu=worker_cpu) for i in range(4)]
    pods.append(pod("driver-0", "driver", cpu="1"))
    groups = [
        gang("workers", 4, parent="workload-root"),
        gang("driver", 1, parent="workload-root"),
    ]
    return pods, groups, [composite("workload-root", 2)]


def test_composite_binds_all_five() -> None:
    pods, groups, roots = release()
    result = plan(nodes("8", "8"), pods, groups, roots)
    assert len(result.binds) == 5
    assert conditions(result) == {
        "workload-root": ("True", "Scheduled"),
        "workers": ("True", "Scheduled"),
        "driver": ("True", "Scheduled"),
    }


def test_composite_binds_none_when_one_child_cannot_fit() -> None:
    pods, groups, roots = release(worker_cpu="5")
    result = plan(nodes("8", "8", "8"), pods, groups, roots)
    assert result.binds == {}
    assert conditions(result) == {"workload-root": ("False", "Unschedulable")}
    assert "only 1 of the 2 child groups" in result.conditions[0].message


def test_composite_waits_for_children_pods() -> None:
    pods, groups, roots = release()
    result = plan(nodes("8", "8"), pods[1:], groups, roots)
    assert result.binds == {}
    assert result.conditions == []


def test_nested_topology_inside_parent_domain() -> None:
    rack = "topology.example.com/rack"
    cluster = [
        SimNode("a1", {"cpu": "4"}, {ZONE: "a", rack: "r1"}),
        SimNode("a2", {"cpu": "4"}, {ZONE: "a", rack: "r2"}),
        SimNode("b1", {"cpu": "8"}, {ZONE: "b", rack: "r3"}),
        SimNode("b2", {"cpu": "8"}, {ZONE: "b", rack: "r4"}),
    ]
    pods = [pod(f"x{i}", "x", cpu="4") for i in range(2)] + [pod("y0", "y", cpu="4")]
    groups = [
        gang("x", 2, parent="root", schedulingConstraints=topology(rack)),
        gang("y", 1, parent="root", schedulingConstraints=topology(rack)),
    ]
    root = composite("root", 2, schedulingConstraints=topology(ZONE))
    result = plan(cluster, pods, groups, [root])
    assert result.binds == {"ml/x0": "b1", "ml/x1": "b1", "ml/y0": "b2"}


@pytest.mark.parametrize(
    ("roots", "groups", "message"),
    [
        (
            [composite("a", 1, parent="b"), composite("b", 1, parent="a")],
            [gang("w", 1, parent="a")],
            "cycle detected in the group hierarchy: a -> b -> a",
        ),
        (
            [
                composite("c1", 1),
                composite("c2", 1, parent="c1"),
                composite("c3", 1, parent="c2"),
                composite("c4", 1, parent="c3"),
            ],
            [gang("w", 1, parent="c4")],
            "the group hierarchy is 5 levels deep; the maximum is 4",
        ),
        (
            [composite("root", 1)],
            [
                gang("w", 1, parent="root"),
                {
                    **gang("v", 1, parent="root"),
                    "spec": {
                        **gang("v", 1, parent="root")["spec"],
                        "workloadRef": {"workloadName": "other", "templateName": "v"},
                    },
                },
            ],
            "the group hierarchy spans several Workloads: 'other', 'train'",
        ),
    ],
    ids=["cycle", "depth", "workloads"],
)
def test_invalid_layouts(roots: list[Any], groups: list[Any], message: str) -> None:
    result = plan(nodes("8"), [pod("w0", "w")], groups, roots)
    assert result.binds == {}
    invalid = [c for c in result.conditions if c.reason == "Invalid"]
    assert invalid and all(c.message == message for c in invalid)
    assert all(c.status == "False" for c in invalid)
    assert result.pending["ml/w0"] == f"invalid group layout: {message}"


def test_missing_parent_leaves_pods_pending() -> None:
    result = plan(nodes("8"), [pod("w0", "w")], [gang("w", 1, parent="gone")], [])
    assert result.pending == {"ml/w0": "parent composite pod group ml/gone not found"}


def test_a_nominated_pod_keeps_its_node_while_its_victim_terminates() -> None:
    victim = pod("victim", cpu="2", priority=100, nodeName="n0")
    victim["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:30Z"
    high = pod("high", cpu="3", priority=1000)
    high["status"] = {"nominatedNodeName": "n0"}
    mid = pod("mid", cpu="2", priority=500)
    result = plan(nodes("4"), [victim, high, mid], [], [])
    assert result.binds == {}  # mid would fit beside the victim, but n0 is reserved for high
    assert result.preemptions == []  # and mid does not preempt the terminating victim again
    assert result.unschedulable["ml/high"][-1].message.endswith(
        "preemption: not eligible due to a terminating pod on the nominated node."
    )
    gone = plan(nodes("4"), [high, mid], [], [])
    assert gone.binds == {"ml/high": "n0"}
