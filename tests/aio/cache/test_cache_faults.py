"""aio.Cache after faults: a dropped watch, 410 Gone, a server restart, a slow watch, and a
server gone for longer than the cache may go unfollowed.

After each, the cache must equal a fresh LIST read from the server (same names, same
resourceVersions) within seconds, and the handlers must have run once per change (client-go's
reflector: resume from the last resourceVersion, list again on 410)."""

from __future__ import annotations

from typing import Any

import pytest
from cache_support import (
    NS,
    SCHEDULING,
    Recorder,
    create_groups,
    eventually,
    job,
    pod_group,
    server,
    versions_cached,
    versions_listed,
)

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

FAST = {"kinds": ("PodGroup",), "watch_timeout": 1.0}


async def _started(srv: FakeAPIServer, api: Any, **options: Any) -> tuple[aio.Cache, Recorder]:
    cache = aio.Cache(api, **{**FAST, **options})
    await cache.start()
    await cache.synced(timeout=10)
    recorder = Recorder()
    cache.add_handler(
        "PodGroup",
        on_add=recorder.on_add,
        on_update=recorder.on_update,
        on_delete=recorder.on_delete,
    )
    await cache.drained()
    recorder.calls.clear()  # the synthetic adds of what was there
    return cache, recorder


def _changes(srv: FakeAPIServer) -> dict[str, list[str]]:
    """Three creates, two updates and one delete; what each handler must see."""
    for name in ("new-0", "new-1", "new-2"):
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group(name))
    for name in ("pg-001", "pg-002"):
        patch = {"spec": {"schedulingPolicy": {"gang": {"minCount": 7}}}}
        srv.patch_object(SCHEDULING, "v1beta1", "podgroups", NS, name, patch)
    srv.delete_object(SCHEDULING, "v1beta1", "podgroups", NS, "pg-003")
    return {"add": ["new-0", "new-1", "new-2"], "delete": ["pg-003"]}


async def _converged(srv: FakeAPIServer, cache: aio.Cache, recorder: Recorder) -> None:
    listed = lambda: versions_listed(srv, SCHEDULING, "v1beta1", "podgroups")  # noqa: E731

    async def caught_up() -> bool:
        return await versions_cached(cache, "PodGroup") == listed()

    await eventually(caught_up, seconds=15)
    await cache.drained()
    assert cache.healthy
    assert len(set(recorder.calls)) == len(recorder.calls), recorder.calls  # no change twice
    assert recorder.of("add") == ["new-0", "new-1", "new-2"]
    assert recorder.of("delete") == ["pg-003"]
    for name in ("pg-001", "pg-002"):  # each update handed over once, at its last version
        final = srv.get_object(SCHEDULING, "v1beta1", "podgroups", NS, name)
        assert final is not None
        updates = [c for c in recorder.calls if c[:2] == ("update", name)]
        assert updates == [("update", name, final["metadata"]["resourceVersion"])]
    untouched = {"pg-000", "pg-004"}
    assert not [c for c in recorder.calls if c[1] in untouched]


def _lists(srv: FakeAPIServer) -> int:
    return sum(
        1
        for r in srv.requests
        if r.path.endswith("/podgroups") and r.method == "GET" and "watch" not in r.query
    )


async def test_a_dropped_watch_resumes_from_the_last_version() -> None:
    async with server() as srv, srv.api_client() as api:
        create_groups(srv, 5)
        cache, recorder = await _started(srv, api)
        try:
            srv.faults.drop_connection(method="GET", path="*/podgroups", times=2)
            await eventually(lambda: not srv.faults.pending)  # two reconnects were dropped
            _changes(srv)
            await _converged(srv, cache, recorder)
            assert _lists(srv) == 1  # resumed, never listed again
        finally:
            await cache.stop()


async def test_a_410_gone_lists_again_and_hands_over_only_what_changed() -> None:
    async with server(event_history=4) as srv, srv.api_client() as api:
        create_groups(srv, 5)
        cache, recorder = await _started(srv, api)
        try:
            srv.faults.delay(2.0, method="GET", path="*/podgroups")
            await eventually(lambda: not srv.faults.pending)  # the next watch is held
            _changes(srv)
            for i in range(6):  # push the watch's version out of the history
                srv.create_object("", "v1", "nodes", {"metadata": {"name": f"node-{i}"}})
            await _converged(srv, cache, recorder)
            assert _lists(srv) == 2  # the 410 made it list again
        finally:
            await cache.stop()


async def test_a_server_restart() -> None:
    async with server() as srv, srv.api_client() as api:
        create_groups(srv, 5)
        cache, recorder = await _started(srv, api)
        try:
            await eventually(lambda: srv.open_watches == 1)
            await srv.restart(downtime=0.5)
            _changes(srv)
            await _converged(srv, cache, recorder)
        finally:
            await cache.stop()


async def test_a_slow_watch_catches_up() -> None:
    async with server() as srv, srv.api_client() as api:
        create_groups(srv, 5)
        cache, recorder = await _started(srv, api)
        try:
            srv.faults.delay(1.5, method="GET", path="*/podgroups", times=2)
            await eventually(lambda: len(srv.faults.pending) == 0)
            _changes(srv)
            await _converged(srv, cache, recorder)
            assert _lists(srv) == 1
        finally:
            await cache.stop()


async def test_a_cache_that_cannot_follow_says_so_and_reads_through_it_refuse() -> None:
    async with server() as srv, srv.api_client() as api:
        created = srv.create_object("batch", "v1", "jobs", job("trainer"))
        cache = aio.Cache(
            api,
            watch_timeout=1.0,
            max_staleness=0.3,
            retry=aio.RetryPolicy(attempts=2, request_timeout=1.0),
        )
        async with cache:
            await cache.synced(timeout=10)
            await aio.reconcile_job(api, created, cache=cache)
            await srv.stop()
            await eventually(lambda: {"PodGroup", "Workload"} <= set(cache.problems), seconds=10)
            assert not cache.healthy
            await eventually(
                lambda: _stale(cache, "PodGroup") and _stale(cache, "Workload"), seconds=10
            )
            with pytest.raises(aio.CacheSyncError, match="has not been followed") as caught:
                await aio.reconcile_job(api, created, cache=cache)
            assert caught.value.kind in {"Pod", "Workload", "PodGroup"}
            await srv.start()  # back on the same port, with every object
            await eventually(lambda: cache.healthy, seconds=20)
            result = await aio.reconcile_job(api, created, cache=cache)
            assert result.created == ()


def _stale(cache: aio.Cache, kind: str) -> bool:
    try:
        cache.check_fresh(kind)
    except aio.CacheSyncError:
        return True
    return False
