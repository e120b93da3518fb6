"""A cache whose list or watch the server refuses, on the test server's RBAC authorizer.

Expected is client-go's reflector: every failed list or watch is tried again after
``wait.NewExponentialBackoffManager(800*time.Millisecond, 30*time.Second, 2*time.Minute, 2.0,
1.0, clock)`` (``tools/cache/reflector.go``): 800 ms doubling up to 30 s, jittered by up to as
much again, afresh once two minutes pass without a wait; and what RBAC needs: ``list`` and
``watch`` are separate verbs, a refusal names the verb, resource and namespace it refused.
The informers' backoffs here are the same rule with smaller numbers, so no test sleeps long.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest
from cache_support import NS, job

from workloadbuilder import aio
from workloadbuilder.aio.wire.retry import Backoff
from workloadbuilder.testing import FakeAPIServer

ACCOUNT = "operator"
USER = f"system:serviceaccount:{NS}:{ACCOUNT}"
RBAC = ("rbac.authorization.k8s.io", "v1")
WATCH_PODS = '{apiGroups: [""], resources: [pods], verbs: [watch]}'
LIST_WORKLOADS = '{apiGroups: ["scheduling.k8s.io"], resources: [workloads], verbs: [list]}'


def test_the_backoff_is_the_reflectors() -> None:
    now = [0.0]
    backoff = Backoff(clock=lambda: now[0], rand=lambda: 0.0)
    waits = []
    for _ in range(8):
        waits.append(backoff.next())
        now[0] += waits[-1]
    assert waits == [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0]
    now[0] += 120.5  # two minutes without a wait: afresh
    assert backoff.next() == 0.8
    most = Backoff(clock=lambda: now[0], rand=lambda: 0.999)
    assert 1.59 < most.next() < 1.6  # jitter 1.0: up to the wait again


def grant(server: FakeAPIServer, *rules: aio.Rule) -> None:
    """The account's Role holds ``rules`` (made, or replaced)."""
    role, binding = aio.Permissions(("cache",), rules, NS).manifests(ACCOUNT)
    name = role["metadata"]["name"]
    if server.get_object(*RBAC, "roles", NS, name) is None:
        server.create_object(*RBAC, "roles", role)
        server.create_object(*RBAC, "rolebindings", binding)
    else:
        server.patch_object(*RBAC, "roles", NS, name, {"rules": role["rules"]})


async def until(cache: aio.Cache, kind: aio.CacheKind, check: Callable[[], bool]) -> None:
    """Wait (at most 10 s) for ``check()``, looking again at each change of ``kind``."""
    async with asyncio.timeout(10):
        while not check():
            await cache.changed(kind)


def fast() -> Backoff:
    return Backoff(0.01, 0.04, rand=lambda: 0.0)


async def test_a_refused_watch_backs_off_says_the_rule_once_and_the_kind_is_not_followed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="workloadbuilder.aio")
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        grant(server, aio.Rule(("",), ("pods",), ("list",)))
        async with server.api_client(user=USER) as api:
            cache = aio.Cache(api, namespace=NS, kinds=("Pod",))
            backoff = cache.informer("Pod").backoff = fast()
            async with cache:
                await cache.synced(timeout=5)  # the list is allowed
                await until(cache, "Pod", lambda: backoff.waits >= 6)
                assert backoff.step == 0.04  # 0.01, 0.02, 0.04, 0.04, ...: doubled, capped
                assert not cache.healthy
                problem = cache.problems["Pod"]
                assert f'cannot watch resource "pods" in API group "" in the namespace "{NS}"' in (
                    problem
                )
                assert problem.endswith(
                    f"add the rule {WATCH_PODS} to a Role in namespace"
                    f' "{NS}" bound to ServiceAccount {NS}/{ACCOUNT}'
                )
                errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
                assert [(r.levelname, r.getMessage()) for r in errors] == [
                    ("ERROR", f"Pod informer: {problem}")
                ]  # once, however often it was refused
                grant(server, aio.Rule(("",), ("pods",), ("list", "watch")))
                await until(cache, "Pod", lambda: cache.healthy)
                assert cache.problems == {}


