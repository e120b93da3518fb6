"""Requests per second of server-side apply of PodGroups against FakeAPIServer, next to a
minimal aiohttp handler, with the same client in the same run.

Run: ``python tests/testing/bench_server_ssa.py [--requests N] [--concurrency C]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web

from workloadbuilder.testing import FakeAPIServer

PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups/"


def pod_group(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": f"pg-{i % 50}", "namespace": "default", "labels": {"round": str(i)}},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
    }


async def drive(url: str, requests: int, concurrency: int) -> float:
    """Send ``requests`` applies with ``concurrency`` workers; requests per second."""
    counter = iter(range(requests))
    headers = {"Content-Type": "application/apply-patch+yaml"}
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


async def with_minimal(fn: Callable[[str], Awaitable[float]]) -> float:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    runner = web.ServerRunner(web.Server(echo))
    await runner.setup()
    await web.SockSite(runner, sock).start()
    try:
        return await fn(f"http://127.0.0.1:{sock.getsockname()[1]}")
    finally:
        await runner.cleanup()


async def main(requests: int, concurrency: int) -> None:
    async def run_fake() -> float:
        async with FakeAPIServer() as server:
            await drive(server.url, 200, concurrency)  # warm-up
            return await drive(server.url, requests, concurrency)

    fake = await run_fake()
    minimal = await with_minimal(lambda url: drive(url, requests, concurrency))
    print(f"FakeAPIServer SSA of PodGroups: {fake:8.0f} requests/s")
    print(f"minimal aiohttp handler:        {minimal:8.0f} requests/s")
    print(f"ratio (FakeAPIServer/minimal):  {fake / minimal:8.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    asyncio.run(main(args.requests, args.concurrency))
