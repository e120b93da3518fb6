"""Policy rules as the RBAC authorizer reads them: whether a rule allows a request
(``RuleAllows`` and its matchers in kubernetes ``pkg/apis/rbac/v1/evaluation_helpers.go``),
whether rules cover others (``Covers`` in ``k8s.io/component-helpers/auth/rbac/validation``),
and the compact form escalation errors print (``CompactRules``, ``CompactString``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from workloadbuilder.testing.rbac.attributes import Attributes
from workloadbuilder.testing.rules.errors import go_quote

Rule = dict[str, Any]
"""A ``PolicyRule`` as JSON: ``verbs``, ``apiGroups``, ``resources``, ``resourceNames``,
``nonResourceURLs``."""

_ALL = "*"


def strings(rule: Rule, key: str) -> list[str]:
    """The rule's list at ``key`` (absent or malformed: empty)."""
    value = rule.get(key)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _verb_matches(rule: Rule, verb: str) -> bool:
    verbs = strings(rule, "verbs")
    return _ALL in verbs or verb in verbs


def _resource_matches(rule: Rule, combined: str, subresource: str) -> bool:
    for resource in strings(rule, "resources"):
        if resource in (_ALL, combined):
            return True
        if subresource and resource == f"*/{subresource}":
            return True
    return False


def _url_matches(rule: Rule, path: str) -> bool:
    for url in strings(rule, "nonResourceURLs"):
        if url in (_ALL, path):
            return True
        if url.endswith("*") and path.startswith(url.rstrip("*")):
            return True
    return False


def rule_allows(attrs: Attributes, rule: Rule) -> bool:
    """Whether ``rule`` allows the request (a resource rule never allows a non-resource
    request, and the other way round; resourceNames need the request to name an object)."""
    if not _verb_matches(rule, attrs.verb):
        return False
    if not attrs.resource_request:
        return _url_matches(rule, attrs.path)
    groups = strings(rule, "apiGroups")
    names = strings(rule, "resourceNames")
    return (
        (_ALL in groups or attrs.api_group in groups)
        and _resource_matches(rule, attrs.combined_resource, attrs.subresource)
        and (not names or attrs.name in names)
    )


# -- covering (escalation) ------------------------------------------------------------------


def breakdown(rule: Rule) -> list[Rule]:
    """The rule as rules of one group, resource, verb and resourceName each (URLs: one URL
    and one verb each)."""
    out: list[Rule] = []
    names = strings(rule, "resourceNames")
    verbs = strings(rule, "verbs")
    for group in strings(rule, "apiGroups"):
        for resource in strings(rule, "resources"):
            for verb in verbs:
                base = {"apiGroups": [group], "resources": [resource], "verbs": [verb]}
                if names:
                    out += [{**base, "resourceNames": [name]} for name in names]
                else:
                    out.append(base)
    for url in strings(rule, "nonResourceURLs"):
        out += [{"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs]
    return out


def _resources_cover(owned: list[str], wanted: list[str]) -> bool:
    if _ALL in owned or set(wanted) <= set(owned):
        return True
    for path in wanted:
        if path in owned:
            continue
        if "/" not in path or "*/" + path.split("/", 1)[1] not in owned:
            return False
    return True


def _url_covers(owner: str, path: str) -> bool:
    return owner == path or (owner.endswith("*") and path.startswith(owner.rstrip("*")))


def _covers(owner: Rule, sub: Rule) -> bool:
    verbs, groups = strings(owner, "verbs"), strings(owner, "apiGroups")
    names, sub_names = strings(owner, "resourceNames"), strings(sub, "resourceNames")
    owner_urls = strings(owner, "nonResourceURLs")
    return (
        (_ALL in verbs or set(strings(sub, "verbs")) <= set(verbs))
        and (_ALL in groups or set(strings(sub, "apiGroups")) <= set(groups))
        and _resources_cover(strings(owner, "resources"), strings(sub, "resources"))
        and all(any(_url_covers(o, p) for o in owner_urls) for p in strings(sub, "nonResourceURLs"))
        and (not names if not sub_names else (not names or set(sub_names) <= set(names)))
    )


def uncovered(owner_rules: Sequence[Rule], wanted: Iterable[Rule]) -> list[Rule]:
    """The atomic rules of ``wanted`` that no rule of ``owner_rules`` covers."""
    subrules = [sub for rule in wanted for sub in breakdown(rule)]
    return [sub for sub in subrules if not any(_covers(o, sub) for o in owner_rules)]


def compact(rules: Sequence[Rule]) -> list[Rule]:
    """Atomic rules of the same group, resource and resourceName merged into one rule with
    their verbs; the others as they are."""
    merged: dict[tuple[str, str, str | None], Rule] = {}
    out: list[Rule] = []
    for rule in rules:
        groups, resources = strings(rule, "apiGroups"), strings(rule, "resources")
        names = strings(rule, "resourceNames")
        simple = (
            len(groups) == 1
            and len(resources) == 1
            and not strings(rule, "nonResourceURLs")
            and len(names) <= 1
        )
        if not simple:
            out.append(rule)
            continue
        key = (groups[0], resources[0], names[0] if names else None)
        if key in merged:
            merged[key]["verbs"] = [*merged[key]["verbs"], *strings(rule, "verbs")]
        else:
            merged[key] = {**rule, "verbs": strings(rule, "verbs")}
    return out + list(merged.values())


def go_quoted_list(values: Sequence[str]) -> str:
    """A ``[]string`` printed with ``%q``: ``["a" "b"]``."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def compact_string(rule: Rule) -> str:
    """``{APIGroups:[""], Resources:["pods"], Verbs:["get"]}``: the parts a rule has."""
    parts = []
    for key, label in (
        ("apiGroups", "APIGroups"),
        ("resources", "Resources"),
        ("nonResourceURLs", "NonResourceURLs"),
        ("resourceNames", "ResourceNames"),
        ("verbs", "Verbs"),
    ):
        values = strings(rule, key)
        if values:
            parts.append(f"{label}:{go_quoted_list(values)}")
    return "{" + ", ".join(parts) + "}"
