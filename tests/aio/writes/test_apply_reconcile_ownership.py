"""reconcile() creates and never takes over: names held by others, orphans, concurrent
reconciles and changes a live object cannot take, over real HTTP.

Expected behaviour from upstream's Job controller, kubernetes/kubernetes
``pkg/controller/job/job_scheduling_manager.go`` @06aef7c6dc70e4149c09aaaf0862f4ca29f3b3d7
(``createWorkloadForJob``: a *Create*; on error the event ``FailedWorkloadCreate`` with
``"Failed to create Workload for Job %s: %v"`` of the API error; ``getOrCreateWorkload``
manages only objects ``metav1.IsControlledBy`` the Job and, on ``IsAlreadyExists``, lists
again) and its tests @0040ecbee061811c752821a4617f5b5bdb4db8ac ("BYO Workload (no controller
ownerRef) is ignored"); the API server's message from kubernetes/apimachinery
``pkg/api/errors/errors.go`` ``NewAlreadyExists``: ``%s %q already exists`` of the qualified
resource; immutability from kubernetes/api ``scheduling/v1beta1`` markers (only gang
``minCount`` may change), checked against the test server's own 422 causes.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from apply_support import ALLOW_ALL, NS, OWNER, SCHEDULING, release_builder

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.common.errors import APIStatusError

OTHER = {"apiVersion": "example.com/v1", "kind": "Other", "name": "x", "uid": "0ther-uid"}


def stored(server: FakeAPIServer, plural: str) -> list[dict[str, Any]]:
    return server.list_objects(SCHEDULING, "v1beta1", plural, NS)


def events(server: FakeAPIServer) -> list[dict[str, Any]]:
    return server.list_objects("", "v1", "events", NS)


def someone_elses(doc: dict[str, Any], owner: dict[str, Any] | None) -> dict[str, Any]:
    """``doc`` as another controller (``owner``) or a person (``None``) would create it."""
    made = copy.deepcopy(doc)
    made["metadata"].pop("ownerReferences", None)
    if owner is not None:
        made["metadata"]["ownerReferences"] = [{**owner, "controller": True}]
    return made


async def test_a_workload_name_held_by_another_controller_is_never_taken_over(
    fake_apiserver: FakeAPIServer,
) -> None:
    builder = release_builder()
    desired = builder.build_workload().to_dict()
    name = desired["metadata"]["name"]
    theirs = fake_apiserver.create_object(
        SCHEDULING, "v1beta1", "workloads", someone_elses(desired, OTHER)
    )
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.TakenNameError) as caught:  # the Job controller returns it
            await aio.reconcile(api, builder, field_manager="trainjob-controller")
    error, result = caught.value, caught.value.result
    assert error.target == aio.ObjectRef("Workload", NS, name)
    assert error.controller == "Other x (uid 0ther-uid)"
    assert (error.status, error.reason) == (409, "AlreadyExists")
    assert str(error).startswith(
        f"Workload {NS}/{name} exists and is not controlled by TrainJob resnet: Other x (uid"
        " 0ther-uid) controls it. Delete or rename it, then reconcile again"
    )
    [live] = stored(fake_apiserver, "workloads")
    assert live["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]
    assert live["metadata"]["ownerReferences"] == theirs["metadata"]["ownerReferences"]
    assert live["metadata"]["managedFields"] == theirs["metadata"]["managedFields"]
    assert result.created == () and [r.name for r in result.foreign] == [name]
    assert stored(fake_apiserver, "podgroups") == []  # nothing further
    [event] = events(fake_apiserver)
    assert (event["type"], event["reason"]) == ("Warning", "FailedWorkloadCreate")
    assert event["message"] == (
        f'Failed to create Workload for TrainJob resnet: workloads.scheduling.k8s.io "{name}"'
        " already exists"
    )
    assert event["involvedObject"]["uid"] == OWNER["metadata"]["uid"]


async def test_an_orphan_is_adopted_only_when_asked(fake_apiserver: FakeAPIServer) -> None:
    builder = release_builder()
    desired = builder.build_workload().to_dict()
    fake_apiserver.create_object(SCHEDULING, "v1beta1", "workloads", someone_elses(desired, None))
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.TakenNameError) as caught:
            await aio.reconcile(api, builder, field_manager="ctl")
        refused = caught.value.result
        assert caught.value.controller is None
        assert [e.reason for e in refused.events] == ["FailedWorkloadCreate"]
        assert refused.skipped and "pass adopt=True" in refused.skipped
        [live] = stored(fake_apiserver, "workloads")
        assert "ownerReferences" not in live["metadata"]
        adopted = await aio.reconcile(api, builder, field_manager="ctl", adopt=True)
    [live] = stored(fake_apiserver, "workloads")
    [ref] = live["metadata"]["ownerReferences"]
    assert (ref["uid"], ref["controller"], ref["blockOwnerDeletion"]) == (
        OWNER["metadata"]["uid"],
        True,
        True,
    )
    assert [r.kind for r in adopted.adopted] == ["Workload"]
    assert [r.kind for r in adopted.created] == ["CompositePodGroup", "PodGroup", "PodGroup"]
    assert "WorkloadCreated" not in [e.reason for e in adopted.events]  # adopted, not created


async def test_an_orphan_naming_another_owner_cannot_be_adopted(
    fake_apiserver: FakeAPIServer,
) -> None:
    builder = release_builder()
    desired = builder.build_workload().to_dict()
    desired["spec"]["controllerRef"] = {"apiGroup": "example.com", "kind": "Other", "name": "x"}
    theirs = fake_apiserver.create_object(
        SCHEDULING, "v1beta1", "workloads", someone_elses(desired, None)
    )
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.TakenNameError) as caught:
            await aio.reconcile(api, builder, field_manager="ctl", adopt=True)
    result = caught.value.result
    assert result.adopted == () and result.created == () and len(result.foreign) == 1
    assert result.skipped and "cannot be adopted" in result.skipped
    [live] = stored(fake_apiserver, "workloads")
    assert live["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]


async def test_a_group_name_held_by_another_controller_is_left_alone(
    fake_apiserver: FakeAPIServer,
) -> None:
    builder = release_builder()
    [_, *groups] = [builder.build_workload(), *wb.instantiate(builder)]
    leaf = groups[-1].to_dict()
    theirs = fake_apiserver.create_object(
        SCHEDULING, "v1beta1", "podgroups", someone_elses(leaf, OTHER)
    )
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.TakenNameError) as caught:
            await aio.reconcile(api, builder, field_manager="ctl")
    result = caught.value.result
    assert caught.value.target == aio.ObjectRef("PodGroup", NS, leaf["metadata"]["name"])
    assert caught.value.controller == "Other x (uid 0ther-uid)"
    assert result.workload is not None and result.skipped
    assert [r.kind for r in result.created] == ["Workload"]  # the groups are not started
    assert [r.name for r in result.foreign] == [leaf["metadata"]["name"]]
    [live] = [g for g in stored(fake_apiserver, "podgroups")]
    assert live["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]


async def test_twenty_concurrent_reconciles_create_and_report_each_object_once(
    fake_apiserver: FakeAPIServer,
) -> None:
    async with fake_apiserver.api_client() as api:
        results = await asyncio.gather(
            *(aio.reconcile(api, release_builder(), field_manager="ctl") for _ in range(20))
        )
    created = sorted((r.kind, r.name) for result in results for r in result.created)
    on_server = sorted(
        (o["kind"], o["metadata"]["name"])
        for plural, version in (
            ("workloads", "v1beta1"),
            ("compositepodgroups", "v1alpha3"),
            ("podgroups", "v1beta1"),
        )
        for o in fake_apiserver.list_objects(SCHEDULING, version, plural, NS)
    )
    assert created == on_server and len(on_server) == 4
    reasons = sorted(e["reason"] for e in events(fake_apiserver))
    assert reasons == [
        "CompositePodGroupCreated",
        "PodGroupCreated",
        "PodGroupCreated",
        "WorkloadCreated",
    ]
    assert all(r.foreign == () and r.skipped is None for r in results)


def with_driver_topology(workers: int = 4) -> wb.Builder:
    """The release's tree with a topology constraint added to the driver leaf."""
    base = release_builder(workers=workers)
    root = base.root
    workers_leaf, _ = root.children
    driver = wb.leaf("driver", policy=wb.gang(1), topology=["topology.example.com/rack"])
    changed = wb.composite(
        "workload-root",
        [workers_leaf, driver],
        policy=wb.gang(min_group_count=2),
        topology=["topology.kubernetes.io/zone"],
        disruption_mode="all",
    )
    return wb.Builder(
        changed,
        wb.BuildOptions(
            name=base.options.name, namespace=NS, owner=base.options.owner, **ALLOW_ALL
        ),
    )


