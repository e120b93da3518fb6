"""apply() under faults: throttling, 5xx bursts, dropped connections, a restart; the errors it
must not retry (422 validation, 409 field conflicts) and how a part-way failure reads."""

from __future__ import annotations

import asyncio

import pytest
from apply_support import NS, SCHEDULING, apply_server, gang_pod_groups, release_objects

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

FAST = aio.RetryPolicy(initial_wait=0.01, max_wait=0.05, jitter=0.01)


def patches(server: FakeAPIServer) -> int:
    return sum(r.method == "PATCH" for r in server.requests)


async def test_200_pod_groups_exactly_once_through_every_fault() -> None:
    groups = gang_pod_groups(200)
    async with apply_server() as server, server.api_client() as api:
        server.faults.add(method="PATCH", status=429, retry_after=0, every=2, times=100)
        server.faults.add(method="PATCH", status=500, times=5)
        server.faults.drop_connection(method="PATCH", times=2)

        async def restart_midway() -> None:
            while patches(server) < 150:
                await asyncio.sleep(0.005)
            await server.restart(downtime=0.1)

        restarter = asyncio.create_task(restart_midway())
        # Every other request fails: an unlucky object can meet the throttle on many attempts
        # in a row (100 of them, each a coin toss), so allow more attempts than the default.
        # The restart refuses connections for a moment: retried only when the policy says so.
        patient = aio.RetryPolicy(
            attempts=30, initial_wait=0.01, max_wait=0.05, jitter=0.01, retry_unreachable=True
        )
        applied = await aio.apply(api, groups, field_manager="ctl", retry=patient)
        await restarter

        stored = server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        assert sorted(g["metadata"]["name"] for g in stored) == [f"pg-{i:04d}" for i in range(200)]
        # A PodGroup keeps no generation: one apply each is one managedFields entry, unchanged
        assert all(
            [(m["manager"], m["operation"]) for m in g["metadata"]["managedFields"]]
            == [("ctl", "Apply")]
            for g in stored
        )
        assert [a.metadata.name for a in applied] == [g.metadata.name for g in groups]
        assert server.faults.pending == []
        # 200 applies, 100 throttled, 5 failed, 2 dropped, and at most a window of requests lost
        # to the restart: bounded, with no retry storm.
        assert 307 <= patches(server) <= 307 + aio.DEFAULT_CONCURRENCY


async def test_429_waits_as_retry_after_says() -> None:
    async with apply_server() as server, server.api_client() as api:
        server.faults.add(method="PATCH", status=429, retry_after=1)
        loop = asyncio.get_running_loop()
        start = loop.time()
        await aio.apply(api, gang_pod_groups(1), field_manager="ctl", retry=FAST)
        assert loop.time() - start >= 1.0
        assert patches(server) == 2


async def test_gives_up_after_the_attempts_and_says_so() -> None:
    async with apply_server() as server, server.api_client() as api:
        server.faults.add(method="PATCH", status=503, times=10)
        policy = aio.RetryPolicy(attempts=3, initial_wait=0.01, max_wait=0.01, jitter=0)
        with pytest.raises(aio.ApplyError) as caught:
            await aio.apply(api, gang_pod_groups(1), field_manager="ctl", retry=policy)
        assert patches(server) == 3
        assert "still failing after 3 attempts: HTTP 503" in str(caught.value)


async def test_validation_error_is_not_retried_and_carries_the_servers_causes() -> None:
    bad = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "bad", "namespace": NS},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}},
    }
    async with apply_server() as server, server.api_client() as api:
        with pytest.raises(aio.ApplyError) as caught:
            await aio.apply(api, [bad], field_manager="ctl", retry=FAST)
        assert patches(server) == 1
    error = caught.value.failures[aio.ObjectRef("PodGroup", NS, "bad")]
    assert isinstance(error, aio.InvalidObjectError)
    assert (error.status, error.reason) == (422, "Invalid")
    # The server's StatusCauses, one FieldError each, rendering exactly as the server's.
    [cause] = error.status_body["details"]["causes"]
    assert cause["field"] == "spec.schedulingPolicy.gang.minCount"
    assert [(e.type.value, e.field) for e in caught.value.errors] == [
        (cause["reason"], cause["field"])
    ]
    assert caught.value.errors[0].error_body() == cause["message"]
    assert str(caught.value.errors[0]) == f"{cause['field']}: {cause['message']}"


