"""``workloadbuilder rbac``: the Role (or ClusterRole) and binding of ``aio.required_rules``."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from workloadbuilder import aio
from workloadbuilder.cli import app
from workloadbuilder.testing import FakeAPIServer

RUNNER = CliRunner()


def test_it_prints_a_role_and_its_binding_for_kubectl_apply() -> None:
    result = RUNNER.invoke(
        app, ["rbac", "reconcile-job", "cache", "-n", "ml", "--service-account", "trainer"]
    )
    assert result.exit_code == 0, result.output
    role, binding = yaml.safe_load_all(result.output)
    assert role["kind"] == "Role" and role["metadata"] == {
        "name": "workloadbuilder",
        "namespace": "ml",
    }
    wanted = aio.required_rules("reconcile_job", "cache", namespace="ml").rules
    assert role["rules"] == [r.to_dict() for r in wanted]
    assert binding["kind"] == "RoleBinding"
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "workloadbuilder",
    }
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "trainer", "namespace": "ml"}]


def test_every_namespace_is_a_cluster_role() -> None:
    result = RUNNER.invoke(
        app, ["rbac", "cache", "-A", "-n", "ops", "--service-account", "ctl", "--name", "c"]
    )
    assert result.exit_code == 0, result.output
    role, binding = yaml.safe_load_all(result.output)
    assert (role["kind"], binding["kind"]) == ("ClusterRole", "ClusterRoleBinding")
    assert "namespace" not in role["metadata"]
    assert binding["subjects"][0]["namespace"] == "ops"


def test_an_unknown_verb_or_no_namespace_is_a_usage_error() -> None:
    unknown = RUNNER.invoke(app, ["rbac", "aply", "-n", "ml", "--service-account", "x"])
    assert unknown.exit_code == 2
    assert "unknown verb 'aply'" in unknown.output
    nowhere = RUNNER.invoke(app, ["rbac", "apply", "--service-account", "x"])
    assert nowhere.exit_code == 2
    assert "-n NAMESPACE, or -A" in nowhere.output


async def test_a_refused_command_prints_the_refusal_and_the_rule_on_one_line() -> None:
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        kubeconfig = server.kubeconfig_for("system:serviceaccount:ml:trainer")
        result = await asyncio.to_thread(
            RUNNER.invoke, app, ["inspect", "-n", "ml"], env={"KUBECONFIG": str(kubeconfig)}
        )
    assert result.exit_code == 1, result.output
    [line] = result.output.strip().splitlines()
    # kube-apiserver's words (responsewriters forbiddenMessage), then the rule to add
    # (the kinds are read at once: whichever refusal comes first is the one told)
    assert line.startswith("error: ")
    assert ' is forbidden: User "system:serviceaccount:ml:trainer" cannot list resource ' in line
    assert line.endswith('to a Role in namespace "ml" bound to ServiceAccount ml/trainer')


def test_cache_kinds_narrow_the_cache_rules() -> None:
    args = ["rbac", "cache", "--cache-kind", "Pod", "-n", "ml", "--service-account", "x"]
    role, _ = yaml.safe_load_all(RUNNER.invoke(app, args).output)
    assert role["rules"] == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch"]}]
    wrong = RUNNER.invoke(
        app, ["rbac", "cache", "--cache-kind", "Node", "-n", "ml", "--service-account", "x"]
    )
    assert wrong.exit_code == 2 and "a cache holds Event, Pod, Job" in wrong.output


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
async def test_the_docs_pipe_into_kubectl_apply_works_on_the_default_test_server(
    tmp_path: Path,
) -> None:
    # docs/apply.md, cli.md and kopf.md: `workloadbuilder rbac ... | kubectl apply -f -`;
    # kube-apiserver serves the RBAC kinds whatever its authorization mode.
    args = ["rbac", "reconcile-job", "cache", "-n", "ml", "--service-account", "trainer"]
    manifest = RUNNER.invoke(app, args).output
    async with FakeAPIServer(auto_create_namespaces=True) as server:
        kubectl = await asyncio.create_subprocess_exec(
            str(shutil.which("kubectl")),
            f"--kubeconfig={server.kubeconfig_path}",
            f"--cache-dir={tmp_path / 'cache'}",
            "apply",
            "-f",
            "-",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        out, _ = await kubectl.communicate(manifest.encode())
    assert (kubectl.returncode, out.decode()) == (
        0,
        "role.rbac.authorization.k8s.io/workloadbuilder created\n"
        "rolebinding.rbac.authorization.k8s.io/workloadbuilder created\n",
    )
