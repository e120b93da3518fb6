"""Fault injection and the record of received requests."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest
from server_helpers import PG_PATH, apply, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer


@bounded()
async def test_429_like_the_max_inflight_filter(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.faults.add(
        method="PATCH", path="*/podgroups/*", status=429, times=2, retry_after=3
    )
    for _ in range(2):
        reply = await apply(fake_apiserver, pod_group(), "ctl")
        assert reply.status == 429
        assert reply.text == "Too many requests, please try again later.\n"
        assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert reply.headers["Retry-After"] == "3"
    assert (await apply(fake_apiserver, pod_group(), "ctl")).status == 201
    assert fake_apiserver.faults.pending == []


@pytest.mark.parametrize(
    ("status", "reason"), [(500, "InternalError"), (503, "ServiceUnavailable")]
)
@bounded()
async def test_server_errors(fake_apiserver: FakeAPIServer, status: int, reason: str) -> None:
    fake_apiserver.faults.add(status=status, message="boom")
    reply = await call(fake_apiserver, "GET", PG_PATH)
    assert reply.status == status
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.json()["reason"] == reason
    assert "boom" in reply.json()["message"]
    assert (await call(fake_apiserver, "GET", PG_PATH)).status == 200


@bounded()
async def test_injected_resource_version_conflict(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group(), "ctl")
    fake_apiserver.faults.conflict(method="PUT", path=f"{PG_PATH}/pg")
    current = fake_apiserver.get_object(
        "scheduling.k8s.io", "v1beta1", "podgroups", "default", "pg"
    )
    reply = await call(fake_apiserver, "PUT", f"{PG_PATH}/pg", current)
    assert reply.status == 409
    assert reply.json()["message"].startswith(
        'Operation cannot be fulfilled on podgroups.scheduling.k8s.io "pg": the object has'
    )
    assert (await call(fake_apiserver, "PUT", f"{PG_PATH}/pg", current)).status == 200


@bounded()
async def test_delay(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.faults.delay(0.5, method="GET")
    started = time.monotonic()
    assert (await call(fake_apiserver, "GET", PG_PATH)).status == 200
    assert time.monotonic() - started >= 0.5
    started = time.monotonic()
    await call(fake_apiserver, "GET", PG_PATH)
    assert time.monotonic() - started < 0.5


@bounded()
async def test_a_delayed_request_whose_client_gave_up_is_never_served(
    fake_apiserver: FakeAPIServer,
) -> None:
    # The API server cancels a request's context when its client goes away: a write held
    # back by latency must not land later (it would bring back what was deleted meanwhile).
    fake_apiserver.faults.delay(0.5, method="POST")
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=0.1)) as session:
        with pytest.raises(asyncio.TimeoutError):
            await session.post(fake_apiserver.url + PG_PATH, json=pod_group())
    await asyncio.sleep(0.6)
    assert (
        fake_apiserver.get_object("scheduling.k8s.io", "v1beta1", "podgroups", "default", "pg")
        is None
    )
    assert (await call(fake_apiserver, "GET", f"{PG_PATH}/pg")).status == 404


@bounded()
async def test_dropped_connection(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.faults.drop_connection(method="POST")
    with pytest.raises(aiohttp.ClientError):
        await call(fake_apiserver, "POST", PG_PATH, pod_group())
    assert (await call(fake_apiserver, "POST", PG_PATH, pod_group())).status == 201


@bounded()
async def test_faults_apply_in_order_and_only_where_they_match(
    fake_apiserver: FakeAPIServer,
) -> None:
    fake_apiserver.faults.add(method="GET", path="/api/*", status=500)
    fake_apiserver.faults.add(method="GET", status=503)
    fake_apiserver.faults.add(method="GET", status=429)
    assert (await call(fake_apiserver, "GET", PG_PATH)).status == 503
    assert (await call(fake_apiserver, "GET", "/api/v1/namespaces")).status == 500
    assert (await call(fake_apiserver, "POST", PG_PATH, pod_group())).status == 201
    assert (await call(fake_apiserver, "GET", PG_PATH)).status == 429
    assert (await call(fake_apiserver, "GET", PG_PATH)).status == 200
    fake_apiserver.faults.add(status=500, times=5)
    fake_apiserver.faults.clear()
    assert (await call(fake_apiserver, "GET", PG_PATH)).status == 200
    with pytest.raises(ValueError, match="status must be an HTTP error code"):
        fake_apiserver.faults.add(status=200)
    with pytest.raises(ValueError, match="times must be at least 1"):
        fake_apiserver.faults.add(status=500, times=0)


@bounded()
async def test_requests_are_recorded(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.faults.add(status=429)
    await apply(fake_apiserver, pod_group(), "ctl", force="true")
    await apply(fake_apiserver, pod_group(), "ctl", force="true")
    first, second = fake_apiserver.requests[-2:]
    assert first == second
    assert first.method == "PATCH"
    assert first.path == f"{PG_PATH}/pg"
    assert first.query == {"fieldManager": "ctl", "force": "true"}
    assert first.content_type == "application/apply-patch+yaml"
    assert first.json() == pod_group()


@bounded()
async def test_kubernetes_asyncio_sees_the_faults(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes_asyncio import client
    from kubernetes_asyncio.client.rest import ApiException

    fake_apiserver.faults.add(path="*/podgroups", status=429, retry_after=2)
    async with fake_apiserver.api_client() as api:
        co = client.CustomObjectsApi(api)
        with pytest.raises(ApiException) as err:
            await co.list_namespaced_custom_object(
                "scheduling.k8s.io", "v1beta1", "default", "podgroups"
            )
        assert err.value.status == 429
        assert err.value.headers["Retry-After"] == "2"
        await asyncio.sleep(0)
