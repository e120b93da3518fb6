"""The delegation annotations: how a parent controller hands a child Job its PodGroup.

A parent (JobSet-style: one Workload for the whole object, a child Job per role) owns the
Workload. It annotates each child Job with the template the Job's PodGroup is made from;
the Job controller then creates only that PodGroup, owned by the Job. The keys are
kubernetes/kubernetes ``pkg/apis/scheduling/annotation_key_constants.go``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, TypeVar

from .._formats import dns_label_errors, dns_subdomain_errors
from ._read import as_document

__all__ = [
    "GROUP_TEMPLATE_NAME_ANNOTATION",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION",
    "delegate_to_job",
]

GROUP_TEMPLATE_NAME_ANNOTATION: Final = "scheduling.k8s.io/group-template-name"
"""The PodGroupTemplate (of the parent's Workload) a child Job's PodGroup is made from."""

PARENT_COMPOSITE_POD_GROUP_ANNOTATION: Final = "scheduling.k8s.io/parent-compositepodgroup"
"""The runtime CompositePodGroup a child's PodGroup attaches to, when the parent creates the
CompositePodGroups and the child its own PodGroup."""

_T = TypeVar("_T")


def _checked(label: str, value: object, check: Callable[[str], list[str]]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{label} must be a str, not {type(value).__name__}")
    problems = check(value) if value.isascii() else ["must be an ASCII DNS name"]
    if problems:
        raise ValueError(f"{label} {value!r} is not valid: {'; '.join(problems)}")
    return value


def delegate_to_job(
    job_template: _T, template_name: str, *, parent_composite_pod_group: str | None = None
) -> _T:
    """A child Job (or JobTemplateSpec) whose PodGroup the Job controller makes.

    The input is not changed: the result has its own metadata and annotations, and shares
    the rest with the input.

    ``job_template`` is a dict, an official-client ``V1Job`` / ``V1JobTemplateSpec`` or a
    lightkube object; the result has the same type. ``template_name`` names a top-level
    ``podGroupTemplate`` of the parent's Workload. The child Job must also be controlled by the
    parent (a controller owner reference), and the parent's Workload must name the parent in
    ``spec.controllerRef``: that is how the Job controller finds it.

    Raises ``ValueError`` when a name is not a valid DNS name, or the template already carries
    a different value (annotations are how the controller finds its template: changing one
    under a running Job would move it to another group).
    """
    stamps = {
        GROUP_TEMPLATE_NAME_ANNOTATION: _checked("template_name", template_name, dns_label_errors)
    }
    if parent_composite_pod_group is not None:
        stamps[PARENT_COMPOSITE_POD_GROUP_ANNOTATION] = _checked(
            "parent_composite_pod_group", parent_composite_pod_group, dns_subdomain_errors
        )
    # Only the metadata changes: it is copied, the rest is shared with the input.
    doc = dict(as_document(job_template, "job_template"))
    meta = doc.get("metadata")
    if meta is None:
        meta = doc["metadata"] = {}
    if not isinstance(meta, Mapping):
        raise ValueError(f"job_template metadata must be an object, not {type(meta).__name__}")
    meta = doc["metadata"] = dict(meta)
    annotations = meta.get("annotations") or {}
    if not isinstance(annotations, Mapping):
        raise ValueError(
            f"job_template metadata.annotations must be an object, not {type(annotations).__name__}"
        )
    annotations = dict(annotations)
    for key, value in stamps.items():
        current = annotations.get(key)
        if current is not None and current != value:
            raise ValueError(
                f"job_template already has annotation {key}={current!r}; refusing to change it"
                f" to {value!r}"
            )
        annotations[key] = value
    meta["annotations"] = annotations
    if isinstance(job_template, Mapping):
        return doc  # type: ignore[return-value]
    kind = type(job_template)
    parse = getattr(kind, "model_validate", None) or getattr(kind, "from_dict", None)
    if parse is None:
        raise TypeError(f"cannot rebuild a {kind.__name__} from its JSON")
    rebuilt: _T = parse(doc)
    return rebuilt
