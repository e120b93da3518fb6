"""reconcile_job() as the Job controller: it creates, never takes over, reports each creation
once, and shrinks a gang to the work left, over real HTTP.

Expected values from kubernetes/kubernetes ``pkg/controller/job/job_scheduling_manager.go``
@06aef7c6dc70e4149c09aaaf0862f4ca29f3b3d7 (``createWorkloadForJob``: Create, then on error
``FailedWorkloadCreate`` "Failed to create Workload for Job %s: %v") and its tests
@0040ecbee061811c752821a4617f5b5bdb4db8ac ("BYO Workload (no controller ownerRef) is ignored;
controller creates its own"; ``TestDesiredGangMinCount`` "shrinks an indexed gang in the
tail"); the server's message from kubernetes/apimachinery ``NewAlreadyExists``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from apply_support import NS, SCHEDULING
from test_apply_reconcile_job import job, stored

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer


def byo_workload(name: str, job_name: str = "trainer") -> dict[str, Any]:
    """A Workload a person made for the Job: its controllerRef names the Job, no owner."""
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": job_name},
            "podGroupTemplates": [
                {"name": f"{job_name}-pgt-0", "schedulingPolicy": {"gang": {"minCount": 4}}}
            ],
        },
    }


async def test_a_workload_name_someone_else_holds_gives_failed_workload_create(
    fake_apiserver: FakeAPIServer,
) -> None:
    created_job = fake_apiserver.create_object("batch", "v1", "jobs", job())
    name = wb.generate_workload_name("trainer", created_job["metadata"]["uid"])
    theirs = fake_apiserver.create_object(SCHEDULING, "v1beta1", "workloads", byo_workload(name))
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.TakenNameError) as caught:  # the Job controller returns it
            await aio.reconcile_job(api, created_job)
    error, result = caught.value, caught.value.result
    assert error.target == aio.ObjectRef("Workload", NS, name) and error.controller is None
    assert (error.status, error.reason) == (409, "AlreadyExists")
    assert str(error).startswith(
        f"Workload {NS}/{name} exists and is not controlled by Job trainer: it has no controller"
    )
    [live] = stored(fake_apiserver, "workloads")
    assert live["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]
    assert "ownerReferences" not in live["metadata"]
    assert stored(fake_apiserver, "podgroups") == []
    assert result.created == () and [r.name for r in result.foreign] == [name]
    [event] = fake_apiserver.list_objects("", "v1", "events", NS)
    assert (event["type"], event["reason"]) == ("Warning", "FailedWorkloadCreate")
    assert event["message"] == (
        f'Failed to create Workload for Job trainer: workloads.scheduling.k8s.io "{name}"'
        " already exists"
    )


async def test_a_pod_group_name_another_controller_holds_is_a_typed_error(
    fake_apiserver: FakeAPIServer,
) -> None:
    created_job = fake_apiserver.create_object("batch", "v1", "jobs", job())
    workload = wb.generate_workload_name("trainer", created_job["metadata"]["uid"])
    name = wb.generate_pod_group_name(workload, "trainer-pgt-0")
    other = {"apiVersion": "example.com/v1", "kind": "Other", "name": "x", "uid": "0ther-uid"}
    owners = [{**other, "controller": True}]
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": NS, "ownerReferences": owners},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "workloadRef": {"workloadName": workload, "templateName": "trainer-pgt-0"},
        },
    }
    theirs = fake_apiserver.create_object(SCHEDULING, "v1beta1", "podgroups", group)
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.TakenNameError) as caught:
            await aio.reconcile_job(api, created_job)
    error, result = caught.value, caught.value.result
    assert error.target == aio.ObjectRef("PodGroup", NS, name)
    assert error.controller == "Other x (uid 0ther-uid)"
    assert f"PodGroup {NS}/{name} exists and is not controlled by Job trainer" in str(error)
    assert [r.kind for r in result.created] == ["Workload"]
    assert [e.reason for e in result.events] == ["WorkloadCreated"]
    [live] = stored(fake_apiserver, "podgroups")
    assert live["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]


async def test_a_byo_workload_without_controller_is_ignored_and_the_job_gets_its_own(
    fake_apiserver: FakeAPIServer,
) -> None:
    created_job = fake_apiserver.create_object("batch", "v1", "jobs", job())
    fake_apiserver.create_object(
        SCHEDULING, "v1beta1", "workloads", byo_workload("user-created-workload")
    )
    async with fake_apiserver.api_client() as api:
        result = await aio.reconcile_job(api, created_job)
    assert [r.kind for r in result.created] == ["Workload", "PodGroup"]
    byo = fake_apiserver.get_object(SCHEDULING, "v1beta1", "workloads", NS, "user-created-workload")
    assert byo is not None and "ownerReferences" not in byo["metadata"]
    [group] = stored(fake_apiserver, "podgroups")
    uid = created_job["metadata"]["uid"]
    own = wb.generate_workload_name("trainer", uid)
    assert group["spec"]["workloadRef"]["workloadName"] == own


async def test_twenty_concurrent_syncs_of_one_job_create_each_object_once(
    fake_apiserver: FakeAPIServer,
) -> None:
    created_job = fake_apiserver.create_object("batch", "v1", "jobs", job())
    async with fake_apiserver.api_client() as api:
        results = await asyncio.gather(
            *(aio.reconcile_job(api, created_job, pods=[]) for _ in range(20))
        )
    created = sorted(r.kind for result in results for r in result.created)
    assert created == ["PodGroup", "Workload"]
    assert len(stored(fake_apiserver, "workloads")) == 1
    assert len(stored(fake_apiserver, "podgroups")) == 1
    reasons = sorted(e["reason"] for e in fake_apiserver.list_objects("", "v1", "events", NS))
    assert reasons == ["PodGroupCreated", "WorkloadCreated"]
    assert all(r.objects for r in results)  # every sync ends with the Job's PodGroup


async def test_an_indexed_gang_shrinks_in_the_tail(fake_apiserver: FakeAPIServer) -> None:
    created_job = fake_apiserver.create_object(
        "batch", "v1", "jobs", job(parallelism=10, completions=100, completionMode="Indexed")
    )
    async with fake_apiserver.api_client() as api:
        await aio.reconcile_job(api, created_job)
        [group] = stored(fake_apiserver, "podgroups")
        assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 10}}
        # the Job as the server holds it once 95 have succeeded (a new resourceVersion)
        tail = fake_apiserver.patch_status(
            "batch", "v1", "jobs", NS, created_job["metadata"]["name"], {"succeeded": 95}
        )
        result = await aio.reconcile_job(api, tail, pods=[])
    assert [r.kind for r in result.resized] == ["Workload", "PodGroup"]
    [workload] = stored(fake_apiserver, "workloads")
    [group] = stored(fake_apiserver, "podgroups")
    assert workload["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 5}}
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 5}}
