"""Objects per second of ``workloadbuilder.aio.apply()`` next to a bare aiohttp loop and the
official synchronous client, all server-side applying the same new PodGroups to FakeAPIServer.

The bare loop sends exactly the requests ``apply()`` sends (same URL, query, headers, body,
concurrency) with nothing else: it is the ceiling. A second bare loop uses the session settings
of kubernetes-asyncio's ``ApiClient`` (``trust_env=True``, its connection pool size), which
``apply()`` inherits when it sends through a client the user made that way: the gap between
the two bare loops is the client's, the gap between the second one and that ``apply()`` the
SDK's. The target row sends through ``aio.new_client()``'s client, which trusts the
environment only where it configures a proxy or a netrc file (here it does not). The official
client applies one object after another, as a simple synchronous controller would. Every
sample applies ``--count`` PodGroups to a namespace of their own on one server, through a
client made before the clock starts.

Run: ``python -m benchmarks.bench_aio_apply [--count 1000] [--repeats 7] [--smoke]``
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import aiohttp

import workloadbuilder as wb
from benchmarks._harness import AsyncCase, Row, arguments, measure_async, print_table
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

MANAGER = "bench-controller"
APPLY = "application/apply-patch+yaml"
CEILING = "bare aiohttp SSA loop"
CLIENT_SESSION = "bare aiohttp SSA loop with kubernetes-asyncio's session settings"
OURS = "workloadbuilder.aio.apply() through aio.new_client()"
OURS_THEIRS = "workloadbuilder.aio.apply() through a kubernetes-asyncio ApiClient"
OFFICIAL = "official sync client, one object after another"

Runner = Callable[[list[wb.PodGroup]], Awaitable[None]]


def pod_groups(count: int, namespace: str) -> list[wb.PodGroup]:
    return [
        wb.PodGroup.model_validate(
            {
                "metadata": {"name": f"pg-{i:05d}", "namespace": namespace},
                "spec": {"schedulingPolicy": {"gang": {"minCount": 1 + i % 8}}},
            }
        )
        for i in range(count)
    ]


def _path(obj: wb.PodGroup) -> str:
    ns, name = obj.metadata.namespace, obj.metadata.name
    return f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups/{name}"


@asynccontextmanager
async def ours(server: FakeAPIServer) -> AsyncIterator[Runner]:
    """apply() through the client ``aio.new_client()`` loads from the server's kubeconfig."""
    async with await aio.new_client(config_file=server.kubeconfig_path) as api:

        async def run(objects: list[wb.PodGroup]) -> None:
            await aio.apply(api, objects, field_manager=MANAGER)

        yield run


@asynccontextmanager
async def ours_through_their_client(server: FakeAPIServer) -> AsyncIterator[Runner]:
    """apply() through a kubernetes-asyncio ``ApiClient`` the user made (its session as is)."""
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
                        async with session.patch(
                            _path(obj), params=query, data=body, headers=headers
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
                obj.metadata.namespace,
                "podgroups",
                obj.metadata.name,
                obj.to_dict(),
                field_manager=MANAGER,
                _content_type=APPLY,
            )

    async def run(objects: list[wb.PodGroup]) -> None:
        await asyncio.to_thread(loop, objects)  # the server runs on this loop

    try:
        yield run
    finally:
        api.close()


def pool_size() -> int:
    """kubernetes-asyncio's default connection pool size."""
    from kubernetes_asyncio.client import Configuration

    return int(Configuration().connection_pool_maxsize)


SIDES: dict[str, Callable[[FakeAPIServer], Any]] = {
    CEILING: _bare(trust_env=False, limit=aio.DEFAULT_CONCURRENCY),
    CLIENT_SESSION: _bare(trust_env=True, limit=pool_size()),
    OURS: ours,
    OURS_THEIRS: ours_through_their_client,
    OFFICIAL: official,
}


def check(server: FakeAPIServer, objects: list[wb.PodGroup], side: str) -> None:
    """The side left exactly the intended PodGroups in their namespace."""
    namespace = objects[0].metadata.namespace
    stored = server.list_objects("scheduling.k8s.io", "v1beta1", "podgroups", namespace)
    got = sorted((s["metadata"]["name"], s["spec"]["schedulingPolicy"]) for s in stored)
    want = sorted((o.metadata.name, o.to_dict()["spec"]["schedulingPolicy"]) for o in objects)
    if got != want:
        raise AssertionError(f"{side} did not leave the intended PodGroups on the server")


async def measure(count: int, repeats: int) -> dict[str, float]:
    """Median seconds per side to apply ``count`` new PodGroups (a fresh namespace each time)."""
    namespaces = itertools.count()
    async with FakeAPIServer(auto_create_namespaces=True) as server, AsyncExitStack() as stack:
        cases = []
        for label, side in SIDES.items():
            run = await stack.enter_async_context(side(server))
            objects = pod_groups(count, f"check-{len(cases)}")
            await run(objects)  # the same objects from every side, before timing
            check(server, objects, label)

            def batch(run: Runner = run) -> Awaitable[None]:
                return run(pod_groups(count, f"ns-{next(namespaces)}"))

            cases.append(AsyncCase(label, batch))
        return await measure_async(cases, repeats=repeats)


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0] if __doc__ else "", count=1000)
    medians = asyncio.run(measure(args.count, args.repeats))
    ceiling = medians[CEILING]
    rates = ", ".join(f"{label}: {args.count / s:,.0f}" for label, s in medians.items())
    rows = [
        Row(
            f"{OURS}: {args.count} PodGroups (concurrency {aio.DEFAULT_CONCURRENCY})",
            CEILING,
            ceiling,
            medians[OURS],
            unit="s",
            scale=1,
            target=1.25,  # at least 80% of the ceiling's objects per second
        ),
        Row(f"{CLIENT_SESSION} ({pool_size()} connections)", CEILING, ceiling,
            medians[CLIENT_SESSION], unit="s", scale=1),
        Row(OURS_THEIRS, CLIENT_SESSION, medians[CLIENT_SESSION], medians[OURS_THEIRS],
            unit="s", scale=1),
        Row(OFFICIAL, CEILING, ceiling, medians[OFFICIAL], unit="s", scale=1),
    ]  # fmt: skip
    print_table(
        f"apply() of {args.count} PodGroups against FakeAPIServer",
        rows,
        note=f"objects/s: {rates}. Ratios are seconds over the baseline's (<= 1.25x is"
        " >= 80% of its objects/s).",
    )


if __name__ == "__main__":
    main()
