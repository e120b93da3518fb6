"""Defaults and validation of ``rbac.authorization.k8s.io/v1`` Roles, ClusterRoles and their
bindings (kubernetes ``pkg/apis/rbac/v1/defaults.go`` and ``pkg/apis/rbac/validation``).
"""

from __future__ import annotations

from typing import Any, Final

from .common import Errs, Obj, items, mapping
from .errors import child, forbidden, index, invalid, not_supported, required
from .formats import dns_subdomain, label_value, path_segment_name, qualified_name

RBAC_GROUP: Final = "rbac.authorization.k8s.io"
KINDS: Final = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})
_SUBJECT_KINDS: Final = ["ServiceAccount", "User", "Group"]
_SELECTOR_OPERATORS: Final = ["In", "NotIn", "Exists", "DoesNotExist"]


def default_rbac(kind: str, obj: dict[str, Any]) -> None:
    """A binding's ``roleRef.apiGroup`` and its User and Group subjects' ``apiGroup`` default
    to ``rbac.authorization.k8s.io``."""
    if kind not in ("RoleBinding", "ClusterRoleBinding"):
        return
    ref = obj.get("roleRef")
    if isinstance(ref, dict) and not ref.get("apiGroup"):
        ref["apiGroup"] = RBAC_GROUP
    for subject in items(obj.get("subjects")):
        kind_of = subject.get("kind") if isinstance(subject, dict) else None
        if kind_of in ("User", "Group") and not subject.get("apiGroup"):
            subject["apiGroup"] = RBAC_GROUP


def _strings(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _rule(rule: Obj, namespaced: bool, path: str) -> Errs:
    errs: Errs = []
    if not _strings(rule.get("verbs")):
        errs.append(required(child(path, "verbs"), "verbs must contain at least one value"))
    urls = _strings(rule.get("nonResourceURLs"))
    if urls:
        where = child(path, "nonResourceURLs")
        if namespaced:
            errs.append(invalid(where, urls, "namespaced rules cannot apply to non-resource URLs"))
        if any(_strings(rule.get(k)) for k in ("apiGroups", "resources", "resourceNames")):
            detail = "rules cannot apply to both regular resources and non-resource URLs"
            errs.append(invalid(where, urls, detail))
        return errs
    if not _strings(rule.get("apiGroups")):
        detail = "resource rules must supply at least one api group"
        errs.append(required(child(path, "apiGroups"), detail))
    if not _strings(rule.get("resources")):
        detail = "resource rules must supply at least one resource"
        errs.append(required(child(path, "resources"), detail))
    return errs


def validate_label_selector(selector: Obj, path: str) -> Errs:
    """``ValidateLabelSelector`` (``metav1/validation``) of ``selector`` at ``path``."""
    errs: Errs = []
    for i, req in enumerate(items(selector.get("matchExpressions"))):
        at = index(child(path, "matchExpressions"), i)
        req = mapping(req)
        operator, values = req.get("operator"), _strings(req.get("values"))
        if operator in ("In", "NotIn") and not values:
            detail = "must be specified when `operator` is 'In' or 'NotIn'"
            errs.append(required(child(at, "values"), detail))
        elif operator in ("Exists", "DoesNotExist") and values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errs.append(forbidden(child(at, "values"), detail))
        elif operator not in _SELECTOR_OPERATORS:
            errs.append(not_supported(child(at, "operator"), operator, _SELECTOR_OPERATORS))
        for msg in qualified_name(str(req.get("key", ""))):
            errs.append(invalid(child(at, "key"), req.get("key", ""), msg))
    for key, value in mapping(selector.get("matchLabels")).items():
        for msg in qualified_name(str(key)):
            errs.append(invalid(child(path, "matchLabels"), key, msg))
        for msg in label_value(str(value)):
            errs.append(invalid(child(path, "matchLabels"), value, msg))
    return errs


def _role(kind: str, obj: Obj) -> Errs:
    namespaced = kind == "Role"
    errs: Errs = []
    for i, rule in enumerate(items(obj.get("rules"))):
        errs += _rule(mapping(rule), namespaced, index("rules", i))
    aggregation = obj.get("aggregationRule")
    if kind == "ClusterRole" and isinstance(aggregation, dict):
        selectors = items(aggregation.get("clusterRoleSelectors"))
        path = "aggregationRule.clusterRoleSelectors"
        if not selectors:
            detail = "at least one clusterRoleSelector required if aggregationRule is non-nil"
            errs.append(required(path, detail))
        for i, selector in enumerate(selectors):
            errs += validate_label_selector(mapping(selector), index(path, i))
    return errs


def _subject(subject: Obj, namespaced: bool, path: str) -> Errs:
    errs: Errs = []
    name, kind = subject.get("name") or "", subject.get("kind") or ""
    group = subject.get("apiGroup") or ""
    if not name:
        errs.append(required(child(path, "name")))
    if kind == "ServiceAccount":
        for msg in dns_subdomain(name) if name else []:
            errs.append(invalid(child(path, "name"), name, msg))
        if group:
            errs.append(not_supported(child(path, "apiGroup"), group, [""]))
        if not namespaced and not subject.get("namespace"):
            errs.append(required(child(path, "namespace")))
    elif kind in ("User", "Group"):
        if group != RBAC_GROUP:
            errs.append(not_supported(child(path, "apiGroup"), group, [RBAC_GROUP]))
    else:
        errs.append(not_supported(child(path, "kind"), kind, _SUBJECT_KINDS))
    return errs


def _binding(kind: str, obj: Obj, old: Obj | None) -> Errs:
    namespaced = kind == "RoleBinding"
    ref = mapping(obj.get("roleRef"))
    errs: Errs = []
    group, ref_kind = ref.get("apiGroup") or "", ref.get("kind") or ""
    name = ref.get("name") or ""
    if group != RBAC_GROUP:
        errs.append(not_supported("roleRef.apiGroup", group, [RBAC_GROUP]))
    kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    if ref_kind not in kinds:
        errs.append(not_supported("roleRef.kind", ref_kind, kinds))
    if not name:
        errs.append(required("roleRef.name"))
    else:
        errs += [invalid("roleRef.name", name, msg) for msg in path_segment_name(name)]
    for i, subject in enumerate(items(obj.get("subjects"))):
        errs += _subject(mapping(subject), namespaced, index("subjects", i))
    if old is not None and mapping(old.get("roleRef")) != ref:
        errs.append(invalid("roleRef", ref, "cannot change roleRef"))
    return errs


def validate_rbac(kind: str, obj: Obj, old: Obj | None) -> Errs:
    """The kind's own rules (its metadata is checked apart, names as path segments)."""
    if kind in ("Role", "ClusterRole"):
        return _role(kind, obj)
    if kind in ("RoleBinding", "ClusterRoleBinding"):
        return _binding(kind, obj, old)
    return []
