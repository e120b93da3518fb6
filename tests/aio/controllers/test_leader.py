"""``aio.LeaderElection`` against the test server: two or three electors on one Lease.

What is expected is client-go's ``tools/leaderelection`` with its ``LeaseLock``: the record's
fields (``holderIdentity``, ``leaseDurationSeconds`` in whole seconds, ``acquireTime`` and
``renewTime`` as MicroTime, ``leaseTransitions`` counting changes of holder), a release that
writes an empty holder with a one-second duration, ``NewLeaderElector``'s checks of the
durations, and the guarantee the package documents: never two leaders at once, a leader that
stops renewing replaced after the lease duration, a released one at the next try. Durations
are short (lease 1 s, renew 0.6 s, retry 0.1 s); each lead() start and stop is recorded on
the event loop's clock and the intervals must not overlap.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from kubernetes_asyncio import config

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

LEASE = "/apis/coordination.k8s.io/v1/namespaces/default/leases/ctrl"
TIMES = dict(lease_duration=1.0, renew_deadline=0.6, retry_period=0.1)
MICRO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


@dataclass
class Log:
    """Each lead() interval: (identity, started, stopped or None while leading)."""

    intervals: list[list[Any]] = field(default_factory=list)

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def lead(self, identity: str) -> Callable[[], Any]:
        async def lead() -> None:
            entry: list[Any] = [identity, self.now(), None]
            assert not any(i[2] is None for i in self.intervals), "two leaders at once"
            self.intervals.append(entry)
            try:
                await asyncio.Event().wait()
            finally:
                entry[2] = self.now()

        return lead

    def leaders(self) -> list[str]:
        return [i[0] for i in self.intervals if i[2] is None]

    def assert_never_two(self) -> None:
        spans = sorted(
            (s, e if e is not None else float("inf"), who) for who, s, e in self.intervals
        )
        for (_, end, who), (start, _, nxt) in itertools.pairwise(spans):
            assert end <= start, f"{who} and {nxt} led at once"


@contextlib.asynccontextmanager
async def clients(server: FakeAPIServer, count: int) -> AsyncIterator[list[Any]]:
    made = [
        await config.new_client_from_config(config_file=str(server.kubeconfig_path))
        for _ in range(count)
    ]
    try:
        yield made
    finally:
        for api in made:
            await api.close()


async def wait_for(check: Callable[[], bool], seconds: float) -> float:
    """Poll ``check`` until true; the seconds it took (fails after ``seconds``)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not check():
        assert loop.time() - start < seconds, "condition not met in time"
        await asyncio.sleep(0.01)
    return loop.time() - start


def lease_spec(server: FakeAPIServer) -> dict[str, Any]:
    lease = server.get_object("coordination.k8s.io", "v1", "leases", "default", "ctrl")
    assert lease is not None
    return dict(lease["spec"])


async def stop(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, aio.LostLeadershipError):
        await task


def test_durations_are_checked_as_client_go_does() -> None:
    with pytest.raises(ValueError, match="lease_duration must be greater than renew_deadline"):
        aio.LeaderElection(object(), "l", "ns", "me", lease_duration=5, renew_deadline=5)
    with pytest.raises(ValueError, match=r"renew_deadline must be greater than retry_period\*1.2"):
        aio.LeaderElection(object(), "l", "ns", "me", renew_deadline=2.4, retry_period=2)
    with pytest.raises(ValueError, match="retry_period must be greater than zero"):
        aio.LeaderElection(object(), "l", "ns", "me", retry_period=0)
    with pytest.raises(ValueError, match="identity is empty"):
        aio.LeaderElection(object(), "l", "ns", "")


