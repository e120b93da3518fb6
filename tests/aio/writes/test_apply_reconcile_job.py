"""reconcile_job(): the Job controller's sync through the core's decision, over real HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from apply_support import NS, SCHEDULING

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer


def job(name: str = "trainer", **spec: Any) -> dict[str, Any]:
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "containers": [{"name": "main", "image": "trainer"}],
    }
    pod_spec.update(spec.pop("pod", {}))
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS, **spec.pop("metadata", {})},
        "spec": {
            "parallelism": 4,
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {"spec": pod_spec},
            **spec,
        },
    }


def stored(server: FakeAPIServer, plural: str) -> list[dict[str, Any]]:
    return server.list_objects(SCHEDULING, "v1beta1", plural, NS)


async def test_a_root_job_gets_its_workload_and_pod_group_once(
    fake_apiserver: FakeAPIServer,
) -> None:
    created_job = fake_apiserver.create_object("batch", "v1", "jobs", job())
    async with fake_apiserver.api_client() as api:
        first = await aio.reconcile_job(api, created_job)
        rv = fake_apiserver.resource_version
        second = await aio.reconcile_job(api, created_job)
    assert [r.kind for r in first.created] == ["Workload", "PodGroup"]
    assert second.created == () and second.resized == ()
    assert fake_apiserver.resource_version == rv
    [workload] = stored(fake_apiserver, "workloads")
    [group] = stored(fake_apiserver, "podgroups")
    uid = created_job["metadata"]["uid"]
    # As the Job controller names and owns them (upstream section 6).
    assert workload["metadata"]["name"] == wb.generate_workload_name("trainer", uid)
    assert workload["spec"]["controllerRef"] == {
        "apiGroup": "batch",
        "kind": "Job",
        "name": "trainer",
    }
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 4}}
    assert [(r["kind"], r.get("controller")) for r in group["metadata"]["ownerReferences"]] == [
        ("Job", True),
        ("Workload", None),
    ]
    assert group["metadata"]["ownerReferences"][1]["uid"] == workload["metadata"]["uid"]
    assert second.objects[0].metadata.name == group["metadata"]["name"]
    reasons = sorted(
        (e["reason"], e["involvedObject"]["uid"])
        for e in fake_apiserver.list_objects("", "v1", "events", NS)
    )
    assert reasons == [("PodGroupCreated", uid), ("WorkloadCreated", uid)]


async def test_a_job_with_its_own_scheduling_group_gets_nothing(
    fake_apiserver: FakeAPIServer,
) -> None:
    own = fake_apiserver.create_object(
        "batch", "v1", "jobs", job(pod={"schedulingGroup": {"podGroupName": "mine"}})
    )
    async with fake_apiserver.api_client() as api:
        result = await aio.reconcile_job(api, own)
    assert result.created == () and result.skipped
    assert stored(fake_apiserver, "workloads") == [] and stored(fake_apiserver, "podgroups") == []
    assert fake_apiserver.list_objects("", "v1", "events", NS) == []


async def test_a_job_owned_by_another_controller_gets_nothing(
    fake_apiserver: FakeAPIServer,
) -> None:
    owner = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "name": "js",
        "uid": "9d2c",
        "controller": True,
    }
    child = fake_apiserver.create_object(
        "batch", "v1", "jobs", job(metadata={"ownerReferences": [owner]})
    )
    async with fake_apiserver.api_client() as api:
        result = await aio.reconcile_job(api, child)
    assert result.created == () and result.skipped
    assert stored(fake_apiserver, "workloads") == [] and stored(fake_apiserver, "podgroups") == []


async def test_a_started_job_gets_nothing_new(fake_apiserver: FakeAPIServer) -> None:
    started = fake_apiserver.create_object("batch", "v1", "jobs", job())
    uid = started["metadata"]["uid"]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "trainer-0",
            "namespace": NS,
            "labels": {aio.JOB_CONTROLLER_UID_LABEL: uid},
        },
        "spec": {"containers": [{"name": "main", "image": "trainer"}]},
    }
    fake_apiserver.create_object("", "v1", "pods", pod)
    async with fake_apiserver.api_client() as api:
        result = await aio.reconcile_job(api, started)
    assert result.created == ()
    assert stored(fake_apiserver, "workloads") == []


async def test_parallelism_change_resizes_template_and_group(
    fake_apiserver: FakeAPIServer,
) -> None:
    created_job = fake_apiserver.create_object("batch", "v1", "jobs", job())
    async with fake_apiserver.api_client() as api:
        await aio.reconcile_job(api, created_job)
        scaled = {**created_job, "spec": {**created_job["spec"], "parallelism": 3}}
        result = await aio.reconcile_job(api, scaled, pods=[{"metadata": {"name": "p"}}])
    assert [r.kind for r in result.resized] == ["Workload", "PodGroup"]
    [workload] = stored(fake_apiserver, "workloads")
    [group] = stored(fake_apiserver, "podgroups")
    assert workload["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}


async def test_a_delegated_child_job_gets_only_a_pod_group_of_its_parents_workload(
    fake_apiserver: FakeAPIServer,
) -> None:
    parent = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js", "namespace": NS, "uid": "5e0c-jobset"},
    }
    parent_builder = wb.Builder(
        wb.leaf("workers", policy=wb.gang(2)),
        wb.BuildOptions(
            name="js-wl",
            namespace=NS,
            owner=wb.controller_ref(parent),
            allowed_policies=frozenset(wb.SchedulingPolicyOption),
        ),
    )
    owner_ref = wb.controller_ref(parent).to_dict()
    child = wb.delegate_to_job(
        job("js-workers-0", metadata={"ownerReferences": [owner_ref]}), "workers"
    )
    created_child = fake_apiserver.create_object("batch", "v1", "jobs", child)
    async with fake_apiserver.api_client() as api:
        await aio.apply(api, [parent_builder.build_workload()], field_manager="jobset")
        result = await aio.reconcile_job(api, created_child)
    assert [r.kind for r in result.created] == ["PodGroup"]
    [group] = stored(fake_apiserver, "podgroups")
    assert group["spec"]["workloadRef"] == {"workloadName": "js-wl", "templateName": "workers"}
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}  # the parent's template
    assert [r["kind"] for r in group["metadata"]["ownerReferences"]] == ["Job"]
    assert len(stored(fake_apiserver, "workloads")) == 1


async def test_a_refused_workload_is_recorded_on_the_job_and_raised(
    fake_apiserver: FakeAPIServer,
) -> None:
    # The API server refuses such a Job itself; handed one anyway, the Workload is refused.
    bad = job(scheduling={"schedulingPolicy": {"gang": {"minCount": 0}}})
    bad["metadata"]["uid"] = "0d1f-unvalidated"
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.ApplyError) as caught:
            await aio.reconcile_job(api, bad)
    assert [r.kind for r in caught.value.not_applied] == ["Workload"]
    [event] = fake_apiserver.list_objects("", "v1", "events", NS)
    assert (event["type"], event["reason"]) == ("Warning", "FailedWorkloadCreate")
    assert event["message"].startswith("Failed to create Workload for Job trainer: ")
    assert stored(fake_apiserver, "workloads") == []


async def test_a_first_sync_decides_once_and_reads_nothing_after_its_first_create(
    fake_apiserver: FakeAPIServer,
) -> None:
    created_job = fake_apiserver.create_object("batch", "v1", "jobs", job())
    async with fake_apiserver.api_client() as api:
        before = len(fake_apiserver.requests)
        result = await aio.reconcile_job(api, created_job)
    assert [r.kind for r in result.created] == ["Workload", "PodGroup"]
    sent = [(r.method, r.path.rsplit("/", 1)[-1]) for r in fake_apiserver.requests[before:]]
    # the Job's objects read once (by name, then the lists, as neither exists), then only
    # the creates and their Events: the PodGroup follows from the Workload the server stored
    first_post = sent.index(("POST", "workloads"))
    assert all(method == "GET" for method, _ in sent[:first_post])
    assert sent[first_post:] == [
        ("POST", "workloads"),
        ("POST", "events"),
        ("POST", "podgroups"),
        ("POST", "events"),
    ]
    [group] = stored(fake_apiserver, "podgroups")
    [workload] = stored(fake_apiserver, "workloads")
    assert group["metadata"]["ownerReferences"][1]["uid"] == workload["metadata"]["uid"]
    assert result.objects[0].metadata.uid == group["metadata"]["uid"]
