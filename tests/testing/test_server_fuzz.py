"""Generated malformed requests over HTTP: never a 5xx, and the store stays readable.

Each example starts a server, sends a few requests built from valid objects with parts
replaced by hostile values (wrong JSON types, huge numbers, non-ASCII digits, deep nesting,
YAML tricks, garbage query parameters), then checks that every served list still answers,
with and without selectors, and that every stored object can be read and deleted.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded

from workloadbuilder.testing import FakeAPIServer

NS = "default"
KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "pods": (
        f"/api/v1/namespaces/{NS}/pods",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "labels": {"app": "x"}},
            "spec": {
                "schedulingGroup": {"podGroupName": "pg"},
                "containers": [{"name": "c", "image": "busybox"}],
            },
        },
    ),
    "podgroups": (
        f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NS}/podgroups",
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "pg"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
        },
    ),
    "workloads": (
        f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NS}/workloads",
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "Workload",
            "metadata": {"name": "w"},
            "spec": {
                "podGroupTemplates": [{"name": "t", "schedulingPolicy": {"gang": {"minCount": 1}}}]
            },
        },
    ),
    "jobs": (
        f"/apis/batch/v1/namespaces/{NS}/jobs",
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "j"},
            "spec": {
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [{"name": "c", "image": "busybox"}],
                    }
                }
            },
        },
    ),
}
PATCH_TYPES = [
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/json-patch+json",
    "application/apply-patch+yaml",
]

hostile_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["²", "١٢", "9999-12-31T23:59:59-01:00", "", "-", "a" * 300, "\x00"]),
)
shaped = st.sampled_from(
    [
        [{"manager": "m", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": {"f:a": 5}}],
        [{"manager": "m", "operation": "Apply", "fieldsV1": {"f:spec": {"k:{bad": {}}}}],
        [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "controller": True}],
        [{"type": 1}, {"type": "A", "status": "True", "lastTransitionTime": "nope"}],
        {"conditions": [{"type": "PodGroupInitiallyScheduled", "status": "True"}]},
        {"conditions": [{"type": "Ready", "lastTransitionTime": "9999-12-31T23:59:59-01:00"}]},
        {"startTime": "0000-01-01T00:00:00Z", "phase": 5},
        {"gang": {"minCount": 2**40}},
        [{"name": ["x"], "image": 5}],
        {"$patch": "delete"},
        [{"op": "move", "from": "/metadata", "path": "/metadata/labels"}],
    ]
)
hostile_values = st.recursive(
    st.one_of(hostile_scalars, shaped),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
raw_bodies = st.one_of(
    st.binary(max_size=64),
    st.sampled_from(
        [
            b'{"a": NaN}',
            b"[" * 3000,
            b'{"a":' * 150 + b"1" + b"}" * 150,
            b"a: &a [*a]",
            b"x: !!binary aGk=",
            b"? [a]\n: b",
            b"{1: 2}",
            b'{"metadata": {"name": "' + b"9" * 5000 + b'"}}',
            b"9" * 5000,
        ]
    ),
)
paths = [
    ("metadata",),
    ("metadata", "name"),
    ("metadata", "generateName"),
    ("metadata", "namespace"),
    ("metadata", "labels"),
    ("metadata", "labels", "app"),
    ("metadata", "annotations"),
    ("metadata", "ownerReferences"),
    ("metadata", "finalizers"),
    ("metadata", "managedFields"),
    ("metadata", "resourceVersion"),
    ("metadata", "uid"),
    ("metadata", "creationTimestamp"),
    ("apiVersion",),
    ("kind",),
    ("spec",),
    ("status",),
    ("status", "conditions"),
    ("spec", "containers"),
    ("spec", "schedulingPolicy"),
    ("spec", "podGroupTemplates"),
]


def mutate(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(obj))
    target = out
    for key in path[:-1]:
        nxt = target.get(key)
        if not isinstance(nxt, dict):
            nxt = target[key] = {}
        target = nxt
    target[path[-1]] = value
    return out


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, str, bytes, str, dict[str, str]]:
    plural = draw(st.sampled_from(sorted(KINDS)))
    base, valid = KINDS[plural]
    name = valid["metadata"]["name"]
    method = draw(st.sampled_from(["POST", "PUT", "PATCH", "DELETE", "GET"]))
    path = base if method in ("POST", "GET") and draw(st.booleans()) else f"{base}/{name}"
    if method == "POST":
        path = base
    elif path != base and plural != "workloads" and draw(st.booleans()):
        path += "/status"
    if draw(st.booleans()):
        body = json.dumps(
            mutate(valid, draw(st.sampled_from(paths)), draw(hostile_values))
        ).encode()
    elif draw(st.booleans()):
        body = json.dumps(draw(hostile_values)).encode()
    else:
        body = draw(raw_bodies)
    content_type = "application/json"
    if method == "PATCH":
        content_type = draw(st.sampled_from(PATCH_TYPES))
    param_values = st.one_of(
        st.sampled_from(["²", "abc", "nan", "-1", "0", "1", "true", "All", "Strict", "a=b", ""]),
        st.text(max_size=6),
    )
    keys = st.sampled_from(
        [
            "limit",
            "continue",
            "resourceVersion",
            "timeoutSeconds",
            "labelSelector",
            "fieldSelector",
            "dryRun",
            "fieldManager",
            "force",
            "fieldValidation",
            "propagationPolicy",
            "orphanDependents",
            "watch",
            "allowWatchBookmarks",
            "sendInitialEvents",
        ]
    )
    params = draw(st.dictionaries(keys, param_values, max_size=3))
    if method == "PATCH" and content_type.startswith("application/apply") and draw(st.booleans()):
        params["fieldManager"] = "fuzz"
    return method, path, body, content_type, params


async def send(
    session: aiohttp.ClientSession, url: str, request: tuple[str, str, bytes, str, dict[str, str]]
) -> None:
    method, path, body, content_type, params = request
    async with session.request(
        method, url + path, data=body, params=params, headers={"Content-Type": content_type}
    ) as resp:
        assert resp.status < 500, (request, resp.status, await resp.text())
        if resp.status == 200 and params.get("watch") and method == "GET":
            return  # a valid watch: the stream is open; closing it is enough
        text = await resp.text()
        if resp.status >= 400:
            assert resp.headers["Content-Type"] == "application/json", (request, text)
            status = json.loads(text)
            assert status["kind"] == "Status" and status["code"] == resp.status, (request, text)
        else:
            json.loads(text)


async def check_store(session: aiohttp.ClientSession, url: str) -> None:
    """Every list answers (also with selectors); every stored object reads and deletes."""
    for base, _ in KINDS.values():
        for params in ({}, {"labelSelector": "app=x"}, {"fieldSelector": "metadata.name=p"}):
            async with session.get(url + base, params=params) as resp:
                assert resp.status == 200, await resp.text()
                items = (await resp.json())["items"]
        for item in items:
            name = item["metadata"]["name"]
            async with session.get(f"{url}{base}/{name}") as resp:
                assert resp.status == 200, await resp.text()
            async with session.delete(f"{url}{base}/{name}") as resp:
                assert resp.status == 200, await resp.text()
    async with session.get(url + "/api/v1/namespaces") as resp:
        assert resp.status == 200


async def run(batch: list[tuple[str, str, bytes, str, dict[str, str]]]) -> None:
    async with FakeAPIServer(bookmark_interval=0.05) as server:
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            for request in batch:
                await send(session, server.url, request)
                for base, valid in KINDS.values():  # something valid to poison, each round
                    async with session.post(server.url + base, json=valid) as resp:
                        assert resp.status < 500
            await check_store(session, server.url)


FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FAST
@given(st.lists(requests(), min_size=1, max_size=3))
def test_malformed_requests_never_break_the_server(
    batch: list[tuple[str, str, bytes, str, dict[str, str]]],
) -> None:
    asyncio.run(run(batch))


@pytest.mark.slow
@settings(FAST, max_examples=bounded(300))
@given(st.lists(requests(), min_size=1, max_size=5))
def test_malformed_requests_never_break_the_server_long(
    batch: list[tuple[str, str, bytes, str, dict[str, str]]],
) -> None:
    asyncio.run(run(batch))
