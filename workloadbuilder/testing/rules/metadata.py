"""``metadata`` rules of every kind: apimachinery's ``ValidateObjectMeta`` and its update form.

Names are RFC 1123 subdomains, except the kinds upstream validates as labels (``Namespace``);
``generateName`` is checked as a prefix (upstream's ``maskTrailingDash`` first replaces the last
two characters of a prefix that ends in ``-`` with ``a``). Labels, annotations (keys, and at most
256 KiB in all), ``ownerReferences`` (apiVersion, kind, name, uid; one controller; no Event
owners) and finalizer names are checked on create; on update the name and namespace are
immutable, labels, annotations and ownerReferences are checked again, and an object being
deleted takes no new finalizers. Built-in kinds also check that a finalizer without a
domain is a standard one (``kube_finalizers``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from .common import IMMUTABLE, Errs, Obj, items, mapping
from .errors import FieldErr, Marshalled, forbidden, invalid, required, too_long
from .formats import dns_label, dns_subdomain, label_value, path_segment_name, qualified_name
from .internal_core import internal_json

NameCheck = Callable[[str], list[str]]

_LABEL_NAMED: Final = frozenset({("", "Namespace")})
TOTAL_ANNOTATION_SIZE: Final = 256 * 1024
ORPHAN: Final = "orphan"
FOREGROUND: Final = "foregroundDeletion"
_BANNED_OWNERS: Final = frozenset({("", "v1", "Event")})
_STANDARD_FINALIZERS: Final = frozenset({"kubernetes", ORPHAN, FOREGROUND})


def name_check(group: str, kind: str) -> NameCheck:
    """How upstream validates ``metadata.name`` of ``group``/``kind``."""
    if group == "rbac.authorization.k8s.io":
        return path_segment_name
    return dns_label if (group, kind) in _LABEL_NAMED else dns_subdomain


def _mask_trailing_dash(name: str) -> str:
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def _string_map(value: Any) -> dict[str, str]:
    return {k: v for k, v in mapping(value).items() if isinstance(v, str)}


def _labels(value: Any) -> Errs:
    errs: Errs = []
    for key, val in _string_map(value).items():
        errs += [invalid("metadata.labels", key, m, ratchet=False) for m in qualified_name(key)]
        errs += [invalid("metadata.labels", val, m, ratchet=False) for m in label_value(val)]
    return errs


def _annotations(value: Any) -> Errs:
    annotations = _string_map(value)
    errs: Errs = [
        invalid("metadata.annotations", key, msg, ratchet=False)
        for key in annotations
        for msg in qualified_name(key.lower())
    ]
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE:
        errs.append(too_long("metadata.annotations", TOTAL_ANNOTATION_SIZE, ratchet=False))
    return errs


def _group_version(api_version: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: ``v1`` or ``group/version``; None if malformed."""
    if api_version in ("", "v1"):
        return ("", api_version)
    parts = api_version.split("/")
    if len(parts) == 1:
        return ("", parts[0])
    if len(parts) == 2:
        return (parts[0], parts[1])
    return None


def _owner_reference(path: str, ref: Obj) -> Errs:
    errs: Errs = []
    api_version = ref.get("apiVersion") or ""
    parsed = _group_version(api_version)
    if not api_version:
        errs.append(required(f"{path}.apiVersion", "must not be empty"))
    elif parsed is None or not parsed[1]:
        errs.append(
            invalid(f"{path}.apiVersion", api_version, "must be <group>/<version> or <version>")
        )
    for name in ("kind", "name", "uid"):
        if not ref.get(name):
            errs.append(required(f"{path}.{name}", "must not be empty"))
    group, version = parsed or ("", "")
    if (group, version, ref.get("kind") or "") in _BANNED_OWNERS:
        gvk = f"{group}/{version}, Kind={ref.get('kind')}"
        errs.append(invalid(path, _written(ref), f"{gvk} is disallowed from being an owner"))
    return errs


def _written(ref: Obj) -> Marshalled:
    """An owner reference as ``json.Marshal`` writes ``metav1.OwnerReference``: its fields in
    declaration order, ``controller`` and ``blockOwnerDeletion`` left out when unset."""
    return Marshalled(internal_json("OwnerReference", ref))


