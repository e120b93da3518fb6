"""``GET /metrics``: a Prometheus registry's exposition, as controller-runtime's metrics server.

The text format, or OpenMetrics when the scraper's ``Accept`` asks for it. The registry is
collected on a worker thread, so a scrape never holds up the event loop (nor the reconciles
running on it), however many series there are.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

__all__ = ["metrics_routes"]


def metrics_routes(registry: CollectorRegistry) -> list[web.RouteDef]:
    """The route serving ``registry`` at ``/metrics``."""

    def handler() -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            encode, content_type = choose_encoder(request.headers.get("Accept", ""))
            body = await asyncio.to_thread(encode, registry)
            return web.Response(body=body, headers={"Content-Type": content_type})

        return handle

    return [web.get("/metrics", handler())]
