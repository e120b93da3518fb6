"""Talking to the cluster of the current kubeconfig, on the SDK's async helpers: the
connection and its namespace, its errors as one-line messages, apply with a progress bar,
delete."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import yaml
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from .. import aio
from ..api.scheduling_v1alpha3 import CompositePodGroup
from ..api.scheduling_v1beta1 import PodGroup, Workload

__all__ = [
    "ClusterError",
    "Connection",
    "apply_objects",
    "default_namespace",
    "delete_workload",
    "new_progress",
    "read_workload",
    "run",
    "within",
]

_T = TypeVar("_T")
_SAFETY_NET = 1.0
SchedulingObject = Workload | PodGroup | CompositePodGroup
SERVICE_ACCOUNT_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


class ClusterError(Exception):
    """What went wrong on the cluster, as the lines to print."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)
        super().__init__("\n".join(self.lines))


@dataclass(frozen=True)
class Connection:
    """Which cluster: a kubeconfig file (``$KUBECONFIG`` by default) and a context; how long
    the command may wait for the API server (seconds, every request and retry included;
    ``None``: no bound)."""

    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: float | None = aio.RetryPolicy().request_timeout


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(h|ms|m|s)")


def parse_timeout(text: str) -> float | None:
    """kubectl's ``--request-timeout``: seconds, or a duration (``500ms``, ``30s``, ``1m30s``,
    ``2h``); ``0`` means no timeout. ``ValueError`` otherwise."""
    value = text.strip()
    if value.isdigit():
        seconds = float(value)
    else:
        parts = _DURATION.findall(value)
        if not parts or "".join(n + u for n, u in parts) != value:
            raise ValueError(
                f"invalid --request-timeout {text!r}: give seconds (30) or a number with a unit"
                " (500ms, 30s, 2m, 1h); 0 means no timeout"
            )
        scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
        seconds = sum(float(n) * scale[u] for n, u in parts)
    return seconds or None


