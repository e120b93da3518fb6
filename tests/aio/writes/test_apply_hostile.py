"""Answers are checked, errors are typed and keep the server's Status: ``aio`` against small
misbehaving API servers on loopback.

Expected behaviour from client-go's conventions: a request's result is the object asked for
or an error (``rest.Result.Into`` fails on a body it cannot decode as the kind); once retries
are spent the last ``StatusError`` is returned, with the server's code, reason and message;
a list is decoded as a list or fails; every request is bounded by a timeout.
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
from apply_support import NS, gang_pod_groups, release_objects
from hostile_servers import Hostile, api, kubeconfig, serve
from typer.testing import CliRunner

from workloadbuilder import aio
from workloadbuilder.cli import app

FAST = aio.RetryPolicy(attempts=3, initial_wait=0.01, max_wait=0.01, jitter=0)


@asynccontextmanager
async def client_of(tmp_path: Path, server: Hostile) -> AsyncIterator[Any]:
    client = await aio.new_client(kubeconfig(tmp_path, server.url))
    try:
        yield client
    finally:
        await client.close()


def workload_doc(name: str, namespace: str = NS, kind: str = "Workload") -> dict[str, Any]:
    version = "v1alpha3" if kind == "CompositePodGroup" else "v1beta1"
    return {
        "apiVersion": f"scheduling.k8s.io/{version}",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace, "uid": "x"},
        "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"basic": {}}}]},
    }


WORKLOAD: str = release_objects()[0].metadata.name

# (id, status, body bytes, what the error says came back)
GARBAGE: list[tuple[str, int, bytes, str]] = [
    ("empty", 200, b"", "with an empty body"),
    ("not JSON", 200, b"<html>login</html>", "with a body that is not JSON ('<html>login</html>')"),
    ("a JSON list", 200, b"[]", "with a JSON list"),
    ("a JSON string", 201, b'"ok"', "answered HTTP 201 with a JSON string"),
    ("a Status", 200, json.dumps({"kind": "Status", "status": "Success"}).encode(),
     "with a Status (no apiVersion)"),
    ("another name", 200, json.dumps(workload_doc("someone-else")).encode(),
     "with Workload ml-training/someone-else"),
    ("another namespace", 200, json.dumps(workload_doc(WORKLOAD, "kube-system")).encode(),
     f"with Workload kube-system/{WORKLOAD}"),
    ("another kind", 200, json.dumps(workload_doc(WORKLOAD, kind="CompositePodGroup")).encode(),
     "with a CompositePodGroup (scheduling.k8s.io/v1alpha3)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("status", "body", "said"), [g[1:] for g in GARBAGE], ids=[g[0] for g in GARBAGE]
)
async def test_a_2xx_that_is_not_the_object_is_an_api_error_and_stops_apply(
    tmp_path: Path, status: int, body: bytes, said: str
) -> None:
    async def answer(request: web.Request) -> web.Response:
        if request.method == "PATCH" and "/workloads/" in request.path:
            return web.Response(status=status, body=body, content_type="application/json")
        raise LookupError

    objects = release_objects()
    async with serve(api(answer)) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.ApplyError) as caught:
            await aio.apply(client, objects, field_manager="ctl", retry=FAST)
    (ref, error), *_ = caught.value.failures.items()
    assert ref.kind == "Workload" and ref.name == WORKLOAD
    assert type(error) is aio.APIError and error.status == status
    assert str(error).startswith(f"applying Workload {NS}/{WORKLOAD}: the server answered")
    assert said in str(error)
    assert "not the Workload asked for" in str(error)
    assert caught.value.applied == ()
    assert len(caught.value.not_applied) == len(objects)
    patched = [r.path for r in server.requests if r.method == "PATCH"]
    assert len(patched) == 1  # no later level was sent


async def test_an_answer_that_is_not_a_valid_model_is_an_api_error_not_a_validation_error(
    tmp_path: Path,
) -> None:
    async def answer(request: web.Request) -> web.Response:
        if request.method == "PATCH" and "/workloads/" in request.path:
            doc = workload_doc(WORKLOAD)
            doc["spec"] = {"podGroupTemplates": "all of them"}
            return web.json_response(doc)
        raise LookupError

    async with serve(api(answer)) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.ApplyError) as caught:
            await aio.apply(client, release_objects(), field_manager="ctl")
    (error,) = caught.value.failures.values()
    assert type(error) is aio.APIError
    # the 1.37 schema: spec.podGroupTemplates is an array (checked before any model sees it)
    assert (
        f"applying Workload {NS}/{WORKLOAD}: the server answered HTTP 200 with Workload"
        f" {NS}/{WORKLOAD} whose spec.podGroupTemplates is a JSON string, not a list;"
        " nothing of it was used"
    ) in str(error)
    assert "spec.podGroupTemplates" in str(error)
    assert [r.method for r in server.requests].count("PATCH") == 1


async def test_resize_refuses_another_object(tmp_path: Path) -> None:
    group = gang_pod_groups(1)[0].to_dict()

    async def answer(request: web.Request) -> web.Response:
        if request.method == "GET" and request.path.endswith("/podgroups/pg-0000"):
            other = {**group, "metadata": {"name": "pg-9999", "namespace": NS}}
            return web.json_response(other)
        raise LookupError

    async with serve(api(answer)) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.APIError, match="reading PodGroup ml-training/pg-0000: the server"):
            await aio.resize(client, group, 3)
    assert [r.method for r in server.requests] == ["GET"]  # nothing was patched


# -- retries keep the last answer -----------------------------------------------------------

UNAVAILABLE = {
    "kind": "Status",
    "apiVersion": "v1",
    "status": "Failure",
    "message": "etcdserver: leader changed",
    "reason": "ServiceUnavailable",
    "code": 503,
}


async def test_after_retries_the_error_keeps_the_last_answers_status(tmp_path: Path) -> None:
    async def answer(request: web.Request) -> web.Response:
        return web.json_response(UNAVAILABLE, status=503)

    async with serve(answer) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.APIError) as caught:
            await aio.preflight(client, gang_pod_groups(1), retry=FAST)
    error = caught.value
    assert (error.status, error.reason) == (503, "ServiceUnavailable")
    assert error.status_body == UNAVAILABLE
    assert "still failing after 3 attempts: HTTP 503 (etcdserver: leader changed)" in str(error)
    assert len(server.requests) == 3


async def test_a_dropped_connection_after_an_answer_keeps_that_answer(tmp_path: Path) -> None:
    async def answer(request: web.Request) -> web.StreamResponse:
        if len(server.requests) == 1:
            return web.json_response({**UNAVAILABLE, "code": 429, "reason": "TooManyRequests",
                                      "message": "slow down"}, status=429)  # fmt: skip
        assert request.transport is not None
        request.transport.close()  # no answer at all
        return web.Response()

    async with serve(answer) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.APIError) as caught:
            await aio.preflight(client, gang_pod_groups(1), retry=FAST)
    error = caught.value
    assert (error.status, error.reason) == (429, "TooManyRequests")
    assert "the last answer was HTTP 429 (slow down)" in str(error)


async def test_no_answer_at_all_is_status_0(tmp_path: Path) -> None:
    async with serve(api(_never)) as gone:
        url = gone.url
    client = await aio.new_client(kubeconfig(tmp_path, url))
    try:
        with pytest.raises(aio.APIError) as caught:
            await aio.preflight(client, gang_pod_groups(1), retry=FAST)
    finally:
        await client.close()
    assert caught.value.status == 0 and caught.value.status_body == {}


# -- lists ----------------------------------------------------------------------------------


def empty_list(request: web.Request) -> web.Response:
    """An empty list of the other scheduling kinds; ``LookupError`` for anything else."""
    kinds = {"/workloads": "WorkloadList", "/compositepodgroups": "CompositePodGroupList"}
    for suffix, kind in kinds.items():
        if request.method == "GET" and request.path.endswith(suffix):
            return web.json_response({"kind": kind, "metadata": {}, "items": []})
    raise LookupError


NOT_LISTS: list[tuple[str, Any, str]] = [
    ("a JSON list", [], "with a JSON list, not a list"),
    ("no items", {"kind": "PodGroupList", "metadata": {}}, "with a list with no items"),
    ("items an object", {"kind": "PodGroupList", "items": {"a": 1}},
     "with a list with items that are a JSON object"),
    ("an item a string", {"kind": "PodGroupList", "items": ["pg-0000"]},
     "with items[0], a JSON string"),
    ("another kind", {"kind": "WorkloadList", "items": []}, "with a WorkloadList"),
    ("a Status", {"kind": "Status", "status": "Success"}, "with a Status"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "said"), [n[1:] for n in NOT_LISTS], ids=[n[0] for n in NOT_LISTS]
)
async def test_a_list_answer_that_is_not_a_list_is_an_error(
    tmp_path: Path, body: Any, said: str
) -> None:
    async def answer(request: web.Request) -> web.Response:
        if request.method == "GET" and request.path.endswith("/podgroups"):
            return web.json_response(body)
        return empty_list(request)

    async with serve(api(answer)) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.APIError) as audited:  # never "a clean namespace"
            await aio.audit(client, NS)
        with pytest.raises(aio.APIError) as deleted:  # never "nothing to delete"
            await aio.delete(client, "w", namespace=NS)
    for caught in (audited, deleted):
        assert f"listing podgroups.scheduling.k8s.io/v1beta1 in namespace {NS}" in str(caught.value)
        assert said in str(caught.value)
    assert not [r for r in server.requests if r.method == "DELETE"]


async def test_discovery_that_is_not_a_resource_list_is_an_error_not_a_missing_api(
    tmp_path: Path,
) -> None:
    async def answer(request: web.Request) -> web.Response:
        return web.Response(text="<html>captive portal</html>", content_type="text/html")

    async with serve(answer) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.APIError) as caught:
            await aio.preflight(client, gang_pod_groups(1))
    assert not isinstance(caught.value, aio.MissingAPIError)
    assert "discovery of scheduling.k8s.io/v1beta1: the server answered HTTP 200" in str(
        caught.value
    )
    assert "not an APIResourceList" in str(caught.value)


def page(token: str, items: int) -> dict[str, Any]:
    group = gang_pod_groups(1)[0].to_dict()
    return {
        "kind": "PodGroupList",
        "metadata": {"continue": token, "resourceVersion": "5"},
        "items": [group] * items,
    }


async def test_a_repeating_continue_token_stops_the_listing(tmp_path: Path) -> None:
    async def answer(request: web.Request) -> web.Response:
        if request.method == "GET" and request.path.endswith("/podgroups"):
            return web.json_response(page("same-token", 1))
        return empty_list(request)

    async with serve(api(answer)) as server, client_of(tmp_path, server) as client:
        with pytest.raises(aio.APIError, match="gave the same continue token twice after 1 page"):
            await aio.delete(client, "w", namespace=NS)
    assert len([r for r in server.requests if r.path.endswith("/podgroups")]) == 2


async def test_endless_pages_are_paced(tmp_path: Path) -> None:
    async def answer(request: web.Request) -> web.Response:
        if request.method == "GET" and request.path.endswith("/podgroups"):
            return web.json_response(page(f"t{len(server.requests)}", 0))
        return empty_list(request)

    async with serve(api(answer)) as server, client_of(tmp_path, server) as client:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(aio.delete(client, "w", namespace=NS), 1.0)
    pages = len([r for r in server.requests if r.path.endswith("/podgroups")])
    # empty pages: 0.05s, 0.1s, 0.2s, 0.4s, ... apart (a bare loop sends hundreds a second)
    assert 2 <= pages <= 7


# -- timeouts -------------------------------------------------------------------------------


async def _never(request: web.Request) -> web.Response:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


async def test_a_server_that_never_answers_is_bounded_by_the_request_timeout(
    tmp_path: Path,
) -> None:
    assert aio.RetryPolicy().request_timeout == 30.0  # the documented default
    policy = aio.RetryPolicy(attempts=2, initial_wait=0, jitter=0, request_timeout=0.3)
    async with serve(_never) as server, client_of(tmp_path, server) as client:
        started = time.monotonic()
        with pytest.raises(aio.APIError) as caught:
            await aio.preflight(client, gang_pod_groups(1), retry=policy)
        took = time.monotonic() - started
        with aio.default_retry(policy), pytest.raises(aio.APIError):  # set once for all calls
            await aio.preflight(client, gang_pod_groups(1))
    assert 0.5 <= took < 3
    assert caught.value.status == 0
    assert "still failing after 2 attempts: TimeoutError" in str(caught.value)
    assert len(server.requests) == 4


def test_a_request_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="request_timeout must be positive"):
        aio.RetryPolicy(request_timeout=0)


async def test_the_cli_request_timeout_bounds_a_server_that_never_answers(tmp_path: Path) -> None:
    async def first_never(request: web.Request) -> web.Response:
        if len(server.requests) == 1:
            return await _never(request)
        return web.json_response({"kind": "Status", "reason": "NotFound", "code": 404}, status=404)

    async with serve(first_never) as server:
        args = ["delete", "w", "-n", NS, "--kubeconfig", str(kubeconfig(tmp_path, server.url))]
        started = time.monotonic()
        result = await asyncio.to_thread(
            CliRunner().invoke, app, [*args, "--request-timeout", "300ms"]
        )
        took = time.monotonic() - started
        refused = await asyncio.to_thread(
            CliRunner().invoke, app, [*args, "--request-timeout", "5 minutes"]
        )
    assert result.exit_code == 1 and took < 5  # the command gave up after 0.3s, as kubectl
    assert result.stderr.splitlines() == [
        "error: the API server did not answer within 0.3s (--request-timeout; 0 means no limit)"
    ]
    assert len(server.requests) == 1  # no silent retry past --request-timeout
    assert refused.exit_code == 2
    assert "invalid --request-timeout '5 minutes'" in refused.stderr


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30", 30.0), ("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("2h", 7200.0), ("0", None)],
)
def test_request_timeout_reads_as_kubectl_does(text: str, seconds: float | None) -> None:
    from workloadbuilder.cli._cluster import parse_timeout

    assert parse_timeout(text) == seconds


async def test_the_cli_prints_an_answer_that_is_not_the_object_as_one_line(tmp_path: Path) -> None:
    async def answer(request: web.Request) -> web.Response:
        return web.Response(text="<html>\n<b>login</b>\n</html>", content_type="text/html")

    async with serve(answer) as server:
        args = ["delete", "w", "-n", NS, "--kubeconfig", str(kubeconfig(tmp_path, server.url))]
        result = await asyncio.to_thread(CliRunner().invoke, app, args)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: reading Workload {NS}/w: the server answered HTTP 200 with a body that is not"
        " JSON ('<html> <b>login</b> </html>'), not the Workload asked for; nothing of it was used"
    ]
    assert [r.method for r in server.requests] == ["GET"]  # nothing was deleted


async def test_the_official_clients_answers_are_checked_the_same(tmp_path: Path) -> None:
    from kubernetes.aio import config as official

    async def answer(request: web.Request) -> web.Response:
        if request.method == "PATCH" and "/workloads/" in request.path:
            return web.json_response(workload_doc("someone-else"))
        raise LookupError

    async with serve(api(answer)) as server:
        client = await official.new_client_from_config(
            config_file=str(kubeconfig(tmp_path, server.url))
        )
        try:
            with pytest.raises(aio.ApplyError) as caught:
                await aio.apply(client, release_objects(), field_manager="ctl")
        finally:
            await client.close()
    (error,) = caught.value.failures.values()
    assert "with Workload ml-training/someone-else, not the Workload asked for" in str(error)
    assert [r.method for r in server.requests].count("PATCH") == 1
