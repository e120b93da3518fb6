"""Objects per second of ``workloadbuilder.aio.apply()`` next to a bare aiohttp loop and the
official synchronous client, all server-side applying the same PodGroups to FakeAPIServer.

The bare loop sends exactly the requests ``apply()`` sends (same URL, query, headers, body,
concurrency) with nothing else: it is the ceiling. A second bare loop uses the session settings
of kubernetes-asyncio's ``ApiClient`` (``trust_env=True``, its connection pool size), which
``apply()`` inherits by sending through the user's client: the gap between the two bare loops
is the client's, the gap between the second one and ``apply()`` the SDK's. The official
client applies one object after another, as a simple synchronous controller would. Each sample
applies ``--count`` new PodGroups to a fresh server, with a client made before the clock
starts; samples of the four sides
are interleaved, the order rotating every repeat, the garbage collector run before and off
during every sample; the figures are medians.

Run: ``python -m benchmarks.bench_aio_apply [--count 1000] [--repeats 5] [--smoke]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

NAMESPACE = "bench"
MANAGER = "bench-controller"
APPLY = "application/apply-patch+yaml"
CEILING = "bare aiohttp SSA loop"
OURS = "workloadbuilder.aio.apply()"
OFFICIAL = "official sync client, sequential"
CLIENT_SESSION = "bare aiohttp SSA loop, kubernetes-asyncio's session settings"


def pod_groups(count: int) -> list[wb.PodGroup]:
    return [
        wb.PodGroup.model_validate(
            {
                "metadata": {"name": f"pg-{i:05d}", "namespace": NAMESPACE},
                "spec": {"schedulingPolicy": {"gang": {"minCount": 1 + i % 8}}},
            }
        )
        for i in range(count)
    ]


def _path(name: str) -> str:
    return f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NAMESPACE}/podgroups/{name}"


Runner = Callable[[list[wb.PodGroup]], Awaitable[None]]


@asynccontextmanager
async def ours(server: FakeAPIServer) -> AsyncIterator[Runner]:
    async with server.api_client() as api:

        async def run(objects: list[wb.PodGroup]) -> None:
            await aio.apply(api, objects, field_manager=MANAGER)

        yield run


def _bare(trust_env: bool, limit: int) -> Callable[[FakeAPIServer], Any]:
    """The same requests as apply(): PATCH, query, Content-Type, JSON body, same concurrency."""

    @asynccontextmanager
    async def side(server: FakeAPIServer) -> AsyncIterator[Runner]:
        query = {"fieldManager": MANAGER, "fieldValidation": "Strict"}
        headers = {"Content-Type": APPLY, "Accept": "application/json"}
        connector = aiohttp.TCPConnector(limit=limit)
        async with aiohttp.ClientSession(
            server.url, connector=connector, trust_env=trust_env
        ) as session:

            async def run(objects: list[wb.PodGroup]) -> None:
                gate = asyncio.Semaphore(aio.DEFAULT_CONCURRENCY)

                async def one(obj: wb.PodGroup) -> None:
                    async with gate:
                        body = json.dumps(obj.to_dict())
                        path = _path(obj.metadata.name or "")
                        async with session.patch(
                            path, params=query, data=body, headers=headers
                        ) as resp:
                            if resp.status not in (200, 201):
                                raise RuntimeError(f"bare loop got HTTP {resp.status}")
                            await resp.json()

                await asyncio.gather(*(one(o) for o in objects))

            yield run

    return side


@asynccontextmanager
async def official(server: FakeAPIServer) -> AsyncIterator[Runner]:
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(server.kubeconfig_path))
    custom = client.CustomObjectsApi(api)

    def loop(objects: list[wb.PodGroup]) -> None:
        for obj in objects:
            custom.patch_namespaced_custom_object(
                "scheduling.k8s.io",
                "v1beta1",
                NAMESPACE,
                "podgroups",
                obj.metadata.name,
                obj.to_dict(),
                field_manager=MANAGER,
                _content_type=APPLY,
            )

    async def run(objects: list[wb.PodGroup]) -> None:
        await asyncio.to_thread(loop, objects)

    try:
        yield run
    finally:
        api.close()


def _pool_size() -> int:
    from kubernetes_asyncio.client import Configuration

    return int(Configuration().connection_pool_maxsize)


SIDES: dict[str, Callable[[FakeAPIServer], Any]] = {
    CEILING: _bare(trust_env=False, limit=aio.DEFAULT_CONCURRENCY),
    CLIENT_SESSION: _bare(trust_env=True, limit=_pool_size()),
    OURS: ours,
    OFFICIAL: official,
}


def _check(server: FakeAPIServer, objects: list[wb.PodGroup], side: str) -> None:
    stored = server.list_objects("scheduling.k8s.io", "v1beta1", "podgroups", NAMESPACE)
    got = sorted((s["metadata"]["name"], s["spec"]["schedulingPolicy"]) for s in stored)
    want = sorted((o.metadata.name, o.to_dict()["spec"]["schedulingPolicy"]) for o in objects)
    if got != want:
        raise AssertionError(f"{side} did not leave the intended PodGroups on the server")


async def _sample(side: str, objects: list[wb.PodGroup]) -> float:
    """One timed apply of ``objects`` to a fresh server; clients are set up before the clock."""
    async with FakeAPIServer() as server, SIDES[side](server) as run:
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            await run(objects)
            elapsed = time.perf_counter() - start
        finally:
            gc.enable()
        _check(server, objects, side)
    return elapsed


async def measure(count: int, repeats: int) -> dict[str, float]:
    """Median seconds per side to apply ``count`` new PodGroups, over interleaved samples."""
    objects = pod_groups(count)
    sides = list(SIDES)
    for side in sides:  # warm-up (and the check that every side leaves the same objects)
        await _sample(side, objects)
    samples: dict[str, list[float]] = {side: [] for side in sides}
    for repeat in range(repeats):
        shift = repeat % len(sides)
        for side in [*sides[shift:], *sides[:shift]]:
            samples[side].append(await _sample(side, objects))
    return {side: statistics.median(values) for side, values in samples.items()}


def table(medians: dict[str, float], count: int, repeats: int, argv: Sequence[str]) -> str:
    ceiling = count / medians[CEILING]
    lines = [
        f"## apply() of {count} PodGroups against FakeAPIServer"
        f" (median of {repeats} interleaved repeats, concurrency {aio.DEFAULT_CONCURRENCY})",
        "",
        "| path | seconds | objects/s | ratio to the ceiling |",
        "|---|---|---|---|",
    ]
    for side, seconds in medians.items():
        rate = count / seconds
        lines.append(f"| {side} | {seconds:.3f} | {rate:,.0f} | {rate / ceiling:.2f}x |")
    ratio = medians[CEILING] / medians[OURS]
    verdict = "met" if ratio >= 0.8 else "missed"
    lines += [
        "",
        f"target: apply() at >= 0.80x of the ceiling: {ratio:.2f}x, {verdict}",
        f"apply() next to a bare loop with the ApiClient's own session settings (trust_env=True:"
        f" netrc and proxy looked up per request; {_pool_size()} connections):"
        f" {medians[CLIENT_SESSION] / medians[OURS]:.2f}x",
        f"machine: {platform.machine()}, {os.cpu_count()} cpu, Python {platform.python_version()},"
        f" load {', '.join(f'{x:.1f}' for x in os.getloadavg())}",
        f"command: python -m benchmarks.bench_aio_apply {shlex.join(argv)}".rstrip(),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> str:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=1000, help="PodGroups per sample")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved samples per side")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, to check it runs")
    args = parser.parse_args(args_list)
    count, repeats = (5, 1) if args.smoke else (args.count, args.repeats)
    medians = asyncio.run(measure(count, repeats))
    output = table(medians, count, repeats, args_list)
    print(output)
    return output


if __name__ == "__main__":
    main()
