"""Verdicts on the cases that make gang scheduling hard: a composite whose child cannot fit,
elastic gangs (extras beyond minCount, lost members, resize), an API that is not served, a
reference of any kind the library hands out, and objects held by a finalizer.

Expected verdicts follow the scheduling semantics (DESIGN.md): the scheduler writes the
verdict of a composite on the composite (``CompositePodGroupInitiallyScheduled``), and on each
member pod it tried ``PodScheduled=False`` ``Unschedulable`` with the node-fit message
(``0/N nodes are available: N Insufficient cpu.``, real-apiserver-observed.md (b)); a gang is
placed once ``minCount`` members have a place, and the extras "are scheduled when they can"
(docs/concepts.md); ``minCount`` is mutable, the condition never reverts."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder import aio
from workloadbuilder.aio import GroupState, MemberProblem, ObjectRef
from workloadbuilder.testing import FakeAPIServer, GangSimulator

from .seed import NS, SCHEDULING, composite, namespace, nodes, pod, pod_group

ROOT = ObjectRef("CompositePodGroup", NS, "train")
WORKERS = ObjectRef("PodGroup", NS, "workers")
LAUNCHER = ObjectRef("PodGroup", NS, "launcher")


def training(server: FakeAPIServer, worker_cpu: str = "1500m") -> None:
    """The seed's training run: ``train`` (minGroupCount 2) over a launcher (1 pod of 1 cpu,
    minCount 1) and workers (4 pods, minCount 4)."""
    namespace(server)
    composite(server, "train", 2)
    for name, count in (("launcher", 1), ("workers", 4)):
        pod_group(
            server,
            name,
            count,
            parentCompositePodGroupName="train",
            workloadRef={"workloadName": "train", "templateName": name},
        )
    pod(server, "launcher-0", group="launcher", cpu="1")
    for i in range(4):
        pod(server, f"workers-{i}", group="workers", cpu=worker_cpu)


async def test_a_composite_whose_workers_cannot_fit_names_them_and_their_cause() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        training(server)  # 1 cpu + 4 x 1500m on three 2-cpu nodes: two workers cannot fit
        await GangSimulator(server, nodes(3)).step()
        verdict = await aio.diagnose(api, ROOT)
        with pytest.raises(aio.NotScheduledError) as caught:
            await aio.wait_scheduled(api, ROOT, timeout=0.5)
    assert verdict.state is GroupState.UNSCHEDULABLE
    assert verdict.reason == "Unschedulable"
    assert verdict.blocking == (WORKERS,)  # the launcher has a place: it only waits
    children = {c.group.name: c for c in verdict.children}
    workers = children["workers"]
    # every worker exists and is PodScheduled=False Unschedulable: tried and refused
    assert workers.state is GroupState.UNSCHEDULABLE
    assert (workers.present, workers.required) == (4, 4)
    assert all(m.scheduler_reason == "Unschedulable" for m in workers.members)
    assert "2 of 4 members fit" in workers.cause
    assert "3 Insufficient cpu" in workers.cause
    assert "workers" in verdict.summary and "3 Insufficient cpu" in verdict.summary
    assert children["launcher"].state is GroupState.UNSCHEDULABLE
    error = caught.value
    assert error.blocking == (WORKERS,)
    assert "workers" in str(error) and "3 Insufficient cpu" in str(error)
    assert "waits for its members" not in str(error)


async def test_a_child_tried_on_its_own_condition_is_still_read_from_its_members() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        training(server)
        await GangSimulator(server, nodes(3)).step()
        child = await aio.diagnose(api, WORKERS)
    assert child.state is GroupState.UNSCHEDULABLE  # not Pending: the scheduler has decided
    assert (child.reason, child.message) == (None, None)  # it wrote nothing on the child
    assert "train" in child.summary  # the verdict is on the parent


async def test_a_composite_waiting_for_a_child_counts_the_children_that_can_be_tried() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        training(server)
        server.delete_object("", "v1", "pods", NS, "workers-3")
        await GangSimulator(server, nodes(4)).step()
        verdict = await aio.diagnose(api, ROOT)
    assert verdict.state is GroupState.WAITING_FOR_MEMBERS
    assert (verdict.present, verdict.required) == (1, 2)  # only the launcher can be tried
    assert verdict.blocking == (WORKERS,)
    assert "3 of 4" in verdict.summary


async def test_an_elastic_gang_with_min_count_placed_is_scheduled_with_its_extras_pending() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        pod_group(server, "pg", 3)
        for i in range(1, 5):
            pod(server, f"p{i}")  # 4 x 1500m on three 2-cpu nodes: one cannot have a node
        await GangSimulator(server, nodes(3)).step()
        verdict = await aio.diagnose(
            api, {"kind": "PodGroup", "metadata": {"name": "pg", "namespace": NS}}
        )
    assert verdict.state is GroupState.SCHEDULED
    assert (verdict.required, verdict.running, verdict.present) == (3, 3, 4)
    assert verdict.extras == ("p4",)
    assert "still pending" in verdict.summary
    assert "replace" not in verdict.summary


async def test_members_lost_above_min_count_keep_it_scheduled_below_it_degraded() -> None:
    ref = ObjectRef("PodGroup", NS, "pg")
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        pod_group(server, "pg", 3)
        for i in range(1, 5):
            pod(server, f"p{i}")
        simulator = GangSimulator(server, nodes(4))
        await simulator.step()
        await simulator.evict(NS, "p1")
        above = await aio.diagnose(api, ref)
        await simulator.evict(NS, "p2")
        below = await aio.diagnose(api, ref)
    assert above.state is GroupState.SCHEDULED  # 3 still run: minCount is met
    assert "p1 evicted" in above.summary
    assert below.state is GroupState.DEGRADED  # 2 run, minCount 3
    assert below.running == 2
    assert "p1 evicted" in below.summary and "p2 evicted" in below.summary


async def test_a_placed_member_that_failed_is_degraded_even_above_min_count() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        pod_group(server, "pg", 2)
        for i in range(1, 4):
            pod(server, f"p{i}")
        await GangSimulator(server, nodes(3)).step()
        server.patch_status("", "v1", "pods", NS, "p3", {"phase": "Failed", "reason": "Error"})
        verdict = await aio.diagnose(api, ObjectRef("PodGroup", NS, "pg"))
    assert verdict.state is GroupState.DEGRADED
    assert {m.name: m.problem for m in verdict.members if m.problem} == {"p3": MemberProblem.FAILED}
    assert "p3 failed" in verdict.summary


def workload(server: FakeAPIServer, min_count: int) -> None:
    server.create_object(
        SCHEDULING,
        "v1beta1",
        "workloads",
        {
            "metadata": {"name": "wl", "namespace": NS},
            "spec": {
                "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "j"},
                "podGroupTemplates": [
                    {"name": "pg", "schedulingPolicy": {"gang": {"minCount": min_count}}}
                ],
            },
        },
    )


async def test_after_resize_the_verdict_reads_the_new_min_count() -> None:
    ref = ObjectRef("PodGroup", NS, "pg")
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        workload(server, 4)
        pod_group(server, "pg", 4, workloadRef={"workloadName": "wl", "templateName": "pg"})
        for i in range(1, 5):
            pod(server, f"p{i}")
        simulator = GangSimulator(server, nodes(3))
        await simulator.step()
        before = await aio.diagnose(api, ref)
        await aio.resize(api, ref.name, 3, namespace=NS)
        await simulator.step()
        after = await aio.diagnose(api, ref)
        server.patch_object(
            SCHEDULING,
            "v1beta1",
            "podgroups",
            NS,
            "pg",
            {"spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}},
        )
        half = await aio.diagnose(api, ref)
    assert (before.state, before.required) == (GroupState.UNSCHEDULABLE, 4)
    assert (after.state, after.required) == (GroupState.SCHEDULED, 3)
    assert "minCount 3" in after.summary and after.extras == ("p4",)
    assert half.required == 2  # the scheduler reads the PodGroup's count
    assert "Workload template says 3" in half.summary


@pytest.mark.parametrize("gates", [{"GenericWorkload": False}])
async def test_the_scheduling_api_not_served_is_said_with_its_gate(gates: dict[str, bool]) -> None:
    async with FakeAPIServer(feature_gates=gates) as server, server.api_client() as api:
        namespace(server)
        with pytest.raises(aio.MissingAPIError) as diagnosed:
            await aio.diagnose(api, ObjectRef("PodGroup", NS, "pg"))
        with pytest.raises(aio.MissingAPIError) as audited:
            await aio.audit(api, NS)
        with pytest.raises(aio.MissingAPIError) as waited:
            await aio.wait_scheduled(api, ObjectRef("PodGroup", NS, "pg"), timeout=1)
    for caught in (diagnosed, audited, waited):
        assert "GenericWorkload" in caught.value.feature_gates
        assert "podgroups.scheduling.k8s.io/v1beta1" in str(caught.value)


async def test_a_composite_on_a_beta_only_cluster_names_the_composite_gate() -> None:
    gates = {"CompositePodGroup": False}
    async with FakeAPIServer(feature_gates=gates) as server, server.api_client() as api:
        namespace(server)
        with pytest.raises(aio.MissingAPIError) as caught:
            await aio.diagnose(api, ROOT)
    assert caught.value.feature_gates == ("CompositePodGroup",)


@pytest.mark.parametrize("bad", ["workers", 3, None, ["workers"]])
async def test_anything_but_a_reference_is_a_type_error_naming_what_is_accepted(bad: Any) -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        with pytest.raises(TypeError, match="ObjectRef"):
            await aio.diagnose(api, bad)
        with pytest.raises(TypeError, match="ObjectRef"):
            await aio.wait_scheduled(api, bad, timeout=1)


async def test_every_reference_the_library_hands_out_is_accepted() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        training(server, worker_cpu="500m")
        await GangSimulator(server, nodes(3)).step()
        findings = await aio.audit(api, NS)  # a Workload "train" is missing: its groups say so
        by_finding = [await aio.diagnose(api, f.object) for f in findings]
        by_pod = await aio.diagnose(api, ObjectRef("Pod", NS, "workers-0"))
        model = aio.wait_scheduled(api, WORKERS, timeout=2)
        placed = await model
        by_model = await aio.diagnose(api, placed)
    assert findings and all(v.state is GroupState.SCHEDULED for v in by_finding)
    assert by_pod.group == WORKERS
    assert by_model.group == WORKERS and by_model.state is GroupState.SCHEDULED


async def test_a_workload_reference_lists_its_groups() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        workload(server, 2)
        pod_group(server, "pg", 2, workloadRef={"workloadName": "wl", "templateName": "pg"})
        pod(server, "p1")
        verdict = await aio.diagnose(api, ObjectRef("Workload", NS, "wl"))
    assert verdict.state is GroupState.WAITING_FOR_MEMBERS
    assert [c.group for c in verdict.children] == [ObjectRef("PodGroup", NS, "pg")]
    assert "is a Workload" in verdict.summary and "PodGroup pg" in verdict.summary


async def test_delete_reports_a_pod_group_held_by_its_pods_as_terminating() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        group = pod_group(server, "pg", 2)
        pod(server, "p1", group="pg")
        pod(server, "p2", group="pg")
        first = await aio.delete(api, [group])
        second = await aio.delete(api, [group])
        server.delete_object("", "v1", "pods", NS, "p1")
        server.delete_object("", "v1", "pods", NS, "p2")
        third = await aio.delete(api, [group])
    (held,) = first.terminating
    assert held.object == ObjectRef("PodGroup", NS, "pg")
    assert held.finalizers == ("scheduling.k8s.io/podgroup-protection",)
    assert "p1, p2 still name it" in held.why and "delete those pods" in held.action
    assert [t.object for t in second.terminating] == [held.object]  # still held, said again
    assert third == [] and third.terminating == ()  # gone once its pods went


async def test_preflight_of_a_workload_with_composite_templates_names_the_composite_gate() -> None:
    import workloadbuilder as wb

    root = wb.composite(
        "train", [wb.leaf("workers", policy=wb.gang(4))], policy=wb.gang(min_group_count=1)
    )
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True}
    options = wb.BuildOptions(
        "train", NS, owner, allowed_policies=frozenset(wb.SchedulingPolicyOption)
    )
    built = wb.Builder(root, options).build_workload()
    flat = wb.Builder(wb.leaf("workers", policy=wb.gang(4)), options).build_workload()
    gates = {"CompositePodGroup": False}
    async with FakeAPIServer(feature_gates=gates) as server, server.api_client() as api:
        with pytest.raises(aio.MissingAPIError) as caught:
            await aio.preflight(api, [built])
        await aio.preflight(api, [flat])  # podGroupTemplates only: a beta cluster runs it
    assert caught.value.feature_gates == ("CompositePodGroup",)
    assert "compositePodGroupTemplates" in str(caught.value)


async def test_a_beta_only_cluster_runs_the_launcher_and_workers_as_one_workload() -> None:
    import workloadbuilder as wb

    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True}
    options = wb.BuildOptions(
        "train", NS, owner, allowed_policies=frozenset(wb.SchedulingPolicyOption)
    )
    builder = wb.Builder(
        [wb.leaf("launcher", policy=wb.gang(1)), wb.leaf("workers", policy=wb.gang(4))], options
    )
    gates = {"CompositePodGroup": False}
    async with FakeAPIServer(feature_gates=gates) as server, server.api_client() as api:
        namespace(server)
        objects = [builder.build_workload(), *wb.instantiate(builder)]
        await aio.preflight(api, objects)
        await aio.apply(api, objects, field_manager="test")
        names = {g.spec.workload_ref.template_name: g.metadata.name for g in objects[1:]}
        pod(server, "launcher-0", group=names["launcher"], cpu="1")
        for i in range(3):
            pod(server, f"workers-{i}", group=names["workers"])
        await GangSimulator(server, nodes(4)).step()
        verdict = await aio.diagnose(api, ObjectRef("Workload", NS, "train"))
    states = {c.group.name: c.state for c in verdict.children}
    # independent gangs: the launcher is placed while the workers wait for their 4th pod
    assert states == {
        names["launcher"]: GroupState.SCHEDULED,
        names["workers"]: GroupState.WAITING_FOR_MEMBERS,
    }
    assert verdict.state is GroupState.WAITING_FOR_MEMBERS


async def test_audit_counts_active_members_and_tells_a_placed_group_from_a_waiting_one() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        pod_group(server, "pg", 4)
        for i in range(1, 5):
            pod(server, f"p{i}")
        simulator = GangSimulator(server, nodes(4))
        await simulator.step()
        await simulator.evict(NS, "p2")  # phase Failed: no longer counts towards minCount
        findings = [
            f for f in await aio.audit(api, NS) if f.kind is aio.FindingKind.TOO_FEW_MEMBERS
        ]
    (finding,) = findings
    assert finding.message.startswith("3 active member pods remain and minCount is 4")
    assert "placed once" in finding.message and "waits" not in finding.message


async def test_the_official_clients_model_is_a_reference_too() -> None:
    from kubernetes.client import V1beta1PodGroup, V1ObjectMeta

    model = V1beta1PodGroup(
        api_version="scheduling.k8s.io/v1beta1",
        kind="PodGroup",
        metadata=V1ObjectMeta(name="workers", namespace=NS),
        spec={"schedulingPolicy": {"gang": {"minCount": 4}}},
    )
    async with FakeAPIServer() as server, server.api_client() as api:
        training(server)
        verdict = await aio.diagnose(api, model)
    assert verdict.group == WORKERS and verdict.state is GroupState.PENDING  # not tried yet


async def test_a_nested_composite_is_read_from_its_children() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        composite(server, "top", 1)
        server.create_object(
            SCHEDULING,
            "v1alpha3",
            "compositepodgroups",
            {
                "metadata": {"name": "mid", "namespace": NS},
                "spec": {
                    "schedulingPolicy": {"gang": {"minGroupCount": 1}},
                    "parentCompositePodGroupName": "top",
                    "workloadRef": {"workloadName": "train", "templateName": "mid"},
                },
            },
        )
        pod_group(
            server,
            "workers",
            4,
            parentCompositePodGroupName="mid",
            workloadRef={"workloadName": "train", "templateName": "workers"},
        )
        for i in range(4):
            pod(server, f"workers-{i}", group="workers")
        await GangSimulator(server, nodes(3)).step()  # 4 x 1500m on three 2-cpu nodes
        top = await aio.diagnose(api, ObjectRef("CompositePodGroup", NS, "top"))
    assert top.state is GroupState.UNSCHEDULABLE and top.reason == "Unschedulable"
    (mid,) = top.children
    assert mid.state is GroupState.UNSCHEDULABLE and mid.reason is None  # nothing written on it
    assert top.blocking == (ObjectRef("CompositePodGroup", NS, "mid"),)
    assert mid.blocking == (WORKERS,) and "3 Insufficient cpu" in mid.cause
