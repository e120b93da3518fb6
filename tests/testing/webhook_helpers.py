"""An HTTPS admission webhook on 127.0.0.1 for the FakeAPIServer tests, and configurations.

The server waits for each webhook's answer, so the webhook runs on its own event loop in a
thread. Each path answers as the test registers (:meth:`WebhookServer.on`); every review it
receives is kept in :attr:`WebhookServer.reviews`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aiohttp import web

from workloadbuilder.testing.server import tls

Answer = Callable[[dict[str, Any]], dict[str, Any]]
"""A webhook's behaviour: the request of a review to its ``response`` (uid filled in)."""


def allow(_: dict[str, Any]) -> dict[str, Any]:
    """Allow everything."""
    return {"allowed": True}


def json_patch(*operations: dict[str, Any]) -> Answer:
    """Allow with a JSONPatch."""
    patch = base64.b64encode(json.dumps(list(operations)).encode()).decode()
    return lambda _: {"allowed": True, "patchType": "JSONPatch", "patch": patch}


class WebhookServer:
    """Answers ``POST /<path>`` with the AdmissionReview its :class:`Answer` makes."""

    def __init__(self, directory: Path, names: Iterable[str] = ()) -> None:
        cert, key = tls.make_certificate(directory, names)
        self.ca_bundle = base64.b64encode(cert.read_bytes()).decode()
        self._context = tls.server_context(cert, key)
        self.answers: dict[str, Answer] = {}
        self.reviews: list[tuple[str, dict[str, Any]]] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._stopped = asyncio.Event()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def on(self, path: str, answer: Answer) -> str:
        """Answer ``path`` with ``answer``; the webhook's URL."""
        self.answers[path] = answer
        return self.url(path)

    def url(self, path: str) -> str:
        """``https://127.0.0.1:<port>/<path>``."""
        return f"https://127.0.0.1:{self.port}/{path}"

    def requests(self, path: str) -> list[dict[str, Any]]:
        """The ``request`` of every review ``path`` received, in order."""
        return [review["request"] for p, review in self.reviews if p == path]

    async def _handle(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        review = await request.json()
        self.reviews.append((path, review))
        if path.startswith("hang"):
            await self._stopped.wait()  # never answers while the test runs
        response = {"uid": review["request"]["uid"], **self.answers[path](review["request"])}
        return web.json_response(
            {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}
        )

    async def _start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/{path}", self._handle)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=self._context)
        await site.start()
        self.port = runner.addresses[0][1]
        return runner

    def __enter__(self) -> WebhookServer:
        self._thread.start()
        self._runner = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *_: object) -> None:
        async def stop() -> None:
            self._stopped.set()
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


def webhook(name: str, url: str, ca_bundle: str = "", **fields: Any) -> dict[str, Any]:
    """A webhook for pods on CREATE at ``url`` (``fields`` override)."""
    hook: dict[str, Any] = {
        "name": name,
        "clientConfig": {"url": url, **({"caBundle": ca_bundle} if ca_bundle else {})},
        "rules": [
            {
                "operations": ["CREATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    return {**hook, **fields}


def configuration(kind: str, name: str, *hooks: dict[str, Any]) -> dict[str, Any]:
    """A ``ValidatingWebhookConfiguration`` or ``MutatingWebhookConfiguration``."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": list(hooks),
    }
