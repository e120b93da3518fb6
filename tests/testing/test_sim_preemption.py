"""Every scenario of real-apiserver-observed.md, "Preemption and topology", rebuilt on the test
server (same nodes, classes, groups and pods, in the same order) and run through the simulator
as a user would. Expected values are quoted from that section (1.37 renames applied:
``PodGroupInitiallyScheduled``, ``disruptionMode: {single: {}} / {all: {}}``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode

NS = "p"
SCHED = "scheduling.k8s.io"
ZONE = "topology.kubernetes.io/zone"
TEST = {"sim-test": "yes"}  # the test nodes' label, which every pod selects
AWARE = (
    "no new claims to deallocate, preemption: not eligible due to workload aware preemption enabled"
)
PLACEMENT = (
    "no new claims to deallocate, preemption: not eligible due to placement-based pod group"
    " scheduling limitation"
)
WAITING = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or"
    " more plugins asked to wait and no plugin rejected pod"
)
SELECTOR = "node(s) didn't match Pod's node affinity/selector"
NOT_ELIGIBLE = "no new claims to deallocate, preemption: not eligible due to"
BY_POD = "default-scheduler: preempting to accommodate a higher priority pod"
BY_GROUP = "default-scheduler: preempting to accommodate a higher priority podgroup"


@pytest.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as srv:
        srv.create_object("", "v1", "namespaces", {"metadata": {"name": NS}})
        for name, value in (("low", 100), ("high", 1000)):
            srv.create_object(
                SCHED, "v1", "priorityclasses", {"metadata": {"name": name}, "value": value}
            )
        yield srv


def cluster(test: int = 2, old: int = 4, zones: str = "") -> list[SimNode]:
    """``test`` nodes of 2 cpu (zones from ``zones``), and ``old`` nodes in zone ``zone-a``
    that every pod's nodeSelector excludes, as in the observed cluster."""
    nodes = [
        SimNode(f"t{i + 1}", {"cpu": "2"}, {**TEST, **({ZONE: zones[i]} if zones else {})})
        for i in range(test)
    ]
    nodes += [SimNode(f"old-{i}", {"cpu": "2"}, {ZONE: "zone-a"}) for i in range(old)]
    return nodes


def group(
    srv: FakeAPIServer, name: str, min_count: int | None, mode: str = "single", **spec: Any
) -> dict[str, Any]:
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    body = {"schedulingPolicy": policy, "disruptionMode": {mode: {}}, **spec}
    obj = {"metadata": {"name": name, "namespace": NS}, "spec": body}
    return srv.create_object(SCHED, "v1beta1", "podgroups", obj)


def pod(
    srv: FakeAPIServer, name: str, group_name: str | None, cpu: str = "1500m", pc: str = ""
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "m", "image": "x", "resources": {"requests": {"cpu": cpu}}}],
        "nodeSelector": dict(TEST),
    }
    if group_name:
        spec["schedulingGroup"] = {"podGroupName": group_name}
    if pc:
        spec["priorityClassName"] = pc
    return srv.create_object(
        "", "v1", "pods", {"metadata": {"name": name, "namespace": NS}, "spec": spec}
    )


def get(srv: FakeAPIServer, name: str) -> dict[str, Any] | None:
    return srv.get_object("", "v1", "pods", NS, name)


def cond(obj: dict[str, Any] | None, type_: str) -> dict[str, Any] | None:
    assert obj is not None
    return next(
        (c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == type_), None
    )


def srm(c: dict[str, Any] | None) -> tuple[Any, ...]:
    assert c is not None
    return (c["status"], c.get("reason"), c.get("message"))


def group_condition(srv: FakeAPIServer, name: str) -> tuple[Any, ...] | None:
    obj = srv.get_object(SCHED, "v1beta1", "podgroups", NS, name)
    c = cond(obj, "PodGroupInitiallyScheduled")
    return None if c is None else srm(c)