def _owner_references(value: Any) -> Errs:
    refs = items(value)
    errs: Errs = []
    first = ""
    for i, ref in enumerate(refs):
        ref = mapping(ref)
        errs += _owner_reference(f"metadata.ownerReferences[{i}]", ref)
        if ref.get("controller") is True:
            current = f"{ref.get('kind') or ''}/{ref.get('name') or ''}"
            if first:
                detail = (
                    "Only one reference can have Controller set to true. "
                    f'Found "true" in references for {first} and {current}'
                )
                written = "[" + ",".join(_written(mapping(r)) for r in refs) + "]"
                errs.append(invalid("metadata.ownerReferences", Marshalled(written), detail))
            else:
                first = current
    return [FieldErr(e.type, e.field, e.value, e.detail, ratchet=False) for e in errs]


def _finalizers(value: Any) -> Errs:
    finalizers = [f for f in items(value) if isinstance(f, str)]
    errs: Errs = [
        invalid("metadata.finalizers", name, msg, ratchet=False)
        for name in finalizers
        for msg in qualified_name(name)
    ]
    if ORPHAN in finalizers and FOREGROUND in finalizers:
        detail = f"finalizer {ORPHAN} and {FOREGROUND} cannot be both set"
        errs.append(invalid("metadata.finalizers", finalizers, detail, ratchet=False))
    return errs


def kube_finalizers(obj: Obj) -> Errs:
    """What ``pkg/apis/core/validation`` adds for every built-in kind, on create and update:
    a finalizer without a ``/`` must be a standard one (``kubernetes``, ``orphan``,
    ``foregroundDeletion``), reported at its index."""
    return [
        invalid(
            f"metadata.finalizers[{i}]",
            name,
            "name is neither a standard finalizer name nor is it fully qualified",
            ratchet=False,
        )
        for i, name in enumerate(items(mapping(obj.get("metadata")).get("finalizers")))
        if isinstance(name, str) and "/" not in name and name not in _STANDARD_FINALIZERS
    ]


def _namespace(meta: Obj, namespaced: bool) -> Errs:
    namespace = meta.get("namespace")
    if not namespaced:
        return [forbidden("metadata.namespace", "not allowed on this type")] if namespace else []
    if not namespace:
        return [required("metadata.namespace")]
    return [invalid("metadata.namespace", namespace, m) for m in dns_label(str(namespace))]


def validate_object_meta(obj: Obj, check: NameCheck, *, namespaced: bool) -> Errs:
    """``ValidateObjectMeta`` on create."""
    meta = mapping(obj.get("metadata"))
    errs: Errs = []
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        masked = _mask_trailing_dash(generate)
        errs += [invalid("metadata.generateName", generate, m) for m in check(masked)]
    name = meta.get("name")
    if not name:
        errs.append(required("metadata.name", "name or generateName is required"))
    elif isinstance(name, str):
        errs += [invalid("metadata.name", name, m) for m in check(name)]
    errs += _namespace(meta, namespaced)
    errs += _labels(meta.get("labels"))
    errs += _annotations(meta.get("annotations"))
    errs += _owner_references(meta.get("ownerReferences"))
    errs += _finalizers(meta.get("finalizers"))
    return errs


def validate_object_meta_update(obj: Obj, old: Obj) -> Errs:
    """``ValidateObjectMetaUpdate``: immutable identity, no new finalizers while deleting."""
    meta, old_meta = mapping(obj.get("metadata")), mapping(old.get("metadata"))
    errs: Errs = []
    if old_meta.get("deletionTimestamp"):
        new = {f for f in items(meta.get("finalizers")) if isinstance(f, str)}
        extra = sorted(new - {f for f in items(old_meta.get("finalizers")) if isinstance(f, str)})
        if extra:
            shown = "[]string{" + ", ".join(json.dumps(f) for f in extra) + "}"
            detail = (
                "no new finalizers can be added if the object is being deleted, "
                f"found new finalizers {shown}"
            )
            errs.append(forbidden("metadata.finalizers", detail, ratchet=False))
    errs += [
        invalid(f"metadata.{name}", meta.get(name), IMMUTABLE, ratchet=False)
        for name in ("name", "namespace")
        if meta.get(name) != old_meta.get(name)
    ]
    errs += _labels(meta.get("labels"))
    errs += _annotations(meta.get("annotations"))
    errs += _owner_references(meta.get("ownerReferences"))
    return errs
