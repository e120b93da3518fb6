"""CustomResourceDefinitions (``apiextensions.k8s.io/v1``): defaults, validation, conditions.

What apiextensions-apiserver does to a CRD itself: ``SetDefaults_CustomResourceDefinition``
(``names.singular`` is the lower-cased kind, ``names.listKind`` the kind plus ``List``,
``conversion.strategy`` ``None``), the checks of ``ValidateCustomResourceDefinition`` a test
most often trips over (the name is ``<plural>.<group>``, a dotted group, the scope, one
storage version, a schema per version whose root is an object), and the status its naming
and establishing controllers write (``NamesAccepted``, then ``Established``).
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlparse

from .common import Errs, Obj, items, mapping
from .errors import child, forbidden, index, invalid, not_supported, required
from .formats import dns_label, dns_subdomain

GROUP: Final = "apiextensions.k8s.io"
KIND: Final = "CustomResourceDefinition"
_SCOPES: Final = ["Cluster", "Namespaced"]
_COLUMN_TYPES: Final = ["boolean", "date", "integer", "number", "string"]


def apply_defaults(crd: Obj) -> None:
    """``SetDefaults_CustomResourceDefinition`` (v1), in place."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict) and isinstance(names.get("kind"), str) and names["kind"]:
        names.setdefault("singular", names["kind"].lower())
        names.setdefault("listKind", names["kind"] + "List")
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}


APPROVAL: Final = "api-approved.kubernetes.io"
_APPROVAL_LINK: Final = "see https://github.com/kubernetes/enhancements/pull/1111"


def _protected(group: str) -> bool:
    return any(group == d or group.endswith("." + d) for d in ("k8s.io", "kubernetes.io"))


def _approval(crd: Obj, old: Obj | None) -> Errs:
    """A CRD in a ``k8s.io`` or ``kubernetes.io`` group needs the API approval annotation
    (checked on create and whenever the annotation changes)."""
    group = mapping(crd.get("spec")).get("group")
    if not isinstance(group, str) or not _protected(group):
        return []
    value = mapping(mapping(crd.get("metadata")).get("annotations")).get(APPROVAL, "")
    if old is not None and value == mapping(mapping(old.get("metadata")).get("annotations")).get(
        APPROVAL, ""
    ):
        return []
    path = f"metadata.annotations[{APPROVAL}]"
    if not value:
        detail = f'protected groups must have approval annotation "{APPROVAL}", {_APPROVAL_LINK}'
        return [required(path, detail)]
    link = urlparse(str(value))
    if str(value).startswith("unapproved") or (link.scheme and link.netloc):
        return []
    detail = (
        f'protected groups must have approval annotation "{APPROVAL}" with either a URL or a '
        f'reason starting with "unapproved", {_APPROVAL_LINK}'
    )
    return [invalid(path, value, detail)]