def events(
    srv: FakeAPIServer, pod_name: str | None = None, reason: str | None = None
) -> list[dict[str, Any]]:
    return [
        e
        for e in srv.list_objects("", "v1", "events", NS)
        if (pod_name is None or e["involvedObject"]["name"] == pod_name)
        and (reason is None or e["reason"] == reason)
    ]


async def low_gang(srv: FakeAPIServer, sim: GangSimulator, mode: str) -> None:
    """The bound low gang of every preemption case: minCount 2, 2 x 1500m, priority low."""
    group(srv, "low", 2, mode, priorityClassName="low")
    pod(srv, "low-1", "low", pc="low")
    pod(srv, "low-2", "low", pc="low")
    result = await sim.step()
    assert set(result.bound) == {f"{NS}/low-1", f"{NS}/low-2"}


async def node_event(srv: FakeAPIServer, name: str) -> None:
    """An unrelated Node change (a label patched), as a kubelet's updates are."""
    async with (
        aiohttp.ClientSession(srv.url) as http,
        http.patch(
            f"/api/v1/nodes/{name}",
            json={"metadata": {"labels": {"touched": "yes"}}},
            headers={"Content-Type": "application/merge-patch+json"},
        ) as response,
    ):
        assert response.status == 200


def assert_victim(srv: FakeAPIServer, name: str, message: str, note_start: str) -> None:
    """The common facts of every observed eviction ("How victims are evicted")."""
    victim = get(srv, name)
    assert victim is not None, f"{name} is gone already"
    meta = victim["metadata"]
    target = cond(victim, "DisruptionTarget")
    assert srm(target) == ("True", "PreemptionByScheduler", message)
    assert target is not None and target["observedGeneration"] == 1
    assert meta["deletionGracePeriodSeconds"] == 30
    assert meta["generation"] == 2
    created = datetime.now(UTC).timestamp()
    stamp = datetime.fromisoformat(meta["deletionTimestamp"].replace("Z", "+00:00")).timestamp()
    assert 25 <= stamp - created <= 31  # now + 30 s
    assert victim["spec"]["nodeName"]  # keeps its node and PodScheduled=True
    assert srm(cond(victim, "PodScheduled"))[0] == "True"
    (event,) = events(srv, name, "Preempted")
    assert (event["type"], event["action"], event["reportingComponent"]) == (
        "Normal",
        "Preempting",
        "default-scheduler",
    )
    assert event["message"].startswith(note_start)


def assert_victim_group_untouched(srv: FakeAPIServer) -> None:
    assert group_condition(srv, "low") == ("True", "Scheduled", "")
    assert all(e["involvedObject"]["kind"] == "Pod" for e in events(srv))
    assert events(srv, reason="Nominated") == []


# -- 1a / 1e: a plain high pod evicts one member, whatever the victim gang's mode ------------


