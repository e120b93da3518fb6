"""Watch: event types, resume from a resourceVersion, bookmarks, timeouts, 410 Gone."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
from server_helpers import PG_PATH, SCHED, apply, bounded, pod_group

from workloadbuilder.testing import FakeAPIServer


async def events(
    server: FakeAPIServer, params: dict[str, str], count: int | None = None, path: str = PG_PATH
) -> list[dict[str, Any]]:
    """Watch events until ``count`` arrived or the server ends the stream."""
    out: list[dict[str, Any]] = []
    timeout = aiohttp.ClientTimeout(total=10)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(server.url + path, params=params) as resp,
    ):
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "application/json"
        async for line in resp.content:
            out.append(json.loads(line))
            if count is not None and len(out) == count:
                break
    return out


def summary(evs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["type"], e["object"]["metadata"].get("name", "")) for e in evs]


@bounded()
async def test_added_modified_deleted(fake_apiserver: FakeAPIServer) -> None:
    start = fake_apiserver.resource_version
    watcher = asyncio.create_task(
        events(fake_apiserver, {"watch": "1", "resourceVersion": start}, 4)
    )
    await asyncio.sleep(0.1)
    await apply(fake_apiserver, pod_group(), "ctl")
    labelled = pod_group()
    labelled["metadata"]["labels"] = {"a": "b"}
    await apply(fake_apiserver, labelled, "ctl")
    fake_apiserver.delete_object(SCHED, "v1beta1", "podgroups", "default", "pg")
    got = await watcher
    # The delete marks the PodGroup (its podgroup-protection finalizer), then it goes.
    assert summary(got) == [
        ("ADDED", "pg"),
        ("MODIFIED", "pg"),
        ("MODIFIED", "pg"),
        ("DELETED", "pg"),
    ]
    assert "deletionTimestamp" in got[2]["object"]["metadata"]
    rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in got]
    assert rvs == sorted(rvs) and len(set(rvs)) == 4
    assert got[0]["object"]["apiVersion"] == "scheduling.k8s.io/v1beta1"


@bounded()
async def test_resume_replays_history(fake_apiserver: FakeAPIServer) -> None:
    first = (await apply(fake_apiserver, pod_group("a"), "ctl")).json()
    await apply(fake_apiserver, pod_group("b"), "ctl")
    await apply(fake_apiserver, pod_group("c"), "ctl")
    rv = first["metadata"]["resourceVersion"]
    replay = await events(fake_apiserver, {"watch": "true", "resourceVersion": rv}, 2)
    assert summary(replay) == [("ADDED", "b"), ("ADDED", "c")]
    initial = await events(fake_apiserver, {"watch": "true"}, 3)
    assert summary(initial) == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c")]


@bounded()
async def test_timeout_and_selectors(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group("a"), "ctl")
    await apply(fake_apiserver, pod_group("b"), "ctl")
    params = {"watch": "true", "timeoutSeconds": "1", "fieldSelector": "metadata.name=b"}
    assert summary(await events(fake_apiserver, params)) == [("ADDED", "b")]
    other_ns = PG_PATH.replace("default", "other")
    assert await events(fake_apiserver, {"watch": "1", "timeoutSeconds": "1"}, path=other_ns) == []


@bounded()
async def test_bookmarks() -> None:
    async with FakeAPIServer(bookmark_interval=0.2) as server:
        await apply(server, pod_group(), "ctl")
        rv = server.resource_version
        params = {"watch": "1", "resourceVersion": rv, "allowWatchBookmarks": "true"}
        got = await events(server, params, 2)
        assert [e["type"] for e in got] == ["BOOKMARK", "BOOKMARK"]
        assert got[0]["object"] == {
            "kind": "PodGroup",
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "metadata": {"resourceVersion": rv},
        }
        without = await events(server, {"watch": "1", "resourceVersion": rv, "timeoutSeconds": "1"})
        assert without == []
        listing = {"watch": "1", "sendInitialEvents": "true", "allowWatchBookmarks": "true"}
        initial = await events(server, listing, 2)
        assert summary(initial)[0] == ("ADDED", "pg")
        assert initial[1]["type"] == "BOOKMARK"
        assert initial[1]["object"]["metadata"]["annotations"] == {
            "k8s.io/initial-events-end": "true"
        }


@bounded()
async def test_expired_resource_version_is_410_in_the_stream() -> None:
    async with FakeAPIServer(event_history=3) as server:
        for i in range(6):
            await apply(server, pod_group(f"pg{i}"), "ctl")
        got = await events(server, {"watch": "1", "resourceVersion": "2"})
        assert len(got) == 1 and got[0]["type"] == "ERROR"
        status = got[0]["object"]
        assert status["kind"] == "Status"
        assert status["code"] == 410
        assert status["reason"] == "Expired"
        assert status["message"].startswith("too old resource version: 2 (")
        recent = str(int(server.resource_version) - 1)
        assert summary(await events(server, {"watch": "1", "resourceVersion": recent}, 1)) == [
            ("ADDED", "pg5")
        ]


@bounded()
async def test_stopping_the_server_ends_open_watches() -> None:
    server = FakeAPIServer()
    await server.start()
    watcher = asyncio.create_task(events(server, {"watch": "1"}))
    while server.open_watches == 0:
        await asyncio.sleep(0.01)
    await server.stop()
    assert summary(await asyncio.wait_for(watcher, 5)) == []


@bounded()
async def test_a_client_that_goes_away_releases_its_watch(fake_apiserver: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        resp = await session.get(fake_apiserver.url + PG_PATH, params={"watch": "1"})
        assert resp.status == 200
        assert fake_apiserver.open_watches == 1
        resp.close()
    for _ in range(40):
        if fake_apiserver.open_watches == 0:
            break
        await asyncio.sleep(0.1)
    assert fake_apiserver.open_watches == 0


@bounded()
async def test_selector_watches_see_objects_enter_and_leave(fake_apiserver: FakeAPIServer) -> None:
    start = fake_apiserver.resource_version
    params = {"watch": "1", "resourceVersion": start, "labelSelector": "tier=web"}
    watcher = asyncio.create_task(events(fake_apiserver, params, 3))
    await asyncio.sleep(0.1)
    obj = pod_group()
    await apply(fake_apiserver, obj, "ctl")  # not matching: not seen
    obj["metadata"]["labels"] = {"tier": "web"}
    await apply(fake_apiserver, obj, "ctl")  # starts matching
    obj["metadata"]["labels"] = {"tier": "web", "x": "y"}
    await apply(fake_apiserver, obj, "ctl")  # still matching
    obj["metadata"]["labels"] = {"tier": "db"}
    await apply(fake_apiserver, obj, "ctl")  # stops matching
    assert summary(await watcher) == [("ADDED", "pg"), ("MODIFIED", "pg"), ("DELETED", "pg")]