def validate(crd: Obj, old: Obj | None = None) -> Errs:
    """The spec checks of ``ValidateCustomResourceDefinition`` (``old``: the stored CRD on
    an update)."""
    spec = mapping(crd.get("spec"))
    names = mapping(spec.get("names"))
    group, plural = spec.get("group"), names.get("plural")
    errs: Errs = []
    name = mapping(crd.get("metadata")).get("name")
    if isinstance(name, str) and name and name != f"{plural or ''}.{group or ''}":
        errs.append(invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
    if not isinstance(group, str) or not group:
        errs.append(required("spec.group"))
    elif problems := dns_subdomain(group):
        errs.append(invalid("spec.group", group, ",".join(problems)))
    elif "." not in group:
        errs.append(invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope")
    if not scope:
        errs.append(required("spec.scope"))
    elif scope not in _SCOPES:
        errs.append(not_supported("spec.scope", scope, _SCOPES))
    errs += _versions(spec)
    for key in ("plural", "singular", "kind", "listKind"):
        if not names.get(key):
            errs.append(required(f"spec.names.{key}"))
    for key in ("plural", "singular"):
        value = names.get(key)
        if isinstance(value, str) and value and (problems := dns_label(value)):
            errs.append(invalid(f"spec.names.{key}", value, ",".join(problems)))
    return errs + _approval(crd, old)


def _versions(spec: Obj) -> Errs:
    errs: Errs = []
    versions = items(spec.get("versions"))
    path = "spec.versions"
    seen: set[Any] = set()
    storage = 0
    for i, version in enumerate(versions):
        version = mapping(version)
        here = index(path, i)
        storage += version.get("storage") is True
        name = version.get("name")
        if isinstance(name, str) and (problems := dns_label(name)):
            errs.append(invalid(child(here, "name"), name, ",".join(problems)))
        schema_path = f"{here}.schema.openAPIV3Schema"
        schema = mapping(version.get("schema")).get("openAPIV3Schema")
        if not isinstance(schema, dict):
            errs.append(required(schema_path, "schemas are required"))
        else:
            errs += structural_errors(schema, schema_path)
        for j, column in enumerate(items(version.get("additionalPrinterColumns"))):
            errs += _column(mapping(column), f"{here}.additionalPrinterColumns[{j}]")
        seen.add(name)
    if len(seen) != len(versions):
        errs.append(invalid(path, versions, "must contain unique version names"))
    if storage != 1:
        errs.append(
            invalid(path, versions, "must have exactly one version marked as storage version")
        )
    return errs


_LEVELS: Final = {
    "root": "must not be empty at the root",
    "item": "must not be empty for specified array items",
    "field": "must not be empty for specified object fields",
}


def structural_errors(schema: Obj, path: str, level: str = "root") -> Errs:
    """Where ``schema`` is not structural: every node names its ``type`` (unless it keeps
    unknown fields or is int-or-string), the root is an object, ``properties`` and
    ``additionalProperties`` exclude each other, ``uniqueItems`` is not true."""
    errs: Errs = []
    kind = schema.get("type")
    open_node = schema.get("x-kubernetes-int-or-string") or schema.get(
        "x-kubernetes-preserve-unknown-fields"
    )
    if not kind and not open_node:
        errs.append(required(child(path, "type"), _LEVELS[level]))
    elif level == "root" and kind and kind != "object":
        errs.append(invalid(child(path, "type"), kind, "must be object at the root"))
    properties = mapping(schema.get("properties"))
    extra = schema.get("additionalProperties")
    if properties and extra is not None:
        errs.append(
            forbidden(
                child(path, "additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            )
        )
    if schema.get("uniqueItems") is True:
        errs.append(
            forbidden(
                child(path, "uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            )
        )
    for name, sub in properties.items():
        if isinstance(sub, dict):
            errs += structural_errors(sub, f"{path}.properties[{name}]", "field")
    if isinstance(extra, dict):
        errs += structural_errors(extra, child(path, "additionalProperties"), "field")
    if isinstance(schema.get("items"), dict):
        errs += structural_errors(schema["items"], child(path, "items"), "item")
    return errs


def _column(column: Obj, path: str) -> Errs:
    errs: Errs = []
    if not column.get("name"):
        errs.append(required(child(path, "name")))
    kind = column.get("type")
    if not kind:
        errs.append(required(child(path, "type")))
    elif kind not in _COLUMN_TYPES:
        errs.append(not_supported(child(path, "type"), kind, _COLUMN_TYPES))
    if not column.get("jsonPath"):
        errs.append(required(child(path, "jsonPath")))
    return errs


def initial_status(crd: Obj) -> Obj:
    """The status a CRD is created with: no conditions yet (``null``: the v1 type's
    ``conditions`` has no ``omitempty``), no accepted names, the storage version stored."""
    stored = [
        v.get("name")
        for v in items(mapping(crd.get("spec")).get("versions"))
        if isinstance(v, dict) and v.get("storage") is True
    ]
    return {
        "conditions": None,
        "acceptedNames": {"plural": "", "kind": ""},
        "storedVersions": stored,
    }


def established_status(crd: Obj, stamp: str) -> Obj:
    """The status once the naming and establishing controllers have run (names accepted)."""
    status = dict(mapping(crd.get("status")))
    names = dict(mapping(mapping(crd.get("spec")).get("names")))
    status["acceptedNames"] = names
    old = {c.get("type"): c for c in items(status.get("conditions")) if isinstance(c, dict)}
    status["conditions"] = [
        _condition(old, "NamesAccepted", "NoConflicts", "no conflicts found", stamp),
        _condition(
            old,
            "Established",
            "InitialNamesAccepted",
            "the initial names have been accepted",
            stamp,
        ),
    ]
    stored = list(items(status.get("storedVersions")))
    for version in items(mapping(crd.get("spec")).get("versions")):
        name = mapping(version).get("name")
        if mapping(version).get("storage") is True and name not in stored:
            stored.append(name)
    status["storedVersions"] = stored
    return status


def _condition(old: dict[Any, Any], kind: str, reason: str, message: str, stamp: str) -> Obj:
    previous = mapping(old.get(kind))
    since = previous.get("lastTransitionTime") if previous.get("status") == "True" else stamp
    return {
        "type": kind,
        "status": "True",
        "lastTransitionTime": since,
        "reason": reason,
        "message": message,
    }


def is_established(crd: Obj) -> bool:
    """Whether the CRD's ``Established`` condition is True."""
    return any(
        mapping(c).get("type") == "Established" and mapping(c).get("status") == "True"
        for c in items(mapping(crd.get("status")).get("conditions"))
    )
