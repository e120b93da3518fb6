"""Requests per second of server-side apply of PodGroups against FakeAPIServer, next to a
minimal aiohttp handler, with the same client in the same run; and the same applies against a
server already holding ``--stored`` objects (PodGroups, their member pods and their owners),
next to an empty one: no write scans the store, so the ratio stays near 1; and the same
applies as a ServiceAccount on a server that authorizes with RBAC (holding ``--bindings``
RoleBindings of other users), next to one that allows every request.

Run: ``python -m benchmarks.bench_server [--requests N] [--concurrency C] [--stored N]
[--bindings N] [--repeats N]``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from benchmarks._harness import AsyncCase, Row, arguments, measure_async, print_table
from workloadbuilder.testing import FakeAPIServer

_T = TypeVar("_T")

PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups/"


def pod_group(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": f"pg-{i % 50}", "namespace": "default", "labels": {"round": str(i)}},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
    }


async def drive(
    url: str, requests: int, concurrency: int, auth: dict[str, str] | None = None
) -> float:
    """Send ``requests`` applies with ``concurrency`` workers; requests per second."""
    counter = iter(range(requests))
    headers = {"Content-Type": "application/apply-patch+yaml", **(auth or {})}
    params = {"fieldManager": "bench", "force": "true"}

    async def worker(session: aiohttp.ClientSession) -> None:
        for i in counter:
            body = pod_group(i)
            url_i = url + PATH + body["metadata"]["name"]
            async with session.patch(
                url_i, data=json.dumps(body), headers=headers, params=params
            ) as r:
                await r.read()
                if r.status not in (200, 201):
                    raise RuntimeError(f"unexpected {r.status}: {await r.text()}")

    async with aiohttp.ClientSession() as session:
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
        return requests / (time.perf_counter() - started)


async def echo(request: web.BaseRequest) -> web.Response:
    body = json.loads(await request.read())
    return web.Response(
        body=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )


async def with_minimal(fn: Callable[[str], Awaitable[_T]]) -> _T:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    runner = web.ServerRunner(web.Server(echo))
    await runner.setup()
    await web.SockSite(runner, sock).start()
    try:
        return await fn(f"http://127.0.0.1:{sock.getsockname()[1]}")
    finally:
        await runner.cleanup()


def fill(server: FakeAPIServer, count: int) -> None:
    """Store ``count`` objects: owner Workloads, PodGroups they own and pods naming them."""
    owner_uid = ""
    for i in range(count):
        kind = i % 3
        if kind == 0:
            workload = {
                "apiVersion": "scheduling.k8s.io/v1beta1",
                "kind": "Workload",
                "metadata": _meta(f"owner-{i}"),
                "spec": {
                    "podGroupTemplates": [
                        {"name": "t", "schedulingPolicy": {"gang": {"minCount": 4}}}
                    ]
                },
            }
            owner = server.create_object("scheduling.k8s.io", "v1beta1", "workloads", workload)
            owner_uid = owner["metadata"]["uid"]
        elif kind == 1:
            body = pod_group(i)
            body["metadata"] = _meta(f"stored-{i}", owner_uid)
            server.create_object("scheduling.k8s.io", "v1beta1", "podgroups", body)
        else:
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": _meta(f"pod-{i}", owner_uid),
                "spec": {
                    "schedulingGroup": {"podGroupName": f"stored-{i - 1}"},
                    "containers": [{"name": "c", "image": "busybox"}],
                },
            }
            server.create_object("", "v1", "pods", pod)


def _meta(name: str, owner_uid: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if owner_uid:
        meta["ownerReferences"] = [
            {
                "apiVersion": "scheduling.k8s.io/v1beta1",
                "kind": "Workload",
                "name": "owner",
                "uid": owner_uid,
            }
        ]
    return meta


async def growth(args: Any) -> Row:
    """The same applies against an empty server and one holding ``args.stored`` objects."""
    async with FakeAPIServer() as empty, FakeAPIServer() as full:
        fill(full, args.stored)

        async def on(server: FakeAPIServer) -> None:
            await drive(server.url, args.requests, args.concurrency)

        times = await measure_async(
            [AsyncCase("empty", lambda: on(empty)), AsyncCase("full", lambda: on(full))],
            repeats=args.repeats,
        )
    per = args.requests
    return Row(
        f"FakeAPIServer SSA with {args.stored:,} stored objects, per request",
        "the same against an empty server",
        times["empty"] / per,
        times["full"] / per,
        target=1.25,
    )


RBAC = "rbac.authorization.k8s.io"
ACCOUNT = "system:serviceaccount:default:bench"


def _rbac_object(kind: str, name: str, **body: Any) -> dict[str, Any]:
    meta = {"name": name, "namespace": "default"}
    return {"apiVersion": f"{RBAC}/v1", "kind": kind, "metadata": meta, **body}


def authorize_bench(server: FakeAPIServer, bindings: int) -> dict[str, str]:
    """Let the bench ServiceAccount apply PodGroups, beside ``bindings`` other users' bindings;
    the headers of its token."""
    rules = [{"apiGroups": ["scheduling.k8s.io"], "resources": ["podgroups"], "verbs": ["patch"]}]
    server.create_object(RBAC, "v1", "roles", _rbac_object("Role", "bench", rules=rules))
    for i in range(bindings):
        subject = {"kind": "User", "apiGroup": RBAC, "name": f"user-{i}"}
        ref = {"apiGroup": RBAC, "kind": "ClusterRole", "name": "view"}
        binding = _rbac_object("RoleBinding", f"other-{i}", roleRef=ref, subjects=[subject])
        server.create_object(RBAC, "v1", "rolebindings", binding)
    ref = {"apiGroup": RBAC, "kind": "Role", "name": "bench"}
    subject = {"kind": "ServiceAccount", "name": "bench", "namespace": "default"}
    binding = _rbac_object("RoleBinding", "bench", roleRef=ref, subjects=[subject])
    server.create_object(RBAC, "v1", "rolebindings", binding)
    return {"Authorization": f"Bearer {server.token_for(ACCOUNT)}"}


async def authorization(args: Any) -> Row:
    """The same applies on an AlwaysAllow server and, as a ServiceAccount, on an RBAC one."""
    async with FakeAPIServer() as open_server, FakeAPIServer(authorization="RBAC") as guarded:
        auth = authorize_bench(guarded, args.bindings)
        times = await measure_async(
            [
                AsyncCase("open", lambda: drive(open_server.url, args.requests, args.concurrency)),
                AsyncCase(
                    "rbac", lambda: drive(guarded.url, args.requests, args.concurrency, auth)
                ),
            ],
            repeats=args.repeats,
        )
    per = args.requests
    return Row(
        f"FakeAPIServer SSA as a ServiceAccount, RBAC with {args.bindings} other bindings",
        "the same with authorization AlwaysAllow",
        times["open"] / per,
        times["rbac"] / per,
        target=1.25,
    )


async def main() -> None:
    args = arguments(
        __doc__.splitlines()[0], requests=1000, concurrency=8, stored=10_000, bindings=200
    )
    async with FakeAPIServer() as server:

        async def fake() -> None:
            await drive(server.url, args.requests, args.concurrency)

        async def minimal_round(url: str) -> None:
            await drive(url, args.requests, args.concurrency)

        async def both(url: str) -> dict[str, float]:
            return await measure_async(
                [
                    AsyncCase("minimal", lambda: minimal_round(url)),
                    AsyncCase("fake", fake),
                ],
                repeats=args.repeats,
            )

        times = await with_minimal(both)
    per = args.requests
    stored_row = await growth(args)
    rbac_row = await authorization(args)
    print_table(
        f"test server throughput: {per} server-side applies of PodGroups,"
        f" {args.concurrency} concurrent clients",
        [
            Row(
                "FakeAPIServer SSA, per request",
                "minimal aiohttp echo handler",
                times["minimal"] / per,
                times["fake"] / per,
            ),
            stored_row,
            rbac_row,
        ],
        note=f"FakeAPIServer {per / times['fake']:.0f} requests/s,"
        f" minimal handler {per / times['minimal']:.0f} requests/s",
    )


if __name__ == "__main__":
    asyncio.run(main())
