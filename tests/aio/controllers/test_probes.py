"""Health probes: kube-apiserver's ``/healthz`` and ``/readyz`` answers.

What is expected is ``k8s.io/apiserver/pkg/server/healthz``'s output: ``ok`` (200) when every
check passes; with ``?verbose`` one ``[+]<name> ok`` line per check then ``<name> check
passed``; on failure HTTP 500 listing every check, failed ones as ``[-]<name> failed: reason
withheld``, then ``<name> check failed``; ``?exclude=`` as ``[+]<name> excluded: ok``; one
check at ``/<endpoint>/<name>``: ``ok`` or HTTP 500 ``internal server error: <reason>``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
import pytest
from aiohttp import web

from workloadbuilder import aio
from workloadbuilder.aio.controllers.probes import Probes
from workloadbuilder.aio.controllers.servers import HTTPServer, split_bind_address


@asynccontextmanager
async def serving(probes: Probes) -> AsyncIterator[aiohttp.ClientSession]:
    app = web.Application()
    app.add_routes(probes.routes())
    server = HTTPServer(app, "127.0.0.1:0", "health probe server")
    await server.start()
    assert server.url is not None and server.url.startswith("http://127.0.0.1:")
    try:
        async with aiohttp.ClientSession(server.url) as session:
            yield session
    finally:
        await server.stop()
    assert server.url is None


async def get(session: aiohttp.ClientSession, path: str) -> tuple[int, str]:
    async with session.get(path) as resp:
        assert resp.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        return resp.status, await resp.text()


async def test_passing_checks_answer_ok_and_verbose_lists_them() -> None:
    probes = Probes()
    probes.add_check("readyz", "informer-sync", lambda: None)

    async def ready() -> None:
        return None

    probes.add_check("readyz", "async", ready)
    async with serving(probes) as session:
        assert await get(session, "/healthz") == (200, "ok")
        assert await get(session, "/readyz") == (200, "ok")
        assert await get(session, "/healthz?verbose") == (200, "[+]ping ok\nhealthz check passed\n")
        assert await get(session, "/readyz?verbose") == (
            200,
            "[+]ping ok\n[+]informer-sync ok\n[+]async ok\nreadyz check passed\n",
        )
        assert await get(session, "/readyz/informer-sync") == (200, "ok")
        assert await get(session, "/readyz/ping") == (200, "ok")


async def test_a_failing_check_is_500_with_the_reason_withheld_but_on_its_own_path(
    caplog: pytest.LogCaptureFixture,
) -> None:
    probes = Probes()

    def synced() -> None:
        raise aio.HealthCheckError("not synced yet: PodGroup")

    probes.add_check("readyz", "informer-sync", synced)
    probes.add_check("readyz", "other", lambda: None)
    async with serving(probes) as session:
        failed = (
            500,
            "[+]ping ok\n[-]informer-sync failed: reason withheld\n[+]other ok\n"
            "readyz check failed\n",
        )
        assert await get(session, "/readyz") == failed
        assert await get(session, "/readyz?verbose") == failed  # always verbose on failure
        assert await get(session, "/readyz/informer-sync") == (
            500,
            "internal server error: not synced yet: PodGroup\n",
        )
        assert await get(session, "/readyz/other") == (200, "ok")
        assert await get(session, "/healthz") == (200, "ok")  # liveness has its own checks
        assert await get(session, "/readyz?exclude=informer-sync") == (200, "ok")
        assert await get(session, "/readyz?exclude=informer-sync&exclude=nope&verbose") == (
            200,
            "[+]ping ok\n[+]informer-sync excluded: ok\n[+]other ok\n"
            'warn: some health checks cannot be excluded: no matches for "nope"\n'
            "readyz check passed\n",
        )
        async with session.get("/readyz/nope") as resp:
            assert resp.status == 404
    # the reason is logged (once, not at every probe)
    said = [r.getMessage() for r in caplog.records if "readyz check failed" in r.getMessage()]
    assert said == ["readyz check failed: informer-sync: not synced yet: PodGroup"]


def test_check_names_and_bind_addresses_are_checked() -> None:
    probes = Probes()
    with pytest.raises(ValueError, match="already added"):
        probes.add_check("healthz", "ping", lambda: None)
    with pytest.raises(ValueError, match="without '/'"):
        probes.add_check("readyz", "a/b", lambda: None)
    assert split_bind_address(":8080") == ("0.0.0.0", 8080)
    assert split_bind_address("[::1]:0") == ("::1", 0)
    for wrong in ("8080", "host:", "host:http", "host:70000"):
        with pytest.raises(ValueError, match="is not host:port"):
            split_bind_address(wrong)
