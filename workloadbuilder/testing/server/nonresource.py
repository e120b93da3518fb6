"""The paths outside the resource API: health checks, OpenAPI, and discovery's shapes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from workloadbuilder.testing.common.resources import Registry
from workloadbuilder.testing.server import discovery, negotiation, openapi

_CHECKS = {
    "healthz": ("ping", "log", "etcd", "poststarthook/start-apiserver-admission-initializer"),
    "livez": ("ping", "log", "etcd", "poststarthook/start-apiserver-admission-initializer"),
    "readyz": (
        "ping",
        "log",
        "etcd",
        "etcd-readiness",
        "informer-sync",
        "poststarthook/start-apiserver-admission-initializer",
        "shutdown",
    ),
}
_NO_CACHE = {"Cache-Control": "no-cache, private"}
_V3_MEDIA = (negotiation.JSON, "application/com.github.proto-openapi.spec.v3@v1.0+protobuf")


def _empty(status: int, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, body=b"", headers=headers or {})


class NonResource:
    """Answers ``/healthz``, ``/livez``, ``/readyz``, ``/openapi/v2``, ``/openapi/v3[/...]``."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.documents = openapi.Documents(registry)

    def answer(self, request: web.BaseRequest) -> web.Response | None:
        """The answer for a non-resource path, or ``None`` when the path is not one."""
        parts = [p for p in request.path.split("/") if p]
        if not parts or request.method not in ("GET", "HEAD"):
            return None
        if parts[0] in _CHECKS:
            return self._health(parts, "verbose" in request.query)
        if parts[0] != "openapi" or len(parts) < 2:
            return None
        accept = negotiation.parse_accept(request.headers.get("Accept", ""))
        if parts[1] == "v2" and len(parts) == 2:
            if not negotiation.acceptable(accept, (negotiation.JSON,)):
                return _empty(406)
            data = self.documents.v2()
            return web.Response(
                body=data,
                headers={
                    "Content-Type": negotiation.JSON,
                    "ETag": f'"{openapi.etag(data)}"',
                    **_NO_CACHE,
                },
            )
        if parts[1] == "v3":
            return self._v3("/".join(parts[2:]), request, accept)
        return None

    def _health(self, parts: list[str], verbose: bool) -> web.Response:
        checks = _CHECKS[parts[0]]
        if len(parts) > 2 or (len(parts) == 2 and parts[1] not in checks):
            return negotiation.plain(404, "404 page not found\n")
        if len(parts) == 2 or not verbose:
            return negotiation.plain(200, "ok", _NO_CACHE)
        lines = [f"[+]{c} ok" for c in checks]
        return negotiation.plain(
            200, "\n".join([*lines, f"{parts[0]} check passed", ""]), _NO_CACHE
        )

    def _v3(
        self, gv_key: str, request: web.BaseRequest, accept: list[negotiation.MediaType]
    ) -> web.Response:
        if not gv_key:
            return negotiation.plain(200, self.documents.index().decode(), _NO_CACHE)
        if not negotiation.acceptable(accept, (negotiation.JSON,)):
            return _empty(406)
        data = self.documents.v3(gv_key)
        if data is None:
            return _empty(404)
        current = openapi.etag(data)
        headers = {"Content-Type": negotiation.JSON, "ETag": f'"{current}"'}
        asked = request.query.get("hash")
        if asked is not None and asked != current:
            return _empty(301, {"Location": f"/openapi/v3/{gv_key}?hash={current}"})
        if asked == current:
            expires = datetime.now(UTC) + timedelta(days=365)
            headers["Cache-Control"] = "public, immutable"
            headers["Expires"] = expires.strftime("%a, %d %b %Y %H:%M:%S GMT")
        else:
            headers.update(_NO_CACHE)
        if request.headers.get("If-None-Match") == f'"{current}"':
            return _empty(304, {k: v for k, v in headers.items() if k != "Content-Type"})
        return web.Response(body=data, headers=headers)

    def discovery(self, path: str, accept: str, document: dict[str, Any]) -> web.Response:
        """A discovery document; ``/api`` and ``/apis`` also in aggregated form if asked."""
        parts = [p for p in path.split("/") if p]
        media = negotiation.output(negotiation.parse_accept(accept), negotiation.DISCOVERY_SHAPES)
        if parts in (["api"], ["apis"]) and media.shape == "APIGroupDiscoveryList":
            version = media.params["v"]
            body = discovery.aggregated(self.registry, core=parts == ["api"], version=version)
            content_type = (
                f"{negotiation.JSON};g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"
            )
            return web.Response(
                body=negotiation.encode_json(body),
                headers={"Content-Type": content_type, "Vary": "Accept"},
            )
        return web.Response(
            body=negotiation.encode_json(document), headers={"Content-Type": negotiation.JSON}
        )