def server_refusal(server: FakeAPIServer, plural: str, name: str, patch: Any) -> set[str]:
    """The fields of the test server's 422 for ``patch`` (the API server's own rules)."""
    try:
        server.patch_object(SCHEDULING, "v1beta1", plural, NS, name, patch, patch_type="strategic")
    except APIStatusError as exc:
        body = exc.status
        return {c["field"] for c in body["details"]["causes"]}
    raise AssertionError(f"the server accepted {patch!r}")


async def test_an_immutable_change_is_reported_with_its_field_and_recorded(
    fake_apiserver: FakeAPIServer,
) -> None:
    async with fake_apiserver.api_client() as api:
        await aio.reconcile(api, release_builder(), field_manager="ctl")
        before = {o["metadata"]["name"]: o for o in stored(fake_apiserver, "podgroups")}
        result = await aio.reconcile(
            api, with_driver_topology(workers=3), field_manager="ctl", new_execution=False
        )
    template = "spec.compositePodGroupTemplates[0].podGroupTemplates[1].schedulingConstraints"
    by_kind = {(c.object.kind, c.field): c for c in result.immutable}
    assert set(by_kind) == {("Workload", template), ("PodGroup", "spec.schedulingConstraints")}
    change = by_kind[("Workload", template)]
    assert change.reason == "field is immutable" and change.live is None
    assert change.desired == {"topology": [{"key": "topology.example.com/rack"}]}
    # The minCount change (mutable) still goes through.
    assert [r.kind for r in result.resized] == ["Workload", "PodGroup"]
    warnings = [e for e in result.events if e.type == "Warning"]
    assert [e.reason for e in warnings] == ["ImmutableChangeNotApplied"] * 2
    assert template in warnings[0].message
    [recorded] = [e for e in events(fake_apiserver) if e["reason"] == "ImmutableChangeNotApplied"][
        :1
    ]
    assert recorded["type"] == "Warning"
    # The API server refuses the very field we name.
    [workload] = stored(fake_apiserver, "workloads")
    patch = {
        "spec": {
            "compositePodGroupTemplates": [
                {
                    "name": "workload-root",
                    "podGroupTemplates": [
                        {"name": "driver", "schedulingConstraints": change.desired}
                    ],
                }
            ]
        }
    }
    assert template in server_refusal(
        fake_apiserver, "workloads", workload["metadata"]["name"], patch
    )
    [driver_group] = [
        n for n, g in before.items() if g["spec"]["workloadRef"]["templateName"] == "driver"
    ]
    assert "spec.schedulingConstraints" in server_refusal(
        fake_apiserver,
        "podgroups",
        driver_group,
        {"spec": {"schedulingConstraints": change.desired}},
    )


