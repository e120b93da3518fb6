"""Kubernetes 1.36 ``scheduling.k8s.io/v1alpha2`` Workloads and PodGroups rewritten for 1.37.

What changes (and nothing else: no defaults are added):

- ``apiVersion`` becomes ``scheduling.k8s.io/v1beta1`` (or ``v1alpha3`` when asked);
- a PodGroup's ``spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}`` becomes
  ``spec.workloadRef{workloadName, templateName}``;
- the string ``disruptionMode`` becomes a union: ``Pod`` → ``{single: {}}``,
  ``PodGroup`` → ``{all: {}}``;
- a PodGroup's ``status`` is written by the scheduler and is not carried over (noted).

Every other document of the stream, other versions of the group included, passes through
unchanged. What has no 1.37 equivalent, and what 1.37 rejects that 1.36 accepted (several
templates with different priorities, more than one topology constraint), is reported with
its field as a :class:`MigrationFinding`: never dropped or emitted silently.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pydantic

from ._gorender import render_value
from .api.scheduling_v1beta1 import PodGroup, Workload
from .field import ErrorList, FieldError, FieldPath

__all__ = ["MigrationFinding", "MigrationResult", "migrate"]

SOURCE = "scheduling.k8s.io/v1alpha2"
Target = Literal["v1beta1", "v1alpha3"]
_DISRUPTION: dict[str, dict[str, dict[str, Any]]] = {"Pod": {"single": {}}, "PodGroup": {"all": {}}}
_LISTS = {"WorkloadList": "Workload", "PodGroupList": "PodGroup"}
_MAX_TOPOLOGY = 1
# 1.36 podGroupTemplateRef.workload field -> 1.37 workloadRef field
_REF_FIELDS = {"workloadName": "workloadName", "podGroupTemplateName": "templateName"}


@dataclass(frozen=True)
class MigrationFinding:
    """Something a document could not carry over as it was, at its field.

    ``blocking`` findings (the default) mean the migrated document needs a decision before
    1.37 accepts it; the others are notes (a ``status`` left behind).
    """

    document: int
    """The document's index in the input stream."""
    kind: str
    name: str
    error: FieldError
    blocking: bool = True

    def __str__(self) -> str:
        what = "note" if not self.blocking else "error"
        name = self.name or "<unnamed>"
        return f"document {self.document} ({self.kind} {name}): {what}: {self.error}"