def _kubeconfig_files(connection: Connection) -> list[Path]:
    """The kubeconfig files kubectl would merge: ``--kubeconfig``, else ``$KUBECONFIG``'s
    list, else ``~/.kube/config``."""
    if connection.kubeconfig:
        return [Path(connection.kubeconfig).expanduser()]
    listed = [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    return [Path(p).expanduser() for p in listed] or [Path("~/.kube/config").expanduser()]


def _read_kubeconfig(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_bytes())
    except (OSError, yaml.YAMLError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def default_namespace(connection: Connection) -> str:
    """The namespace kubectl would use: the context's ``namespace`` (the current context
    unless ``--context`` names one; the first file that sets a value wins, as kubectl merges),
    else the in-cluster service account's namespace, else ``default``."""
    configs = [_read_kubeconfig(p) for p in _kubeconfig_files(connection)]
    if any(configs):
        current = connection.context or next(
            (str(c["current-context"]) for c in configs if c.get("current-context")), ""
        )
        for config in configs:
            for entry in config.get("contexts") or []:
                if isinstance(entry, dict) and entry.get("name") == current:
                    context = entry.get("context") or {}
                    namespace = context.get("namespace") if isinstance(context, dict) else None
                    return str(namespace) if namespace else "default"
        return "default"
    try:
        return SERVICE_ACCOUNT_NAMESPACE.read_text().strip() or "default"
    except OSError:
        return "default"


async def run(
    connection: Connection, work: Callable[[Any], Awaitable[_T]], *, bounded: bool = True
) -> _T:
    """``work(api_client)`` on a client of ``connection``; the SDK's errors as ClusterError.

    As kubectl's ``--request-timeout``, ``connection.request_timeout`` bounds the waiting:
    each request, and (``bounded``) the whole of ``work``, retries included; a command that
    waits on purpose (``status -w``) bounds each of its reads with :func:`within` instead. A
    connection refused or a host that does not resolve fails at once (the SDK's default).
    """
    # $KUBECONFIG is read now: kubernetes-asyncio's own default is fixed when it is imported
    path = connection.kubeconfig or os.environ.get("KUBECONFIG") or None
    timeout = connection.request_timeout
    # Each request's own bound is only a safety net, a second past the command's: were both
    # the same, the client's timer could fire with the command's and swallow its cancellation.
    request = None if timeout is None else timeout + _SAFETY_NET
    with aio.default_retry(aio.RetryPolicy(request_timeout=request)):
        return await _run(path, connection, work, bounded)


def within(connection: Connection) -> asyncio.Timeout:
    """A bound of ``connection.request_timeout`` on one step of a command (``async with``);
    its ``TimeoutError`` is reported by :func:`run`."""
    timeout = connection.request_timeout
    return asyncio.timeout(timeout)


async def _run(
    path: str | None,
    connection: Connection,
    work: Callable[[Any], Awaitable[_T]],
    bounded: bool,
) -> _T:
    try:
        client = await aio.new_client(path, context=connection.context)
    except aio.KubeconfigError as exc:  # names the file, context and key, never a credential
        raise ClusterError([_one_line(str(exc))]) from None
    except Exception as exc:  # anything else: its text could quote the kubeconfig
        raise ClusterError([f"cannot load the kubeconfig ({type(exc).__name__})"]) from None
    async with client:
        try:
            if not bounded:
                return await work(client)
            async with within(connection):
                return await work(client)
        except (aio.MissingAPIError, aio.MissingPermissionsError) as exc:  # gates, rules to add
            raise ClusterError([str(exc)]) from None
        except aio.InvalidObjectError as exc:
            raise ClusterError([str(exc), *(f"  {e}" for e in exc.errors)]) from None
        except aio.ApplyError as exc:
            total = len(exc.applied) + len(exc.not_applied)
            raise ClusterError(_apply_failure(exc, len(exc.applied), total)) from None
        except aio.APIError as exc:
            raise ClusterError([_one_line(str(exc))]) from None
        except aiohttp.ClientError as exc:  # from a request sent by the client directly
            raise ClusterError([f"cannot talk to the API server: {type(exc).__name__}"]) from None
        except TimeoutError:  # the command's bound (--request-timeout) ran out
            seconds = connection.request_timeout or 0
            raise ClusterError(
                [
                    f"the API server did not answer within {seconds:g}s (--request-timeout;"
                    " 0 means no limit)"
                ]
            ) from None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _resource_name(obj: SchedulingObject) -> str:
    return f"{obj.kind.lower()}.scheduling.k8s.io/{obj.metadata.name}"


async def apply_objects(
    client: Any,
    objects: Sequence[SchedulingObject],
    *,
    field_manager: str,
    force: bool,
    dry_run: bool,
    progress: Progress,
) -> list[str]:
    """Preflight, then server-side apply one object after the other, parents first, the
    progress bar advancing per object; kubectl-style result lines."""
    await aio.preflight(client, objects)
    task = progress.add_task("applying", total=len(objects))
    applied: list[SchedulingObject] = []
    for obj in objects:
        try:
            applied += await aio.apply(
                client, [obj], field_manager=field_manager, force=force, dry_run=dry_run
            )
        except aio.ApplyError as exc:
            raise ClusterError(_apply_failure(exc, len(applied), len(objects))) from None
        progress.advance(task, 1)
    suffix = " (server dry run)" if dry_run else ""
    return [f"{_resource_name(o)} serverside-applied{suffix}" for o in applied]


def _apply_failure(exc: aio.ApplyError, applied: int, total: int) -> list[str]:
    """What a CLI user reads when an apply stops part-way: the object, why, what to run."""
    lines = []
    for ref, err in exc.failures.items():
        lines.append(f"cannot apply {ref}: {err.message}")
        if isinstance(err, aio.InvalidObjectError):
            lines += [f"  {e}" for e in err.errors]
    if exc.conflicts:
        lines.append("  --force-conflicts takes these fields over from the other manager")
    lines.append(
        f"{applied} of {total} objects applied; fix the cause and run the same"
        " `workloadbuilder apply` again: it applies the rest and changes nothing else"
    )
    return lines


def new_progress(console: Any, enabled: bool) -> Progress:
    """A progress bar on ``console`` (stderr), shown only when ``enabled``."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
        disable=not enabled,
    )


async def read_workload(client: Any, namespace: str, name: str) -> dict[str, Any] | None:
    """Workload ``name``, or ``None`` when it does not exist (read as the SDK's helpers read:
    retries, timeout, redirect refusal and answer checks)."""
    return await aio.read_object(client, "Workload", name, namespace=namespace)


async def delete_workload(
    client: Any, namespace: str, name: str, *, ignore_not_found: bool = False
) -> list[str]:
    """Delete Workload ``name`` and every group stamped from it, children first; a missing
    Workload is an error unless ``ignore_not_found``."""
    if await read_workload(client, namespace, name) is None:
        if ignore_not_found:
            return []
        raise ClusterError([f'Workload "{name}" not found in namespace "{namespace}"'])
    deleted = await aio.delete(client, name, namespace=namespace)
    held = {t.object: t for t in deleted.terminating}
    return [
        f"{ref.kind.lower()}.scheduling.k8s.io/{ref.name} "
        + (f"terminating: {held[ref].why}; {held[ref].action}" if ref in held else "deleted")
        for ref in deleted
    ]
