"""Which webhooks a request calls, and as which kind and resource (``k8s.io/apiserver``
``pkg/admission/plugin/webhook/generic/webhook.go`` ``ShouldCallHook`` and ``predicates``).

A webhook is called when the namespace's labels match its ``namespaceSelector`` (a cluster-scoped
object other than a Namespace always matches; a Namespace is matched by its own labels), the
new or the old object's labels match its ``objectSelector``, and one of its ``rules`` matches the
operation, group, version, resource/subresource and scope. With ``matchPolicy: Equivalent``
(the default) a rule naming another served version of the same resource matches too, and the
webhook then sees the object at that version. Webhook configurations themselves never go
through webhooks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloadbuilder.testing.common.resources import ADMISSION, Registry, ResourceType
from workloadbuilder.testing.engine.admission.attributes import Attributes
from workloadbuilder.testing.engine.objects import NAMESPACES
from workloadbuilder.testing.store.selectors import matches_label_selector
from workloadbuilder.testing.store.store import Store


@dataclass(frozen=True)
class Invocation:
    """A webhook to call, and the resource type the request is converted to for it."""

    configuration: str
    hook: dict[str, Any]
    rt: ResourceType


def _listed(values: Any, value: str) -> bool:
    return isinstance(values, list) and ("*" in values or value in values)


def _resource_matches(resources: Any, resource: str, subresource: str) -> bool:
    for entry in resources if isinstance(resources, list) else []:
        if entry == "*/*":
            return True
        if entry == "*" and not subresource:
            return True
        res, _, sub = str(entry).partition("/")
        if "/" not in str(entry):
            if res == resource and not subresource:
                return True
        elif res in ("*", resource) and sub in ("*", subresource):
            return True
    return False


def _scope_matches(scope: Any, rt: ResourceType, namespace: str) -> bool:
    is_namespace = (rt.group, rt.plural) == NAMESPACES
    if scope in (None, "*"):
        return True
    if scope == "Namespaced":
        return not is_namespace and bool(namespace)
    return is_namespace or not namespace


def rule_matches(rule: Any, attrs: Attributes, rt: ResourceType) -> bool:
    """Whether one of a webhook's ``rules`` covers the request made at ``rt``."""
    if not isinstance(rule, dict):
        return False
    return (
        _listed(rule.get("operations"), attrs.operation)
        and _listed(rule.get("apiGroups"), rt.group)
        and _listed(rule.get("apiVersions"), rt.version)
        and _resource_matches(rule.get("resources"), rt.plural, attrs.subresource)
        and _scope_matches(rule.get("scope"), rt, attrs.namespace)
    )


def _labels(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    if obj is None:
        return None
    return obj.get("metadata", {}).get("labels") or {}


def _namespace_matches(hook: dict[str, Any], attrs: Attributes, store: Store) -> bool:
    selector = hook.get("namespaceSelector") or {}
    if (attrs.rt.group, attrs.rt.plural) == NAMESPACES:
        labels = _labels(attrs.obj if attrs.obj is not None else attrs.old) or {}
    elif not attrs.namespace:
        return True
    else:
        ns = store.get(NAMESPACES, ("", attrs.namespace))
        labels = _labels(ns.obj if ns is not None else None) or {}
    return not selector or matches_label_selector(selector, labels)


def _object_matches(hook: dict[str, Any], attrs: Attributes) -> bool:
    selector = hook.get("objectSelector") or {}
    if not selector:
        return True
    return any(
        labels is not None and matches_label_selector(selector, labels)
        for labels in (_labels(attrs.obj), _labels(attrs.old))
    )


def _equivalents(registry: Registry, rt: ResourceType) -> list[ResourceType]:
    return [
        other
        for other in registry.all()
        if (other.group, other.plural) == (rt.group, rt.plural) and other.version != rt.version
    ]


def invocation(
    configuration: str,
    hook: dict[str, Any],
    attrs: Attributes,
    store: Store,
    registry: Registry,
) -> Invocation | None:
    """The call ``hook`` gets for ``attrs``, or ``None`` when it does not apply."""
    if attrs.rt.group == ADMISSION:
        return None
    if not _namespace_matches(hook, attrs, store) or not _object_matches(hook, attrs):
        return None
    rules = hook.get("rules") or []
    if any(rule_matches(rule, attrs, attrs.rt) for rule in rules):
        return Invocation(configuration, hook, attrs.rt)
    if hook.get("matchPolicy", "Equivalent") != "Equivalent":
        return None
    for other in _equivalents(registry, attrs.rt):
        if any(rule_matches(rule, attrs, other) for rule in rules):
            return Invocation(configuration, hook, other)
    return None


def configured(store: Store, plural: str) -> list[tuple[str, dict[str, Any]]]:
    """``(configuration name, webhook)`` of every stored configuration of ``plural``, the
    configurations sorted by name and each one's webhooks in order (as upstream's source)."""
    found = sorted(store.select((ADMISSION, plural), None), key=lambda s: s.obj["metadata"]["name"])
    return [
        (s.obj["metadata"]["name"], hook)
        for s in found
        for hook in s.obj.get("webhooks") or []
        if isinstance(hook, dict)
    ]
