"""aio.Cache: list then watch, the store and its indexes, handlers, sync and what is not served.

Expected values come from the objects the tests create on the test server and from client-go's
reflector and informer contracts (list, then watch from the list's resourceVersion with
bookmarks; a handler added late is handed what is cached as adds)."""

from __future__ import annotations

from typing import Any

import pytest
from cache_support import (
    NS,
    OTHER,
    SCHEDULING,
    Recorder,
    create_groups,
    eventually,
    held,
    pod_group,
    server,
    versions_cached,
    versions_listed,
)

from workloadbuilder import aio
from workloadbuilder.api.scheduling_v1beta1 import PodGroup


def pod(name: str, namespace: str = NS, group: str | None = None, **labels: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "x"}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": spec,
    }


async def test_it_lists_then_watches_from_the_lists_version_with_bookmarks() -> None:
    async with server() as srv:
        create_groups(srv, 3)
        listed_at = srv.resource_version
        async with srv.api_client() as api, aio.Cache(api, kinds=("PodGroup",)) as cache:
            await cache.synced(timeout=10)
            await eventually(lambda: srv.open_watches == 1)
            assert cache.healthy and cache.problems == {}
            calls = [r for r in srv.requests if r.path.endswith("/podgroups")]
            assert "watch" not in calls[0].query  # the list first
            watch = calls[1].query
            assert watch["watch"] == "true"
            assert watch["resourceVersion"] == listed_at
            assert watch["allowWatchBookmarks"] == "true"
            assert calls[0].path == f"/apis/{SCHEDULING}/v1beta1/podgroups"  # every namespace
            assert await versions_cached(cache, "PodGroup") == versions_listed(
                srv, SCHEDULING, "v1beta1", "podgroups"
            )


async def test_get_list_and_the_builtin_indexes() -> None:
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "uid-1"}
    async with server() as srv:
        srv.create_object(
            SCHEDULING,
            "v1beta1",
            "podgroups",
            pod_group("mine", ownerReferences=[{**owner, "controller": True}]),
        )
        srv.create_object(
            SCHEDULING,
            "v1beta1",
            "podgroups",
            pod_group("owned-not-controlled", ownerReferences=[owner]),
        )
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("elsewhere", OTHER))
        label = {"batch.kubernetes.io/controller-uid": "uid-1"}
        srv.create_object("", "v1", "pods", pod("p0", group="mine", **label))
        srv.create_object("", "v1", "pods", pod("p1", group="mine"))
        srv.create_object("", "v1", "pods", pod("p2", OTHER, group="mine"))
        async with srv.api_client() as api, aio.Cache(api, kinds=("PodGroup", "Pod")) as cache:
            await cache.synced(timeout=10)
            names = lambda objs: [o["metadata"]["name"] for o in objs]  # noqa: E731
            assert isinstance(cache, aio.Reader)
            all_groups = await cache.list("PodGroup")
            assert names(all_groups) == ["mine", "owned-not-controlled", "elsewhere"]
            assert names(await cache.list("PodGroup", NS)) == ["mine", "owned-not-controlled"]
            assert await cache.get("PodGroup", OTHER, "elsewhere") is not None
            assert await cache.get("PodGroup", NS, "elsewhere") is None
            controlled = await cache.by_index("PodGroup", aio.CacheIndex.CONTROLLER_UID, "uid-1")
            assert names(controlled) == ["mine"]
            by_label = await cache.by_index("Pod", aio.CacheIndex.JOB_CONTROLLER_UID, "uid-1")
            assert names(by_label) == ["p0"]
            members = await cache.by_index("Pod", aio.CacheIndex.POD_GROUP, f"{NS}/mine")
            assert names(members) == ["p0", "p1"]
            assert names(await cache.by_index("Pod", aio.CacheIndex.NAMESPACE, OTHER)) == ["p2"]
            with pytest.raises(ValueError, match="no index called 'nope'"):
                await cache.by_index("Pod", "nope", "x")
            with pytest.raises(ValueError, match="not a label selector"):
                await cache.list("Pod", NS, "app=x")
            # a kind not given is started on first use and listed before it is read, as
            # controller-runtime's cache starts an informer on its first Get or List
            assert await cache.list("Job") == [] and "Job" in repr(cache)
            with pytest.raises(ValueError, match="no kind 'Deployment'"):
                await cache.get("Deployment", NS, "x")


