"""The kopf example as its ServiceAccount on the RBAC test server, with exactly the Role that
``workloadbuilder rbac`` prints for the SDK's verbs it calls and the example's own manifest
(``examples/trainingrun-operator-rbac.yaml``) for what kopf and the handlers do beyond them."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_examples_async import (
    EXAMPLES,
    NS,
    TRAINING_RUNS,
    env_for,
    install_training_runs,
    namespace,
    run_the_kopf_operator,
    training_run,
)
from typer.testing import CliRunner

from workloadbuilder.cli import app
from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.server import DEFAULT_RESOURCES

RBAC = ("rbac.authorization.k8s.io", "v1")
ACCOUNT = "trainingrun-operator"
USER = f"system:serviceaccount:{NS}:{ACCOUNT}"
SDK_VERBS = ("reconcile", "diagnose", "delete", "cache")
"""The SDK's verbs the example calls: ``aio.reconcile``, ``aio.diagnose``, ``aio.delete`` and
its ``aio.Cache``."""
CACHE_KINDS = ("Workload", "PodGroup", "CompositePodGroup", "Pod")
"""The kinds its cache follows: its own three, and the Pods ``aio.delete`` starts."""
MANIFEST = EXAMPLES / "trainingrun-operator-rbac.yaml"


def sdk_role() -> list[dict[str, Any]]:
    """What ``workloadbuilder rbac`` prints for the example's verbs, as docs/kopf.md runs it."""
    result = CliRunner().invoke(
        app,
        [
            "rbac",
            *SDK_VERBS,
            *(option for kind in CACHE_KINDS for option in ("--cache-kind", kind)),
            *("-n", NS, "--service-account", ACCOUNT, "--name", f"{ACCOUNT}-sdk"),
        ],
    )
    assert result.exit_code == 0, result.output
    return list(yaml.safe_load_all(result.output))


def grant(server: FakeAPIServer, documents: list[dict[str, Any]]) -> None:
    for document in documents:
        plural = {"Role": "roles", "RoleBinding": "rolebindings"}[document["kind"]]
        server.create_object(*RBAC, plural, document)


def test_the_manifest_is_namespaced_and_binds_the_account() -> None:
    """A Role and its RoleBinding in the operator's namespace; nothing cluster-wide."""
    role, binding = yaml.safe_load_all(MANIFEST.read_text())
    assert (role["kind"], binding["kind"]) == ("Role", "RoleBinding")
    assert role["metadata"] == binding["metadata"] == {"name": ACCOUNT, "namespace": NS}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NS}]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["--standalone", "--peering=default"])
@pytest.mark.fake_apiserver(resources=[*DEFAULT_RESOURCES, TRAINING_RUNS], authorization="RBAC")
async def test_the_kopf_operator_runs_as_its_service_account(
    fake_apiserver: FakeAPIServer, mode: str
) -> None:
    """The same run's life as on an AlwaysAllow server (created, scheduled, resized, deleted),
    every request of kopf and of the SDK authorized by the two Roles alone: kopf logs no
    refusal and falls back to nothing."""
    namespace(fake_apiserver)
    install_training_runs(fake_apiserver, mode)
    grant(fake_apiserver, sdk_role())
    grant(fake_apiserver, list(yaml.safe_load_all(MANIFEST.read_text())))
    env = {
        **env_for(fake_apiserver),
        "KUBECONFIG": str(fake_apiserver.kubeconfig_for(USER)),
        "KOPF_RUN_NAMESPACE": NS,
    }
    log = (await run_the_kopf_operator(fake_apiserver, [mode], env, mode)).decode()
    assert "Traceback" not in log, log
    for refusal in ("Forbidden", "forbidden", "Not enough permissions", "401", "403"):
        assert refusal not in log, log


def manifest_without(index: int) -> list[dict[str, Any]]:
    role, binding = yaml.safe_load_all(MANIFEST.read_text())
    rules = role["rules"][:index] + role["rules"][index + 1 :]
    return [{**role, "rules": rules}, binding]


async def refused(server: FakeAPIServer, mode: str, resource: str, group: str) -> list[str]:
    """Run the operator on a run of 4 until it logs the server's 403 on ``resource``."""
    training_run(server, 4)
    env = {
        **env_for(server),
        "KUBECONFIG": str(server.kubeconfig_for(USER)),
        "KOPF_RUN_NAMESPACE": NS,
    }
    kopf = Path(sys.executable).with_name("kopf")
    process = await asyncio.create_subprocess_exec(
        str(kopf),
        "run",
        mode,
        str(EXAMPLES / "kopf_operator.py"),
        cwd=EXAMPLES,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    # kube-apiserver's words; kopf may log the Status's message with its quotes escaped
    refusal = re.compile(
        rf'User \\?"{re.escape(USER)}\\?" cannot [a-z]+ resource \\?"{re.escape(resource)}\\?"'
        rf' in API group \\?"{re.escape(group)}\\?" in the namespace \\?"{NS}\\?"'
    )
    seen: list[str] = []
    try:
        assert process.stderr is not None
        while not refusal.search("".join(seen)):
            line = await asyncio.wait_for(process.stderr.readline(), 60)
            assert line, "".join(seen)
            seen.append(line.decode())
    finally:
        await stop(process)
    return seen


async def stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM; SIGKILL if kopf is still retrying a refused request after 10 s."""
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.communicate(), 10)
    except TimeoutError:
        process.kill()
        await process.communicate()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("index", "resource", "group", "mode"),
    [
        (0, "trainingruns", "training.example.com", "--standalone"),
        (1, "trainingruns/status", "training.example.com", "--standalone"),
        (4, "pods", "", "--standalone"),
        (5, "kopfpeerings", "kopf.dev", "--peering=default"),
    ],
)
@pytest.mark.fake_apiserver(resources=[*DEFAULT_RESOURCES, TRAINING_RUNS], authorization="RBAC")
async def test_without_any_one_rule_of_the_manifest_the_operator_is_refused(
    fake_apiserver: FakeAPIServer, index: int, resource: str, group: str, mode: str
) -> None:
    """Each rule of the manifest is needed: without it the operator logs the server's 403 on
    its resource. Rules 2 and 3 (the PodGroups' list and watch, the Events' create) are kopf's
    needs that the SDK's Role grants too (``cache``, ``reconcile``)."""
    namespace(fake_apiserver)
    install_training_runs(fake_apiserver, mode)
    grant(fake_apiserver, sdk_role())
    documents = manifest_without(index)
    assert {r["resources"][0] for r in documents[0]["rules"]}.isdisjoint({resource})
    grant(fake_apiserver, documents)
    await refused(fake_apiserver, mode, resource, group)
