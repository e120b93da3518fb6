"""What the scheduler is doing, read from the cluster: ``status``, ``diagnose`` and ``inspect``
on the SDK's ``diagnose`` and ``audit``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rich.tree import Tree

from .. import aio
from ._cluster import ClusterError

__all__ = [
    "GroupStatus",
    "as_rows",
    "diagnose_group",
    "inspect_namespace",
    "render_verdict",
    "workload_status",
]


@dataclass(frozen=True)
class GroupStatus:
    """One group of a Workload, as ``status`` lists it."""

    kind: str
    name: str
    template: str
    state: str
    present: int
    required: int | None
    summary: str
    cause: str = ""
    """Why members are not placed (``diagnose``'s ``Verdict.cause``), or ``""``."""

    def to_dict(self) -> dict[str, Any]:
        """The row as plain JSON (its fields, in order)."""
        return asdict(self)


_GROUPS: tuple[aio.SchedulingKind, ...] = ("CompositePodGroup", "PodGroup")


async def _list(
    client: Any, namespace: str, kind: aio.SchedulingKind, cache: aio.Cache | None
) -> list[dict[str, Any]]:
    """The groups of ``kind`` in ``namespace``, read as the SDK's helpers read (retries,
    timeout, redirect refusal and answer checks), or from ``cache``; none when the kind is
    not served."""
    if cache is not None:
        await cache.synced(kind)
        return [] if kind in cache.unserved else await cache.list(kind, namespace)
    try:
        return await aio.list_objects(client, kind, namespace=namespace)
    except aio.APIError as exc:
        if exc.status == 404:
            return []
        raise


async def workload_status(
    client: Any, namespace: str, name: str, *, cache: aio.Cache | None = None
) -> list[GroupStatus]:
    """Every group stamped from Workload ``name``, with what the scheduler is doing with it
    (read from ``cache`` when given)."""
    # raises MissingAPIError (the gate to enable) when the scheduling API is not served
    target = aio.ObjectRef("Workload", namespace, name)
    workload = await aio.diagnose(client, target, cache=cache)
    if workload.state is aio.GroupState.MISSING:
        raise ClusterError([f'Workload "{name}" not found in namespace "{namespace}"'])
    rows = []
    for kind in _GROUPS:
        for obj in await _list(client, namespace, kind, cache):
            ref = (obj.get("spec") or {}).get("workloadRef") or {}
            if ref.get("workloadName") != name:
                continue
            group = {"kind": kind, "metadata": obj["metadata"]}
            verdict = await aio.diagnose(client, group, cache=cache)
            rows.append(
                GroupStatus(
                    kind,
                    obj["metadata"]["name"],
                    str(ref.get("templateName", "")),
                    str(verdict.state),
                    verdict.present,
                    verdict.required,
                    verdict.summary,
                    verdict.cause,
                )
            )
    return rows


async def diagnose_group(
    client: Any, namespace: str, name: str, kind: str | None, *, cache: aio.Cache | None = None
) -> Any:
    """The verdict on ``name``: a PodGroup, else a CompositePodGroup, else a Workload of that
    name (its groups' verdicts). A group that does not exist gives its ``Missing`` verdict
    when pods name it; ``ClusterError`` when nothing of that name is known. Read from
    ``cache`` when given."""
    kinds = [kind] if kind else ["PodGroup", "CompositePodGroup", "Workload"]
    missing = []
    for candidate in kinds:
        verdict = await aio.diagnose(client, aio.ObjectRef(candidate, namespace, name), cache=cache)
        if verdict.state is not aio.GroupState.MISSING:
            return verdict
        missing.append(verdict)
    named = next((v for v in missing if v.members or v.children), None)
    if named is not None:
        return named  # pods (or child groups) name it: the verdict says what to create
    what = " or ".join(kinds)
    raise ClusterError([f'no {what} "{name}" in namespace "{namespace}"'])


def render_verdict(verdict: Any) -> Tree:
    """A verdict as a tree: the state and why, the members, the children."""
    if verdict.group.kind == "Workload":
        required = f" ({verdict.running} of {verdict.present} groups scheduled)"
    elif verdict.required is None:
        required = ""
    else:
        required = f" ({verdict.present} of {verdict.required})"
    tree = Tree(f"[bold]{verdict.group}[/]: {verdict.state}{required}")
    tree.add(verdict.summary)
    if verdict.reason or verdict.message:
        said = ": ".join(part for part in (verdict.reason, verdict.message) if part)
        tree.add(f"condition: {said}")
    for member in verdict.members:
        where = f"on {member.node}" if member.node else "not placed"
        problem = f", {member.problem}: {member.detail}" if member.problem else ""
        tree.add(f"pod {member.name}: {member.phase or 'Pending'}, {where}{problem}")
    if verdict.cause and verdict.cause not in verdict.summary:
        tree.add(f"why: {verdict.cause}")
    blocking = {str(b) for b in verdict.blocking}
    keeps = (
        "not scheduled"
        if verdict.group.kind == "Workload"
        else "keeps minGroupCount from being met"
    )
    for child in verdict.children:
        branch = render_verdict(child)
        if str(child.group) in blocking:
            branch.label = f"{branch.label} [bold yellow]({keeps})[/]"
        tree.add(branch)
    return tree


async def inspect_namespace(client: Any, namespace: str) -> list[Any]:
    """The audit of the live objects of ``namespace``."""
    findings: list[Any] = await aio.audit(client, namespace)
    return findings


def as_rows(findings: Sequence[Any]) -> list[Mapping[str, str]]:
    """Findings as plain JSON rows."""
    return [
        {
            "severity": str(f.severity),
            "kind": str(f.kind),
            "object": str(f.object),
            "message": f.message,
            "action": f.action,
        }
        for f in findings
    ]