async def test_a_model_is_parsed_from_the_stored_json_and_a_user_index_follows_changes() -> None:
    async with server() as srv:
        create_groups(srv, 2)
        async with srv.api_client() as api, aio.Cache(api, kinds=("PodGroup",)) as cache:
            await cache.synced(timeout=10)
            cache.add_index(
                "PodGroup",
                "min-count",
                lambda o: [str(o["spec"]["schedulingPolicy"]["gang"]["minCount"])],
            )
            first = await cache.get_model("PodGroup", NS, "pg-000")
            assert first.spec.scheduling_policy.gang.min_count == 2
            # one representation kept: the JSON; the model is parsed from it on each read
            again = await cache.get_model("PodGroup", NS, "pg-000")
            assert again is not first and again == first
            assert first == PodGroup.from_server(await cache.get("PodGroup", NS, "pg-000") or {})
            assert len(await cache.by_index("PodGroup", "min-count", "2")) == 2
            patch = {"spec": {"schedulingPolicy": {"gang": {"minCount": 5}}}}
            srv.patch_object(SCHEDULING, "v1beta1", "podgroups", NS, "pg-000", patch)

            async def resized() -> bool:
                return len(await cache.by_index("PodGroup", "min-count", "5")) == 1

            await eventually(resized)
            assert [
                o["metadata"]["name"] for o in await cache.by_index("PodGroup", "min-count", "2")
            ] == ["pg-001"]
            again = await cache.get_model("PodGroup", NS, "pg-000")
            assert again is not first and again.spec.scheduling_policy.gang.min_count == 5
            with pytest.raises(ValueError, match="already has an index"):
                cache.add_index("PodGroup", "min-count", lambda o: [])


async def test_handlers_run_once_per_change_and_a_late_one_gets_what_is_cached() -> None:
    async with server() as srv:
        create_groups(srv, 2)
        async with srv.api_client() as api, aio.Cache(api, kinds=("PodGroup",)) as cache:
            await cache.synced(timeout=10)
            late = Recorder()
            cache.add_handler(
                "PodGroup", on_add=late.on_add, on_update=late.on_update, on_delete=late.on_delete
            )
            await cache.drained()
            assert late.of("add") == ["pg-000", "pg-001"]  # synthetic adds, as client-go
            srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("pg-new"))
            patch = {"spec": {"schedulingPolicy": {"gang": {"minCount": 3}}}}
            srv.patch_object(SCHEDULING, "v1beta1", "podgroups", NS, "pg-001", patch)
            # a PodGroup without pods loses its protection finalizer and goes at once
            srv.delete_object(SCHEDULING, "v1beta1", "podgroups", NS, "pg-000")
            await eventually(lambda: gone(cache, "pg-000"))
            await eventually(lambda: held(cache, "PodGroup", NS, "pg-new"))
            await cache.drained()
            assert late.of("add") == ["pg-000", "pg-001", "pg-new"]
            assert late.of("delete") == ["pg-000"]
            assert "pg-001" in late.of("update")
            rv = srv.get_object(SCHEDULING, "v1beta1", "podgroups", NS, "pg-001")
            assert rv is not None
            assert ("update", "pg-001", rv["metadata"]["resourceVersion"]) in late.calls
            # a failing handler is logged; the next change reaches it again
            failures: list[str] = []

            def broken(obj: dict[str, Any]) -> None:
                failures.append(obj["metadata"]["name"])
                raise RuntimeError("handler bug")

            cache.add_handler("PodGroup", on_add=broken)
            await cache.drained()
            assert sorted(failures) == ["pg-001", "pg-new"]


