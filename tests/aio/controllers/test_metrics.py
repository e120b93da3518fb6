"""The SDK's Prometheus metrics: controller-runtime's and client-go's names, labels and
buckets, and values that count what each test made happen.

The expected names, types, labels and buckets are those of controller-runtime's sources
(``pkg/internal/controller/metrics/metrics.go``, ``pkg/internal/metrics/workqueue.go``,
``pkg/metrics/client_go_adapter.go``, ``pkg/metrics/leaderelection.go``; the webhook server's
are tested with it). The values are checked against what the test
counted itself: the reconciles it caused, and the requests in the test server's own log.
Metrics live in the process-wide registry, so every check is a difference from before.
"""

from __future__ import annotations

import asyncio
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry
from test_controller import FAST, NS, SCHEDULING, eventually, pod_group, running, server

from workloadbuilder import aio
from workloadbuilder.aio import metrics
from workloadbuilder.testing import FakeAPIServer

EXPONENTIAL_10NS = [10e-9 * 10**i for i in range(12)]  # prometheus.ExponentialBuckets(10e-9,10,12)
REST_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]
RECONCILE_BUCKETS = [
    *(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8),
    *(0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25),
    *(30, 40, 50, 60),
]

# name: (type, labels, buckets), as controller-runtime's sources declare them
UPSTREAM: dict[str, tuple[str, set[str], list[float] | None]] = {
    "controller_runtime_reconcile_total": ("counter", {"controller", "result"}, None),
    "controller_runtime_reconcile_errors_total": ("counter", {"controller"}, None),
    "controller_runtime_reconcile_time_seconds": ("histogram", {"controller"}, RECONCILE_BUCKETS),
    "controller_runtime_max_concurrent_reconciles": ("gauge", {"controller"}, None),
    "controller_runtime_active_workers": ("gauge", {"controller"}, None),
    "workqueue_depth": ("gauge", {"name", "controller", "priority"}, None),
    "workqueue_adds_total": ("counter", {"name", "controller"}, None),
    "workqueue_queue_duration_seconds": ("histogram", {"name", "controller"}, EXPONENTIAL_10NS),
    "workqueue_work_duration_seconds": ("histogram", {"name", "controller"}, EXPONENTIAL_10NS),
    "workqueue_unfinished_work_seconds": ("gauge", {"name", "controller"}, None),
    "workqueue_longest_running_processor_seconds": ("gauge", {"name", "controller"}, None),
    "workqueue_retries_total": ("counter", {"name", "controller"}, None),
    "rest_client_requests_total": ("counter", {"code", "method", "host"}, None),
    "rest_client_request_duration_seconds": ("histogram", {"verb", "host"}, REST_BUCKETS),
    "leader_election_master_status": ("gauge", {"name"}, None),
}


def value(metric: str, /, **labels: str) -> float:
    return REGISTRY.get_sample_value(metric, labels) or 0.0


def families(registry: CollectorRegistry) -> dict[str, Any]:
    found = {}
    for family in registry.collect():
        name = family.name + ("_total" if family.type == "counter" else "")
        found[name] = family
    return found


def touch_every_metric() -> None:
    """One child of each labelled metric, so each family has a sample to show its labels."""
    for metric in (
        metrics.RECONCILE_TOTAL,
        metrics.WORKQUEUE_DEPTH,
        metrics.REQUESTS_TOTAL,
    ):
        metric.labels(*["x"] * len(metric.labelnames))
    for metric in (
        metrics.RECONCILE_ERRORS,
        metrics.RECONCILE_TIME,
        metrics.MAX_CONCURRENT_RECONCILES,
        metrics.ACTIVE_WORKERS,
        metrics.LEADER_STATUS,
    ):
        metric.labels("x")
    for metric in (
        metrics.WORKQUEUE_ADDS,
        metrics.WORKQUEUE_QUEUE_DURATION,
        metrics.WORKQUEUE_WORK_DURATION,
        metrics.WORKQUEUE_UNFINISHED_WORK,
        metrics.WORKQUEUE_LONGEST_RUNNING,
        metrics.WORKQUEUE_RETRIES,
        metrics.REQUEST_DURATION,
    ):
        metric.labels("x", "x")


