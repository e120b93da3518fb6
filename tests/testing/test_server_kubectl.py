"""The ``kubectl`` binary against FakeAPIServer, and the standalone entry point.

The kubectl tests are skipped where no ``kubectl`` is installed. What they expect is what
kubectl prints against a real API server (``real-apiserver-observed.md``: the Table columns,
the strict decoding error, the commands' own success lines).
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import shutil
import signal
import sys
from pathlib import Path

import aiohttp
import pytest
import yaml
from server_helpers import bounded

from workloadbuilder.testing import FakeAPIServer

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")

POD_GROUP = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: pg1
spec:
  schedulingPolicy:
    gang:
      minCount: 2
"""


async def kubectl(server: FakeAPIServer, tmp: Path, *args: str, stdin: str = "") -> tuple[int, str]:
    """Run kubectl against ``server``; its exit code and its output (stdout, then stderr)."""
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL,
        f"--kubeconfig={server.kubeconfig_path}",
        f"--cache-dir={tmp / 'kube-cache'}",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "HOME": str(tmp)},
    )
    out, err = await proc.communicate(stdin.encode())
    assert proc.returncode is not None
    return proc.returncode, out.decode() + err.decode()


def _rows(text: str) -> list[list[str]]:
    """A kubectl table, each line split on runs of two or more spaces."""
    return [re.split(r"\s{2,}", line.strip()) for line in text.strip().splitlines()]


@needs_kubectl
@bounded(60)
async def test_kubectl_create_get_apply_delete(
    fake_apiserver: FakeAPIServer, tmp_path: Path
) -> None:
    run = functools.partial(kubectl, fake_apiserver, tmp_path)
    # create namespace sends protobuf; create -f validates with OpenAPI v3 and fieldValidation.
    assert await run("create", "namespace", "team-a") == (0, "namespace/team-a created\n")
    code, out = await run("create", "-f", "-", stdin=POD_GROUP)
    assert (code, out) == (0, "podgroup.scheduling.k8s.io/pg1 created\n")
    code, out = await run("get", "podgroups")
    assert code == 0
    rows = _rows(out)
    assert rows[0] == ["NAME", "POLICY", "WORKLOAD", "STATUS", "AGE"]
    assert rows[1][:4] == ["pg1", "Gang", "<none>", "Pending"]
    code, out = await run("apply", "--server-side", "-f", "-", stdin=POD_GROUP)
    assert (code, out) == (0, "podgroup.scheduling.k8s.io/pg1 serverside-applied\n")
    bogus = yaml.safe_load(POD_GROUP)
    bogus["metadata"]["name"] = "pg2"
    bogus["spec"]["bogus"] = 1
    code, out = await run("create", "-f", "-", stdin=yaml.safe_dump(bogus))
    assert code == 1
    assert 'strict decoding error: unknown field "spec.bogus"' in out
    assert await run("delete", "podgroup", "pg1") == (
        0,
        'podgroup.scheduling.k8s.io "pg1" deleted\n',
    )


@needs_kubectl
@bounded(60)
async def test_kubectl_generators_and_wide_tables(
    fake_apiserver: FakeAPIServer, tmp_path: Path
) -> None:
    run = functools.partial(kubectl, fake_apiserver, tmp_path)
    assert await run("run", "p1", "--image=busybox") == (0, "pod/p1 created\n")
    assert await run("create", "job", "j1", "--image=busybox", "--", "true") == (
        0,
        "job.batch/j1 created\n",
    )
    assert await run("create", "priorityclass", "high", "--value=1000") == (
        0,
        "priorityclass.scheduling.k8s.io/high created\n",
    )
    high = fake_apiserver.get_object("scheduling.k8s.io", "v1", "priorityclasses", None, "high")
    assert high is not None and high["value"] == 1000
    job = fake_apiserver.get_object("batch", "v1", "jobs", "default", "j1")
    assert job is not None
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert (container["image"], container["command"]) == ("busybox", ["true"])
    code, out = await run("get", "pods", "-o", "wide")
    assert code == 0
    assert _rows(out)[0] == [
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "IP",
        "NODE",
        "NOMINATED NODE",
        "READINESS GATES",
    ]
    code, out = await run("api-resources")
    assert code == 0
    lines = {r[0]: r for r in _rows(out)[1:]}
    assert lines["pods"][1] == "po"
    assert lines["priorityclasses"][1:3] == ["pc", "scheduling.k8s.io/v1"]
    code, out = await run("explain", "podgroup.spec.schedulingPolicy")
    assert code == 0 and "gang" in out
    assert await run("get", "--raw", "/readyz") == (0, "ok")


@bounded(60)
async def test_python_m_entry_point_prints_a_working_kubeconfig() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "workloadbuilder.testing",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        path = Path((await asyncio.wait_for(proc.stdout.readline(), 30)).decode().strip())
        config = yaml.safe_load(path.read_text())
        url = config["clusters"][0]["cluster"]["server"]
        assert url.startswith("http://127.0.0.1:")
        async with aiohttp.ClientSession() as session, session.get(url + "/healthz") as resp:
            assert (resp.status, await resp.text()) == (200, "ok")
    finally:
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    assert not path.exists()
