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
    runner = web.AppRunner(app, handle_signals=False)
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


def discovery(resources: list[str]) -> dict[str, Any]:
    """An ``APIResourceList`` of scheduling.k8s.io/v1beta1 serving ``resources``."""
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "scheduling.k8s.io/v1beta1",
        "resources": [
            {"name": r, "namespaced": True, "kind": r.title(), "verbs": ["get", "list", "patch"]}
            for r in resources
        ],
    }
