"""The outputs the pages show of the commands on a cluster are the commands' own: each is
run against the test API server and compared with its ``docs/snippets/`` file (written from
the command by ``WORKLOADBUILDER_WRITE_SNIPPETS=1``), and the page shows it after that command.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_paths import ROOT
from cluster_support import cli, create_namespace
from docs_pages import SESSIONS, assert_shown, assert_snippet
from server_process import server_kubeconfigs

from workloadbuilder.testing import FakeAPIServer

KUBECTL = shutil.which("kubectl")


@pytest.fixture(autouse=True)
def _at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the paths as the pages write them


async def test_cli_md_apply_and_delete(fake_apiserver: FakeAPIServer) -> None:
    create_namespace(fake_apiserver)
    runs = [
        ("apply-training-dry-run.txt", "apply examples/specs/training.yaml --dry-run=server"),
        ("apply-training.txt", "apply examples/specs/training.yaml"),
        ("delete-training.txt", "delete -f examples/specs/training.yaml"),
    ]
    for snippet, command in runs:
        result = await cli(fake_apiserver, *command.split())
        assert result.exit_code == 0, result.output
        assert_snippet(snippet, result.stdout + result.stderr)
        assert_shown("cli.md", f"workloadbuilder {command}", snippet)
    again = await cli(fake_apiserver, "delete", "-f", "examples/specs/training.yaml")
    assert again.exit_code == 1  # so --ignore-not-found, shown without output, is needed
    quiet = "delete -f examples/specs/training.yaml --ignore-not-found"
    ignored = await cli(fake_apiserver, *quiet.split())
    assert (ignored.exit_code, ignored.stdout, ignored.stderr) == (0, "", "")
    assert f"$ workloadbuilder {quiet}\n```" in (ROOT / "docs" / "cli.md").read_text()


async def test_cli_md_apply_without_the_composite_api() -> None:
    async with FakeAPIServer(feature_gates={"CompositePodGroup": False}) as server:
        create_namespace(server)
        result = await cli(server, "apply", "examples/specs/release.yaml")
    assert result.exit_code == 1
    assert_snippet("apply-release-without-composite.txt", result.stdout + result.stderr)
    shown = "workloadbuilder apply examples/specs/release.yaml"
    assert_shown("cli.md", shown, "apply-release-without-composite.txt")


async def _run(*args: str, stdin: bytes = b"", env: dict[str, str]) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    out, err = await proc.communicate(stdin)
    assert proc.returncode is not None
    return proc.returncode, out.decode() + err.decode()


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
async def test_getting_started_applies_with_kubectl_on_a_fresh_cluster(tmp_path: Path) -> None:
    """The page's steps on a cluster with nothing in it: without the namespace kubectl's
    answer is NotFound; the page creates it first."""
    assert KUBECTL is not None
    async with FakeAPIServer() as server:
        env = {**os.environ, "HOME": str(tmp_path), "KUBECONFIG": str(server.kubeconfig_path)}
        build = "build examples/specs/training.yaml"
        code, built = await _run(sys.executable, "-m", "workloadbuilder", *build.split(), env=env)
        assert code == 0, built
        apply = [KUBECTL, "apply", "--server-side", "-f", "-"]
        early, answer = await _run(*apply, stdin=built.encode(), env=env)
        assert early == 1 and 'namespaces "ml-training" not found' in answer, answer
        code, created = await _run(KUBECTL, "create", "namespace", "ml-training", env=env)
        assert code == 0, created
        code, applied = await _run(*apply, stdin=built.encode(), env=env)
        assert code == 0, applied
    assert_snippet("create-namespace.txt", created)
    assert_shown(
        "getting-started.md", "kubectl create namespace ml-training", "create-namespace.txt"
    )
    assert_snippet("build-kubectl-apply-training.txt", applied)
    piped = f"workloadbuilder {build} | kubectl apply --server-side -f -"
    assert_shown("getting-started.md", piped, "build-kubectl-apply-training.txt")


def _masked(lines: list[str]) -> list[str]:
    """A kubectl table's AGE (the last column), a server's temporary directory: what differs
    from run to run."""
    lines = [re.sub(r"apiserver-[^/]+/", "apiserver-X/", line) for line in lines]
    return [re.sub(r"  (\d+s|AGE)$", "  AGE", line) for line in lines]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.parametrize("session", SESSIONS, ids=[" ".join(s[0][0]) for s in SESSIONS])
def test_testing_md_shell_sessions_print_what_the_page_shows(
    session: list[tuple[list[str], list[str]]], tmp_path: Path
) -> None:
    """The standalone server started as the page starts it; each kubectl command after it
    prints the lines shown (its AGE column and the server's directory aside)."""
    assert KUBECTL is not None
    (start, printed), *steps = session
    with server_kubeconfigs(*start[3:], count=len(printed)) as kubeconfigs:
        assert _masked([str(k) for k in kubeconfigs]) == _masked(printed)
        actual = {shown: str(path) for shown, path in zip(printed, kubeconfigs, strict=True)}
        env = {**os.environ, "HOME": str(tmp_path), "KUBECONFIG": str(kubeconfigs[0])}
        for argv, shown in steps:
            if argv[0] == "export":
                name, _, value = argv[1].partition("=")
                assert name == "KUBECONFIG" and value in actual, argv
                env["KUBECONFIG"] = actual[value]
                continue
            assert argv[0] == "kubectl", argv
            args = [actual.get(a, a) for a in argv[1:]]  # a printed kubeconfig: this run's
            result = subprocess.run(
                [KUBECTL, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
            )
            said = result.stdout + (result.stderr if result.returncode else "")  # errors too
            assert _masked(said.splitlines()) == _masked(shown), result.stderr
