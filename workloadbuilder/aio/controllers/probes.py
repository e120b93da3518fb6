"""Health probes with kube-apiserver's shape: ``GET /healthz`` and ``GET /readyz``.

Each endpoint runs its named checks (``ping`` always passes, so a process that answers is
alive). All passing: HTTP 200 ``ok``, or with ``?verbose`` one ``[+]<name> ok`` line per
check and ``<endpoint> check passed``. One failing: HTTP 500 listing every check, the failed
ones as ``[-]<name> failed: reason withheld`` (the endpoint is public; the reasons are logged),
and ``<endpoint> check failed``. ``?exclude=<name>`` skips a check (``[+]<name> excluded:
ok``). ``GET /readyz/<name>`` runs one check: ``ok``, or HTTP 500 ``internal server error:
<reason>``.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

__all__ = ["Check", "HealthCheckError", "Probes"]

_log = logging.getLogger("workloadbuilder.aio")

Check = Callable[[], object | Awaitable[object]]
"""A health check: returns (or its coroutine returns) when healthy, raises when not; the
exception's message is the reason."""

ENDPOINTS = ("healthz", "readyz")


class HealthCheckError(Exception):
    """A check that failed; its message says why."""


def _ping() -> None:
    """Passes: the process answers."""


class Probes:
    """The checks of ``/healthz`` (liveness) and ``/readyz`` (readiness), and their routes."""

    def __init__(self) -> None:
        self._checks: dict[str, dict[str, Check]] = {e: {"ping": _ping} for e in ENDPOINTS}
        self._failing: dict[str, tuple[str, ...]] = {e: () for e in ENDPOINTS}

    def add_check(self, endpoint: str, name: str, check: Check) -> None:
        """Run ``check`` as ``name`` at ``/<endpoint>`` (``healthz`` or ``readyz``)."""
        if not name or "/" in name:
            raise ValueError(f"a {endpoint} check needs a name without '/', got {name!r}")
        checks = self._checks[endpoint]
        if name in checks:
            raise ValueError(f"a {endpoint} check named {name!r} is already added")
        checks[name] = check

    def names(self, endpoint: str) -> list[str]:
        """The checks of ``/<endpoint>``, in the order they run."""
        return list(self._checks[endpoint])

    def routes(self) -> list[web.RouteDef]:
        """The aiohttp routes of both endpoints and each of their checks."""
        routes = []
        for endpoint in ENDPOINTS:
            routes.append(web.get(f"/{endpoint}", self._aggregate(endpoint)))
            routes.append(web.get(f"/{endpoint}/{{name}}", self._single(endpoint)))
        return routes

    async def run(self, endpoint: str, name: str) -> str | None:
        """Run one check: ``None`` when it passes, else why it failed."""
        try:
            outcome = self._checks[endpoint][name]()
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            return str(exc) or type(exc).__name__
        return None

    def _aggregate(self, endpoint: str) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            excluded = set(request.query.getall("exclude", []))
            lines, failed, reasons = [], [], []
            for name in self._checks[endpoint]:
                if name in excluded:
                    excluded.discard(name)
                    lines.append(f"[+]{name} excluded: ok")
                    continue
                reason = await self.run(endpoint, name)
                if reason is None:
                    lines.append(f"[+]{name} ok")
                else:
                    lines.append(f"[-]{name} failed: reason withheld")
                    failed.append(name)
                    reasons.append(f"{name}: {reason}")
            if excluded:
                said = ",".join(f'"{name}"' for name in sorted(excluded))
                lines.append(f"warn: some health checks cannot be excluded: no matches for {said}")
            self._log_change(endpoint, tuple(failed), reasons)
            body = "".join(f"{line}\n" for line in lines)
            if failed:
                return _text(f"{body}{endpoint} check failed\n", 500)
            if "verbose" not in request.query:
                return _text("ok", 200)
            return _text(f"{body}{endpoint} check passed\n", 200)

        return handle

    def _single(self, endpoint: str) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            name = request.match_info["name"]
            if name not in self._checks[endpoint]:
                return _text("404 page not found\n", 404)
            reason = await self.run(endpoint, name)
            if reason is None:
                return _text("ok", 200)
            return _text(f"internal server error: {reason}\n", 500)

        return handle

    def _log_change(self, endpoint: str, failed: tuple[str, ...], reasons: list[str]) -> None:
        """Log the failing checks when they change (not every probe)."""
        if failed == self._failing[endpoint]:
            return
        self._failing[endpoint] = failed
        if failed:
            _log.warning("%s check failed: %s", endpoint, "; ".join(reasons))
        else:
            _log.info("%s check passed", endpoint)


def _text(body: str, status: int) -> web.Response:
    return web.Response(
        text=body,
        status=status,
        content_type="text/plain",
        charset="utf-8",
        headers={"X-Content-Type-Options": "nosniff"},
    )
