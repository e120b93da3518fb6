"""One scenario per verb of ``aio.required_rules``: what the administrator sets up, then the
verb driven through each of its paths (create and update, found and missing, changed and
steady, adopted) against a test server, by whichever client the test gives it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from apply_support import NS, OWNER, gang_pod_groups, release_builder, release_objects
from test_apply_reconcile_job import job

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

Step = Callable[[Any, FakeAPIServer], Awaitable[None]]

JOB_GROUP = ("batch", "v1", "jobs")


def _create(server: FakeAPIServer, doc: Any) -> dict[str, Any]:
    body = doc.to_dict() if hasattr(doc, "to_dict") else dict(doc)
    group, _, version = body["apiVersion"].rpartition("/")
    return server.create_object(group, version, f"{body['kind'].lower()}s", body)


async def nothing(api: Any, server: FakeAPIServer) -> None:
    """No set-up."""


async def released(api: Any, server: FakeAPIServer) -> None:
    """The release's Workload and groups, as the administrator created them."""
    for doc in release_objects():
        _create(server, doc)


async def orphans(api: Any, server: FakeAPIServer) -> None:
    """The release's groups with no controller: ``reconcile(adopt=True)`` adopts them."""
    for doc in release_objects()[1:]:
        body = doc.to_dict()
        body["metadata"].pop("ownerReferences", None)
        _create(server, body)


async def job_reconciled(api: Any, server: FakeAPIServer) -> None:
    """A Job and the Workload and PodGroup of it, for the readers."""
    created = server.create_object(*JOB_GROUP, job())
    await aio.reconcile_job(api, created)
    await released(api, server)


async def preflight(api: Any, server: FakeAPIServer) -> None:
    await aio.preflight(api, [job(), *release_objects()])


async def apply(api: Any, server: FakeAPIServer) -> None:
    await aio.apply(api, release_objects(), field_manager="ctl")
    await aio.apply(api, release_objects(release_builder(workers=3)), field_manager="ctl")


async def resize(api: Any, server: FakeAPIServer) -> None:
    await aio.resize(api, release_objects()[2], 2)


SECOND_OWNER: dict[str, Any] = {
    **OWNER,
    "metadata": {**OWNER["metadata"], "name": "second", "uid": "7d1e0b7c-5a55-4f0e-9a1c"},
}


async def reconcile(api: Any, server: FakeAPIServer) -> None:
    await aio.reconcile(api, release_builder(), field_manager="ctl", adopt=True)
    await aio.reconcile(api, release_builder(SECOND_OWNER), field_manager="ctl")
    await aio.reconcile(api, release_builder(workers=3), field_manager="ctl")
    await aio.reconcile(api, release_builder(workers=3), field_manager="ctl")


async def reconcile_job(api: Any, server: FakeAPIServer) -> None:
    created = server.create_object(*JOB_GROUP, job())
    await aio.reconcile_job(api, created)
    await aio.reconcile_job(api, created)
    grown = server.patch_object(*JOB_GROUP, NS, "trainer", {"spec": {"parallelism": 6}})
    await aio.reconcile_job(api, grown)


async def wait_scheduled(api: Any, server: FakeAPIServer) -> None:
    # no pods: it waits, then says why, with diagnose's verdict
    for group in release_objects()[1:3]:
        try:
            await aio.wait_scheduled(api, group, timeout=0.5)
        except aio.NotScheduledError as exc:
            if exc.verdict is None:
                raise


async def diagnose(api: Any, server: FakeAPIServer) -> None:
    await aio.diagnose(api, release_objects()[2])


async def audit(api: Any, server: FakeAPIServer) -> None:
    await aio.audit(api, NS)


async def delete(api: Any, server: FakeAPIServer) -> None:
    await aio.delete(api, release_objects()[0])
    for group in gang_pod_groups(1):
        _create(server, group)
    await aio.delete(api, gang_pod_groups(1))


async def read_object(api: Any, server: FakeAPIServer) -> None:
    for doc in release_objects():
        await aio.read_object(api, doc.kind, doc.metadata.name, namespace=NS)


async def list_objects(api: Any, server: FakeAPIServer) -> None:
    for kind in ("Workload", "PodGroup", "CompositePodGroup"):
        await aio.list_objects(api, kind, namespace=NS)


async def cache(api: Any, server: FakeAPIServer) -> None:
    async with aio.Cache(api, namespace=NS) as informers:
        await informers.synced(timeout=10)
        async with asyncio.timeout(10):  # each kind's watch follows its list
            while len({r.path for r in server.requests if r.query.get("watch")}) < 6:
                await asyncio.sleep(0.02)


async def leader_election(api: Any, server: FakeAPIServer) -> None:
    election = aio.LeaderElection(
        api, "ctl", NS, "replica-1", lease_duration=1, renew_deadline=0.6, retry_period=0.1
    )

    async def lead() -> None:
        return None

    await election.run(lead)


@dataclass(frozen=True)
class Scenario:
    """What the administrator sets up, then what the verb does."""

    setup: Step
    act: Step


SCENARIOS: dict[str, Scenario] = {
    "preflight": Scenario(nothing, preflight),
    "apply": Scenario(nothing, apply),
    "resize": Scenario(released, resize),
    "reconcile": Scenario(orphans, reconcile),
    "reconcile_job": Scenario(nothing, reconcile_job),
    "wait_scheduled": Scenario(released, wait_scheduled),
    "diagnose": Scenario(released, diagnose),
    "audit": Scenario(job_reconciled, audit),
    "delete": Scenario(released, delete),
    "read_object": Scenario(released, read_object),
    "list_objects": Scenario(released, list_objects),
    "cache": Scenario(released, cache),
    "leader_election": Scenario(nothing, leader_election),
}

__all__ = ["OWNER", "SCENARIOS", "Scenario", "job"]
