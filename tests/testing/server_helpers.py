"""Shared helpers of the FakeAPIServer tests (objects, raw HTTP, time bounds)."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import aiohttp

from workloadbuilder.testing import FakeAPIServer

P = ParamSpec("P")
T = TypeVar("T")

SCHED = "scheduling.k8s.io"
PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups"
APPLY = "application/apply-patch+yaml"


def bounded(
    seconds: float = 20,
) -> Callable[[Callable[P, Awaitable[T]]], Callable[P, Awaitable[T]]]:
    """Fail an async test that runs longer than ``seconds``."""

    def decorate(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        @functools.wraps(fn)
        async def run(*args: P.args, **kwargs: P.kwargs) -> T:
            async with asyncio.timeout(seconds):
                return await fn(*args, **kwargs)

        return run

    return decorate


def pod_group(
    name: str = "pg", min_count: int = 2, namespace: str = "default", **spec: Any
) -> dict[str, Any]:
    """A v1beta1 PodGroup with a gang policy."""
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}, **spec},
    }


def pod(name: str = "p", **meta: Any) -> dict[str, Any]:
    """A v1 Pod with one container; ``meta`` adds to its metadata."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, **meta},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }


@dataclass
class Reply:
    """A raw HTTP answer."""

    status: int
    headers: dict[str, str]
    text: str
    warnings: list[str]

    def json(self) -> Any:
        return json.loads(self.text)


async def call(
    server: FakeAPIServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    content_type: str = "application/json",
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """One raw request to ``server``."""
    data = body if isinstance(body, bytes | str) or body is None else json.dumps(body)
    sent = {"Content-Type": content_type, **(headers or {})}
    timeout = aiohttp.ClientTimeout(total=10)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.request(method, server.url + path, data=data, params=params, headers=sent) as resp,
    ):
        return Reply(
            resp.status, dict(resp.headers), await resp.text(), resp.headers.getall("Warning", [])
        )


async def apply(server: FakeAPIServer, obj: dict[str, Any], manager: str, **params: str) -> Reply:
    """Server-side apply ``obj`` (a PodGroup) over HTTP."""
    name = obj["metadata"]["name"]
    query = {"fieldManager": manager, **params}
    return await call(server, "PATCH", f"{PG_PATH}/{name}", obj, content_type=APPLY, params=query)