def test_names_types_labels_and_buckets_are_controller_runtimes() -> None:
    touch_every_metric()
    registry = metrics.register(CollectorRegistry())  # another registry gets the same metrics
    found = families(registry)
    for name, (kind, labels, buckets) in UPSTREAM.items():
        family = found[name]
        assert family.type == kind, name
        sample = family.samples[0]
        assert set(sample.labels) - {"le"} == labels, name
        if buckets is not None:
            first = {k: v for k, v in sample.labels.items() if k != "le"}
            bounds = [
                float(s.labels["le"])
                for s in family.samples
                if s.name.endswith("_bucket") and {**s.labels, "le": ""} == {**first, "le": ""}
            ]
            assert bounds[:-1] == buckets and bounds[-1] == float("inf"), name
    assert {"workloadbuilder_cache_objects", "workloadbuilder_cache_watch_restarts_total"} <= {
        *found
    }
    assert metrics.register(registry) is registry  # twice is once


async def test_each_reconcile_is_counted_by_its_result() -> None:
    name = "results-counted"
    plan = {"ok": [None], "later": [aio.Result(requeue_after=0.3), None]}
    plan |= {"again": [aio.Result(requeue=True), None], "bad": ["raise", None]}
    said: list[tuple[str, str, float, float]] = []  # (key, result, started, ended)

    async def reconcile(obj: dict[str, Any]) -> aio.Result | None:
        key = obj["metadata"]["name"]
        loop = asyncio.get_running_loop()
        started = loop.time()
        outcome = plan[key].pop(0)
        await asyncio.sleep(0.01)
        if outcome == "raise":
            said.append((key, "error", started, loop.time()))
            raise RuntimeError("not yet")
        result = "success"
        if isinstance(outcome, aio.Result):
            result = "requeue_after" if outcome.requeue_after else "requeue"
        said.append((key, result, started, loop.time()))
        return outcome

    before = {
        r: value("controller_runtime_reconcile_total", controller=name, result=r)
        for r in ("success", "error", "requeue", "requeue_after")
    }
    queue = {"name": name, "controller": name}
    adds = value("workqueue_adds_total", **queue)
    retries = value("workqueue_retries_total", **queue)
    async with server() as srv:
        for key in plan:
            srv.create_object(*SCHEDULING, pod_group(key))
        async with srv.api_client() as api:
            controller = aio.Controller(
                api, "PodGroup", reconcile, namespace=NS, workers=2, rate_limiter=FAST, name=name
            )
            assert value("controller_runtime_max_concurrent_reconciles", controller=name) == 2
            async with running(controller):
                await eventually(lambda: len(said) == 7)
                await asyncio.sleep(0.5)  # nothing more comes
    assert len(said) == 7 and not any(plan.values())
    counted = {r: sum(1 for s in said if s[1] == r) for r in before}
    assert counted == {"success": 4, "error": 1, "requeue": 1, "requeue_after": 1}
    for result, times in counted.items():
        now = value("controller_runtime_reconcile_total", controller=name, result=result)
        assert now - before[result] == times, result
    assert value("controller_runtime_reconcile_errors_total", controller=name) == 1
    assert value("controller_runtime_reconcile_time_seconds_count", controller=name) == 7
    assert value("workqueue_adds_total", **queue) - adds == 7  # each led to one reconcile
    assert value("workqueue_retries_total", **queue) - retries == 3  # each added with a delay
    assert value("workqueue_queue_duration_seconds_count", **queue) == 7
    assert value("workqueue_work_duration_seconds_count", **queue) == 7
    later = [s for s in said if s[0] == "later"]
    assert later[1][2] - later[0][3] >= 0.3  # RequeueAfter: not before its time


async def test_active_workers_and_a_queue_in_flight() -> None:
    name = "in-flight"
    gate = asyncio.Event()

    async def reconcile(obj: dict[str, Any]) -> None:
        await gate.wait()

    async with server() as srv:
        srv.create_object(*SCHEDULING, pod_group("slow"))
        async with srv.api_client() as api:
            controller = aio.Controller(
                api, "PodGroup", reconcile, namespace=NS, workers=3, name=name
            )
            async with running(controller):
                await eventually(
                    lambda: value("controller_runtime_active_workers", controller=name) == 1
                )
                await asyncio.sleep(0.2)
                queue = {"name": name, "controller": name}
                assert value("workqueue_longest_running_processor_seconds", **queue) >= 0.2
                assert value("workqueue_unfinished_work_seconds", **queue) >= 0.2
                assert value("workqueue_depth", **queue, priority="") == 0
                assert controller.queue is not None
                controller.queue.add(f"{NS}/slow")  # changed while in flight: one more to do
                assert value("workqueue_depth", **queue, priority="") == 1
                gate.set()
                await eventually(
                    lambda: value("controller_runtime_active_workers", controller=name) == 0
                )
                await eventually(lambda: value("workqueue_depth", **queue, priority="") == 0)
                assert value("workqueue_longest_running_processor_seconds", **queue) == 0