async def test_one_leader_and_the_record_it_writes(fake_apiserver: FakeAPIServer) -> None:
    log = Log()
    async with clients(fake_apiserver, 2) as (api_a, api_b):
        a = aio.LeaderElection(api_a, "ctrl", "default", "a", **TIMES)
        b = aio.LeaderElection(api_b, "ctrl", "default", "b", **TIMES)
        run_a = asyncio.create_task(a.run(log.lead("a")))
        await wait_for(lambda: a.is_leader, 5)
        run_b = asyncio.create_task(b.run(log.lead("b")))
        await wait_for(lambda: b.leader == "a", 5)
        spec = lease_spec(fake_apiserver)
        assert spec["holderIdentity"] == "a"
        assert spec["leaseDurationSeconds"] == 1
        assert spec["leaseTransitions"] == 0
        assert MICRO.match(spec["acquireTime"]) and MICRO.match(spec["renewTime"])
        first_renew = spec["renewTime"]
        await asyncio.sleep(0.5)  # several retry periods: a renews, b keeps waiting
        spec = lease_spec(fake_apiserver)
        assert spec["renewTime"] > first_renew
        assert spec["acquireTime"] <= first_renew  # kept by every renewal
        assert (a.is_leader, b.is_leader, log.leaders()) == (True, False, ["a"])
        await stop(run_a)
        await stop(run_b)
    log.assert_never_two()


async def test_a_cancelled_leader_releases_and_is_replaced_at_once(
    fake_apiserver: FakeAPIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="workloadbuilder.aio")
    log = Log()
    new_leaders: list[str] = []
    told_a: list[str] = []
    async with clients(fake_apiserver, 2) as (api_a, api_b):
        a = aio.LeaderElection(api_a, "ctrl", "default", "a", on_new_leader=told_a.append, **TIMES)
        b = aio.LeaderElection(
            api_b, "ctrl", "default", "b", on_new_leader=new_leaders.append, **TIMES
        )
        run_a = asyncio.create_task(a.run(log.lead("a")))
        await wait_for(lambda: a.is_leader, 5)
        run_b = asyncio.create_task(b.run(log.lead("b")))
        await wait_for(lambda: b.leader == "a", 5)
        await stop(run_a)
        assert not a.is_leader
        released = lease_spec(fake_apiserver)
        assert released["holderIdentity"] in ("", "b")  # a's record is gone: released
        if released["holderIdentity"] == "":
            assert released["leaseDurationSeconds"] == 1
            assert released["leaseTransitions"] == 0
        took = await wait_for(lambda: b.is_leader, 5)
        assert took < 0.7  # b's next try (0.1 s with jitter up to 0.22 s), not the lease's 1 s
        assert lease_spec(fake_apiserver)["leaseTransitions"] == 1
        assert new_leaders[0] == "a" and new_leaders[-1] == "b"
        await stop(run_b)
    log.assert_never_two()
    assert [i[0] for i in log.intervals] == ["a", "b"]
    # client-go's release() records the empty holder without reporting a transition, so the
    # replica that released is never told "" of its own release
    assert told_a == ["a"]
    said = [r.getMessage() for r in caplog.records]
    assert "a became leader of Lease default/ctrl" in said
    assert "a released Lease default/ctrl" in said
    assert not any("Lease Lease" in m for m in said)


async def test_a_leader_that_stops_renewing_is_replaced_after_the_lease(
    fake_apiserver: FakeAPIServer,
) -> None:
    log = Log()
    async with clients(fake_apiserver, 2) as (api_a, api_b):
        a = aio.LeaderElection(api_a, "ctrl", "default", "a", release_on_cancel=False, **TIMES)
        b = aio.LeaderElection(api_b, "ctrl", "default", "b", **TIMES)
        run_a = asyncio.create_task(a.run(log.lead("a")))
        await wait_for(lambda: a.is_leader, 5)
        run_b = asyncio.create_task(b.run(log.lead("b")))
        await wait_for(lambda: b.leader == "a", 5)
        await stop(run_a)  # no release: the record stays, unrenewed
        assert lease_spec(fake_apiserver)["holderIdentity"] == "a"
        took = await wait_for(lambda: b.is_leader, 5)
        assert 0.4 < took < 2.5  # the lease's 1 s from b's last sight of a change, + a retry
        await stop(run_b)
    log.assert_never_two()