@pytest.mark.parametrize("mode", ["all", "single"])
async def test_1a_1e_plain_pod_evicts_one_member(server: FakeAPIServer, mode: str) -> None:
    sim = GangSimulator(server, cluster())
    await low_gang(server, sim, mode)
    high = pod(server, "high", None, pc="high")
    start = len(server.requests)
    result = await sim.step()
    assert result.preempted == {f"{NS}/low-2": f"Pod {NS}/high"}
    assert (
        get(server, "low-1") is not None
        and get(server, "low-1")["metadata"].get("deletionTimestamp") is None
    )  # type: ignore[index]
    victim_node = get(server, "low-2")["spec"]["nodeName"]  # type: ignore[index]
    assert_victim(
        server, "low-2", BY_POD, f"Preempted by pod {high['metadata']['uid']} on node {victim_node}"
    )
    (preempted,) = events(server, "low-2", "Preempted")
    # issue 28, item 8 (the real event): no related object for a plain-pod preemptor (the
    # scheduler passes its preemption wrapper, a type no scheme knows, as the related object)
    assert "related" not in preempted
    preemptor = get(server, "high")
    assert preemptor is not None
    assert preemptor["status"]["nominatedNodeName"] == victim_node
    first = f"0/6 nodes are available: 2 Insufficient cpu, 4 {SELECTOR}."
    assert srm(cond(preemptor, "PodScheduled")) == ("False", "Unschedulable", first)
    assert [e["message"] for e in events(server, "high", "FailedScheduling")] == [first]
    # the observed order: FailedScheduling, nominatedNodeName, Preempted, DisruptionTarget, DELETE
    writes = [(r.method, r.path.rsplit("/", 2)[-2:], r.body) for r in server.requests[start:]]
    order = []
    for method, tail, body in writes:
        if method == "POST" and tail[-1] == "events":
            order.append("Preempted" if b'"Preempted"' in body else "FailedScheduling")
        elif method == "PATCH" and tail == ["high", "status"] and b"nominatedNodeName" in body:
            order.append("nominatedNodeName")
        elif method == "PATCH" and tail == ["low-2", "status"] and b"DisruptionTarget" in body:
            order.append("DisruptionTarget")
        elif method == "DELETE" and tail[-1] == "low-2":
            order.append("DELETE")
    assert order == [
        "FailedScheduling",
        "nominatedNodeName",
        "Preempted",
        "DisruptionTarget",
        "DELETE",
    ]
    assert_victim_group_untouched(server)
    # issue 33, item 14: the victim's update with deletionTimestamp (its graceful deletion
    # began) is a cluster event that sends the preemptor back to be tried; that attempt ends
    # with the terminating-pod suffix, on its message and as a second FailedScheduling event
    result = await sim.step()
    assert result.bound == {} and result.preempted == {}
    retry = (
        f"{first} no new claims to deallocate, preemption: not eligible due to a terminating pod"
        " on the nominated node."
    )
    assert srm(cond(get(server, "high"), "PodScheduled")) == ("False", "Unschedulable", retry)
    assert [e["message"] for e in events(server, "high", "FailedScheduling")] == [first, retry]
    waiting = get(server, "high")
    assert waiting is not None and waiting["spec"].get("nodeName") is None
    assert waiting["status"]["nominatedNodeName"] == victim_node
    # no further attempt without another cluster event: nothing more is written
    rv = server.resource_version
    for _ in range(3):
        assert (await sim.step()).bound == {}
    assert server.resource_version == rv
    # the stand-in kubelet removes the victim; the preemptor then binds, nomination cleared
    assert await sim.finish_terminating() == [f"{NS}/low-2"]
    result = await sim.step()
    assert result.bound == {f"{NS}/high": victim_node}
    bound = get(server, "high")
    assert bound is not None and "nominatedNodeName" not in bound["status"]
    scheduled = cond(bound, "PodScheduled")
    assert srm(scheduled) == ("True", None, None)
    assert scheduled is not None and "observedGeneration" not in scheduled
    assert bound["metadata"]["generation"] == 1  # binding does not bump the generation
    reasons = [e["reason"] for e in sorted(events(server, "high"), key=lambda e: e["eventTime"])]
    assert reasons == ["FailedScheduling", "FailedScheduling", "Scheduled"]
    assert_victim_group_untouched(server)


# -- 1b: a high gang evicts the whole disruptionMode all gang --------------------------------


