"""``aio.Controller`` against the test server: a kind's objects reconciled on a work queue.

What is expected is a client-go controller's contract (a shared informer's handlers queue
``namespace/name`` keys; workers take them off a rate-limited work queue; ``Forget`` on
success, ``AddRateLimited`` on failure; a resync queues every cached key again; shutdown
drains the workers in flight) and controller-runtime's (one reconcile of a key at a time).
The objects and their changes are what each test writes to the server.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from waiting import eventually

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.server import DEFAULT_RESOURCES, ResourceType

NS = "team-a"
OTHER = "team-b"
SCHEDULING = ("scheduling.k8s.io", "v1beta1", "podgroups")
RUNS = ("training.example.com", "v1", "trainingruns")
TRAINING_RUN = aio.CustomResource(*RUNS, "TrainingRun")
FAST = aio.ItemExponentialFailureRateLimiter(0.05, 1.0)


def server() -> FakeAPIServer:
    kinds = ResourceType(*RUNS[:2], "TrainingRun", RUNS[2], status=True)
    srv = FakeAPIServer(resources=[*DEFAULT_RESOURCES, kinds])
    for name in (NS, OTHER):
        srv.create_object(
            "",
            "v1",
            "namespaces",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
        )
    return srv


def pod_group(name: str, namespace: str = NS, min_count: int = 2) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def run(name: str, namespace: str = NS, workers: int = 2) -> dict[str, Any]:
    return {
        "apiVersion": "training.example.com/v1",
        "kind": "TrainingRun",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"workers": workers},
    }


async def _never(obj: dict[str, Any]) -> None:
    raise AssertionError("not to be called")


@dataclass
class Calls:
    """Each reconcile: (key, resourceVersion, started, ended or None); blocked keys wait for
    their gate; ``fail`` maps a key to how many more times its reconcile raises."""

    calls: list[list[Any]] = field(default_factory=list)
    gates: dict[str, asyncio.Event] = field(default_factory=dict)
    fail: dict[str, int] = field(default_factory=dict)
    running: dict[str, int] = field(default_factory=dict)
    most: int = 0
    overlapped: bool = False

    async def __call__(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        loop = asyncio.get_running_loop()
        entry = [key, meta["resourceVersion"], loop.time(), None]
        self.calls.append(entry)
        self.overlapped |= self.running.get(key, 0) > 0
        self.running[key] = self.running.get(key, 0) + 1
        self.most = max(self.most, sum(self.running.values()))
        try:
            gate = self.gates.get(key)
            if gate is not None:
                await gate.wait()
            await asyncio.sleep(0.01)
            if self.fail.get(key, 0) > 0:
                self.fail[key] -= 1
                raise RuntimeError(f"{key} is not ready")
        finally:
            self.running[key] -= 1
            entry[3] = loop.time()

    def of(self, key: str) -> list[list[Any]]:
        return [c for c in self.calls if c[0] == key]

    def keys(self) -> list[str]:
        return sorted({c[0] for c in self.calls})


@asynccontextmanager
async def running(controller: aio.Controller) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.get_running_loop().create_task(controller.run())
    try:
        yield task
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_every_object_is_reconciled_once_from_the_cache() -> None:
    async with server() as srv:
        made = [srv.create_object(*SCHEDULING, pod_group(f"pg-{i}")) for i in range(6)]
        srv.create_object(*SCHEDULING, pod_group("elsewhere", OTHER))
        calls = Calls()
        async with srv.api_client() as api:
            controller = aio.Controller(api, "PodGroup", calls, namespace=NS, workers=3)
            async with running(controller):
                await eventually(lambda: len(calls.calls) == 6)
                await asyncio.sleep(0.3)
                reads = len(srv.requests)
                await asyncio.sleep(0.3)
                # each read from the cache, none from the server after the list and the watch
                assert len(srv.requests) == reads
            assert calls.keys() == sorted(f"{NS}/{o['metadata']['name']}" for o in made)
            assert {c[1] for c in calls.calls} == {o["metadata"]["resourceVersion"] for o in made}
            assert 1 < calls.most <= 3  # the workers ran side by side, never more than three
            await eventually(lambda: srv.open_watches == 0)  # its own cache stopped with it


async def test_changes_while_queued_or_in_flight_are_one_more_reconcile_never_two_at_once() -> None:
    async with server() as srv:
        srv.create_object(*SCHEDULING, pod_group("busy"))
        calls = Calls()
        calls.gates[f"{NS}/busy"] = gate = asyncio.Event()
        async with srv.api_client() as api:
            controller = aio.Controller(api, "PodGroup", calls, namespace=NS, workers=4)
            async with running(controller):
                await eventually(lambda: len(calls.calls) == 1)
                for count in (3, 4, 5):  # three changes while the key is in flight
                    group = srv.get_object(*SCHEDULING, NS, "busy") or {}
                    group["spec"]["schedulingPolicy"]["gang"]["minCount"] = count
                    last = srv.update_object(*SCHEDULING, group)
                await eventually(
                    lambda: (
                        (controller.queue is not None)
                        and not len(controller.queue)
                        and "busy" in str(controller.queue.processing)
                    )
                )
                await asyncio.sleep(0.3)
                assert len(calls.calls) == 1  # not handed to another worker meanwhile
                gate.set()
                await eventually(lambda: len(calls.calls) == 2)
                await asyncio.sleep(0.3)
            assert len(calls.calls) == 2 and not calls.overlapped
            # the second reconcile read the object as the cache held it then: the last change
            assert calls.calls[1][1] == last["metadata"]["resourceVersion"]


async def test_a_failing_key_is_retried_with_backoff_while_others_proceed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="workloadbuilder.aio")
    async with server() as srv:
        for name in ("bad", "good-1", "good-2"):
            srv.create_object(*SCHEDULING, pod_group(name))
        calls = Calls(fail={f"{NS}/bad": 3})
        async with srv.api_client() as api:
            controller = aio.Controller(
                api, "PodGroup", calls, namespace=NS, workers=1, rate_limiter=FAST
            )
            async with running(controller):
                await eventually(lambda: len(calls.of(f"{NS}/bad")) == 4)
                await eventually(lambda: calls.of(f"{NS}/bad")[-1][3] is not None)
                await asyncio.sleep(0.2)
                assert controller.queue is not None
                assert controller.queue.num_requeues(f"{NS}/bad") == 0  # forgotten on success
        bad = calls.of(f"{NS}/bad")
        assert len(bad) == 4
        # the other keys went on, each once, before the first retry (one worker)
        assert [len(calls.of(f"{NS}/good-{i}")) for i in (1, 2)] == [1, 1]
        assert max(c[3] for c in calls.calls if c[0] != f"{NS}/bad") < bad[1][2]
        # the per-key backoff doubles from 50 ms: retries at least 50, 100 and 200 ms apart
        for (_, _, _, ended), (_, _, started, _), delay in zip(
            bad[:-1], bad[1:], (0.05, 0.1, 0.2), strict=True
        ):
            assert started - ended >= delay * 0.9
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1  # once for the same error, not once per retry
        assert f"{NS}/bad" in errors[0].getMessage() and "is not ready" in errors[0].getMessage()
        assert errors[0].exc_info is not None
        again = [r for r in caplog.records if "failed again" in r.getMessage()]
        assert len(again) == 2 and {r.levelno for r in again} == {logging.DEBUG}
        recovered = [r for r in caplog.records if "reconciled after" in r.getMessage()]
        assert [r.getMessage().split(": ", 1)[1] for r in recovered] == [
            f"{NS}/bad reconciled after 3 retries"
        ]


async def test_a_resync_reconciles_every_cached_object_again() -> None:
    async with server() as srv:
        for name in ("a", "b"):
            srv.create_object(*SCHEDULING, pod_group(name))
        calls = Calls()
        async with srv.api_client() as api:
            controller = aio.Controller(api, "PodGroup", calls, resync_period=0.25)
            async with running(controller):
                await eventually(lambda: min(len(calls.of(f"{NS}/{n}")) for n in "ab") >= 3)
        # with nothing changed: the same versions again
        assert len({c[1] for c in calls.of(f"{NS}/a")}) == 1


async def test_a_deleted_object_is_not_reconciled() -> None:
    async with server() as srv:
        srv.create_object(*SCHEDULING, pod_group("gone"))
        srv.create_object(*SCHEDULING, pod_group("stays"))
        calls = Calls()
        calls.gates[f"{NS}/gone"] = gate = asyncio.Event()
        async with srv.api_client() as api:
            controller = aio.Controller(api, "PodGroup", calls, workers=2)
            async with running(controller):
                await eventually(lambda: len(calls.calls) == 2)
                srv.delete_object(*SCHEDULING, NS, "gone")
                assert controller.cache is not None
                cache = controller.cache

                async def gone() -> bool:
                    return await cache.get("PodGroup", NS, "gone") is None

                await eventually(gone)
                gate.set()  # the delete queued the key again: it comes up with nothing cached
                await eventually(
                    lambda: controller.queue is not None and not controller.queue.processing
                )
                await asyncio.sleep(0.3)
        assert len(calls.of(f"{NS}/gone")) == 1
        assert len(calls.of(f"{NS}/stays")) == 1


async def test_cancel_drains_the_reconciles_in_flight_and_starts_no_other() -> None:
    async with server() as srv:
        for name in ("first", "second", "third"):
            srv.create_object(*SCHEDULING, pod_group(name))
        calls = Calls()
        gate = asyncio.Event()
        for name in ("first", "second", "third"):
            calls.gates[f"{NS}/{name}"] = gate
        async with srv.api_client() as api, aio.Cache(api, kinds=("PodGroup",)) as cache:
            controller = aio.Controller(api, "PodGroup", calls, workers=1, cache=cache)
            task = asyncio.get_running_loop().create_task(controller.run())
            await eventually(lambda: len(calls.calls) == 1)
            task.cancel()
            await asyncio.sleep(0.1)
            assert not task.done()  # waiting for the reconcile in flight
            gate.set()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert len(calls.calls) == 1 and calls.calls[0][3] is not None  # it finished
            assert controller.queue is None
            # the shared cache goes on, without the controller's handler
            assert cache.healthy and srv.open_watches == 1
            informer = cache.informer("PodGroup")
            assert informer._listeners == []


async def test_a_reconcile_that_hangs_past_the_drain_timeout_is_cancelled() -> None:
    async with server() as srv:
        srv.create_object(*SCHEDULING, pod_group("hangs"))
        calls = Calls()
        calls.gates[f"{NS}/hangs"] = asyncio.Event()  # never set
        async with srv.api_client() as api:
            controller = aio.Controller(api, "PodGroup", calls, drain_timeout=0.2)
            async with running(controller):
                await eventually(lambda: len(calls.calls) == 1)
        assert calls.calls[0][3] is not None  # ended: cancelled


async def test_a_custom_resource_in_one_namespace_through_a_shared_cache() -> None:
    async with server() as srv:
        srv.create_object(*RUNS, run("resnet"))
        srv.create_object(*RUNS, run("elsewhere", OTHER))
        calls = Calls()
        async with srv.api_client() as api, aio.Cache(api, kinds=(TRAINING_RUN,)) as cache:
            controller = aio.Controller(api, TRAINING_RUN, calls, namespace=NS, cache=cache)
            assert controller.name == "trainingruns.training.example.com"
            async with running(controller):
                await eventually(lambda: len(calls.calls) == 1)
                srv.create_object(*RUNS, run("bert"))
                await eventually(lambda: len(calls.calls) == 2)
                await asyncio.sleep(0.2)
            assert calls.keys() == [f"{NS}/bert", f"{NS}/resnet"]
            assert {d["metadata"]["name"] for d in await cache.list(TRAINING_RUN)} == {
                "resnet",
                "elsewhere",
                "bert",
            }
            assert await cache.get(TRAINING_RUN, OTHER, "elsewhere") is not None


async def test_only_the_leader_reconciles_and_the_next_one_takes_over() -> None:
    async with server() as srv:
        for name in ("a", "b"):
            srv.create_object(*SCHEDULING, pod_group(name))
        calls = {who: Calls() for who in ("one", "two")}
        times = dict(lease_duration=1.0, renew_deadline=0.6, retry_period=0.1)
        async with srv.api_client() as api_one, srv.api_client() as api_two:
            controllers = {
                who: aio.Controller(
                    api,
                    "PodGroup",
                    calls[who],
                    leader_election=aio.LeaderElection(api, "ctrl", "default", who, **times),
                )
                for who, api in (("one", api_one), ("two", api_two))
            }
            tasks = {
                who: asyncio.get_running_loop().create_task(c.run())
                for who, c in controllers.items()
            }
            await eventually(lambda: sum(len(c.calls) for c in calls.values()) == 2)
            await asyncio.sleep(0.3)
            (leader,) = [who for who, c in calls.items() if c.calls]
            follower = "two" if leader == "one" else "one"
            assert controllers[follower].queue is None and not calls[follower].calls
            assert controllers[follower].cache is not None  # its cache is kept warm
            tasks[leader].cancel()  # released on cancel: the other leads at its next try
            with pytest.raises(asyncio.CancelledError):
                await tasks[leader]
            await eventually(lambda: len(calls[follower].calls) == 2, seconds=5)
            tasks[follower].cancel()
            with pytest.raises(asyncio.CancelledError):
                await tasks[follower]


async def test_a_leader_that_loses_the_lease_stops_then_stands_again() -> None:
    async with server() as srv:
        for name in ("a", "b"):
            srv.create_object(*SCHEDULING, pod_group(name))
        calls = Calls()
        times = dict(lease_duration=1.0, renew_deadline=0.6, retry_period=0.1)
        async with srv.api_client() as api:
            election = aio.LeaderElection(api, "ctrl", "default", "one", **times)
            controller = aio.Controller(api, "PodGroup", calls, leader_election=election)
            async with running(controller):
                await eventually(lambda: len(calls.calls) == 2)
                # another holder writes the Lease (and never renews it): "one" stops leading
                lease = srv.get_object("coordination.k8s.io", "v1", "leases", "default", "ctrl")
                assert lease is not None
                lease["spec"]["holderIdentity"] = "other"
                srv.update_object("coordination.k8s.io", "v1", "leases", lease)
                await eventually(lambda: controller.queue is None, seconds=5)
                assert not election.is_leader
                # once the other's record is a lease duration old, "one" leads again and
                # queues every cached object
                await eventually(lambda: len(calls.calls) == 4, seconds=10)
                assert election.is_leader and controller.queue is not None
        assert sorted(c[0] for c in calls.calls[2:]) == [f"{NS}/a", f"{NS}/b"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"workers": 0}, "workers must be at least 1, got 0"),
        ({"resync_period": 0}, "resync_period must be greater than zero (or None), got 0"),
    ],
)
def test_bad_settings_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        aio.Controller(object(), "Job", _never, **options)
    assert str(caught.value) == message


def test_a_kind_no_cache_holds_is_refused() -> None:
    with pytest.raises(ValueError, match=r"a Cache holds no kind 'TrainingRun'.*CustomResource"):
        aio.Controller(object(), "TrainingRun", _never)  # type: ignore[arg-type]


async def test_a_cache_that_cannot_list_the_kind_says_which_and_why() -> None:
    async with server() as srv:
        srv.faults.add(status=403, method="GET", path="*/podgroups", times=1000)
        async with srv.api_client() as api:
            controller = aio.Controller(api, "PodGroup", _never, sync_timeout=0.5)
            with pytest.raises(aio.CacheSyncError) as caught:
                await controller.run()
        assert caught.value.kind == "PodGroup" and caught.value.status == 403
