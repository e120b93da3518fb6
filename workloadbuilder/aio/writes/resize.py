"""``resize``: change an elastic gang's ``minCount`` on its PodGroup and Workload template."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...api.scheduling_v1alpha3 import CompositePodGroup
from ...api.scheduling_v1beta1 import PodGroup
from ..errors import APIError, ObjectRef
from ..wire.answers import checked_object
from ..wire.queries import get_document
from ..wire.resources import POD_GROUPS, WORKLOADS, Resource, parse
from ..wire.transport import Response, RetryPolicy, Transport, transport_for

__all__ = ["DEFAULT_FIELD_MANAGER", "resize"]

DEFAULT_FIELD_MANAGER = "workloadbuilder"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
_INT32_MAX = 2**31 - 1


async def patch_spec(
    transport: Transport,
    resource: Resource,
    ref: ObjectRef,
    spec_patch: Mapping[str, Any],
    field_manager: str,
) -> Response:
    """Strategic-merge ``{"spec": spec_patch}`` into ``ref`` as ``field_manager``: how a gang's
    ``minCount`` changes, on a PodGroup or a Workload's template, as the Job controller does."""
    return await transport.request(
        "PATCH",
        resource.path(ref.namespace, ref.name),
        query=[("fieldManager", field_manager)],
        body={"spec": spec_patch},
        content_type=STRATEGIC_MERGE_PATCH,
        target=ref,
    )


def _check_count(min_count: object) -> int:
    if isinstance(min_count, bool) or not isinstance(min_count, int):
        raise TypeError(f"min_count must be an int, not {type(min_count).__name__}")
    if not 1 <= min_count <= _INT32_MAX:
        raise ValueError(f"min_count must be between 1 and {_INT32_MAX}, got {min_count}")
    return min_count


def _identify(target: PodGroup | Mapping[str, Any] | str, namespace: str | None) -> ObjectRef:
    if isinstance(target, CompositePodGroup) or (
        isinstance(target, Mapping) and target.get("kind") == "CompositePodGroup"
    ):
        raise ValueError(
            "a CompositePodGroup's schedulingPolicy is immutable (minGroupCount cannot change);"
            " resize changes a PodGroup's schedulingPolicy.gang.minCount only"
        )
    if isinstance(target, str):
        name, ns = target, namespace
    elif isinstance(target, PodGroup):
        name, ns = target.metadata.name or "", namespace or target.metadata.namespace
    elif isinstance(target, Mapping):
        meta = target.get("metadata") or {}
        name, ns = str(meta.get("name") or ""), namespace or meta.get("namespace")
    else:
        raise TypeError(
            f"expected a PodGroup (SDK model or dict) or its name, not {type(target).__name__}"
        )
    if not name or not ns:
        raise ValueError("resize needs the PodGroup's name and namespace (pass namespace=...)")
    return ObjectRef("PodGroup", ns, name, POD_GROUPS.api_version)


def template_patch(spec: Mapping[str, Any], template: str, min_count: int) -> Any:
    """The strategic merge patch of ``spec`` setting ``template``'s minCount, if it differs.

    ``None`` when the template already has ``min_count``; ``ValueError`` when it is missing
    or is not a gang.
    """
    leaf_patch = {"name": template, "schedulingPolicy": {"gang": {"minCount": min_count}}}
    for leaf in spec.get("podGroupTemplates") or ():
        if leaf.get("name") == template:
            gang = (leaf.get("schedulingPolicy") or {}).get("gang")
            if gang is None:
                raise ValueError(f"template {template!r} uses the basic policy: it has no minCount")
            if gang.get("minCount") == min_count:
                return None
            return {"podGroupTemplates": [leaf_patch]}
    for parent in spec.get("compositePodGroupTemplates") or ():
        try:
            inner = template_patch(parent, template, min_count)
        except LookupError:
            continue
        return (
            None
            if inner is None
            else {"compositePodGroupTemplates": [{"name": parent.get("name"), **inner}]}
        )
    raise LookupError(template)


async def resize(
    api_client: Any,
    pod_group_or_name: PodGroup | Mapping[str, Any] | str,
    min_count: int,
    *,
    namespace: str | None = None,
    field_manager: str | None = None,
    retry: RetryPolicy | None = None,
) -> PodGroup:
    """Set an elastic gang's ``schedulingPolicy.gang.minCount`` to ``min_count``.

    As the Job controller does, the PodGroup's Workload template changes too: the template
    first (so a group stamped meanwhile already gets the new count), then the PodGroup. Only
    what differs is patched, so calling ``resize`` again after a failure completes it. Nothing
    else changes: a Basic group, a CompositePodGroup (its policy is immutable) or a count
    outside 1..2**31-1 is refused before any request. Returns the server's PodGroup.
    ``field_manager`` defaults to an ``aio.Client``'s, else ``DEFAULT_FIELD_MANAGER``.
    """
    count = _check_count(min_count)
    ref = _identify(pod_group_or_name, namespace)
    transport = transport_for(api_client, retry)
    field_manager = transport.resolve_field_manager(field_manager, DEFAULT_FIELD_MANAGER)
    current = await get_document(transport, POD_GROUPS, ref.namespace, ref.name)
    if current is None:
        raise APIError(
            f"{ref} not found: nothing to resize", status=404, reason="NotFound", target=ref
        )
    spec = current.get("spec") or {}
    gang = (spec.get("schedulingPolicy") or {}).get("gang")
    if gang is None:
        raise ValueError(
            f"{ref} uses the basic policy: resize changes only schedulingPolicy.gang.minCount"
        )
    workload_ref = spec.get("workloadRef") or {}
    workload_name, template = workload_ref.get("workloadName"), workload_ref.get("templateName")
    if workload_name and template:
        workload = await get_document(transport, WORKLOADS, ref.namespace, workload_name)
        if workload is not None:
            try:
                patch = template_patch(workload.get("spec") or {}, template, count)
            except LookupError:
                raise ValueError(
                    f"{ref} names template {template!r}, which Workload {workload_name!r} lacks"
                ) from None
            if patch is not None:
                target = ObjectRef("Workload", ref.namespace, workload_name)
                await patch_spec(transport, WORKLOADS, target, patch, field_manager)
    if gang.get("minCount") == count:
        unchanged: PodGroup = parse(POD_GROUPS, current)
        return unchanged
    policy = {"schedulingPolicy": {"gang": {"minCount": count}}}
    response = await patch_spec(transport, POD_GROUPS, ref, policy, field_manager)
    resized: PodGroup = parse(POD_GROUPS, checked_object(response, POD_GROUPS, ref, "resizing"))
    return resized