@dataclass(frozen=True)
class MigrationResult:
    """The migrated stream, in input order, and the findings."""

    documents: list[Any]
    findings: list[MigrationFinding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether nothing blocks applying the documents to a 1.37 cluster."""
        return not any(f.blocking for f in self.findings)


def migrate(documents: Iterable[Any], *, target: Target = "v1beta1") -> MigrationResult:
    """Rewrite the 1.36 v1alpha2 Workloads and PodGroups of ``documents`` for Kubernetes 1.37.

    ``documents`` are parsed YAML/JSON documents (e.g. ``yaml.safe_load_all(...)``), or one
    document (a mapping: a stream of one); they are not modified. Text (``str``/``bytes``) or
    anything else is a ``TypeError``. ``target`` is the 1.37 version to emit (``v1beta1`` is
    served with the GenericWorkload gate; ``v1alpha3`` holds the same fields).
    """
    if target not in ("v1beta1", "v1alpha3"):
        raise ValueError(f"target must be 'v1beta1' or 'v1alpha3', not {target!r}")
    if isinstance(documents, Mapping):
        documents = [documents]  # one document, not a stream of its keys
    elif isinstance(documents, (str, bytes)) or not isinstance(documents, Iterable):
        raise TypeError(
            "documents must be parsed documents (a list, yaml.safe_load_all(...)) or one"
            f" document (a dict), not {type(documents).__name__}; parse YAML text first"
        )
    out: list[Any] = []
    findings: list[MigrationFinding] = []
    for index, doc in enumerate(documents):
        migrated, errors = _document(doc, target)
        out.append(migrated)
        kind = doc.get("kind") if isinstance(doc, Mapping) else None
        kind = kind if isinstance(kind, str) else ""
        name = _name(doc)
        findings.extend(MigrationFinding(index, kind, name, e, b) for e, b in errors)
    return MigrationResult(out, findings)


_Found = list[tuple[FieldError, bool]]


def _name(doc: Any) -> str:
    if not isinstance(doc, Mapping):
        return ""
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return name if isinstance(name, str) else ""


def _document(doc: Any, target: Target, at: FieldPath | None = None) -> tuple[Any, _Found]:
    if not isinstance(doc, Mapping):
        return doc, []
    if doc.get("apiVersion") == "v1" and doc.get("kind") == "List":
        return _list(doc, target, None, at)
    if doc.get("apiVersion") != SOURCE:
        return doc, []
    kind = doc.get("kind")
    if isinstance(kind, str) and kind in _LISTS:
        return _list(doc, target, _LISTS[str(kind)], at)
    if kind == "Workload":
        return _migrated(doc, target, at, Workload, _workload)
    if kind == "PodGroup":
        return _migrated(doc, target, at, PodGroup, _pod_group)
    unknown = FieldError.not_supported(_at(at, "kind"), kind, ["PodGroup", "Workload"])
    return doc, [(unknown, True)]


def _list(
    doc: Mapping[str, Any], target: Target, item_kind: str | None, at: FieldPath | None
) -> tuple[Any, _Found]:
    """A typed list (``item_kind``) or a ``v1`` ``List``, each item migrated at ``items[i]``."""
    new = _retargeted(doc, target) if item_kind is not None else copy.deepcopy(dict(doc))
    found: _Found = []
    items = doc.get("items")
    migrated: list[Any] = []
    for i, item in enumerate(items if isinstance(items, list) else []):
        if item_kind is not None and isinstance(item, Mapping):
            item = {"apiVersion": SOURCE, "kind": item_kind, **item}
        result, errors = _document(item, target, _at(at, "items").index(i))
        migrated.append(result)
        found.extend(errors)
    if isinstance(items, list):
        new["items"] = migrated
    return new, found


def _group_spec(spec: dict[str, Any], path: FieldPath, found: _Found) -> None:
    """Migrate what a Workload's template and a PodGroup's spec share, in place."""
    _disruption(spec, path, found)
    _topology(spec, path, found)


def _disruption(spec: dict[str, Any], path: FieldPath, found: _Found) -> None:
    if "disruptionMode" not in spec:
        return
    value = spec["disruptionMode"]
    mapped = _DISRUPTION.get(value) if isinstance(value, str) else None
    if mapped is None:
        found.append(
            (FieldError.not_supported(path.child("disruptionMode"), value, _DISRUPTION), True)
        )
        return
    spec["disruptionMode"] = copy.deepcopy(mapped)


def _topology(spec: Mapping[str, Any], path: FieldPath, found: _Found) -> None:
    constraints = spec.get("schedulingConstraints")
    topology = constraints.get("topology") if isinstance(constraints, Mapping) else None
    if isinstance(topology, list) and len(topology) > _MAX_TOPOLOGY:
        topology_path = path.child("schedulingConstraints", "topology")
        found.append((FieldError.too_many(topology_path, len(topology), _MAX_TOPOLOGY), True))


def _retargeted(doc: Mapping[str, Any], target: Target) -> dict[str, Any]:
    """A copy of ``doc`` at the 1.37 version ``target``."""
    new = copy.deepcopy(dict(doc))
    new["apiVersion"] = f"scheduling.k8s.io/{target}"
    return new


def _migrated(
    doc: Mapping[str, Any],
    target: Target,
    at: FieldPath | None,
    model: type[Workload] | type[PodGroup],
    migrate: Callable[[dict[str, Any], FieldPath | None, _Found], None],
) -> tuple[Any, _Found]:
    """``doc`` retargeted and migrated in place by ``migrate``, with what it found and what
    the 1.37 ``model`` still refuses."""
    new = _retargeted(doc, target)
    found: _Found = []
    migrate(new, at, found)
    return new, _merge(found, _check(model, new, at))


def _workload(new: dict[str, Any], at: FieldPath | None, found: _Found) -> None:
    spec_path = _at(at, "spec")
    if isinstance(spec := new.get("spec"), dict):
        templates = spec.get("podGroupTemplates")
        placed: list[tuple[FieldPath, dict[str, Any]]] = []
        for i, template in enumerate(templates if isinstance(templates, list) else []):
            if not isinstance(template, dict):
                continue
            path = spec_path.child("podGroupTemplates").index(i)
            _group_spec(template, path, found)
            placed.append((path, template))
        found.extend((e, True) for e in _priority_errors(placed))


def _priority_errors(templates: list[tuple[FieldPath, dict[str, Any]]]) -> list[FieldError]:
    """1.37 requires every template of a Workload to share one priority setting
    (``priorityClassName`` and ``priority``, unset differing from set); each field that differs
    from the first template's is reported with both values."""
    if not templates:
        return []
    first_path, first = templates[0]
    errors = []
    for path, template in templates[1:]:
        for name in ("priorityClassName", "priority"):
            mine, theirs = template.get(name), first.get(name)
            if mine != theirs:
                shown = "unset" if theirs is None else render_value(theirs)
                detail = (
                    "detected multiple priority configurations:"
                    f" {first_path.child(name)} is {shown}"
                )
                errors.append(FieldError.invalid(path.child(name), mine, detail))
    return errors


def _pod_group(new: dict[str, Any], at: FieldPath | None, found: _Found) -> None:
    spec_path = _at(at, "spec")
    if isinstance(spec := new.get("spec"), dict):
        if "podGroupTemplateRef" in spec:
            ref = _workload_ref(spec["podGroupTemplateRef"], spec_path, found)
            new["spec"] = spec = _renamed(spec, "podGroupTemplateRef", "workloadRef", ref)
        _group_spec(spec, spec_path, found)
    if "status" in new:
        status = new.pop("status")
        if status:
            detail = (
                "not carried over: the 1.37 scheduler writes the status (condition"
                " PodGroupInitiallyScheduled, formerly PodGroupScheduled)"
            )
            found.append((FieldError.forbidden(_at(at, "status"), detail), False))


def _workload_ref(ref: Any, spec_path: FieldPath, found: _Found) -> dict[str, Any] | None:
    """``workloadRef`` for a 1.36 ``podGroupTemplateRef`` (``None`` when there is none)."""
    path = spec_path.child("podGroupTemplateRef")
    if ref is None:
        return None
    workload = ref.get("workload") if isinstance(ref, Mapping) else None
    if not isinstance(workload, Mapping):
        found.append((FieldError.required(path.child("workload")), True))
        return None
    for key in sorted((k for k in workload if k not in _REF_FIELDS), key=str):
        at = path.child("workload", str(key))
        found.append((FieldError.forbidden(at, "unknown field"), True))
    return {_REF_FIELDS[k]: v for k, v in workload.items() if k in _REF_FIELDS}


def _renamed(spec: dict[str, Any], old: str, new: str, value: Any) -> dict[str, Any]:
    """``spec`` with ``old`` replaced in place by ``new: value`` (left out when ``None``)."""
    out: dict[str, Any] = {}
    for key, item in spec.items():
        if key != old:
            out[key] = item
        elif value is not None:
            out[new] = value
    return out


def _merge(found: _Found, checked: _Found) -> _Found:
    """``found`` plus the model's errors at fields not already reported."""
    seen = {e.field for e, _ in found}
    return [*found, *((e, b) for e, b in checked if e.field not in seen)]


def _at(at: FieldPath | None, name: str) -> FieldPath:
    return FieldPath(name) if at is None else at.child(name)


def _check(
    model: type[Workload] | type[PodGroup], doc: Mapping[str, Any], at: FieldPath | None
) -> _Found:
    """What the 1.37 object model refuses in the migrated document, at its field."""
    body = {k: v for k, v in doc.items() if k not in ("apiVersion", "kind")}
    try:
        model.model_validate(body)
    except pydantic.ValidationError as exc:
        return [(e, True) for e in ErrorList.from_pydantic(exc, at, model=model)]
    return []
