"""Which node and which victims a preemptor picks, on plain objects. Expected values follow
kube-scheduler's criteria as its sources state them: ``pickOneNodeForPreemption``
(``pkg/scheduler/framework/preemption/preemption.go``: "1. A node with minimum number of PDB
violations. 2. A node with minimum highest priority victim is picked. 3. Ties are broken by sum
of priorities of all victims. 4. ... minimum number of victims ... 5. ... latest start time of
all highest priority victims ... 6. ... the first such node", each priority summed plus
MaxInt32+1), ``MoreImportantPod`` (higher priority, then the earlier start time;
``GetPodStartTime`` is ``status.startTime`` or, without one, the current time) and, for a gang,
``selectVictimsOnDomain`` with ``moreImportantVictim`` (the gang is placed once with every
candidate removed; candidates are added back by importance while the placement's pods still
pass the filters on their nodes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workloadbuilder.testing.sim import SimNode
from workloadbuilder.testing.sim.place import plan

EARLY = "2026-01-01T10:00:00Z"
LATE = "2026-01-01T11:00:00Z"


def nodes(count: int, cpu: str = "2") -> list[SimNode]:
    return [SimNode(f"n{i}", {"cpu": cpu}) for i in range(count)]


def bound(
    name: str, node: str, priority: int, cpu: str = "1", started: str | None = None, **spec: Any
) -> dict[str, Any]:
    """A running pod in ``ml`` on ``node``, as the server stores it after admission."""
    status: dict[str, Any] = {"phase": "Running"}
    if started:
        status["startTime"] = started
    body = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
        "nodeName": node,
        "priority": priority,
        **spec,
    }
    return {"metadata": {"name": name, "namespace": "ml"}, "spec": body, "status": status}


def preemptor(cpu: str = "2", **spec: Any) -> dict[str, Any]:
    body = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
        "priority": 1000,
        **spec,
    }
    return {"metadata": {"name": "high", "namespace": "ml"}, "spec": body}


def plain_choice(cluster: list[SimNode], pods: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """The node a plain preemptor is nominated to and its victims' names."""
    result = plan(cluster, [*pods, preemptor()], [], [])
    (preemption,) = result.preemptions
    assert preemption.node is not None
    return preemption.node, sorted(v.name for v in preemption.victims)


def test_the_lowest_highest_victim_priority_wins() -> None:
    pods = [bound("a", "n0", 200, cpu="2"), bound("b", "n1", 100, cpu="2")]
    assert plain_choice(nodes(2), pods) == ("n1", ["b"])


def test_then_the_lowest_sum_of_priorities() -> None:
    pods = [
        bound("a1", "n0", 100),
        bound("a2", "n0", 100),
        bound("b1", "n1", 100),
        bound("b2", "n1", 50),
    ]
    assert plain_choice(nodes(2), pods) == ("n1", ["b1", "b2"])


def test_each_summed_priority_is_raised_so_more_victims_weigh_more() -> None:
    """n1's raw sum (100 - 50 = 50) is below n0's (100), but with MaxInt32+1 added to each
    priority n1's two victims weigh more than n0's one."""
    pods = [bound("a", "n0", 100, cpu="2"), bound("b1", "n1", 100), bound("b2", "n1", -50)]
    assert plain_choice(nodes(2), pods) == ("n0", ["a"])


def test_then_the_latest_start_time() -> None:
    pods = [bound("a", "n0", 100, cpu="2", started=LATE), bound("b", "n1", 100, "2", EARLY)]
    assert plain_choice(nodes(2), pods) == ("n0", ["a"])


def test_start_times_compare_in_whole_seconds_then_the_first_node_wins() -> None:
    """``startTime`` has second precision: the same second is a tie, broken by node order."""
    same = "2026-01-01T10:00:00Z"
    pods = [bound("a", "n0", 100, cpu="2", started=same), bound("b", "n1", 100, "2", same)]
    assert plain_choice(nodes(2), pods) == ("n0", ["a"])


def test_a_victim_without_start_time_counts_as_starting_now() -> None:
    """``GetPodStartTime`` falls back to the current time: later than any recorded start, and
    later node after node; the observed case (1a: no kubelet, so no start times) evicted the
    member on the second node."""
    pods = [bound("a", "n0", 100, cpu="2"), bound("b", "n1", 100, "2", LATE)]
    assert plain_choice(nodes(2), pods) == ("n0", ["a"])
    pods = [bound("a", "n0", 100, cpu="2"), bound("b", "n1", 100, cpu="2")]
    assert plain_choice(nodes(2), pods) == ("n1", ["b"])


def test_on_a_node_the_earlier_started_pod_is_kept() -> None:
    """Both pods of n0 are removed, then added back most important first: the earlier started
    one fits again, the later one is the victim."""
    pods = [bound("late", "n0", 100, started=LATE), bound("early", "n0", 100, started=EARLY)]
    assert plain_choice(nodes(1, "3"), pods) == ("n0", ["late"])


# -- a gang preemptor: one placement, then reprieves by importance --------------------------------


def gang_victims(
    pods: list[dict[str, Any]],
    groups: Sequence[dict[str, Any]] = (),
    cluster: list[SimNode] | None = None,
    cpu: str = "2",
) -> list[str]:
    member = preemptor(cpu, schedulingGroup={"podGroupName": "high"})
    high = {
        "metadata": {"name": "high", "namespace": "ml", "uid": "uid-high"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}, "priority": 1000},
    }
    result = plan(cluster or nodes(2), [*pods, member], [high, *groups], [])
    (preemption,) = result.preemptions
    return sorted(v.name for v in preemption.victims)


def test_a_gang_keeps_its_placement_while_victims_are_added_back() -> None:
    """With every candidate removed the gang is placed on n0. ``early`` is the more important
    (earlier start) and is added back first, but the placement's pod no longer fits on n0:
    ``early`` is evicted and ``late`` (on n1) stays, although placing the gang anew on n1
    would have spared ``early``."""
    pods = [bound("early", "n0", 100, "2", EARLY), bound("late", "n1", 100, "2", LATE)]
    assert gang_victims(pods) == ["early"]


def test_a_gang_adds_back_the_earlier_started_pod_first() -> None:
    pods = [bound("late", "n0", 100, started=LATE), bound("early", "n0", 100, started=EARLY)]
    assert gang_victims(pods, cluster=nodes(1, "4"), cpu="3") == ["late"]


def test_a_gang_adds_back_a_victim_group_before_a_pod_of_equal_priority() -> None:
    """At equal priority a PodGroup unit (``disruptionMode: all``) is more important than a
    single pod, whatever their start times: the group is added back, the pod is evicted."""
    low = {
        "metadata": {"name": "low", "namespace": "ml"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 1}},
            "priority": 100,
            "disruptionMode": {"all": {}},
        },
    }
    pods = [
        bound("single", "n0", 100, started=EARLY),
        bound("member", "n0", 100, started=LATE, schedulingGroup={"podGroupName": "low"}),
    ]
    assert gang_victims(pods, [low], nodes(1, "4"), "3") == ["single"]
