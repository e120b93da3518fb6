"""Kubeconfigs broken at every level, exec credential plugins that fail or hang, redirects.

Whatever is wrong, ``new_client`` raises ``KubeconfigError`` naming the file, the context and
the key, and no credential of the kubeconfig (token, password, client key, exec plugin output)
reaches the message, the repr, the traceback, a log line or the CLI's stderr. kubernetes-asyncio
on its own prints a user entry with a missing level, token included (its ``ConfigNode`` names
entries by their repr).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from apply_support import gang_pod_groups
from hostile_servers import TOKEN, discovery, kubeconfig, serve
from typer.testing import CliRunner

from workloadbuilder import aio
from workloadbuilder.cli import app

PASSWORD = "wbpass-HOSTILE-91c2"
KEY = "-----BEGIN EC PRIVATE KEY-----\nwbkey-HOSTILE-0d4e\n-----END EC PRIVATE KEY-----\n"
KEY_DATA = base64.b64encode(KEY.encode()).decode()
PLUGIN_SECRET = "wbexec-HOSTILE-7a1b"
ENV_SECRET = "wbenv-HOSTILE-33f0"
SECRETS = (TOKEN, PASSWORD, KEY_DATA, "wbkey-HOSTILE-0d4e", PLUGIN_SECRET, ENV_SECRET)
FAST = aio.RetryPolicy(attempts=1)


def user(**extra: Any) -> dict[str, Any]:
    """A user entry holding every kind of credential."""
    return {
        "name": "u",
        "user": {
            "token": TOKEN,
            "username": "admin",
            "password": PASSWORD,
            "client-key-data": KEY_DATA,
            **extra,
        },
    }


def config(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
        "users": [user()],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "ctx",
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def plugin(tmp_path: Path, body: str) -> dict[str, Any]:
    """An exec entry running ``body`` as a Python script (with a secret in its env)."""
    script = tmp_path / "plugin.py"
    script.write_text(body)
    return {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": sys.executable,
        "args": [str(script)],
        "env": [{"name": "PLUGIN_SECRET", "value": ENV_SECRET}],
    }


def with_exec(tmp_path: Path, body: str) -> dict[str, Any]:
    return config(users=[exec_user(plugin(tmp_path, body))])


CREDENTIAL = {
    "apiVersion": "client.authentication.k8s.io/v1beta1",
    "kind": "ExecCredential",
    "status": {"token": PLUGIN_SECRET},
}


def exec_user(entry: dict[str, Any]) -> dict[str, Any]:
    return {"name": "u", "user": {"exec": entry}}


def printing(answer: Any) -> str:
    """A plugin script printing ``answer`` as JSON."""
    return f"import json\nprint(json.dumps({answer!r}))\n"


MISSING_PLUGIN = {"apiVersion": "v1", "command": "/nonexistent/wb-plugin"}
FAILS = f"import sys\nprint({PLUGIN_SECRET!r}, file=sys.stderr)\nsys.exit(3)\n"
GARBAGE = f"import os\nprint('token:', {PLUGIN_SECRET!r}, os.environ['PLUGIN_SECRET'])\n"
FLOODS = (  # the credential, then output without end: stopped past the 1 MiB limit
    f"import json, sys\nsys.stdout.write(json.dumps({CREDENTIAL!r}))\n"
    "while True:\n    sys.stdout.write(' ' * 65536)\n"
)
OTHER_VERSION = printing({**CREDENTIAL, "apiVersion": "v0"})
NO_TOKEN = printing({**CREDENTIAL, "status": {"expirationTimestamp": PLUGIN_SECRET}})
HTTPS_CLUSTER = {
    "name": "c",
    "cluster": {"server": "https://127.0.0.1:9", "insecure-skip-tls-verify": True},
}
OIDC = {"name": "oidc", "config": {"id-token": TOKEN, "client-secret": PASSWORD}}

# (id, the kubeconfig as text or a function of tmp_path, context, what the message says)
BROKEN: list[tuple[str, Any, str | None, str]] = [
    ("empty file", "", None, "is empty"),
    ("scalar", f"{TOKEN}\n", None, "holds a string, not a mapping"),
    ("list", json.dumps([config()]), None, "holds a list, not a mapping"),
    ("bad YAML", f"users:\n- name: u\n  user:\n    token: {TOKEN}\n   password: x\n", None,
     "is not valid YAML at line 5"),
    ("no current-context", config(**{"current-context": None}), None,
     "no current-context is set; pass a context (one of: ctx)"),
    ("unknown context", config(), "nope", 'context "nope" not found (contexts: ctx)'),
    ("users not a list", config(users={"u": user()["user"]}), None,
     "users is a mapping, not a list of entries"),
    ("user entry not a mapping", config(users=[TOKEN]), None, "users[0] is a string"),
    ("user entry without name", config(users=[{"user": user()["user"]}]), None,
     'users[0]: missing key "name"'),
    ("user entry missing its level", config(users=[{"name": "u", **user()["user"]}]), None,
     'users[name=u]: missing key "user"'),
    ("user level a scalar", config(users=[{"name": "u", "user": TOKEN}]), None,
     'context "ctx": users[name=u].user is a string, not a mapping'),
    ("context entry missing its level", config(contexts=[{"name": "ctx", "cluster": "c"}]), None,
     'contexts[name=ctx]: missing key "context"'),
    ("context without cluster", config(contexts=[{"name": "ctx", "context": {"user": "u"}}]),
     None, 'context "ctx": contexts[name=ctx].context: missing key "cluster"'),
    ("unknown cluster",
     config(contexts=[{"name": "ctx", "context": {"cluster": "zz", "user": "u"}}]), None,
     'context "ctx": cluster "zz" not found'),
    ("unknown user",
     config(contexts=[{"name": "ctx", "context": {"cluster": "c", "user": "zz"}}]), None,
     'context "ctx": user "zz" not found'),
    ("cluster without server", config(clusters=[{"name": "c", "cluster": {}}]), None,
     'context "ctx": clusters[name=c].cluster: missing key "server"'),
    ("exec without command",
     config(users=[user(exec={"apiVersion": "client.authentication.k8s.io/v1beta1"})]), None,
     'context "ctx": users[name=u].user.exec: missing key "command"'),
    ("exec args not a list",
     config(users=[user(exec={"apiVersion": "v1", "command": "x", "args": TOKEN})]), None,
     "users[name=u].user.exec.args is a string, not a list"),
    ("exec plugin missing", config(users=[exec_user(MISSING_PLUGIN)]), None,
     "the exec credential plugin 'wb-plugin' cannot be started"),
    ("exec plugin fails", lambda tmp: with_exec(tmp, FAILS), None,
     "exited with code 3 (its output is not shown"),
    ("exec plugin prints garbage", lambda tmp: with_exec(tmp, GARBAGE), None,
     "did not print an ExecCredential"),
    ("exec plugin prints without end", lambda tmp: with_exec(tmp, FLOODS), None,
     "printed more than 1048576 bytes ("),
    ("exec plugin answers another apiVersion", lambda tmp: with_exec(tmp, OTHER_VERSION), None,
     "answered apiVersion 'v0', not 'client.authentication.k8s.io/v1beta1'"),
    ("exec plugin without a token", lambda tmp: with_exec(tmp, NO_TOKEN), None,
     "gave no status.token"),
    ("client key not a key",
     config(clusters=[HTTPS_CLUSTER], users=[user(**{"client-certificate-data": KEY_DATA})]),
     None, "cannot be loaded (SSLError"),
    ("oidc token not a JWT", config(users=[{"name": "u", "user": {"auth-provider": OIDC}}]), None,
     "cannot be loaded (ValueError: oidc: JWT tokens should contain 3 period-delimited parts)"),
]  # fmt: skip


def write(tmp_path: Path, content: Any) -> Path:
    if callable(content):
        content = content(tmp_path)
    path = tmp_path / "broken-kubeconfig"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def everything_said(exc: BaseException) -> str:
    return "\n".join([str(exc), repr(exc), "".join(traceback.format_exception(exc))])


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        assert [s for s in SECRETS if s in text] == [], text


@pytest.mark.parametrize(
    ("content", "context", "said"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN]
)
async def test_a_broken_kubeconfig_is_named_and_never_shows_a_credential(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: Any, context: str | None, said: str
) -> None:
    caplog.set_level(logging.DEBUG)
    path = write(tmp_path, content)
    with pytest.raises(aio.KubeconfigError) as caught:
        await aio.new_client(path, context=context)
    message = str(caught.value)
    assert said in message
    assert str(path) in message  # the file is named
    assert_no_secret(everything_said(caught.value), caplog.text)


@pytest.mark.parametrize(
    ("content", "context", "said"),
    [
        b[1:]
        for b in BROKEN
        if b[0] in ("user entry missing its level", "exec plugin fails", "list")
    ],
)
def test_the_cli_prints_a_broken_kubeconfig_as_one_line(
    tmp_path: Path, content: Any, context: str | None, said: str
) -> None:
    path = write(tmp_path, content)
    args = ["status", "w", "--kubeconfig", str(path), *(["--context", context] if context else [])]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and said in line
    assert_no_secret(result.stderr, result.stdout)


async def test_a_named_kubeconfig_that_does_not_exist_says_so(tmp_path: Path) -> None:
    with pytest.raises(aio.KubeconfigError, match=r"the kubeconfig .*/absent does not exist$"):
        await aio.new_client(tmp_path / "absent")


@pytest.mark.parametrize("kubeconfig_env", [None, "a.yaml:b.yaml"])
async def test_no_configuration_at_all_names_every_place_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kubeconfig_env: str | None
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
    if kubeconfig_env is None:
        monkeypatch.delenv("KUBECONFIG", raising=False)
    else:
        monkeypatch.setenv("KUBECONFIG", kubeconfig_env.replace(":", os.pathsep))
    with pytest.raises(aio.KubeconfigError) as caught:
        await aio.new_client()
    message = str(caught.value)
    assert "KUBECONFIG" in message and "KUBERNETES_SERVICE_HOST" in message
    assert "in a cluster" in message
    if kubeconfig_env is None:
        assert "~/.kube/config does not exist" in message
    else:
        assert "a.yaml, b.yaml, none of which exists" in message


async def test_forced_in_cluster_outside_a_cluster_is_a_kubeconfig_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(aio.KubeconfigError, match=r"in-cluster configuration .*not set"):
        await aio.new_client(in_cluster=True, token_file=tmp_path / "t", ca_file=tmp_path / "c")


# -- exec credential plugins that hang -------------------------------------------------------

HANG = """import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
open(sys.argv[1], "w").write(f"{os.getpid()} {child.pid}")
time.sleep(300)
"""


def hanging(tmp_path: Path) -> tuple[Path, Path]:
    pids = tmp_path / "pids"
    entry = plugin(tmp_path, HANG)
    entry["args"].append(str(pids))
    path = write(tmp_path, config(users=[exec_user(entry)]))
    return path, pids


def gone(pid: int) -> bool:
    """The process no longer runs (it is reaped, or a zombie waiting for init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


async def all_gone(*pids: int) -> bool:
    """Whether the processes are gone, allowing the kernel a moment to deliver a SIGKILL to
    the plugin's children (only the plugin itself is waited for)."""
    for _ in range(100):
        if all(gone(pid) for pid in pids):
            return True
        await asyncio.sleep(0.05)
    return False


async def wait_for(path: Path) -> list[int]:
    for _ in range(200):
        if path.exists() and path.read_text():
            return [int(p) for p in path.read_text().split()]
        await asyncio.sleep(0.05)
    raise AssertionError("the plugin never started")


async def test_a_hanging_exec_plugin_is_killed_at_its_timeout(tmp_path: Path) -> None:
    path, pids = hanging(tmp_path)
    started = time.monotonic()
    with pytest.raises(aio.KubeconfigError, match=r"did not answer within 1.5s and was stopped"):
        await aio.new_client(path, exec_timeout=1.5)
    assert time.monotonic() - started < 10
    plugin_pid, child_pid = await wait_for(pids)
    assert await all_gone(plugin_pid, child_pid)  # its whole process group


async def test_a_cancelled_exec_plugin_is_killed(tmp_path: Path) -> None:
    path, pids = hanging(tmp_path)
    task = asyncio.create_task(aio.new_client(path))  # the default timeout is a minute
    plugin_pid, child_pid = await wait_for(pids)
    assert not gone(plugin_pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone(plugin_pid)  # waited for
    assert await all_gone(child_pid)


async def test_an_exec_plugin_token_is_used(tmp_path: Path) -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.json_response(discovery("scheduling.k8s.io/v1beta1", ["podgroups"]))

    async with serve(handler) as server:
        cfg = with_exec(tmp_path, printing(CREDENTIAL))
        cfg["clusters"][0]["cluster"]["server"] = server.url
        api = await aio.new_client(write(tmp_path, cfg))
        try:
            await aio.preflight(api, gang_pod_groups(1))
        finally:
            await api.close()
    assert [r.authorization for r in server.requests] == [f"Bearer {PLUGIN_SECRET}"]


# -- redirects -------------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", ["kubernetes_asyncio", "kubernetes.aio"])
async def test_a_redirect_to_another_host_is_not_followed(tmp_path: Path, flavour: str) -> None:
    async def elsewhere(request: web.Request) -> web.Response:
        return web.json_response(discovery("scheduling.k8s.io/v1beta1", ["podgroups"]))

    async with serve(elsewhere) as other:

        async def redirect(request: web.Request) -> web.Response:
            raise web.HTTPTemporaryRedirect(f"{other.url}{request.path_qs}")

        async with serve(redirect) as server:
            path = kubeconfig(tmp_path, server.url)
            if flavour == "kubernetes_asyncio":
                api = await aio.new_client(path)
            else:
                from kubernetes.aio import config as official

                api = await official.new_client_from_config(config_file=str(path))
            try:
                with pytest.raises(aio.APIError) as caught:
                    await aio.preflight(api, gang_pod_groups(1), retry=FAST)
            finally:
                await api.close()
    assert caught.value.status == 307
    assert f"redirecting to 127.0.0.1:{other.port}" in str(caught.value)
    assert "not followed" in str(caught.value)
    assert [r.authorization for r in server.requests] == [f"Bearer {TOKEN}"]
    if flavour == "kubernetes_asyncio":
        assert other.requests == []  # never sent
    else:  # the official client's session follows; it dropped the credential, we refuse it
        assert [r.authorization for r in other.requests] == [None]


async def test_a_context_without_any_kubeconfig_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")  # in a cluster, yet not used
    with pytest.raises(aio.KubeconfigError, match='context "prod" was asked for, but'):
        await aio.new_client(context="prod")


async def test_a_failing_credential_refresh_is_an_api_error_that_quotes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    def refresh(configuration: Any) -> None:
        raise RuntimeError(f"cannot refresh {TOKEN}: {PASSWORD}")

    async def handler(request: web.Request) -> web.Response:
        return web.json_response(discovery("scheduling.k8s.io/v1beta1", ["podgroups"]))

    async with serve(handler) as server:
        api = await aio.new_client(kubeconfig(tmp_path, server.url))
        api.configuration.refresh_api_key_hook = refresh
        try:
            with pytest.raises(aio.APIError) as caught:
                await aio.preflight(api, gang_pod_groups(1), retry=FAST)
        finally:
            await api.close()
    assert "could not set the request's credentials (RuntimeError)" in str(caught.value)
    assert_no_secret(everything_said(caught.value), caplog.text)
    assert server.requests == []  # nothing was sent without them