async def test_conflict_names_the_other_manager_and_force_takes_over() -> None:
    [group] = gang_pod_groups(1)
    async with apply_server() as server, server.api_client() as api:
        await aio.apply(api, [group], field_manager="autoscaler")
        changed = group.model_copy(deep=True)
        changed.spec.scheduling_policy.gang.min_count = 5  # type: ignore[union-attr]
        with pytest.raises(aio.ApplyError) as caught:
            await aio.apply(api, [changed], field_manager="ctl")
        [conflict] = caught.value.conflicts
        assert conflict.manager == "autoscaler"
        assert conflict.field == ".spec.schedulingPolicy.gang.minCount"
        message = str(caught.value)
        assert "autoscaler" in message and ".spec.schedulingPolicy.gang.minCount" in message
        assert "force=True" in message

        [forced] = await aio.apply(api, [changed], field_manager="ctl", force=True)
        assert forced.spec.scheduling_policy.gang.min_count == 5  # type: ignore[union-attr]
        stored = server.get_object(SCHEDULING, "v1beta1", "podgroups", NS, "pg-0000")
    assert stored is not None
    assert stored["spec"]["schedulingPolicy"]["gang"]["minCount"] == 5


async def test_part_way_failure_lists_applied_and_not_applied_and_a_rerun_completes() -> None:
    objects = release_objects()
    workload, root, *leaves = objects
    async with apply_server() as server, server.api_client() as api:
        server.faults.add(method="PATCH", path="*/compositepodgroups/*", status=403)
        with pytest.raises(aio.ApplyError) as caught:
            await aio.apply(api, objects, field_manager="ctl", retry=FAST)
        error = caught.value
        assert [r.name for r in error.applied] == [workload.metadata.name]
        assert [r.name for r in error.not_applied] == [root.metadata.name] + [
            leaf.metadata.name for leaf in leaves
        ]
        assert "applied 1 of 4 objects" in str(error)
        assert server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS) == []

        await aio.apply(api, objects, field_manager="ctl")
        assert len(server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)) == 2
        assert len(server.list_objects(SCHEDULING, "v1beta1", "workloads", NS)) == 1


async def test_a_timeout_is_retried() -> None:
    async with apply_server() as server, server.api_client() as api:
        server.faults.delay(2.0, method="PATCH")
        policy = aio.RetryPolicy(request_timeout=0.3, initial_wait=0.01, max_wait=0.01, jitter=0)
        [applied] = await aio.apply(api, gang_pod_groups(1), field_manager="ctl", retry=policy)
        assert applied.metadata.uid
        assert patches(server) == 2


async def test_resize_and_delete_ride_out_faults_too() -> None:
    objects = release_objects()
    async with apply_server() as server, server.api_client() as api:
        await aio.apply(api, objects, field_manager="ctl")
        server.faults.add(status=429, retry_after=0, every=2, times=3)
        server.faults.drop_connection(method="PATCH")
        resized = await aio.resize(api, objects[2], 2, retry=FAST)
        assert resized.spec.scheduling_policy.gang.min_count == 2  # type: ignore[union-attr]
        server.faults.add(method="DELETE", status=503, times=2)
        server.faults.drop_connection(method="DELETE")
        deleted = await aio.delete(api, objects[0], retry=FAST)
        assert len(deleted) == 4
        assert server.list_objects(SCHEDULING, "v1beta1", "workloads", NS) == []
        assert server.list_objects(SCHEDULING, "v1alpha3", "compositepodgroups", NS) == []


@pytest.mark.parametrize(
    ("objects", "error", "text"),
    [
        (
            [{"apiVersion": "v1", "kind": "Pod"}],
            ValueError,
            "cannot handle apiVersion 'v1' kind 'Pod'",
        ),
        ([42], TypeError, "expected a Workload, PodGroup or CompositePodGroup"),
        (
            [{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {}}],
            ValueError,
            "needs metadata.name and metadata.namespace",
        ),
    ],
)
async def test_unusable_objects_are_refused_before_any_write(
    fake_apiserver: FakeAPIServer, objects: list[object], error: type[Exception], text: str
) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(error, match=text):
            await aio.apply(api, objects, field_manager="ctl")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="field_manager is required"):
            await aio.apply(api, gang_pod_groups(1), field_manager="")
    assert [r for r in fake_apiserver.requests if r.method != "GET"] == []
