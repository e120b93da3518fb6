"""aio.Cache: what it stores of each object (managedFields dropped, a user's transform) and how
a failing transform is handled.

Expected values: the objects as the test server sends them over HTTP (its list answers), minus
``metadata.managedFields``, which kube-controller-manager's informers drop (its transform sets
them to nil); a transform's failure handled as client-go's reflector handles a store error:
a watch event it fails on is logged and not stored, the watch goes on; a list it fails on is
not stored ("unable to sync list result") and listed again after a backoff.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from cache_support import NS, SCHEDULING, Recorder, eventually, job, pod_group, server

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

KINDS: tuple[aio.CacheKind, ...] = ("Job", "Workload", "PodGroup")
PATHS = {
    "Job": f"/apis/batch/v1/namespaces/{NS}/jobs",
    "Workload": f"/apis/{SCHEDULING}/v1beta1/namespaces/{NS}/workloads",
    "PodGroup": f"/apis/{SCHEDULING}/v1beta1/namespaces/{NS}/podgroups",
}


async def sent(api: Any, srv: FakeAPIServer, kind: str) -> list[dict[str, Any]]:
    """The items of the server's list answer for ``kind``, as it sends them over HTTP."""
    async with api.rest_client.pool_manager.get(srv.url + PATHS[kind]) as response:
        answer = json.loads(await response.read())
    api_version = answer["apiVersion"]
    for item in answer["items"]:  # a list's items carry the list's group and version
        item.setdefault("apiVersion", api_version)
        item.setdefault("kind", kind)
    return list(answer["items"])


def without_managed_fields(doc: dict[str, Any]) -> dict[str, Any]:
    return {**doc, "metadata": {k: v for k, v in doc["metadata"].items() if k != "managedFields"}}


async def cached(cache: aio.Cache, kind: aio.CacheKind) -> list[dict[str, Any]]:
    return await cache.list(kind, NS)


async def label_of(cache: aio.Cache, name: str) -> str | None:
    found = await cache.get("Job", NS, name)
    return ((found or {})["metadata"].get("labels") or {}).get("team")


async def label_is(cache: aio.Cache, name: str, team: str) -> bool:
    return await label_of(cache, name) == team


async def gone_group(cache: aio.Cache, name: str) -> bool:
    return not await stored_group(cache, name)


async def stored_group(cache: aio.Cache, name: str) -> bool:
    return await cache.get("PodGroup", NS, name) is not None


async def gang_jobs(api: Any, srv: FakeAPIServer, count: int) -> None:
    """``count`` gang Jobs with the Workload and PodGroup the Job controller makes."""
    for i in range(count):
        made = srv.create_object("batch", "v1", "jobs", job(f"job-{i}"))
        result = await aio.reconcile_job(api, made)
        assert [r.kind for r in result.created] == ["Workload", "PodGroup"]


async def test_every_object_is_what_the_server_sent_but_for_managed_fields() -> None:
    async with server() as srv, srv.api_client() as api:
        await gang_jobs(api, srv, 2)
        async with aio.Cache(api, namespace=NS, kinds=KINDS) as cache:
            await cache.synced(timeout=10)
            for kind in KINDS:
                answer = await sent(api, srv, kind)
                assert len(answer) == 2 and all(o["metadata"]["managedFields"] for o in answer)
                assert await cached(cache, kind) == [without_managed_fields(o) for o in answer]
            # a watched change is stored the same way
            patch = {"metadata": {"labels": {"team": "vision"}}}
            srv.patch_object("batch", "v1", "jobs", NS, "job-0", patch)
            await eventually(lambda: label_is(cache, "job-0", "vision"))
            answer = await sent(api, srv, "Job")
            assert await cached(cache, "Job") == [without_managed_fields(o) for o in answer]
            # the helpers read the same cache: a steady reconcile changes nothing
            for obj in await cached(cache, "Job"):
                result = await aio.reconcile_job(api, obj, cache=cache)
                assert not result.created and not result.resized and result.objects


async def test_keep_managed_fields_stores_the_objects_whole() -> None:
    async with server() as srv, srv.api_client() as api:
        await gang_jobs(api, srv, 1)
        cache = aio.Cache(api, namespace=NS, kinds=KINDS, keep_managed_fields=True)
        async with cache:
            await cache.synced(timeout=10)
            for kind in KINDS:
                assert await cached(cache, kind) == await sent(api, srv, kind)


