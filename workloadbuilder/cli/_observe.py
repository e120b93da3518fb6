"""What the scheduler is doing, read from the cluster: ``status``, ``diagnose`` and ``inspect``
on the SDK's ``diagnose`` and ``audit``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.tree import Tree

from .. import aio
from ._cluster import ClusterError, read_workload

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

    def to_dict(self) -> dict[str, Any]:
        """The row as plain JSON."""
        return {
            "kind": self.kind,
            "name": self.name,
            "template": self.template,
            "state": self.state,
            "present": self.present,
            "required": self.required,
            "summary": self.summary,
        }


_GROUPS = (
    ("CompositePodGroup", "v1alpha3", "compositepodgroups"),
    ("PodGroup", "v1beta1", "podgroups"),
)


async def _list(client: Any, namespace: str, version: str, plural: str) -> list[dict[str, Any]]:
    from kubernetes_asyncio.client import CustomObjectsApi
    from kubernetes_asyncio.client.exceptions import ApiException

    try:
        listed = await CustomObjectsApi(client).list_namespaced_custom_object(
            "scheduling.k8s.io", version, namespace, plural
        )
    except ApiException as exc:
        if exc.status == 404:
            return []
        raise ClusterError([f"cannot list {plural}: {exc.status} {exc.reason}"]) from None
    return list(listed.get("items") or [])


async def workload_status(client: Any, namespace: str, name: str) -> list[GroupStatus]:
    """Every group stamped from Workload ``name``, with what the scheduler is doing with it."""
    if await read_workload(client, namespace, name) is None:
        raise ClusterError([f'Workload "{name}" not found in namespace "{namespace}"'])
    rows = []
    for kind, version, plural in _GROUPS:
        for obj in await _list(client, namespace, version, plural):
            ref = (obj.get("spec") or {}).get("workloadRef") or {}
            if ref.get("workloadName") != name:
                continue
            group = {"kind": kind, "metadata": obj["metadata"]}
            verdict = await aio.diagnose(client, group)
            rows.append(
                GroupStatus(
                    kind,
                    obj["metadata"]["name"],
                    str(ref.get("templateName", "")),
                    str(verdict.state),
                    verdict.present,
                    verdict.required,
                    verdict.summary,
                )
            )
    return rows


async def diagnose_group(client: Any, namespace: str, name: str, kind: str | None) -> Any:
    """The verdict on group ``name``: a PodGroup, else a CompositePodGroup of that name."""
    kinds = [kind] if kind else ["PodGroup", "CompositePodGroup"]
    verdicts = []
    for candidate in kinds:
        group = {"kind": candidate, "metadata": {"name": name, "namespace": namespace}}
        verdict = await aio.diagnose(client, group)
        if verdict.state != aio.GroupState.MISSING:
            return verdict
        verdicts.append(verdict)
    return verdicts[0]


def render_verdict(verdict: Any) -> Tree:
    """A verdict as a tree: the state and why, the members, the children."""
    required = "" if verdict.required is None else f" ({verdict.present} of {verdict.required})"
    tree = Tree(f"[bold]{verdict.group}[/]: {verdict.state}{required}")
    tree.add(verdict.summary)
    if verdict.reason or verdict.message:
        tree.add(f"condition: {verdict.reason or ''}: {verdict.message or ''}")
    for member in verdict.members:
        where = member.node or "not placed"
        problem = f", {member.problem}: {member.detail}" if member.problem else ""
        tree.add(f"pod {member.name}: {member.phase or 'Pending'} on {where}{problem}")
    blocking = {str(b) for b in verdict.blocking}
    for child in verdict.children:
        branch = render_verdict(child)
        if str(child.group) in blocking:
            branch.label = f"{branch.label} [bold yellow](keeps minGroupCount from being met)[/]"
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