async def test_1b_gang_evicts_the_all_mode_gang(server: FakeAPIServer) -> None:
    sim = GangSimulator(server, cluster(old=6))
    await low_gang(server, sim, "all")
    high = group(server, "high", 2, priorityClassName="high")
    pod(server, "high-1", "high", pc="high")
    pod(server, "high-2", "high", pc="high")
    result = await sim.step()
    assert set(result.preempted) == {f"{NS}/low-1", f"{NS}/low-2"}
    note = f"Preempted by podgroup {high['metadata']['uid']} on node cluster"
    for name in ("low-1", "low-2"):
        assert_victim(server, name, BY_GROUP, note)
        (event,) = events(server, name, "Preempted")
        assert event["message"] == note
        related = event["related"]
        assert (related["kind"], related["name"], related["uid"]) == (
            "PodGroup",
            "high",
            high["metadata"]["uid"],
        )
    misfit = f"0/8 nodes are available: 2 Insufficient cpu, 6 {SELECTOR}. {AWARE}"
    for name in ("high-1", "high-2"):
        preemptor = get(server, name)
        assert preemptor is not None and "nominatedNodeName" not in preemptor["status"]
        assert srm(cond(preemptor, "PodScheduled")) == ("False", "Unschedulable", misfit)
    assert group_condition(server, "high") == (
        "False",
        "Unschedulable",
        "0/1 placements are available, first placement status: pod group is unschedulable",
    )
    assert_victim_group_untouched(server)
    # waiting for the victims: no new eviction, no new write
    rv = server.resource_version
    result = await sim.step()
    assert result.preempted == {} and result.bound == {}
    assert server.resource_version == rv
    # the victims removed (force delete, as the observation stood in for the kubelet): both bind
    for name in ("low-1", "low-2"):
        server.delete_object("", "v1", "pods", NS, name, grace_period_seconds=0)
    start = len(server.requests)
    result = await sim.step()
    assert set(result.bound) == {f"{NS}/high-1", f"{NS}/high-2"}
    # the member bound second gets nominatedNodeName just before its binding (then cleared)
    second = list(result.bound)[1].split("/")[1]
    writes = [
        (r.method, r.path.rsplit("/", 1)[-1], b"nominatedNodeName" in r.body)
        for r in server.requests[start:]
        if f"/pods/{second}/" in r.path and r.method in ("PATCH", "POST")
    ]
    assert writes[:2] == [("PATCH", "status", True), ("POST", "binding", False)]
    assert group_condition(server, "high") == ("True", "Scheduled", "")
    for name in ("high-1", "high-2"):
        assert srm(cond(get(server, name), "PodScheduled")) == ("True", None, None)
        assert "nominatedNodeName" not in get(server, name)["status"]  # type: ignore[index]


# -- 1c / 1d: a minCount 1 gang needs one node ------------------------------------------------


@pytest.mark.parametrize(("mode", "evicted"), [("single", 1), ("all", 2)])
async def test_1c_1d_gang_of_one_honours_the_victims_mode(
    server: FakeAPIServer, mode: str, evicted: int
) -> None:
    sim = GangSimulator(server, cluster())
    await low_gang(server, sim, mode)
    high = group(server, "high", 1, priorityClassName="high")
    pod(server, "high-1", "high", pc="high")
    start = len(server.requests)
    result = await sim.step()
    # issue 28, item 9: with equal victims on two nodes the real scheduler chose low-1
    victims = ["low-1"] if evicted == 1 else ["low-1", "low-2"]
    assert sorted(result.preempted) == [f"{NS}/{v}" for v in victims]
    if evicted == 1:
        assert get(server, "low-2")["metadata"].get("deletionTimestamp") is None  # type: ignore[index]
    # issue 28, item 10: one DELETE per victim, with default options (the pod's own grace,
    # 30 s); each stays Terminating with deletionGracePeriodSeconds 30 until its kubelet
    # stand-in removes it
    deletes = [r.path.rsplit("/", 1)[-1] for r in server.requests[start:] if r.method == "DELETE"]
    assert sorted(deletes) == victims
    note = f"Preempted by podgroup {high['metadata']['uid']} on node cluster"
    for name in victims:
        assert_victim(server, name, BY_GROUP, note)
    for _ in range(2):
        result = await sim.step()
        assert (result.bound, result.finished, result.preempted) == ({}, [], {})
    for name in victims:
        assert get(server, name)["metadata"]["deletionGracePeriodSeconds"] == 30  # type: ignore[index]
    sim.advance(31)  # past the grace period: the stand-in kubelet finishes the victims
    result = await sim.step()
    assert sorted(result.finished) == [f"{NS}/{v}" for v in victims]
    assert list(result.bound) == [f"{NS}/high-1"]
    assert all(get(server, v) is None for v in victims)
    used = {p["spec"].get("nodeName") for p in server.list_objects("", "v1", "pods", NS)}
    assert len(used - {None}) == (2 if evicted == 1 else 1)  # 1d: the other node stays empty


# -- 1f: the PodGroup's priority decides ------------------------------------------------------


