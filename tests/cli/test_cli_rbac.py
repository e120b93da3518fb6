"""``workloadbuilder rbac``: the Role (or ClusterRole) and binding of ``aio.required_rules``."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from cli_paths import ROOT
from cluster_support import GROUP_NAME, NS, TRAINING, WORKLOAD
from typer.main import get_command
from typer.testing import CliRunner

from workloadbuilder import aio
from workloadbuilder.cli import app
from workloadbuilder.cli._permissions import COMMAND_VERBS
from workloadbuilder.testing import FakeAPIServer

RUNNER = CliRunner()
RBAC = ("rbac.authorization.k8s.io", "v1")


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
    # a command that does not exist is no verb either (`workloadbuilder wait`: No such command)
    assert RUNNER.invoke(app, ["wait"]).exit_code == 2
    wait = RUNNER.invoke(app, ["rbac", "wait", "-n", "ml", "--service-account", "x"])
    assert wait.exit_code == 2 and "unknown verb 'wait'" in wait.output
    listed = re.search(r"give a command \(([^)]*)\)", wait.output)
    assert listed and listed.group(1).split(", ") == sorted(COMMAND_VERBS)
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


def _cluster_commands() -> set[str]:
    """The commands that take --kubeconfig, read from the command line itself."""
    commands = get_command(app).commands  # type: ignore[attr-defined]  # a group
    return {
        name
        for name, command in commands.items()
        if any("--kubeconfig" in getattr(p, "opts", ()) for p in command.params)
    }


def test_the_commands_rbac_takes_are_the_commands_on_the_cluster() -> None:
    assert set(COMMAND_VERBS) == _cluster_commands()
    shown = re.sub("[│╭╮╰╯─]", " ", RUNNER.invoke(app, ["rbac", "--help"]).output)  # the box
    assert f"the commands ({', '.join(COMMAND_VERBS)})" in " ".join(shown.split())
    page = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    (listed,) = re.findall(r"or the commands ((?:`[a-z]+`(?:, | and ))+`[a-z]+`)", page)
    assert re.findall(r"`([a-z]+)`", listed) == list(COMMAND_VERBS)


# What each command is run on, once the administrator has applied the training spec, and its
# exit code then (inspect finds the gang without pods: 1).
RUNS = {
    "apply": ["apply", str(TRAINING)],
    "delete": ["delete", WORKLOAD, "-n", NS],
    "diagnose": ["diagnose", GROUP_NAME, "-n", NS],
    "inspect": ["inspect", "-n", NS],
    "status": ["status", WORKLOAD, "-n", NS],
}


@pytest.mark.parametrize("command", sorted(COMMAND_VERBS))
async def test_the_role_rbac_prints_for_a_command_lets_it_run(command: str, tmp_path: Path) -> None:
    """On the RBAC authorizer (kube-apiserver's rules), as a ServiceAccount bound to exactly
    what `rbac COMMAND` prints, the command runs; with no Role it is refused."""
    printed = RUNNER.invoke(app, ["rbac", command, "-n", NS, "--service-account", "runner"])
    assert printed.exit_code == 0, printed.output
    role, binding = yaml.safe_load_all(printed.output)
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        admin = {"KUBECONFIG": str(server.kubeconfig_path)}
        applied = await asyncio.to_thread(RUNNER.invoke, app, ["apply", str(TRAINING)], env=admin)
        assert applied.exit_code == 0, applied.output
        config = yaml.safe_load(server.kubeconfig_path.read_text())
        user = f"system:serviceaccount:{NS}:runner"
        config["users"][0]["user"]["token"] = server.token_for(user)
        kubeconfig = tmp_path / "runner.yaml"
        kubeconfig.write_text(yaml.safe_dump(config))
        env = {"KUBECONFIG": str(kubeconfig)}
        refused = await asyncio.to_thread(RUNNER.invoke, app, RUNS[command], env=env)
        server.create_object(*RBAC, "roles", role)
        server.create_object(*RBAC, "rolebindings", binding)
        allowed = await asyncio.to_thread(RUNNER.invoke, app, RUNS[command], env=env)
    assert refused.exit_code == 1 and "is forbidden" in refused.output, refused.output
    assert allowed.exit_code == (1 if command == "inspect" else 0), allowed.output
    assert "forbidden" not in allowed.output


def test_a_custom_resource_is_a_cache_kind_by_its_crd_name() -> None:
    """A CRD is named ``<plural>.<group>`` (apiextensions' validation of metadata.name), and
    its objects are listed and watched as that group's resource of that plural."""
    args = ["rbac", "cache", "-n", "ml", "--service-account", "x"]
    args += ["--cache-kind", "trainingjobs.example.com", "--cache-kind", "Pod"]
    result = RUNNER.invoke(app, args)
    assert result.exit_code == 0, result.output
    role, _ = yaml.safe_load_all(result.output)
    assert role["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch"]},
        {"apiGroups": ["example.com"], "resources": ["trainingjobs"], "verbs": ["list", "watch"]},
    ]


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
