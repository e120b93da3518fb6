"""A steady ``reconcile_job`` through a cache is a lookup, and it never goes stale.

The decision of the versions a sync read is kept; every change of what it reads must be
decided afresh, as the Job controller decides each sync afresh (``syncJob`` reads the Job,
``ensureWorkloadAndPodGroup`` its objects). What each case expects is what the Job controller
does for the changed input: gang ``minCount`` kept at ``parallelism`` (``syncGangMinCount``),
and the objects it answers are the ones that exist now (their uid and resourceVersion as the
test server holds them).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest
from cache_support import NS, SCHEDULING, eventually, job, server

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer


class Setup:
    def __init__(self, srv: FakeAPIServer, api: Any, cache: aio.Cache) -> None:
        self.srv, self.api, self.cache = srv, api, cache

    def stored(self, plural: str, name: str) -> dict[str, Any]:
        found = self.srv.get_object(SCHEDULING, "v1beta1", plural, NS, name)
        assert found is not None
        return found

    async def cached_job(self, name: str = "train") -> dict[str, Any]:
        found = await self.cache.get("Job", NS, name)
        assert found is not None
        return found

    async def settled(self) -> None:
        """The cache holds what the server holds, and no write of ours is pending."""

        async def same() -> bool:
            for kind, plural in (("Workload", "workloads"), ("PodGroup", "podgroups")):
                for obj in self.srv.list_objects(SCHEDULING, "v1beta1", plural, NS):
                    meta = obj["metadata"]
                    cached = await self.cache.get(kind, NS, meta["name"])
                    if (
                        cached is None
                        or cached["metadata"]["resourceVersion"] != meta["resourceVersion"]
                    ):
                        return False
            return len(self.cache.expectations) == 0

        await eventually(same)

    async def reconcile(self) -> aio.ReconcileResult:
        return await aio.reconcile_job(self.api, await self.cached_job(), cache=self.cache)

    def assert_current(self, result: aio.ReconcileResult) -> None:
        """The objects answered are the ones the server holds now."""
        assert result.workload is not None and len(result.objects) == 1
        workload = self.stored("workloads", result.workload.metadata.name or "")
        group = self.stored("podgroups", result.objects[0].metadata.name or "")
        for model, live in ((result.workload, workload), (result.objects[0], group)):
            assert model.metadata.uid == live["metadata"]["uid"]
            assert model.metadata.resource_version == live["metadata"]["resourceVersion"]


@pytest.fixture
async def setup() -> AsyncIterator[Setup]:
    async with server() as srv, srv.api_client() as api:
        srv.create_object("batch", "v1", "jobs", job("train", parallelism=2))
        async with aio.Cache(api, namespace=NS) as cache:
            await cache.synced(timeout=10)
            here = Setup(srv, api, cache)
            first = await here.reconcile()
            assert [r.kind for r in first.created] == ["Workload", "PodGroup"]
            await here.settled()
            yield here


async def parallelism_is(setup: Setup, wanted: int) -> bool:
    return bool((await setup.cached_job())["spec"]["parallelism"] == wanted)


def gang(doc: dict[str, Any]) -> int:
    spec = doc["spec"]
    policy = spec["podGroupTemplates"][0] if "podGroupTemplates" in spec else spec
    return int(policy["schedulingPolicy"]["gang"]["minCount"])


async def test_a_steady_reconcile_sends_nothing_and_answers_what_exists(setup: Setup) -> None:
    sent = len(setup.srv.requests)
    for _ in range(3):
        result = await setup.reconcile()
        assert result.created == () and result.resized == () and result.events == ()
        setup.assert_current(result)
    assert len(setup.srv.requests) == sent


async def test_a_changed_job_is_decided_afresh(setup: Setup) -> None:
    await setup.reconcile()
    changed = copy.deepcopy(await setup.cached_job())  # what the cache holds is read-only
    changed["spec"]["parallelism"] = 3
    setup.srv.update_object("batch", "v1", "jobs", changed)
    await eventually(lambda: parallelism_is(setup, 3))
    result = await setup.reconcile()
    assert sorted(r.kind for r in result.resized) == ["PodGroup", "Workload"]
    assert gang(setup.stored("workloads", result.workload.metadata.name or "")) == 3  # type: ignore[union-attr]
    assert gang(setup.stored("podgroups", result.objects[0].metadata.name or "")) == 3


async def test_another_managers_change_of_the_workload_is_decided_afresh(setup: Setup) -> None:
    before = await setup.reconcile()
    name = before.workload.metadata.name or ""  # type: ignore[union-attr]
    # a label only: the decision is the same, but the Workload it answers is the new version
    setup.srv.patch_object(
        SCHEDULING,
        "v1beta1",
        "workloads",
        NS,
        name,
        {"metadata": {"labels": {"team": "a"}}},
        field_manager="someone-else",
    )
    await setup.settled()
    labelled = await setup.reconcile()
    assert labelled.resized == ()
    setup.assert_current(labelled)
    # a gang count another manager changed is set back to parallelism, as syncGangMinCount does
    template = setup.stored("workloads", name)["spec"]["podGroupTemplates"][0]["name"]
    setup.srv.patch_object(
        SCHEDULING,
        "v1beta1",
        "workloads",
        NS,
        name,
        {
            "spec": {
                "podGroupTemplates": [
                    {"name": template, "schedulingPolicy": {"gang": {"minCount": 5}}}
                ]
            }
        },
        patch_type="strategic",
        field_manager="someone-else",
    )
    await setup.settled()
    result = await setup.reconcile()
    assert [r.kind for r in result.resized] == ["Workload"]
    assert gang(setup.stored("workloads", name)) == 2


async def test_a_pod_group_deleted_and_made_again_is_decided_afresh(setup: Setup) -> None:
    before = await setup.reconcile()
    old = setup.stored("podgroups", before.objects[0].metadata.name or "")
    setup.srv.delete_object(SCHEDULING, "v1beta1", "podgroups", NS, old["metadata"]["name"])
    again = {k: v for k, v in old.items() if k != "status"}
    again["metadata"] = {
        k: v
        for k, v in old["metadata"].items()
        if k in ("name", "namespace", "labels", "annotations", "ownerReferences")
    }
    made = setup.srv.create_object(SCHEDULING, "v1beta1", "podgroups", again)
    assert made["metadata"]["uid"] != old["metadata"]["uid"]
    await setup.settled()
    result = await setup.reconcile()
    assert result.objects[0].metadata.uid == made["metadata"]["uid"]
    setup.assert_current(result)


async def test_a_write_the_cache_has_not_seen_is_decided_afresh(setup: Setup) -> None:
    await setup.reconcile()
    for plural in ("workloads", "podgroups"):  # the cache's next watches are held back
        setup.srv.faults.delay(3.0, method="GET", path=f"*/{plural}")
    changed = copy.deepcopy(await setup.cached_job())  # what the cache holds is read-only
    changed["spec"]["parallelism"] = 4
    setup.srv.update_object("batch", "v1", "jobs", changed)
    await eventually(lambda: parallelism_is(setup, 4))
    resized = await setup.reconcile()
    assert sorted(r.kind for r in resized.resized) == ["PodGroup", "Workload"]
    assert len(setup.cache.expectations) > 0  # the cache has not observed the patches
    pending = await setup.reconcile()  # reads the patched objects from the expectations
    assert pending.resized == ()
    setup.assert_current(pending)
    await asyncio.wait_for(setup.settled(), 15)
    assert (await setup.reconcile()).resized == ()