async def test_1f_the_pod_groups_priority_decides(server: FakeAPIServer) -> None:
    sim = GangSimulator(server, cluster())
    await low_gang(server, sim, "all")
    group(server, "high", 1, priorityClassName="high")
    preemptor = pod(server, "high-1", "high")  # no priorityClassName: pod priority 0
    assert preemptor["spec"]["priority"] == 0
    result = await sim.step()
    assert set(result.preempted) == {f"{NS}/low-1", f"{NS}/low-2"}
    assert all(v == f"PodGroup {NS}/high" for v in result.preempted.values())


# -- never a victim, never a preemptor --------------------------------------------------------


async def test_equal_priority_and_never_do_not_preempt(server: FakeAPIServer) -> None:
    server.create_object(
        SCHED,
        "v1",
        "priorityclasses",
        {"metadata": {"name": "high-never"}, "value": 1000, "preemptionPolicy": "Never"},
    )
    sim = GangSimulator(server, cluster())
    await low_gang(server, sim, "single")
    pod(server, "equal", None, pc="low")
    pod(server, "never", None, pc="high-never")
    result = await sim.step()
    assert result.preempted == {}
    fit = f"0/6 nodes are available: 2 Insufficient cpu, 4 {SELECTOR}."
    assert srm(cond(get(server, "never"), "PodScheduled"))[2] == (
        f"{fit} {NOT_ELIGIBLE} preemptionPolicy=Never."
    )
    assert srm(cond(get(server, "equal"), "PodScheduled"))[2] == (
        f"{fit} no new claims to deallocate, preemption: 0/6 nodes are available:"
        " 2 No preemption victims found for incoming pod,"
        " 4 Preemption is not helpful for scheduling."
    )
    group(server, "never-gang", 1, priorityClassName="high-never")
    pod(server, "never-gang-1", "never-gang", pc="high-never")
    assert (await sim.step()).preempted == {}


# -- 2: topology --------------------------------------------------------------------------------


def topology_cluster() -> list[SimNode]:
    return cluster(test=4, old=4, zones="aabb")


def zone_group(srv: FakeAPIServer, key: str = ZONE) -> None:
    group(srv, "t", 3, schedulingConstraints={"topology": [{"key": key}]})


async def test_2a_no_zone_holds_the_gang(server: FakeAPIServer) -> None:
    sim = GangSimulator(server, topology_cluster())
    zone_group(server)
    for i in (1, 2, 3):
        pod(server, f"t-{i}", "t")
    result = await sim.step()
    assert result.bound == {}
    assert group_condition(server, "t") == (
        "False",
        "Unschedulable",
        "0/3 placements are available, first placement status: pod group is unschedulable,"
        " workload aware preemption is not supported for pod groups with scheduling constraints",
    )
    # one message per placement outcome (issue 33, item 14): in a zone of the test nodes, two
    # pods had a place and the third misfits, counting that placement's nodes only ("0/2");
    # in the excluded nodes' zone ("zone-a") none matches the nodeSelector ("0/4")
    misfit = f"0/2 nodes are available: 2 Insufficient cpu. {PLACEMENT}"
    excluded = f"0/4 nodes are available: 4 {SELECTOR}. {PLACEMENT}"

    def failed(name: str) -> list[str]:
        found = events(server, name, "FailedScheduling")
        return [e["message"] for e in sorted(found, key=lambda e: e["eventTime"])]

    first = {n: failed(n) for n in ("t-1", "t-2", "t-3")}
    assert {m for ms in first.values() for m in ms} == {WAITING, misfit, excluded}
    assert all(excluded in ms and len(ms) == 2 for ms in first.values())
    assert sorted(ms[0] for ms in first.values()) == sorted([WAITING, WAITING, misfit])
    for name, messages in first.items():
        assert srm(cond(get(server, name), "PodScheduled")) == (
            "False",
            "Unschedulable",
            messages[-1],
        )
    # "Different placements gave different per-pod messages, so each retry rewrote pod status
    # and posted new FailedScheduling events."
    rv = server.resource_version
    await sim.step()
    assert server.resource_version != rv
    assert all(failed(n) == [*first[n], *first[n]] for n in first)


