"""Small misbehaving API servers on 127.0.0.1, for the tests of ``aio`` against hostile answers.

``serve(handler)`` runs an aiohttp server whose every request goes to ``handler`` and is
recorded; ``kubeconfig(tmp_path, url)`` points a client at it with a bearer token.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

TOKEN = "wbtoken-HOSTILE-5e1f0a77"
NS = "ml-training"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class Seen:
    """A request as the server received it."""

    method: str
    path: str
    query: dict[str, str]
    authorization: str | None
    body: bytes = b""


@dataclass
class Hostile:
    """A running server: its URL and what it received."""

    url: str
    requests: list[Seen] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


@asynccontextmanager
async def serve(handler: Handler) -> AsyncIterator[Hostile]:
    """A server on a free loopback port answering every request with ``handler``."""
    server = Hostile("")

    async def record(request: web.Request) -> web.StreamResponse:
        server.requests.append(
            Seen(
                request.method,
                request.path,
                dict(request.query),
                request.headers.get("Authorization"),
                await request.read(),
            )
        )
        return await handler(request)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", record)
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    server.url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        await runner.cleanup()


def kubeconfig(tmp_path: Path, url: str, *, name: str = "kubeconfig") -> Path:
    """A kubeconfig whose current context talks to ``url`` with ``TOKEN``."""
    path = tmp_path / name
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": url}}],
                "users": [{"name": "u", "user": {"token": TOKEN}}],
                "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "ctx",
            }
        )
    )
    return path


def discovery(group_version: str, resources: list[str]) -> dict[str, Any]:
    """An ``APIResourceList`` of ``group_version`` serving ``resources``."""
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": [
            {"name": r, "namespaced": True, "kind": r.title(), "verbs": ["get", "list", "patch"]}
            for r in resources
        ],
    }


DISCOVERY = {
    "/apis/scheduling.k8s.io/v1beta1": discovery(
        "scheduling.k8s.io/v1beta1", ["workloads", "podgroups"]
    ),
    "/apis/scheduling.k8s.io/v1alpha3": discovery(
        "scheduling.k8s.io/v1alpha3", ["compositepodgroups"]
    ),
}


def api(answer: Handler) -> Handler:
    """A handler serving discovery of the scheduling APIs and answering an apply with the
    object sent (as the server would store it), except where ``answer`` answers (it returns
    a response, or raises ``LookupError`` to leave the request to the default)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        try:
            return await answer(request)
        except LookupError:
            pass
        if request.method == "GET" and request.path in DISCOVERY:
            return web.json_response(DISCOVERY[request.path])
        if request.method == "PATCH":
            obj = json.loads(await request.read())
            obj["metadata"] = {**obj["metadata"], "uid": "u-1", "resourceVersion": "1"}
            return web.json_response(obj)
        return web.json_response(
            {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404},
            status=404,
        )

    return handle
