"""Bounds on what ``aio`` waits for and reads: a server that never answers, one that cannot be
reached, and answers larger than the limit on a response body.

Expected behaviour: client-go returns a refused connection or a failed DNS lookup at once
(its ``rest.Request`` retries only a GET whose connection was reset or ended early, never one
that was never made), and kubectl prints ``The connection to the server HOST:PORT was refused
- did you specify the right host or port?``; a call given a timeout ends by it, and says that
the server did not answer rather than anything about the object; what is read is bounded.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from apply_support import NS
from hostile_servers import kubeconfig, serve

from workloadbuilder import aio

NAME = "pg-a"
GROUP = aio.ObjectRef("PodGroup", NS, NAME)
FAST = aio.RetryPolicy(attempts=3, initial_wait=0.01, max_wait=0.01, jitter=0)


@asynccontextmanager
async def client_of(tmp_path: Path, url: str) -> AsyncIterator[Any]:
    client = await aio.new_client(kubeconfig(tmp_path, url))
    try:
        yield client
    finally:
        await client.close()


async def _never(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


def group_list() -> dict[str, Any]:
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": NAME, "namespace": NS, "resourceVersion": "7"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
    }
    return {"kind": "PodGroupList", "metadata": {"resourceVersion": "7"}, "items": [group]}


# -- wait_scheduled ends by its timeout -----------------------------------------------------


async def test_a_wait_on_a_server_that_never_answers_ends_by_its_timeout_and_says_so(
    tmp_path: Path,
) -> None:
    async with serve(_never) as server, client_of(tmp_path, server.url) as client:
        started = time.monotonic()
        with pytest.raises(aio.NoAnswerError) as caught:
            await aio.wait_scheduled(client, GROUP, timeout=1.5)
        took = time.monotonic() - started
    assert 1.5 <= took < 2.0
    assert isinstance(caught.value, TimeoutError)  # as a timeout always was
    message = str(caught.value)
    assert "the API server did not answer within 1.5 s" in message
    assert "does not exist" not in message and "create it" not in message  # no verdict
    assert caught.value.status == 0 and caught.value.target == GROUP


async def test_a_wait_whose_verdict_cannot_be_read_still_ends_by_its_timeout(
    tmp_path: Path,
) -> None:
    """The group is listed, then nothing more is answered (watch, the verdict's reads)."""

    async def answer(request: web.Request) -> web.StreamResponse:
        listing = request.path.endswith("/podgroups") and request.query.get("watch") != "true"
        if listing and request.query.get("fieldSelector") == f"metadata.name={NAME}":
            return web.json_response(group_list())
        return await _never(request)

    async with serve(answer) as server, client_of(tmp_path, server.url) as client:
        started = time.monotonic()
        with pytest.raises(aio.NotScheduledError) as caught:
            await aio.wait_scheduled(client, GROUP, timeout=1.5)
        took = time.monotonic() - started
    assert 1.5 <= took < 2.0
    assert caught.value.exists and caught.value.verdict is None
    assert "no PodGroupInitiallyScheduled condition yet" in str(caught.value)


# -- a server that cannot be reached --------------------------------------------------------


async def _closed_port() -> str:
    async with serve(_never) as gone:
        return gone.url


async def test_a_refused_connection_fails_at_once_in_kubectls_words(tmp_path: Path) -> None:
    url = await _closed_port()
    port = url.rsplit(":", 1)[1]
    async with client_of(tmp_path, url) as api:
        client = aio.Client(api, "ctl")  # the default policy: ten attempts for what is retried
        started = time.monotonic()
        with pytest.raises(aio.UnreachableError) as caught:
            await aio.list_objects(client, "PodGroup", namespace=NS)
        took = time.monotonic() - started
    assert took < 1.0  # not the 16 s of ten backed-off attempts
    assert str(caught.value).startswith(
        f"The connection to the server 127.0.0.1:{port} was refused - did you specify the right"
        " host or port?"
    )
    assert caught.value.status == 0 and (client.requests, client.retries) == (1, 0)


async def test_a_refused_connection_is_retried_when_the_policy_says_so(tmp_path: Path) -> None:
    url = await _closed_port()
    policy = aio.RetryPolicy(attempts=3, initial_wait=0.01, max_wait=0.01, retry_unreachable=True)
    async with client_of(tmp_path, url) as api:
        client = aio.Client(api, "ctl", retry=policy)
        with pytest.raises(aio.APIError) as caught:
            await aio.list_objects(client, "PodGroup", namespace=NS)
    assert "still failing after 3 attempts" in str(caught.value)
    assert client.retries == 2


async def test_a_host_name_that_does_not_resolve_fails_at_once(tmp_path: Path) -> None:
    async with client_of(tmp_path, "http://wb-no-such-host.invalid:6443") as client:
        with pytest.raises(aio.UnreachableError) as caught:
            await aio.list_objects(client, "PodGroup", namespace=NS, retry=FAST)
    assert str(caught.value).startswith(
        "Unable to connect to the server: the host name 'wb-no-such-host.invalid' does not resolve"
    )


# -- answers larger than the limit ----------------------------------------------------------

LIMIT = aio.MAX_RESPONSE_BYTES


def padded_list(size: int) -> bytes:
    """A PodGroupList of exactly ``size`` bytes."""
    text = json.dumps({**group_list(), "padding": ""}).encode()
    return text[:-2] + b" " * (size - len(text)) + text[-2:]


async def test_the_limit_is_well_above_the_api_servers_request_limit() -> None:
    assert LIMIT >= 16 * 3 * 1024 * 1024  # kube-apiserver takes request bodies up to 3 MiB


@pytest.mark.parametrize("chunked", [False, True], ids=["Content-Length", "chunked"])
async def test_an_answer_larger_than_the_limit_is_a_typed_error_naming_its_size(
    tmp_path: Path, chunked: bool
) -> None:
    body = padded_list(LIMIT + 1)

    async def answer(request: web.Request) -> web.StreamResponse:
        if not chunked:
            return web.Response(body=body, content_type="application/json")
        response = web.StreamResponse()
        response.content_type = "application/json"
        response.enable_chunked_encoding()
        await response.prepare(request)
        for start in range(0, len(body), 1 << 20):
            await response.write(body[start : start + (1 << 20)])
        await response.write_eof()
        return response

    async with serve(answer) as server, client_of(tmp_path, server.url) as client:
        with pytest.raises(aio.ResponseTooLargeError) as caught:
            await aio.list_objects(client, "PodGroup", namespace=NS, retry=FAST)
    error = caught.value
    assert (error.limit, error.status) == (LIMIT, 200)
    assert f"larger than the {LIMIT} byte limit on a response body" in str(error)
    if chunked:
        assert LIMIT < error.size <= LIMIT + (1 << 20)
        assert f"({error.size} bytes received so far)" in str(error)
    else:
        assert error.size == LIMIT + 1
        assert f"(Content-Length {LIMIT + 1} bytes)" in str(error)


async def test_an_answer_at_the_limit_is_read(tmp_path: Path) -> None:
    body = padded_list(LIMIT)

    async def answer(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, content_type="application/json")

    async with serve(answer) as server, client_of(tmp_path, server.url) as client:
        (found,) = await aio.list_objects(client, "PodGroup", namespace=NS, retry=FAST)
    assert found["metadata"]["name"] == NAME


async def test_a_refused_watch_larger_than_the_limit_is_a_typed_error(tmp_path: Path) -> None:
    async def answer(request: web.Request) -> web.StreamResponse:
        if request.query.get("watch") == "true":
            return web.Response(status=500, body=b" " * (LIMIT + 1))
        return web.json_response(group_list())

    async with serve(answer) as server, client_of(tmp_path, server.url) as client:
        with pytest.raises(aio.ResponseTooLargeError) as caught:
            await aio.wait_scheduled(client, GROUP, timeout=10)
    assert caught.value.status == 500 and caught.value.size == LIMIT + 1