async def test_a_user_transform_runs_after_the_trim_on_listed_watched_and_deleted_objects() -> None:
    seen: list[tuple[str, bool]] = []

    def drop_notes(obj: dict[str, Any]) -> dict[str, Any]:
        seen.append((obj["metadata"]["name"], "managedFields" in obj["metadata"]))
        (obj["metadata"].get("annotations") or {}).pop("notes", None)
        return obj

    async with server() as srv, srv.api_client() as api:
        notes = {"annotations": {"notes": "x" * 1000, "owner": "vision"}}
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("pg-a", **notes))
        recorder = Recorder()
        cache = aio.Cache(api, namespace=NS, kinds=("PodGroup",), transform=drop_notes)
        async with cache:
            cache.add_handler("PodGroup", on_add=recorder.on_add, on_delete=recorder.on_delete)
            await cache.synced(timeout=10)
            [listed] = await sent(api, srv, "PodGroup")
            want = without_managed_fields(listed)
            want["metadata"]["annotations"] = {"owner": "vision"}
            assert await cache.get("PodGroup", NS, "pg-a") == want
            srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("pg-b", **notes))
            await eventually(lambda: stored_group(cache, "pg-b"))
            assert (await cache.get("PodGroup", NS, "pg-b") or {})["metadata"]["annotations"] == {
                "owner": "vision"
            }
            srv.delete_object(SCHEDULING, "v1beta1", "podgroups", NS, "pg-b")
            await eventually(lambda: gone_group(cache, "pg-b"))
            await cache.drained()
            assert recorder.of("add") == ["pg-a", "pg-b"]
            assert recorder.of("delete") == ["pg-b"]
    # listed, watched (added, then marked for deletion while its finalizer holds it), deleted:
    # each seen by the transform, never with managedFields
    assert [name for name, _ in seen] == ["pg-a", "pg-b", "pg-b", "pg-b"]
    assert not any(managed for _, managed in seen)


async def test_a_transform_failing_on_a_watched_object_skips_that_event_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refuse_bad(obj: dict[str, Any]) -> dict[str, Any]:
        if obj["metadata"]["name"] == "pg-bad":
            raise ValueError("no bad groups")
        return obj

    async with server() as srv, srv.api_client() as api:
        cache = aio.Cache(api, namespace=NS, kinds=("PodGroup",), transform=refuse_bad)
        async with cache:
            await cache.synced(timeout=10)
            with caplog.at_level(logging.ERROR, logger="workloadbuilder.aio"):
                bad = srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("pg-bad"))
                srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("pg-good"))
                await eventually(lambda: stored_group(cache, "pg-good"))
            assert await cache.get("PodGroup", NS, "pg-bad") is None
            assert cache.healthy  # the watch goes on
            [record] = [r for r in caplog.records if "pg-bad" in r.getMessage()]
            assert record.levelno == logging.ERROR
            message = record.getMessage()
            assert "PodGroup" in message and f"{NS}/pg-bad" in message
            assert "ValueError('no bad groups')" in message and "not stored" in message
            assert f"ADDED event, resourceVersion {bad['metadata']['resourceVersion']}" in message


async def test_a_transform_failing_on_a_listed_object_fails_the_list_which_is_retried() -> None:
    refusing = True

    def refuse_while_told(obj: dict[str, Any]) -> dict[str, Any]:
        if refusing and obj["metadata"]["name"] == "pg-b":
            raise ValueError("not yet")
        return obj

    async with server() as srv, srv.api_client() as api:
        for name in ("pg-a", "pg-b"):
            srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group(name))
        cache = aio.Cache(api, namespace=NS, kinds=("PodGroup",), transform=refuse_while_told)
        async with cache:
            with pytest.raises(aio.CacheSyncError, match="not yet") as raised:
                await cache.synced(timeout=1.5)
            assert raised.value.kind == "PodGroup"
            # nothing of the list is stored: a read waits for a list it can believe
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(cache.get("PodGroup", NS, "pg-a"), 0.3)
            [problem] = cache.problems.values()
            assert "listing podgroups" in problem and f"PodGroup {NS}/pg-b" in problem
            refusing = False
            await cache.synced(timeout=10)  # listed again after the backoff
            assert [o["metadata"]["name"] for o in await cached(cache, "PodGroup")] == [
                "pg-a",
                "pg-b",
            ]
            assert cache.healthy


@pytest.mark.parametrize(
    ("transform", "said"),
    [
        (lambda obj: None, "returned NoneType, not the object's JSON"),
        (
            lambda obj: {**obj, "metadata": {**obj["metadata"], "name": "other"}},
            "changed the object's namespace/name",
        ),
    ],
)
async def test_a_transform_must_return_the_same_objects_json(transform: Any, said: str) -> None:
    async with server() as srv, srv.api_client() as api:
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("pg-a"))
        async with aio.Cache(api, namespace=NS, kinds=("PodGroup",), transform=transform) as cache:
            with pytest.raises(aio.CacheSyncError, match=said):
                await cache.synced(timeout=1.0)


def test_a_transform_that_is_not_callable_is_refused() -> None:
    with pytest.raises(TypeError, match="transform must be a callable, not str"):
        aio.Cache(object(), transform="drop")  # type: ignore[arg-type]


async def test_strings_repeated_between_objects_are_held_once() -> None:
    async with server() as srv, srv.api_client() as api:
        await gang_jobs(api, srv, 1)
        async with aio.Cache(api, namespace=NS, kinds=KINDS) as cache:
            await cache.synced(timeout=10)
            [job_obj] = await cached(cache, "Job")
            [workload] = await cached(cache, "Workload")
            [group] = await cached(cache, "PodGroup")
            uid = job_obj["metadata"]["uid"]
            labels = job_obj["metadata"]["labels"]
            assert labels["batch.kubernetes.io/controller-uid"] is uid
            assert workload["metadata"]["ownerReferences"][0]["uid"] is uid
            assert group["metadata"]["namespace"] is job_obj["metadata"]["namespace"]