async def test_a_leader_whose_renewal_stalls_stops_before_another_starts(
    fake_apiserver: FakeAPIServer,
) -> None:
    log = Log()
    async with clients(fake_apiserver, 2) as (api_a, api_b):
        a = aio.LeaderElection(api_a, "ctrl", "default", "a", **TIMES)
        b = aio.LeaderElection(api_b, "ctrl", "default", "b", **TIMES)
        run_a = asyncio.create_task(a.run(log.lead("a")))
        await wait_for(lambda: a.is_leader, 5)
        run_b = asyncio.create_task(b.run(log.lead("b")))
        await wait_for(lambda: b.leader == "a", 5)
        fake_apiserver.faults.delay(3.0, method="PUT", path="*/leases/ctrl")  # a's next renewal
        with pytest.raises(aio.LostLeadershipError, match=r"a stopped leading .*: no renewal"):
            await asyncio.wait_for(run_a, 5)
        assert not a.is_leader
        await wait_for(lambda: b.is_leader, 5)
        await asyncio.sleep(3.0)  # a's stalled renewal reaches the server: a 409, not a write
        assert lease_spec(fake_apiserver)["holderIdentity"] == "b"
        assert b.is_leader
        await stop(run_b)
    log.assert_never_two()
    assert [i[0] for i in log.intervals] == ["a", "b"]


async def test_three_electors_under_churn_never_lead_together(
    fake_apiserver: FakeAPIServer,
) -> None:
    log = Log()
    async with clients(fake_apiserver, 3) as apis:
        electors = {
            name: aio.LeaderElection(api, "ctrl", "default", name, **TIMES)
            for name, api in zip("abc", apis, strict=True)
        }
        runs = {n: asyncio.create_task(e.run(log.lead(n))) for n, e in electors.items()}
        for _ in range(4):
            await wait_for(lambda: len(log.leaders()) == 1, 5)
            (leader,) = log.leaders()
            await stop(runs[leader])  # released: another takes over
            runs[leader] = asyncio.create_task(electors[leader].run(log.lead(leader)))
        await wait_for(lambda: len(log.leaders()) == 1, 5)
        assert sum(e.is_leader for e in electors.values()) == 1
        for task in runs.values():
            await stop(task)
    log.assert_never_two()
    assert len(log.intervals) == 5
    assert lease_spec(fake_apiserver)["leaseTransitions"] >= 4


async def test_lead_returning_ends_run_and_releases(fake_apiserver: FakeAPIServer) -> None:
    async with clients(fake_apiserver, 1) as (api,):
        election = aio.LeaderElection(api, "ctrl", "default", "a", **TIMES)

        async def lead() -> str:
            assert election.is_leader
            return "done"

        assert await asyncio.wait_for(election.run(lead), 5) == "done"
        assert not election.is_leader
        assert lease_spec(fake_apiserver)["holderIdentity"] == ""
        assert election.leader is None


async def test_a_server_without_leases_is_a_typed_error() -> None:
    async with FakeAPIServer(group_versions=["v1"]) as server, clients(server, 1) as (api,):
        election = aio.LeaderElection(api, "ctrl", "default", "a", **TIMES)
        with pytest.raises(aio.LeaseUnavailableError, match="does not serve") as caught:
            await asyncio.wait_for(election.run(asyncio.Event().wait), 5)
        assert caught.value.status == 404


