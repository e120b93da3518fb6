"""When an unschedulable plain pod is tried again. Expected behaviour: kube-scheduler's queue
keeps an unschedulable pod until a cluster event may help it, or for at most
``DefaultPodMaxInUnschedulablePodsDuration`` (``5 * time.Minute`` in the scheduling queue's
sources); real-apiserver-observed.md, 1a: "Later
retries, set off by unrelated node events, gave the message ...", and nothing before them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from workloadbuilder.testing.sim.interface import Rejection
from workloadbuilder.testing.sim.queue import ClusterState, UnschedulablePool

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def node(name: str, rv: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "resourceVersion": rv}}


def pod(name: str, node_name: str = "", generation: int = 1, **spec: Any) -> dict[str, Any]:
    body = {"nodeName": node_name, **spec} if node_name else dict(spec)
    return {"metadata": {"name": name, "namespace": "ml", "generation": generation}, "spec": body}


PENDING = pod("high")
RUNNING = pod("low", "n0")


def pool_after_one_attempt(pods: list[dict[str, Any]]) -> UnschedulablePool:
    pool = UnschedulablePool()
    state = ClusterState.read([node("n0", "5")], pods)
    assert pool.parked(state, pods, T0) == frozenset()
    pool.tried(state, pods, ["ml/high"], T0)
    return pool


def test_nothing_happened_the_pod_waits() -> None:
    pods = [PENDING, RUNNING]
    pool = pool_after_one_attempt(pods)
    state = ClusterState.read([node("n0", "5")], pods)
    assert pool.parked(state, pods, T0 + timedelta(minutes=4)) == {"ml/high"}
    # a pod bound elsewhere only takes room: still no retry
    more = [*pods, pod("other", "n0")]
    assert pool.parked(ClusterState.read([node("n0", "5")], more), more, T0) == {"ml/high"}


@pytest.mark.parametrize(
    ("nodes", "pods", "later"),
    [
        ([node("n0", "6")], [PENDING, RUNNING], timedelta(0)),  # a Node changed
        ([node("n0", "5"), node("n1", "1")], [PENDING, RUNNING], timedelta(0)),  # one added
        ([node("n0", "5")], [PENDING], timedelta(0)),  # the running pod was removed
        ([node("n0", "5")], [pod("high", generation=2), RUNNING], timedelta(0)),  # spec changed
        ([node("n0", "5")], [PENDING, RUNNING], timedelta(minutes=5)),  # the five-minute flush
    ],
    ids=["node-changed", "node-added", "pod-removed", "pod-changed", "flush"],
)
def test_an_event_or_the_flush_brings_a_retry(
    nodes: list[dict[str, Any]], pods: list[dict[str, Any]], later: timedelta
) -> None:
    pool = pool_after_one_attempt([PENDING, RUNNING])
    assert pool.parked(ClusterState.read(nodes, pods), pods, T0 + later) == frozenset()


def test_pods_of_a_group_are_never_held() -> None:
    member = pod("high", schedulingGroup={"podGroupName": "g"})
    pool = UnschedulablePool()
    state = ClusterState.read([node("n0", "5")], [member])
    pool.tried(state, [member], ["ml/high"], T0)
    assert pool.parked(state, [member], T0) == frozenset()


# -- which events a rejecting plugin's queueing hint lets through (issue 33, item 14) ----------
# kube-scheduler's hints: NodeResourcesFit queues on a scheduled pod's deletion
# ("any deletion event to a scheduled pod could make the unscheduled pod schedulable") but skips
# a pod update that scales nothing down; a preemptor waits while its preemption runs
# (DefaultPreemption's PreEnqueue) and is tried again once its victim's graceful deletion began.

FIT, AFFINITY, PREEMPTION = "NodeResourcesFit", "NodeAffinity", "DefaultPreemption"


def terminating(name: str, node_name: str) -> dict[str, Any]:
    body = pod(name, node_name, generation=2)
    body["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:30Z"
    return body


def parked_after(rejection: Rejection, pods_now: list[dict[str, Any]]) -> frozenset[str]:
    before = [PENDING, RUNNING, pod("other", "n0")]
    pool = UnschedulablePool()
    pool.tried(
        ClusterState.read([node("n0", "5")], before),
        before,
        ["ml/high"],
        T0,
        {"ml/high": rejection},
    )
    return pool.parked(ClusterState.read([node("n0", "5")], pods_now), pods_now, T0)


def test_a_victims_graceful_deletion_sends_its_preemptor_back() -> None:
    preempting = Rejection("ml/high", frozenset({FIT, AFFINITY, PREEMPTION}), frozenset({"ml/low"}))
    now = [PENDING, terminating("low", "n0"), pod("other", "n0")]
    assert parked_after(preempting, now) == frozenset()


def test_another_pod_terminating_frees_nothing_yet() -> None:
    preempting = Rejection("ml/high", frozenset({FIT, AFFINITY, PREEMPTION}), frozenset({"ml/low"}))
    now = [PENDING, RUNNING, terminating("other", "n0")]
    assert parked_after(preempting, now) == {"ml/high"}
    no_room = Rejection("ml/high", frozenset({FIT}))
    assert parked_after(no_room, [PENDING, terminating("low", "n0"), pod("other", "n0")]) == {
        "ml/high"
    }


def test_a_deleted_pod_helps_a_pod_short_of_room_not_one_no_node_matches() -> None:
    now = [PENDING, RUNNING]  # "other" is gone
    assert parked_after(Rejection("ml/high", frozenset({FIT})), now) == frozenset()
    assert parked_after(Rejection("ml/high", frozenset({AFFINITY})), now) == {"ml/high"}