async def test_a_refused_create_carries_the_servers_message(
    fake_apiserver: FakeAPIServer,
) -> None:
    refusal = 'workloads.scheduling.k8s.io "x" is forbidden: quota exceeded'
    fake_apiserver.faults.add(method="POST", path="*/workloads", status=403, message=refusal)
    async with fake_apiserver.api_client() as api:
        try:
            await aio.reconcile(api, release_builder(), field_manager="ctl")
        except aio.ApplyError as exc:
            assert [r.kind for r in exc.not_applied] == ["Workload"]
        else:
            raise AssertionError("the refused create must raise")
    [event] = events(fake_apiserver)
    assert event["message"] == f"Failed to create Workload for TrainJob resnet: {refusal}"


async def test_an_orphan_under_another_name_is_not_adopted(fake_apiserver: FakeAPIServer) -> None:
    """Only the Workload with the tree's own name is adopted: the groups name it."""
    builder = release_builder()
    desired = builder.build_workload().to_dict()
    other = someone_elses(desired, None)
    other["metadata"]["name"] = "made-by-hand"
    fake_apiserver.create_object(SCHEDULING, "v1beta1", "workloads", other)
    async with fake_apiserver.api_client() as api:
        result = await aio.reconcile(api, builder, field_manager="ctl", adopt=True)
    assert result.adopted == ()
    assert [r.kind for r in result.created] == [
        "Workload",
        "CompositePodGroup",
        "PodGroup",
        "PodGroup",
    ]
    by_hand = fake_apiserver.get_object(SCHEDULING, "v1beta1", "workloads", NS, "made-by-hand")
    assert by_hand is not None and "ownerReferences" not in by_hand["metadata"]


async def test_an_orphan_group_is_adopted_only_when_asked(fake_apiserver: FakeAPIServer) -> None:
    builder = release_builder()
    async with fake_apiserver.api_client() as api:
        await aio.reconcile(api, builder, field_manager="ctl")
        [group] = [
            g
            for g in stored(fake_apiserver, "podgroups")
            if g["spec"]["workloadRef"]["templateName"] == "driver"
        ]
        name = group["metadata"]["name"]
        fake_apiserver.patch_object(
            SCHEDULING, "v1beta1", "podgroups", NS, name, {"metadata": {"ownerReferences": None}}
        )  # the owner's reference removed by hand: an orphan
        with pytest.raises(aio.TakenNameError, match="pass adopt=True") as caught:
            await aio.reconcile(api, builder, field_manager="ctl", new_execution=False)
        left = caught.value.result
        assert [r.name for r in left.foreign] == [name] and left.adopted == ()
        taken = await aio.reconcile(api, builder, field_manager="ctl", adopt=True)
    assert [r.name for r in taken.adopted] == [name] and taken.foreign == ()
    live = fake_apiserver.get_object(SCHEDULING, "v1beta1", "podgroups", NS, name)
    assert live is not None
    [ref] = live["metadata"]["ownerReferences"]
    assert (ref["uid"], ref["controller"]) == (OWNER["metadata"]["uid"], True)
    assert taken.skipped is None and len(taken.objects) == 3
