"""The cluster commands against a server that never answers and one that cannot be reached.

Expected behaviour from kubectl: ``--request-timeout`` bounds the waiting, with no silent
retries past it; a refused connection fails at once with ``The connection to the server
HOST:PORT was refused - did you specify the right host or port?``
(``k8s.io/kubectl/pkg/cmd/util/helpers.go``, ``StandardErrorMessage``).
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from aio.writes.hostile_servers import kubeconfig, serve
from aiohttp import web
from typer.testing import CliRunner, Result

from workloadbuilder.cli import app

NS = "ml-training"
TIMEOUT_LINE = (
    "error: the API server did not answer within 1s (--request-timeout; 0 means no limit)"
)
COMMANDS = {
    "status": ["status", "w", "-n", NS],
    "diagnose": ["diagnose", "pg-a", "-n", NS],
    "inspect": ["inspect", "-n", NS],
    "delete": ["delete", "w", "-n", NS],
}


@pytest.fixture(scope="module", autouse=True)
def _imported(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One command run before the timed ones: what it imports on first use is not timed."""
    path = kubeconfig(tmp_path_factory.mktemp("warm"), "http://127.0.0.1:9")  # refused
    CliRunner().invoke(app, [*COMMANDS["status"], "--kubeconfig", str(path)])


async def _never(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


async def run(kubeconfig_path: Path, *args: str) -> tuple[Result, float]:
    started = time.monotonic()
    result = await asyncio.to_thread(
        CliRunner().invoke, app, [*args, "--kubeconfig", str(kubeconfig_path)]
    )
    return result, time.monotonic() - started


@pytest.mark.parametrize("command", list(COMMANDS), ids=list(COMMANDS))
async def test_the_request_timeout_bounds_the_whole_command(tmp_path: Path, command: str) -> None:
    async with serve(_never) as server:
        result, took = await run(
            kubeconfig(tmp_path, server.url), *COMMANDS[command], "--request-timeout", "1s"
        )
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [TIMEOUT_LINE]
    assert 1.0 <= took < 2.5  # not ten attempts of one second each, nor one per request
    assert 1 <= len(server.requests) <= 5  # the reads sent at once, none retried after


@pytest.mark.parametrize("command", list(COMMANDS), ids=list(COMMANDS))
async def test_a_refused_connection_fails_at_once_in_kubectls_words(
    tmp_path: Path, command: str
) -> None:
    async with serve(_never) as gone:
        url = gone.url
    result, took = await run(kubeconfig(tmp_path, url), *COMMANDS[command])
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    host = url.removeprefix("http://")
    assert re.fullmatch(
        f"error: The connection to the server {re.escape(host)} was refused - did you specify the"
        r" right host or port\? \((GET|PATCH|DELETE) /api[^ ]*\)",
        line,
    ), line  # docs/cli.md: kubectl's words, then the request
    assert took < 1.5  # not the 16 s of ten backed-off attempts


async def test_status_watch_bounds_each_read(tmp_path: Path) -> None:
    """The first read is answered, the next ones never: the watch ends after one bound."""
    started: list[float] = []
    workload = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": NS, "resourceVersion": "3"},
        "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"basic": {}}}]},
    }
    kinds = {
        "workloads": "WorkloadList",
        "podgroups": "PodGroupList",
        "compositepodgroups": "CompositePodGroupList",
        "pods": "PodList",
        "events": "EventList",
    }

    async def answer(request: web.Request) -> web.StreamResponse:
        now = time.monotonic()
        started.append(now)
        if now - started[0] > 0.5:  # the second round (after the 1 s pause) is never answered
            return await _never(request)
        plural = request.path.rsplit("/", 1)[1]
        items = [workload] if plural == "workloads" else []
        meta = {"resourceVersion": "3"}
        return web.json_response({"kind": kinds[plural], "metadata": meta, "items": items})

    async with serve(answer) as server:
        path = kubeconfig(tmp_path, server.url)
        result, took = await run(path, *COMMANDS["status"], "-w", "--request-timeout", "1s")
    assert result.exit_code == 1
    assert result.stdout.split()[:6] == ["NAME", "GROUP", "KIND", "STATE", "MEMBERS", "WHY"]
    assert result.stderr.splitlines() == [TIMEOUT_LINE]
    assert 2.0 <= took < 3.5  # the first read, the 1 s pause, then one bound of 1 s