async def test_a_refused_list_is_said_at_once_and_fails_a_read_at_once() -> None:
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        grant(server, aio.Rule(("",), ("pods",), ("list", "watch")))
        async with server.api_client(user=USER) as api:
            cache = aio.Cache(api, namespace=NS, kinds=("Pod",))
            await cache.start()
            try:
                await cache.synced(timeout=5)
                loop = asyncio.get_running_loop()
                began = loop.time()
                with pytest.raises(aio.CacheSyncError) as refused:
                    await cache.list("Workload", NS)  # started on first use, and refused
                assert loop.time() - began < 5  # not the 60 s a read waits for a kind to list
                assert refused.value.kind == "Workload" and refused.value.status == 403
                assert str(refused.value).startswith("Workload cannot be listed: Workload: ")
                assert LIST_WORKLOADS in str(refused.value)
                assert LIST_WORKLOADS in cache.problems["Workload"]
                assert cache.healthy is False and "Pod" not in cache.problems
            finally:
                began = asyncio.get_running_loop().time()
                await cache.stop()  # nothing in flight: at once, whatever the backoff
                assert asyncio.get_running_loop().time() - began < 1


async def test_a_refused_list_is_logged_at_error_once_and_tried_again_with_backoff(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="workloadbuilder.aio")
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        grant(server, aio.Rule(("",), ("pods",), ("list", "watch")))
        async with server.api_client(user=USER) as api:
            cache = aio.Cache(api, namespace=NS, kinds=("Workload",))
            backoff = cache.informer("Workload").backoff = fast()
            async with cache:
                await until(cache, "Workload", lambda: backoff.waits >= 4)
                lists = [
                    r
                    for r in server.requests
                    if r.path.endswith("/workloads") and r.query.get("watch") != "true"
                ]
                assert len(lists) >= 4  # tried again, each after its wait
                errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
                assert len(errors) == 1 and errors[0].levelname == "ERROR"
                assert (
                    errors[0]
                    .getMessage()
                    .startswith(
                        "Workload informer: listing workloads failed (HTTP 403 Forbidden): "
                    )
                )
                assert LIST_WORKLOADS in errors[0].getMessage()
                grant(
                    server,
                    aio.Rule(("",), ("pods",), ("list", "watch")),
                    aio.Rule(("scheduling.k8s.io",), ("workloads",), ("list", "watch")),
                )
                await cache.synced(timeout=5)
                assert await cache.list("Workload", NS) == []


async def test_a_controller_whose_reads_are_refused_fails_them_at_once_and_stops_at_once() -> None:
    """Without ``list`` on workloads, each reconcile_job through the cache fails with the
    refusal (and is retried with the key's backoff) instead of waiting 60 s for a sync, so
    stopping the controller waits for nothing."""
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        server.create_object("batch", "v1", "jobs", job("trainer"))
        grant(
            server,
            aio.Rule(("",), ("events",), ("create",)),
            aio.Rule(("",), ("pods",), ("list", "watch")),
            aio.Rule(("batch",), ("jobs",), ("list", "watch")),
            aio.Rule(("scheduling.k8s.io",), ("podgroups",), ("list", "watch")),
        )
        failed: list[Exception] = []
        refused = asyncio.Event()
        async with (
            server.api_client(user=USER) as api,
            aio.Cache(api, namespace=NS, kinds=("Job",)) as cache,
        ):

            async def reconcile(obj: dict[str, object]) -> None:
                try:
                    await aio.reconcile_job(api, obj, cache=cache)
                except Exception as exc:
                    failed.append(exc)
                    refused.set()
                    raise

            controller = aio.Controller(api, "Job", reconcile, namespace=NS, cache=cache)
            loop = asyncio.get_running_loop()
            began = loop.time()
            run = asyncio.create_task(controller.run())
            async with asyncio.timeout(10):
                await refused.wait()
            assert loop.time() - began < 5  # not the 60 s a read waits for a kind to list
            assert isinstance(failed[0], aio.CacheSyncError)
            assert failed[0].kind == "Workload" and failed[0].status == 403
            assert LIST_WORKLOADS in str(failed[0])
            began = loop.time()
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
            assert loop.time() - began < 1  # nothing in flight: no 30 s drain