async def test_an_unnamed_queue_records_nothing() -> None:
    before = sum(1 for f in REGISTRY.collect() for _ in f.samples)
    queue: aio.WorkQueue[str] = aio.WorkQueue()
    queue.add("a")
    assert await queue.get() == "a"
    queue.done("a")
    assert sum(1 for f in REGISTRY.collect() for _ in f.samples) == before


def requests_to(srv: FakeAPIServer, method: str, path: str) -> int:
    return sum(1 for r in srv.requests if r.method == method and r.path == path)


async def test_every_request_and_every_retry_is_counted(fake_apiserver: FakeAPIServer) -> None:
    path = f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NS}/podgroups/counted"
    fake_apiserver.create_object(
        "", "v1", "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
    )
    fake_apiserver.create_object(*SCHEDULING, pod_group("counted"))
    host = fake_apiserver.address
    codes = ("200", "404", "503")
    before = {
        c: value("rest_client_requests_total", code=c, method="GET", host=host) for c in codes
    }
    took = value("rest_client_request_duration_seconds_count", verb="GET", host=host)
    fake_apiserver.faults.add(status=503, method="GET", path=path, times=2)
    retry = aio.RetryPolicy(initial_wait=0.01, jitter=0.0)
    async with fake_apiserver.api_client() as api:
        found = await aio.read_object(api, "PodGroup", "counted", namespace=NS, retry=retry)
        assert found is not None
        assert await aio.read_object(api, "PodGroup", "absent", namespace=NS, retry=retry) is None
    sent = requests_to(fake_apiserver, "GET", path)
    assert sent == 3  # the server's own log: two 503s, then the answer
    assert requests_to(fake_apiserver, "GET", path.replace("counted", "absent")) == 1
    delta = {
        c: value("rest_client_requests_total", code=c, method="GET", host=host) - before[c]
        for c in codes
    }
    assert delta == {"200": 1, "404": 1, "503": 2}
    after = value("rest_client_request_duration_seconds_count", verb="GET", host=host)
    assert after - took == 4


async def leading(election: aio.LeaderElection) -> asyncio.Task[None]:
    """Run ``election`` with a ``lead()`` that waits until cancelled; return once it leads."""
    started = asyncio.Event()

    async def lead() -> None:
        started.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(election.run(lead))
    await started.wait()
    return task


async def test_leader_status_follows_the_lead(fake_apiserver: FakeAPIServer) -> None:
    name = "status-lease"
    async with fake_apiserver.api_client() as api:
        election = aio.LeaderElection(
            api, name, "default", "me", lease_duration=1.0, renew_deadline=0.6, retry_period=0.1
        )
        task = await leading(election)
        assert value("leader_election_master_status", name=name) == 1
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert value("leader_election_master_status", name=name) == 0


async def test_the_cache_counts_objects_and_watch_restarts() -> None:
    async with server() as srv:
        for i in range(3):
            srv.create_object(*SCHEDULING, pod_group(f"held-{i}"))
        restarts = value("workloadbuilder_cache_watch_restarts_total", kind="PodGroup")
        objects = value("workloadbuilder_cache_objects", kind="PodGroup")
        async with (
            srv.api_client() as api,
            aio.Cache(api, namespace=NS, kinds=("PodGroup",), watch_timeout=0.5) as cache,
        ):
            await cache.synced()
            assert value("workloadbuilder_cache_objects", kind="PodGroup") - objects == 3
            listed = value("workloadbuilder_cache_last_resync_timestamp_seconds", kind="PodGroup")
            assert listed > 0

            def watches() -> int:
                return sum(
                    1
                    for r in srv.requests
                    if r.path.endswith("/podgroups") and r.query.get("watch") == "true"
                )

            await eventually(lambda: watches() >= 3, 10)
            await eventually(
                lambda: (
                    value("workloadbuilder_cache_watch_restarts_total", kind="PodGroup") - restarts
                    == watches() - 1
                ),
                5,
            )
