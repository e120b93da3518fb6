"""reconcile(): the Job controller's sync for any controller, over real HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from apply_support import ALLOW_ALL, NS, OWNER, SCHEDULING, release_builder

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer


def events(server: FakeAPIServer) -> list[tuple[str, str, str]]:
    return sorted(
        (e["type"], e["reason"], e["involvedObject"]["name"])
        for e in server.list_objects("", "v1", "events", NS)
    )


async def test_twice_on_the_same_owner_creates_once(fake_apiserver: FakeAPIServer) -> None:
    builder = release_builder()
    async with fake_apiserver.api_client() as api:
        first = await aio.reconcile(api, builder, field_manager="trainjob-controller")
        rv = fake_apiserver.resource_version
        second = await aio.reconcile(api, release_builder(), field_manager="trainjob-controller")
    assert [r.kind for r in first.created] == [
        "Workload",
        "CompositePodGroup",
        "PodGroup",
        "PodGroup",
    ]
    assert second.created == () and second.resized == () and second.skipped is None
    assert fake_apiserver.resource_version == rv  # the second run wrote nothing
    assert second.workload is not None and second.workload.metadata.uid
    assert [o.metadata.name for o in second.objects] == [o.metadata.name for o in first.objects]
    assert len(fake_apiserver.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)) == 2
    assert events(fake_apiserver) == [
        ("Normal", "CompositePodGroupCreated", "resnet"),
        ("Normal", "PodGroupCreated", "resnet"),
        ("Normal", "PodGroupCreated", "resnet"),
        ("Normal", "WorkloadCreated", "resnet"),
    ]
    [created] = [
        e
        for e in fake_apiserver.list_objects("", "v1", "events", NS)
        if e["reason"] == "WorkloadCreated"
    ]
    assert created["involvedObject"]["uid"] == OWNER["metadata"]["uid"]
    assert created["involvedObject"]["kind"] == "TrainJob"


async def test_an_elastic_resize_reaches_template_and_group(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        await aio.reconcile(api, release_builder(workers=4), field_manager="ctl")
        result = await aio.reconcile(
            api, release_builder(workers=3), field_manager="ctl", new_execution=False
        )
    assert [r.kind for r in result.resized] == ["Workload", "PodGroup"]
    assert result.created == ()
    workers = [
        g
        for g in fake_apiserver.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        if g["spec"]["workloadRef"]["templateName"] == "workers"
    ]
    assert [g["spec"]["schedulingPolicy"]["gang"]["minCount"] for g in workers] == [3]


async def test_objects_controlled_by_another_owner_are_left_alone(
    fake_apiserver: FakeAPIServer,
) -> None:
    impostor: dict[str, Any] = {
        **OWNER,
        "metadata": {**OWNER["metadata"], "uid": "another-uid"},
    }
    async with fake_apiserver.api_client() as api:
        await aio.reconcile(api, release_builder(impostor), field_manager="other-controller")
        [theirs] = fake_apiserver.list_objects(SCHEDULING, "v1beta1", "workloads", NS)
        # Same names (the builder names from the owner's name and the given uid) differ: build
        # the owner's own builder with the impostor's Workload name to force a name clash.
        options = release_builder().options
        clash = wb.Builder(
            release_builder().root,
            wb.BuildOptions(
                name=release_builder(impostor).options.name,
                namespace=NS,
                owner=options.owner,
                **ALLOW_ALL,
            ),
        )
        with pytest.raises(aio.TakenNameError) as caught:
            await aio.reconcile(api, clash, field_manager="trainjob-controller")
    result = caught.value.result
    assert caught.value.controller is not None and "another-uid" in caught.value.controller
    assert result.created == ()
    assert [r.kind for r in result.foreign] == ["Workload"]
    assert result.skipped and "not controlled by TrainJob resnet" in result.skipped
    [live] = fake_apiserver.list_objects(SCHEDULING, "v1beta1", "workloads", NS)
    assert live["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]
    assert [e.reason for e in result.events] == ["FailedWorkloadCreate"]


async def test_compilation_errors_are_returned_and_recorded(
    fake_apiserver: FakeAPIServer,
) -> None:
    bad = wb.Builder(
        wb.leaf("workers", policy=wb.gang(4), disruption_mode="all"),
        wb.BuildOptions(
            name="wl",
            namespace=NS,
            owner=wb.controller_ref(OWNER),
            allowed_policies=frozenset(wb.SchedulingPolicyOption),
        ),  # "all" is not allowed by this controller
    )
    async with fake_apiserver.api_client() as api:
        result = await aio.reconcile(api, bad, field_manager="ctl")
    assert result.errors and result.created == ()
    assert fake_apiserver.list_objects(SCHEDULING, "v1beta1", "workloads", NS) == []
    [event] = fake_apiserver.list_objects("", "v1", "events", NS)
    assert (event["type"], event["reason"]) == ("Warning", "FailedWorkloadCompilation")
    assert str(result.errors[0]) in event["message"]


async def test_nothing_is_created_for_an_execution_that_already_started(
    fake_apiserver: FakeAPIServer,
) -> None:
    async with fake_apiserver.api_client() as api:
        result = await aio.reconcile(
            api, release_builder(), field_manager="ctl", new_execution=False
        )
    assert result.created == () and result.skipped
    assert [r.method for r in fake_apiserver.requests if r.method not in ("GET",)] == []
