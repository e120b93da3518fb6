"""examples/trainingjob_operator end to end, on the test server, as a user deploys it.

The operator runs as its own process (``operator.py``, on ``aio.Manager``); the test server
calls its webhooks as kube-apiserver does. Expected values: kube-apiserver relays a webhook's
denial with its code and causes, the message prefixed ``admission webhook "<name>" denied the
request: `` (``webhookerrors.ToStatusErr``), and kubectl prints an ``Invalid`` Status as
``The <Kind> "<name>" is invalid: <causes>`` (``cmdutil.StandardErrorMessage``); the cause is
``validate()``'s field error at the CRD's own path; the
defaulted ``minWorkers`` is the mutating webhook's; the reconcile is counted in
controller-runtime's ``controller_runtime_reconcile_total{controller,result}``; the Role and
the webhook configurations of ``deploy.yaml`` are what ``workloadbuilder rbac`` and
``aio.webhook_configuration`` print.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from typer.testing import CliRunner

from workloadbuilder import aio
from workloadbuilder.cli import app
from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.server.tls import make_certificate

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "trainingjob_operator"
NS = "ml"
KUBECTL = shutil.which("kubectl")
GROUP = "training.example.com"
BAD = EXAMPLE / "bad-trainingjob.yaml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def deployed() -> list[dict[str, Any]]:
    return list(yaml.safe_load_all((EXAMPLE / "deploy.yaml").read_text()))


def test_the_role_is_what_workloadbuilder_rbac_prints() -> None:
    args = ["rbac", "reconcile", "cache", "leader-election", "-n", NS]
    args += ["--service-account", "trainingjob-operator", "--name", "trainingjob-operator"]
    args += ["--cache-kind", f"trainingjobs.{GROUP}", "--cache-kind", "Workload"]
    args += ["--cache-kind", "PodGroup"]
    printed = CliRunner().invoke(app, args)
    assert printed.exit_code == 0, printed.output
    role, binding = yaml.safe_load_all(printed.output)
    docs = deployed()
    assert role in docs and binding in docs


def test_the_webhook_configurations_are_the_sdks() -> None:
    rules = [aio.WebhookRule((GROUP,), ("v1",), ("trainingjobs",))]
    docs = deployed()
    for kind, prefix, path in (
        ("validating", "v", "/validate-trainingjob"),
        ("mutating", "m", "/default-trainingjob"),
    ):
        made = aio.webhook_configuration(
            kind,  # type: ignore[arg-type]
            name="trainingjob-operator",
            webhook_name=f"{prefix}.trainingjobs.{GROUP}",
            path=path,
            rules=rules,
            service=(NS, "trainingjob-operator-webhook"),
            cert_manager_certificate=f"{NS}/trainingjob-operator-serving",
        )
        assert made in docs
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert {p["containerPort"] for p in container["ports"]} == {8080, 8081, 9443}


class Operator:
    def __init__(self, process: asyncio.subprocess.Process, metrics: str, health: str) -> None:
        self.process, self.metrics, self.health = process, metrics, health

    async def get(self, url: str) -> tuple[int, str]:
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            return response.status, await response.text()


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[tuple[FakeAPIServer, Operator, Path]]:
    certs = tmp_path / "certs"
    certs.mkdir()
    cert, key = make_certificate(certs)
    cert.replace(certs / "tls.crt")
    key.replace(certs / "tls.key")
    ports = {name: free_port() for name in ("metrics", "health", "webhook")}
    async with FakeAPIServer() as server:
        server.create_object("", "v1", "namespaces", {"metadata": {"name": NS}})
        crd = yaml.safe_load((EXAMPLE / "crd.yaml").read_text())
        server.create_object("apiextensions.k8s.io", "v1", "customresourcedefinitions", crd)
        rules = [aio.WebhookRule((GROUP,), ("v1",), ("trainingjobs",))]
        ca = (certs / "tls.crt").read_bytes()
        for kind, prefix, path in (
            ("validating", "v", "/validate-trainingjob"),
            ("mutating", "m", "/default-trainingjob"),
        ):
            config = aio.webhook_configuration(
                kind,  # type: ignore[arg-type]
                name="trainingjob-operator",
                webhook_name=f"{prefix}.trainingjobs.{GROUP}",
                path=path,
                rules=rules,
                url=f"https://127.0.0.1:{ports['webhook']}",
                ca_bundle=ca,
            )
            plural = f"{kind}webhookconfigurations"
            server.create_object("admissionregistration.k8s.io", "v1", plural, config)
        env = {
            **os.environ,
            "KUBECONFIG": str(server.kubeconfig_path),
            "PYTHONPATH": str(ROOT),
            "POD_NAME": "operator-0",
        }
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(EXAMPLE / "operator.py"),
            f"--namespace={NS}",
            f"--cert-dir={certs}",
            f"--metrics-bind-address=127.0.0.1:{ports['metrics']}",
            f"--health-probe-bind-address=127.0.0.1:{ports['health']}",
            f"--webhook-bind-address=127.0.0.1:{ports['webhook']}",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        operator = Operator(
            process,
            f"http://127.0.0.1:{ports['metrics']}/metrics",
            f"http://127.0.0.1:{ports['health']}",
        )
        try:
            await until_ready(operator)
            yield server, operator, tmp_path
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(process.wait(), 30)
                except TimeoutError:
                    process.kill()
                    await process.wait()


async def until_ready(operator: Operator) -> None:
    for _ in range(300):
        if operator.process.returncode is not None:
            out = await operator.process.stdout.read() if operator.process.stdout else b""
            raise AssertionError(f"the operator exited:\n{out.decode()}")
        try:
            status, _ = await operator.get(operator.health + "/readyz")
        except aiohttp.ClientError:
            status = 0
        if status == 200:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the operator was not ready within 30 s")


async def kubectl_apply(server: FakeAPIServer, home: Path, manifest: str) -> tuple[int, str]:
    assert KUBECTL is not None
    process = await asyncio.create_subprocess_exec(
        KUBECTL,
        f"--kubeconfig={server.kubeconfig_path}",
        f"--cache-dir={home / 'kube-cache'}",
        "apply",
        "-f",
        "-",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "HOME": str(home)},
    )
    out, _ = await process.communicate(manifest.encode())
    assert process.returncode is not None
    return process.returncode, out.decode()


def training_job(name: str, **spec: int) -> str:
    body = {"apiVersion": f"{GROUP}/v1", "kind": "TrainingJob"}
    return yaml.safe_dump({**body, "metadata": {"name": name, "namespace": NS}, "spec": spec})


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
async def test_a_bad_job_is_refused_a_good_one_defaulted_reconciled_and_counted(
    running: tuple[FakeAPIServer, Operator, Path],
) -> None:
    server, operator, home = running
    bad = BAD.read_text()
    # kube-apiserver relays the webhook's 422 with its causes, its message prefixed
    async with aiohttp.ClientSession() as session:
        url = f"{server.url}/apis/{GROUP}/v1/namespaces/{NS}/trainingjobs"
        async with session.post(url, json=yaml.safe_load(bad)) as response:
            status = await response.json()
    assert response.status == 422
    assert status["reason"] == "Invalid"
    assert status["message"] == (
        f'admission webhook "v.trainingjobs.{GROUP}" denied the request: spec.minWorkers:'
        " Invalid value: 0: must be greater than or equal to 1"
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 0: must be greater than or equal to 1",
            "field": "spec.minWorkers",
        }
    ]
    # and kubectl prints an Invalid Status by its causes (StandardErrorMessage), as
    # docs/operations.md shows it
    code, out = await kubectl_apply(server, home, BAD.read_text())
    assert (code, out) == (
        1,
        'The TrainingJob "bad" is invalid: spec.minWorkers: Invalid value: 0: must be greater'
        " than or equal to 1\n",
    )
    assert (ROOT / "docs" / "snippets" / "trainingjob-refused.txt").read_text() == out
    shown = f"$ kubectl apply -f {BAD.relative_to(ROOT)}\n"
    shown += '--8<-- "docs/snippets/trainingjob-refused.txt"\n'
    assert shown in (ROOT / "docs" / "operations.md").read_text()
    assert server.get_object(GROUP, "v1", "trainingjobs", NS, "bad") is None

    code, out = await kubectl_apply(server, home, training_job("bert", workers=4))
    assert (code, out) == (0, f"trainingjob.{GROUP}/bert created\n")
    stored = server.get_object(GROUP, "v1", "trainingjobs", NS, "bert")
    assert stored is not None and stored["spec"]["minWorkers"] == 4  # defaulted at admission

    for _ in range(300):
        groups = server.list_objects("scheduling.k8s.io", "v1beta1", "podgroups", NS)
        if groups:
            break
        await asyncio.sleep(0.1)
    [group] = groups
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 4}}
    [workload] = server.list_objects("scheduling.k8s.io", "v1beta1", "workloads", NS)
    assert workload["spec"]["controllerRef"] == {
        "apiGroup": GROUP,
        "kind": "TrainingJob",
        "name": "bert",
    }

    status, metrics = await operator.get(operator.metrics)
    assert status == 200
    reconciled = [
        line
        for line in metrics.splitlines()
        if line.startswith("controller_runtime_reconcile_total{")
        and 'controller="trainingjob"' in line
        and 'result="success"' in line
    ]
    assert reconciled and float(reconciled[0].rsplit(" ", 1)[1]) >= 1
    webhook = (
        'controller_runtime_webhook_requests_total{code="200",webhook="/validate-trainingjob"}'
    )
    assert webhook in metrics

    operator.process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(operator.process.wait(), 30) == 0
    lease = server.get_object("coordination.k8s.io", "v1", "leases", NS, "trainingjob-operator")
    assert lease is not None and not lease["spec"].get("holderIdentity")  # released