async def test_forbidden_is_a_typed_error(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.faults.add(status=403, path="*/leases*", message="leases is forbidden")
    async with clients(fake_apiserver, 1) as (api,):
        election = aio.LeaderElection(api, "ctrl", "default", "a", **TIMES)
        with pytest.raises(aio.LeaseUnavailableError, match="grant get, create and update") as e:
            await asyncio.wait_for(election.run(asyncio.Event().wait), 5)
        assert e.value.status == 403
        assert "Bearer" not in str(e.value) and "token" not in repr(election).lower()


async def test_a_missing_namespace_is_a_typed_error(fake_apiserver: FakeAPIServer) -> None:
    async with clients(fake_apiserver, 1) as (api,):
        election = aio.LeaderElection(api, "ctrl", "nowhere", "a", **TIMES)
        with pytest.raises(aio.LeaseUnavailableError, match="namespace exists") as caught:
            await asyncio.wait_for(election.run(asyncio.Event().wait), 5)
        assert caught.value.status == 404


async def test_the_official_client_elects_too(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes.aio import config as official

    api = await official.new_client_from_config(config_file=str(fake_apiserver.kubeconfig_path))
    try:
        election = aio.LeaderElection(api, "ctrl", "default", "official", **TIMES)
        seen: list[bool] = []

        async def lead() -> None:
            seen.append(election.is_leader)
            await asyncio.sleep(0.3)  # a few renewals

        await asyncio.wait_for(election.run(lead), 5)
        assert seen == [True]
        assert lease_spec(fake_apiserver)["holderIdentity"] == ""
        with pytest.raises(RuntimeError, match="one run"):
            blocked = asyncio.Event()
            first = asyncio.create_task(election.run(blocked.wait))
            await asyncio.sleep(0)
            try:
                await election.run(blocked.wait)
            finally:
                await stop(first)
    finally:
        await api.close()


async def test_requests_go_through_the_clients_core(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.faults.add(status=503, method="GET", path="*/leases/ctrl", times=1)
    async with clients(fake_apiserver, 1) as (api,):
        client = aio.Client(api, "my-operator")
        election = aio.LeaderElection(client, "ctrl", "default", "a", **TIMES)

        async def lead() -> int:
            return client.requests

        sent = await asyncio.wait_for(election.run(lead), 5)
        assert client.retries == 1  # the 503 was retried by the core's policy
        assert sent == 3  # GET (503), GET (404), POST
        assert lease_spec(fake_apiserver)["holderIdentity"] == ""  # released on the way out


@pytest.mark.parametrize(
    "renew_time", ["2000-01-01T00:00:00.000000Z", "2100-01-01T00:00:00.000000Z"]
)
async def test_expiry_is_counted_on_the_local_clock_not_the_written_renew_time(
    fake_apiserver: FakeAPIServer, renew_time: str
) -> None:
    # another host, whose clock is far behind or far ahead, holds the Lease and stops renewing
    fake_apiserver.create_object(
        "coordination.k8s.io",
        "v1",
        "leases",
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": "ctrl", "namespace": "default"},
            "spec": {
                "holderIdentity": "elsewhere",
                "leaseDurationSeconds": 1,
                "acquireTime": renew_time,
                "renewTime": renew_time,
                "leaseTransitions": 3,
            },
        },
    )
    async with clients(fake_apiserver, 1) as (api,):
        election = aio.LeaderElection(api, "ctrl", "default", "a", **TIMES)
        run = asyncio.create_task(election.run(asyncio.Event().wait))
        await wait_for(lambda: election.leader == "elsewhere", 5)
        took = await wait_for(lambda: election.is_leader, 5)
        assert took > 0.7  # not at once (a stale renewTime), not never (a future one)
        assert lease_spec(fake_apiserver)["leaseTransitions"] == 4
        await stop(run)


async def test_a_server_pause_leaves_one_leader(fake_apiserver: FakeAPIServer) -> None:
    log = Log()
    async with clients(fake_apiserver, 3) as apis:
        electors = [
            aio.LeaderElection(api, "ctrl", "default", name, **TIMES)
            for name, api in zip("abc", apis, strict=True)
        ]
        runs = [asyncio.create_task(e.run(log.lead(e.identity))) for e in electors]
        await wait_for(lambda: len(log.leaders()) == 1, 5)
        (first,) = log.leaders()
        # every Lease request now stalls 1.5 s: past the renew deadline, not past the test's
        fake_apiserver.faults.delay(1.5, path="*/leases*", times=8)
        await wait_for(lambda: first not in log.leaders(), 5)  # the leader stepped down
        await wait_for(lambda: len(log.leaders()) == 1 and not fake_apiserver.faults.pending, 10)
        await asyncio.sleep(0.5)
        assert len(log.leaders()) == 1
        assert sum(e.is_leader for e in electors) == 1
        for task in runs:
            await stop(task)
    log.assert_never_two()
