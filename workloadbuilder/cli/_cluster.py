"""Talking to the cluster of the current kubeconfig, on the SDK's async helpers: the
connection, its errors as one-line messages, apply with a progress bar, delete."""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from .. import aio
from ..aio._queries import get_document
from ..aio._resources import WORKLOADS
from ..aio._transport import Transport
from ..api.scheduling_v1alpha3 import CompositePodGroup
from ..api.scheduling_v1beta1 import PodGroup, Workload

__all__ = [
    "ClusterError",
    "Connection",
    "apply_objects",
    "delete_workload",
    "new_progress",
    "read_workload",
    "run",
]

_T = TypeVar("_T")
SchedulingObject = Workload | PodGroup | CompositePodGroup
CHUNK = 16
"""Objects applied per request batch; the progress bar advances per batch."""


class ClusterError(Exception):
    """What went wrong on the cluster, as the lines to print."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)
        super().__init__("\n".join(self.lines))


@dataclass(frozen=True)
class Connection:
    """Which cluster: a kubeconfig file (``$KUBECONFIG`` by default) and a context; how long
    one request may take (seconds; ``None``: no bound)."""

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


async def run(connection: Connection, work: Callable[[Any], Awaitable[_T]]) -> _T:
    """``work(api_client)`` on a client of ``connection``; the SDK's errors as ClusterError."""
    # $KUBECONFIG is read now: kubernetes-asyncio's own default is fixed when it is imported
    path = connection.kubeconfig or os.environ.get("KUBECONFIG") or None
    timeout = connection.request_timeout
    with aio.default_retry(aio.RetryPolicy(request_timeout=timeout)):
        return await _run(path, connection, work)


async def _run(
    path: str | None, connection: Connection, work: Callable[[Any], Awaitable[_T]]
) -> _T:
    try:
        client = await aio.new_client(path, context=connection.context)
    except aio.KubeconfigError as exc:  # names the file, context and key, never a credential
        raise ClusterError([_one_line(str(exc))]) from None
    except Exception as exc:  # anything else: its text could quote the kubeconfig
        raise ClusterError([f"cannot load the kubeconfig ({type(exc).__name__})"]) from None
    async with client:
        try:
            return await work(client)
        except aio.MissingAPIError as exc:  # it names the feature gates to enable
            raise ClusterError([str(exc)]) from None
        except aio.InvalidObjectError as exc:
            raise ClusterError([str(exc), *(f"  {e}" for e in exc.errors)]) from None
        except aio.ApplyError as exc:
            lines = [str(exc)]
            lines += [f"  {ref}: {err}" for ref, err in exc.failures.items()]
            raise ClusterError(lines) from None
        except aio.APIError as exc:
            raise ClusterError([_one_line(str(exc))]) from None
        except aiohttp.ClientError as exc:  # from a request sent by the client directly
            raise ClusterError([f"cannot talk to the API server: {type(exc).__name__}"]) from None


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
    """Preflight, then server-side apply in order, batch by batch; kubectl-style result lines."""
    await aio.preflight(client, objects)
    task = progress.add_task("applying", total=len(objects))
    applied: list[SchedulingObject] = []
    for start in range(0, len(objects), CHUNK):
        batch = objects[start : start + CHUNK]
        applied += await aio.apply(
            client, batch, field_manager=field_manager, force=force, dry_run=dry_run
        )
        progress.advance(task, len(batch))
    suffix = " (server dry run)" if dry_run else ""
    return [f"{_resource_name(o)} serverside-applied{suffix}" for o in applied]


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
    """Workload ``name``, or ``None`` when it does not exist (through the SDK's transport: its
    retries, timeout, redirect refusal and answer checks)."""
    return await get_document(Transport(client), WORKLOADS, namespace, name)


async def delete_workload(client: Any, namespace: str, name: str) -> list[str]:
    """Delete Workload ``name`` and every group stamped from it, children first."""
    if await read_workload(client, namespace, name) is None:
        raise ClusterError([f'Workload "{name}" not found in namespace "{namespace}"'])
    deleted = await aio.delete(client, name, namespace=namespace)
    held = {t.object: t for t in deleted.terminating}
    return [
        f"{ref.kind.lower()}.scheduling.k8s.io/{ref.name} "
        + (f"terminating: {held[ref].why}; {held[ref].action}" if ref in held else "deleted")
        for ref in deleted
    ]