async def test_2a_two_domains_give_stable_messages(server: FakeAPIServer) -> None:
    nodes = [
        SimNode(f"t{i + 1}", {"cpu": "2"}, {**TEST, "sim-domain": "ab"[i // 2]}) for i in range(4)
    ]
    sim = GangSimulator(server, nodes)
    zone_group(server, "sim-domain")
    for i in (1, 2, 3):
        pod(server, f"t-{i}", "t")
    await sim.step()
    message = group_condition(server, "t")
    assert message is not None and message[2].startswith("0/2 placements are available, ")
    rv = server.resource_version
    await sim.step()
    assert server.resource_version == rv  # stable messages: nothing rewritten


@pytest.mark.parametrize(
    ("filler", "zone", "per_node"),
    [
        (None, "a", {"t1": 2, "t2": 1}),
        ("1500m", "b", {"t3": 2, "t4": 1}),
        ("500m", "a", {"t1": 1, "t2": 2}),
    ],
)
async def test_2b_2c_2d_the_first_zone_that_fits(
    server: FakeAPIServer, filler: str | None, zone: str, per_node: dict[str, int]
) -> None:
    sim = GangSimulator(server, topology_cluster())
    if filler:
        pod(server, "filler", None, cpu=filler)
        assert (await sim.step()).bound == {f"{NS}/filler": "t1"}
    zone_group(server)
    for i in (1, 2, 3):
        pod(server, f"t-{i}", "t", cpu="900m")
    result = await sim.step()
    placed = [get(server, f"t-{i}") for i in (1, 2, 3)]
    counts: dict[str, int] = {}
    for p in placed:
        assert p is not None and p["metadata"]["labels"][ZONE] == zone
        counts[p["spec"]["nodeName"]] = counts.get(p["spec"]["nodeName"], 0) + 1
    assert counts == per_node
    assert len(result.bound) == 3
    assert group_condition(server, "t") == ("True", "Scheduled", "")


# -- 3: basic policy ----------------------------------------------------------------------------


async def test_3_basic_group_places_pods_one_by_one(server: FakeAPIServer) -> None:
    sim = GangSimulator(server, cluster(old=8))
    group(server, "b", None)
    for i in (1, 2):
        pod(server, f"b-{i}", "b")
        assert list((await sim.step()).bound) == [f"{NS}/b-{i}"]
    assert group_condition(server, "b") == ("True", "Scheduled", "")
    pod(server, "b-3", "b")
    await sim.step()
    assert srm(cond(get(server, "b-3"), "PodScheduled")) == (
        "False",
        "Unschedulable",
        f"0/10 nodes are available: 2 Insufficient cpu, 8 {SELECTOR}. {AWARE}",
    )
    assert len(events(server, "b-3", "FailedScheduling")) >= 1
    assert all("series" not in e for e in events(server, "b-3"))
    assert group_condition(server, "b") == ("True", "Scheduled", "")  # never False


# -- gang (d): a pod names a missing PodGroup -----------------------------------------------------


async def test_d_missing_group_then_created(server: FakeAPIServer) -> None:
    sim = GangSimulator(server, cluster())
    pod(server, "lonely", "missing-pg")
    await sim.step()
    assert (get(server, "lonely") or {})["status"].get("conditions") is None
    assert events(server) == []
    group(server, "missing-pg", None)
    assert list((await sim.step()).bound) == [f"{NS}/lonely"]
    assert group_condition(server, "missing-pg") == ("True", "Scheduled", "")


async def test_plain_pod_that_fits_nowhere(server: FakeAPIServer) -> None:
    """Gang scheduling (b)'s contrast: a plain pod too large for every node."""
    sim = GangSimulator(server, [SimNode(f"n{i}", {"cpu": "2"}, dict(TEST)) for i in range(4)])
    pod(server, "big", None, cpu="3")
    await sim.step()
    message = srm(cond(get(server, "big"), "PodScheduled"))[2]
    assert message.endswith(
        "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
