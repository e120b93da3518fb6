"""Security hygiene: no credential in a log line, an exception or a repr; TLS verified unless
the user turns it off."""

from __future__ import annotations

import json
import logging
import ssl
import subprocess
import sys
import traceback
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from aiohttp import web
from apply_support import NS, apply_server, gang_pod_groups, release_builder, release_objects
from test_apply_reconcile_job import job

from workloadbuilder import aio
from workloadbuilder.aio.wire.transport import Transport

TOKEN = "wbtoken-SECRET-7f3a9c51"
EXEC_TOKEN = "wbexec-SECRET-2b8d4e60"
FAST = aio.RetryPolicy(attempts=2, initial_wait=0.01, max_wait=0.01, jitter=0)


def write_kubeconfig(tmp_path: Path, server: str, *, tls: str = "") -> Path:
    """Contexts ``token`` (a bearer token) and ``exec`` (an exec credential plugin)."""
    plugin = tmp_path / "credential_plugin.py"
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"token": EXEC_TOKEN},
    }
    plugin.write_text(f"import json\nprint(json.dumps({credential!r}))\n")
    path = tmp_path / "kubeconfig"
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
{tls}
users:
- name: token-user
  user:
    token: {TOKEN}
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: {sys.executable}
      args: ["{plugin}"]
      interactiveMode: Never
contexts:
- name: token
  context: {{cluster: c, user: token-user, namespace: {NS}}}
- name: exec
  context: {{cluster: c, user: exec-user, namespace: {NS}}}
current-context: token
"""
    )
    return path


def everything_said(exc: BaseException) -> list[str]:
    """What a user can see of an exception: message, repr, traceback, and its parts."""
    texts = [str(exc), repr(exc), "".join(traceback.format_exception(exc))]
    for part in getattr(exc, "failures", {}).values():
        texts += [str(part), repr(part), json.dumps(part.status_body)]
    return texts


@pytest.mark.parametrize(("context", "secret"), [("token", TOKEN), ("exec", EXEC_TOKEN)])
async def test_no_credential_in_logs_exceptions_or_reprs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, context: str, secret: str
) -> None:
    caplog.set_level(logging.DEBUG)
    texts: list[str] = []
    async with apply_server() as server:
        api = await aio.new_client(write_kubeconfig(tmp_path, server.url), context=context)
        try:
            applied = await aio.apply(api, release_objects(), field_manager="ctl")
            texts += [repr(o) for o in applied]
            # The user's credential was sent: the helpers use the configured client's auth.
            assert {r.headers.get("Authorization") for r in server.requests} == {f"Bearer {secret}"}
            texts.append(repr(server.requests[0]))

            bad = gang_pod_groups(1)[0].to_dict()
            bad["spec"]["schedulingPolicy"]["gang"]["minCount"] = -1
            with pytest.raises(aio.ApplyError) as invalid:
                await aio.apply(api, [bad], field_manager="ctl")
            await aio.apply(api, gang_pod_groups(1), field_manager="other")
            bad["spec"]["schedulingPolicy"]["gang"]["minCount"] = 7
            with pytest.raises(aio.ApplyError) as conflict:
                await aio.apply(api, [bad], field_manager="ctl")
            server.faults.add(status=503, times=5)
            with pytest.raises(aio.ApplyError) as gave_up:
                await aio.apply(api, gang_pod_groups(1), field_manager="ctl", retry=FAST)
            with pytest.raises(ValueError) as refused:
                await aio.resize(api, release_objects()[1], 2)
            for caught in (invalid, conflict, gave_up, refused):
                texts += everything_said(caught.value)
            texts.append(repr(await aio.resize(api, gang_pod_groups(1)[0], 3)))
            texts.append(repr(await aio.reconcile(api, release_builder(), field_manager="ctl")))
            texts.append(repr(await aio.delete(api, release_objects()[0])))
            created = server.create_object("batch", "v1", "jobs", job())
            texts.append(repr(await aio.reconcile_job(api, created, field_manager="ctl")))
            texts.append(repr(Transport(api)))
            texts.append(repr(aio.RetryPolicy()))
        finally:
            await api.close()
    async with apply_server() as gone:
        url = gone.url
    api = await aio.new_client(write_kubeconfig(tmp_path, url), context=context)
    try:
        with pytest.raises(aio.UnreachableError) as unreachable:  # refused: not retried
            await aio.preflight(api, gang_pod_groups(1), retry=FAST)
        texts += everything_said(unreachable.value)
        assert "was refused - did you specify the right host or port?" in str(unreachable.value)
        with pytest.raises(aio.APIError) as retried:
            await aio.preflight(
                api, gang_pod_groups(1), retry=replace(FAST, retry_unreachable=True)
            )
        texts += everything_said(retried.value)
        assert "still failing after 2 attempts" in str(retried.value)
    finally:
        await api.close()
    texts += [r.getMessage() for r in caplog.records]
    texts.append(caplog.text)
    assert any("retrying" in r.getMessage() for r in caplog.records)  # logs were captured
    leaks = [t for t in texts if secret in t]
    assert leaks == []


# -- TLS ---------------------------------------------------------------------------------------


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@asynccontextmanager
async def tls_discovery_server(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    """An HTTPS server on loopback that serves scheduling.k8s.io/v1beta1 discovery."""
    cert, key = self_signed(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def discovery(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":  # the credential is used
            return web.json_response({"kind": "Status", "code": 401}, status=401)
        return web.json_response({"kind": "APIResourceList", "resources": [{"name": "podgroups"}]})

    app = web.Application()
    app.router.add_get("/apis/scheduling.k8s.io/v1beta1", discovery)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"https://127.0.0.1:{port}", cert
    finally:
        await runner.cleanup()


async def test_tls_is_verified_unless_turned_off(tmp_path: Path) -> None:
    async with tls_discovery_server(tmp_path) as (url, cert):
        api = await aio.new_client(write_kubeconfig(tmp_path, url))
        try:
            assert api.configuration.verify_ssl is True
            with pytest.raises(aio.APIError) as caught:
                await aio.preflight(api, gang_pod_groups(1), retry=FAST)
            assert "certificate verify failed" in str(caught.value)
            assert "still failing" not in str(caught.value)  # never retried
            assert api.configuration.verify_ssl is True
        finally:
            await api.close()

        trusted = write_kubeconfig(tmp_path, url, tls=f"    certificate-authority: {cert}")
        api = await aio.new_client(trusted)
        try:
            await aio.preflight(api, gang_pod_groups(1))
            assert api.configuration.verify_ssl is True
        finally:
            await api.close()

        insecure = write_kubeconfig(tmp_path, url, tls="    insecure-skip-tls-verify: true")
        api = await aio.new_client(insecure)
        try:
            assert api.configuration.verify_ssl is False  # the user's explicit choice
            await aio.preflight(api, gang_pod_groups(1))
        finally:
            await api.close()


async def test_in_cluster_uses_the_service_account_token_over_verified_tls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with tls_discovery_server(tmp_path) as (url, cert):
        host, port = url.removeprefix("https://").split(":")
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", host)
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)
        token = tmp_path / "token"
        token.write_text(TOKEN)
        api = await aio.new_client(in_cluster=True, token_file=token, ca_file=cert)
        try:
            assert api.configuration.verify_ssl is True
            await aio.preflight(api, gang_pod_groups(1))
            assert TOKEN not in repr(api.configuration.host)
        finally:
            await api.close()
    assert TOKEN not in caplog.text
