"""Running a kubeconfig's exec credential plugin, bounded in time and killed when abandoned.

The plugin runs in its own process group with no terminal input (``spec.interactive`` is
false); when it does not answer within the timeout, or the call is cancelled, the whole group
is killed and reaped. What it prints is never put in a message: it is the credential, or an
error that may quote it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Mapping
from typing import Any

from ..errors import KubeconfigError

__all__ = ["EXEC_OUTPUT_LIMIT", "EXEC_TIMEOUT", "run_exec_plugin"]

EXEC_TIMEOUT = 60.0
"""Seconds an exec credential plugin may take before it is killed."""
EXEC_OUTPUT_LIMIT = 1 << 20
"""The most an exec credential plugin may print (1 MiB): an ExecCredential (a token, or a
client certificate and key) is a few KiB; a plugin that prints more is killed."""


async def run_exec_plugin(
    exec_config: Mapping[str, Any], *, timeout: float, where: str
) -> Mapping[str, Any]:
    """The plugin's ``ExecCredential.status``; ``KubeconfigError`` (naming ``where`` and the
    command) when it cannot start, fails, hangs or answers something else."""
    command = str(exec_config["command"])
    api_version = str(exec_config["apiVersion"])
    plugin = f"{where}: the exec credential plugin {os.path.basename(command)!r}"
    env = dict(os.environ)
    env.update({str(e["name"]): str(e["value"]) for e in exec_config.get("env") or ()})
    info = {"apiVersion": api_version, "kind": "ExecCredential", "spec": {"interactive": False}}
    env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    try:
        process = await asyncio.create_subprocess_exec(
            command,
            *(str(a) for a in exec_config.get("args") or ()),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,  # never shown: it may quote the credential
            start_new_session=True,
        )
    except OSError as exc:
        raise KubeconfigError(f"{plugin} cannot be started: {exc.strerror}") from None
    try:
        async with asyncio.timeout(timeout):
            out = await _read_output(process, plugin)
            await process.wait()
    except TimeoutError:
        raise KubeconfigError(
            f"{plugin} did not answer within {timeout:g}s and was stopped"
        ) from None
    finally:
        if process.returncode is None:  # timed out or cancelled: kill it and its children
            _kill(process)
            await asyncio.shield(process.wait())
    if process.returncode != 0:
        raise KubeconfigError(
            f"{plugin} exited with code {process.returncode} (its output is not shown: it may"
            " hold a credential; run the command yourself to see it)"
        )
    return _status(out, api_version, plugin)


async def _read_output(process: asyncio.subprocess.Process, plugin: str) -> bytes:
    """Everything the plugin prints, up to ``EXEC_OUTPUT_LIMIT``; ``KubeconfigError`` (the
    plugin is then killed by the caller) when it prints more."""
    assert process.stdout is not None
    chunks: list[bytes] = []
    size = 0
    while chunk := await process.stdout.read(1 << 16):
        size += len(chunk)
        if size > EXEC_OUTPUT_LIMIT:
            raise KubeconfigError(
                f"{plugin} printed more than {EXEC_OUTPUT_LIMIT} bytes ({size} so far; an"
                " ExecCredential is a few KiB) and was stopped"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _status(out: bytes, api_version: str, plugin: str) -> Mapping[str, Any]:
    try:
        answer = json.loads(out)
    except ValueError:
        answer = None
    if not isinstance(answer, Mapping) or answer.get("kind") != "ExecCredential":
        raise KubeconfigError(f"{plugin} did not print an ExecCredential")
    if answer.get("apiVersion") != api_version:
        raise KubeconfigError(
            f"{plugin} answered apiVersion {str(answer.get('apiVersion'))[:60]!r},"
            f" not {api_version!r} as the kubeconfig asks"
        )
    status = answer.get("status")
    if not isinstance(status, Mapping) or not (
        isinstance(status.get("token"), str)
        or (
            isinstance(status.get("clientCertificateData"), str)
            and isinstance(status.get("clientKeyData"), str)
        )
    ):
        raise KubeconfigError(
            f"{plugin} gave no status.token nor status.clientCertificateData and clientKeyData"
        )
    return status


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    except AttributeError:  # pragma: no cover - no process groups (Windows)
        process.kill()
