"""One execution's runtime objects, parents first, and the link from each pod to its group."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import pydantic

from ._formats import is_dns_subdomain
from .api.scheduling_v1beta1 import PodGroup, PodGroupResourceClaim, Workload
from .api.sdk import is_openapi_model, rebuild_openapi_model
from .builder import Builder, BuildError, BuildOptions
from .execution import RuntimeObject, RuntimeObjects
from .field import ErrorList
from .item import WorkloadItem
from .naming import generate_pod_group_name
from .options import object_json

__all__ = [
    "RuntimeObject",
    "RuntimeObjects",
    "group_names",
    "instantiate",
    "set_scheduling_group",
]

_Pod = TypeVar("_Pod")


def instantiate(
    source: Builder | Workload | Mapping[str, Any],
    *,
    options: BuildOptions | None = None,
    name: Callable[[str, str], str] = generate_pod_group_name,
) -> RuntimeObjects:
    """Every PodGroup and CompositePodGroup of one execution of a Workload, parents first.

    ``source`` is a Builder (its Workload is built if needed, not validated: see
    ``Builder.release()``) or a Workload read from the API server (then ``options`` gives the
    owner). Each object is named ``name(workload_name, template_name)`` (upstream's scheme by
    default); a child's ``spec.parentCompositePodGroupName`` names its parent.
    """
    if isinstance(source, Builder):
        builder = source
    else:
        builder = Builder.from_existing_workload(source, options or BuildOptions())
    return builder.release(name=name, validate=False).objects


def group_names(
    root: WorkloadItem | Sequence[WorkloadItem],
    workload_name: str,
    *,
    name: Callable[[str, str], str] = generate_pod_group_name,
) -> dict[str, str]:
    """The name of the group each item of ``root`` (or of several roots) stamps, by item name
    (parents first): what
    ``instantiate()`` and ``Builder.release()`` name the PodGroups and CompositePodGroups of a
    Builder whose ``BuildOptions.name`` is ``workload_name``, given the same ``name``.

    Known before any owner exists, so a controller that embeds pod templates in its own object
    (created before the Workload, and so before any group) can link them first with
    ``set_scheduling_group(template, group_names(...)[role])``. The owner's uid is not needed:
    choose a ``workload_name`` that is unique without it (the owner's own unique name).
    """
    roots = [root] if isinstance(root, WorkloadItem) else root
    if isinstance(roots, str | Mapping) or not isinstance(roots, Sequence) or not roots:
        raise TypeError(f"root must be a WorkloadItem or a list of them, not {type(root).__name__}")
    for each in roots:
        if not isinstance(each, WorkloadItem):
            raise TypeError(f"root must be a WorkloadItem or a list of them, not {each!r}")
    if not isinstance(workload_name, str) or not workload_name:
        raise ValueError("workload_name must be a non-empty string (the Workload's name)")
    names: dict[str, str] = {}
    for item in (item for each in roots for item in each.walk()):
        group = name(workload_name, item.name)
        if not isinstance(group, str) or not group:
            raise TypeError(
                f"name({workload_name!r}, {item.name!r}) returned {group!r}; it must return"
                " the group's name (a non-empty str)"
            )
        names[item.name] = group
    return names


def set_scheduling_group(pod: _Pod, pod_group: PodGroup | Mapping[str, Any] | str) -> _Pod:
    """A copy of ``pod`` that belongs to ``pod_group`` (``spec.schedulingGroup.podGroupName``).

    ``pod`` is a Pod dict, a pod template (``PodTemplateSpec``: ``metadata`` and ``spec``), an
    official-client ``V1Pod`` or ``V1PodTemplateSpec`` of any release (the pydantic models of
    ``kubernetes>=37``, the OpenAPI-generated ones before, ``kubernetes_asyncio``'s), or a
    lightkube ``Pod``; the result has the same type. ``pod_group`` is the PodGroup, or the
    group's name alone (see ``group_names``) for a template linked before its group exists:
    then the namespace and DRA claims cannot be checked against the group's.
    Raises ``ValueError`` when the pod already belongs to another group (the link is
    immutable), lives in another namespace, or declares one of the group's DRA claims with a
    different source: a pod shares a group claim only by declaring it identically; also when
    a field it reads is not of its type (``BuildError``, a ``ValueError``, with the field
    errors, for a malformed ``pod_group``), or a group name is not a DNS subdomain.
    ``TypeError`` for something that is not a pod or a PodGroup at all.
    """
    if isinstance(pod_group, str):
        if not is_dns_subdomain(pod_group):
            raise ValueError(
                f"group name {pod_group!r} is not a valid PodGroup name (a DNS subdomain)"
            )
        group_name: str | None = pod_group
        group_ns: str | None = None
        group_claims: list[PodGroupResourceClaim] = []
    else:
        group = _pod_group(pod_group)
        group_name, group_ns = group.metadata.name, group.metadata.namespace
        group_claims = group.spec.resource_claims or []
    if not group_name:
        raise ValueError("the PodGroup has no metadata.name; name it before linking pods")
    doc = _pod_dict(pod)
    meta = doc.get("metadata") or {}
    if not isinstance(meta, Mapping) or not isinstance(doc.get("spec", {}), Mapping | None):
        raise ValueError("pod.metadata and pod.spec must be objects")
    pod_name = meta.get("name") or meta.get("generateName") or "<unnamed>"
    namespace = meta.get("namespace")
    _require_text(pod_name, "metadata.namespace", namespace)
    if namespace and group_ns and namespace != group_ns:
        raise ValueError(
            f"pod {pod_name!r} is in namespace {namespace!r} but PodGroup {group_name!r} is in"
            f" {group_ns!r}: a pod can only join a group of its own namespace"
        )
    spec = doc["spec"] = dict(doc.get("spec") or {})
    linked = spec.get("schedulingGroup") or {}
    if not isinstance(linked, Mapping) or not isinstance(spec.get("resourceClaims") or [], list):
        raise ValueError("pod.spec.schedulingGroup must be an object and resourceClaims a list")
    current = linked.get("podGroupName")
    _require_text(pod_name, "spec.schedulingGroup.podGroupName", current)
    if current and current != group_name:
        raise ValueError(
            f"pod {pod_name!r} already belongs to PodGroup {current!r};"
            " spec.schedulingGroup is immutable, create a new pod instead"
        )
    check_pod_claims(pod_name, spec.get("resourceClaims") or [], group_claims)
    spec["schedulingGroup"] = {"podGroupName": group_name}
    linked_pod = _like(pod, doc)
    if not isinstance(linked_pod, Mapping):
        _check_kept(linked_pod, group_name)
    return linked_pod


def check_pod_claims(
    pod_name: str, pod_claims: list[Mapping[str, Any]], group_claims: list[PodGroupResourceClaim]
) -> None:
    """``ValueError`` naming the claim when a pod claim named like one of the group's does not
    declare the same source (as ``set_scheduling_group`` checks; ``aio.audit`` reports it)."""
    by_name = {c.name: c for c in group_claims}
    for i, claim in enumerate(pod_claims):
        if not isinstance(claim, Mapping):
            raise ValueError(f"pod {pod_name!r} spec.resourceClaims[{i}] must be an object")
        _require_text(pod_name, f"spec.resourceClaims[{i}].name", claim.get("name"))
        shared = by_name.get(claim.get("name", ""))
        if shared is None:
            continue
        mine = (claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName"))
        theirs = (shared.resource_claim_name, shared.resource_claim_template_name)
        if mine != theirs:
            raise ValueError(
                f"pod {pod_name!r} spec.resourceClaims[{i}] {shared.name!r} does not match the"
                f" PodGroup's claim (resourceClaimName={theirs[0]!r},"
                f" resourceClaimTemplateName={theirs[1]!r}); declare it identically to share it"
            )


def _require_text(pod_name: object, field: str, value: object) -> None:
    """A field the link reads is a string (or absent), else a ``ValueError`` naming it."""
    if value is not None and not isinstance(value, str):
        raise ValueError(
            f"pod {pod_name!r} {field} must be a string, not {type(value).__name__} ({value!r})"
        )


def _pod_group(pod_group: object) -> PodGroup:
    if isinstance(pod_group, PodGroup):
        return pod_group
    if not isinstance(pod_group, Mapping):
        raise TypeError(
            "pod_group must be a PodGroup (our model or its dict) or a group's name, not"
            f" {type(pod_group).__name__}"
        )
    try:
        return PodGroup.from_server(pod_group)
    except pydantic.ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, None, model=PodGroup)
        raise BuildError(f"pod_group is not a PodGroup: {errors}", errors) from None


def _pod_dict(pod: object) -> dict[str, Any]:
    doc = object_json(
        pod,
        "pod must be a Pod dict or pod template dict, our model, an official-client V1Pod or"
        " V1PodTemplateSpec, or a lightkube Pod",
    )
    try:
        return copy.deepcopy(doc)
    except RecursionError:
        raise ValueError("pod is nested too deeply (or is cyclic) to be a Pod") from None


def _check_kept(linked: object, group_name: str) -> None:
    """A client model kept the link: an older client without ``schedulingGroup`` in its
    ``V1PodSpec`` drops it silently (its deserializer skips unknown fields)."""
    spec = (object_json(linked, "a pod").get("spec") or {}) if linked is not None else {}
    kept = (spec.get("schedulingGroup") or {}) if isinstance(spec, Mapping) else {}
    if not isinstance(kept, Mapping) or kept.get("podGroupName") != group_name:
        kind = type(linked)
        raise TypeError(
            f"{kind.__module__}.{kind.__name__} cannot hold spec.schedulingGroup (its client"
            " predates the field): upgrade the client, or link the pod as a dict"
        )


def _like(original: _Pod, doc: dict[str, Any]) -> _Pod:
    if isinstance(original, Mapping):
        return doc  # type: ignore[return-value]
    kind: Any = type(original)
    if is_openapi_model(original):  # kubernetes<37, kubernetes_asyncio
        return rebuild_openapi_model(original, doc)  # type: ignore[no-any-return]
    for parse in ("model_validate", "from_dict"):  # pydantic models, lightkube objects
        if callable(getattr(kind, parse, None)):
            result: _Pod = getattr(kind, parse)(doc)
            return result
    raise TypeError(f"cannot rebuild a {kind.__name__} from its JSON")