async def test_a_namespace_and_a_label_selector_bound_what_is_held() -> None:
    async with server() as srv:
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("a", labels={"shard": "1"}))
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("b", labels={"shard": "2"}))
        srv.create_object(
            SCHEDULING, "v1beta1", "podgroups", pod_group("c", OTHER, labels={"shard": "1"})
        )
        async with (
            srv.api_client() as api,
            aio.Cache(api, namespace=NS, label_selector="shard=1", kinds=("PodGroup",)) as cache,
        ):
            await cache.synced(timeout=10)
            assert [o["metadata"]["name"] for o in await cache.list("PodGroup")] == ["a"]
            srv.create_object(
                SCHEDULING, "v1beta1", "podgroups", pod_group("d", labels={"shard": "1"})
            )
            srv.create_object(
                SCHEDULING, "v1beta1", "podgroups", pod_group("e", labels={"shard": "2"})
            )
            await eventually(lambda: held(cache, "PodGroup", NS, "d"))
            assert await cache.get("PodGroup", NS, "e") is None
            watch = [r for r in srv.requests if r.query.get("watch") == "true"][-1]
            assert watch.path == f"/apis/{SCHEDULING}/v1beta1/namespaces/{NS}/podgroups"
            assert watch.query["labelSelector"] == "shard=1"
            with pytest.raises(ValueError, match="holds namespace 'team-a', not 'team-b'"):
                await aio.diagnose(api, aio.ObjectRef("PodGroup", OTHER, "c"), cache=cache)


async def test_a_kind_the_server_does_not_serve_is_synced_as_unserved() -> None:
    gates = {"CompositePodGroup": False}
    async with (
        server(feature_gates=gates) as srv,
        srv.api_client() as api,
        aio.Cache(api, namespace=NS) as cache,
    ):
        await cache.synced(timeout=10)
        assert cache.unserved == {"CompositePodGroup"}
        assert await cache.get("CompositePodGroup", NS, "root") is None
        with pytest.raises(aio.APIError) as unserved:  # as a live list answers
            await cache.list("CompositePodGroup")
        assert unserved.value.status == 404
        assert cache.healthy
        ref = aio.ObjectRef("CompositePodGroup", NS, "root")
        with pytest.raises(aio.MissingAPIError) as live:
            await aio.diagnose(api, ref)
        with pytest.raises(aio.MissingAPIError) as cached:
            await aio.diagnose(api, ref, cache=cache)
        assert str(cached.value) == str(live.value)  # the same truth: its gate is off
        assert "CompositePodGroup" in str(cached.value)


async def test_a_kind_that_cannot_list_fails_sync_naming_it_and_why() -> None:
    async with server() as srv:
        srv.faults.add(status=403, method="GET", path="*/workloads", times=1000)
        async with srv.api_client() as api, aio.Cache(api, namespace=NS) as cache:
            with pytest.raises(aio.CacheSyncError) as caught:
                await cache.synced(timeout=1.5)
            assert caught.value.kind == "Workload"
            assert caught.value.status == 403
            assert "Workload" in str(caught.value) and "403" in str(caught.value)
            assert not cache.healthy and set(cache.problems) == {"Workload"}
            await cache.synced("PodGroup", "Pod", timeout=5)  # the others are fine
            with pytest.raises(aio.CacheSyncError, match="Workload is not synced"):
                cache.check_fresh("Workload")
            srv.faults.clear()  # RBAC fixed: the informer gets there after its backoff
            await cache.synced(timeout=10)
            assert cache.healthy


async def test_reads_need_a_started_cache_handlers_and_indexes_do_not() -> None:
    async with server() as srv, srv.api_client() as api:
        create_groups(srv, 2)
        cache = aio.Cache(api, kinds=())
        recorder = Recorder()
        cache.add_handler("PodGroup", on_add=recorder.on_add)  # before start, as in client-go
        cache.add_index("PodGroup", "name", lambda o: [o["metadata"]["name"]])
        with pytest.raises(aio.CacheSyncError, match="not started"):
            await aio.diagnose(api, aio.ObjectRef("PodGroup", NS, "x"), cache=cache)
        with pytest.raises(aio.CacheSyncError, match="not started"):
            await cache.synced(timeout=5)
        async with cache:
            await cache.synced(timeout=10)
            await cache.drained()
            assert recorder.of("add") == ["pg-000", "pg-001"]
            assert len(await cache.by_index("PodGroup", "name", "pg-001")) == 1
        with pytest.raises(TypeError, match=r"must be an aio\.Cache"):
            await aio.diagnose(api, aio.ObjectRef("PodGroup", NS, "x"), cache=object())  # type: ignore[arg-type]


async def gone(cache: aio.Cache, name: str) -> bool:
    return await cache.get("PodGroup", NS, name) is None
