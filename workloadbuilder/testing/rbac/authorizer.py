"""The RBAC authorizer over the server's store: the rules that apply to a user in a namespace
(``DefaultRuleResolver.VisitRulesFor`` in kubernetes ``pkg/registry/rbac/validation/rule.go``)
and the decision on a request (``plugin/pkg/auth/authorizer/rbac/rbac.go``): allowed when any
rule of a ClusterRoleBinding, or of a RoleBinding in the request's namespace, allows it; the
reason of a refusal lists the bindings whose role could not be read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from workloadbuilder.testing.rbac.attributes import Attributes
from workloadbuilder.testing.rbac.identity import UserInfo, split_service_account
from workloadbuilder.testing.rbac.policy import Rule, rule_allows
from workloadbuilder.testing.rules.errors import go_quote
from workloadbuilder.testing.store.store import Store

RBAC: Final = "rbac.authorization.k8s.io"
ROLES: Final = (RBAC, "roles")
CLUSTER_ROLES: Final = (RBAC, "clusterroles")
ROLE_BINDINGS: Final = (RBAC, "rolebindings")
CLUSTER_ROLE_BINDINGS: Final = (RBAC, "clusterrolebindings")


@dataclass(frozen=True)
class Decision:
    """``allowed``, and the reason the authorizer gives (``""`` when it has none)."""

    allowed: bool
    reason: str = ""


def _applies(user: UserInfo, subject: Any, namespace: str) -> bool:
    if not isinstance(subject, dict):
        return False
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "User":
        return bool(user.name == name)
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        sa_namespace = subject.get("namespace") or namespace
        return bool(sa_namespace) and split_service_account(user.name) == (sa_namespace, name)
    return False


def _describe(binding: dict[str, Any], subject: dict[str, Any], namespace: str) -> str:
    """``ClusterRoleBinding "b" of ClusterRole "r" to User "u"`` (a RoleBinding's name as
    ``name/namespace``; a service account as ``name/namespace``)."""
    ref: dict[str, Any] = _map(binding.get("roleRef"))
    name = str(binding.get("metadata", {}).get("name", ""))
    kind = "RoleBinding" if namespace else "ClusterRoleBinding"
    if namespace:
        name = f"{name}/{namespace}"
    who = str(subject.get("name", ""))
    if subject.get("kind") == "ServiceAccount":
        who = f"{who}/{subject.get('namespace') or namespace}"
    return (
        f"{kind} {_quoted(name)} of {ref.get('kind', '')} {_quoted(ref.get('name'))} "
        f"to {subject.get('kind', '')} {_quoted(who)}"
    )


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


class RBACAuthorizer:
    """Decides requests from the Roles, ClusterRoles and their bindings in ``store``.

    ``registry=False`` words a missing role as the authorizer's informer listers do
    (``clusterrole.rbac.authorization.k8s.io "x" not found``); ``True`` as the registry
    behind the escalation checks (``clusterroles.rbac...``)."""

    def __init__(self, store: Store, *, registry: bool = False) -> None:
        self.store = store
        self._suffix = "s" if registry else ""
        self._cache: dict[tuple[str, tuple[str, ...], str], list[tuple[Rule | None, str]]] = {}

    def changed(self) -> None:
        """Forget what was resolved: a role or binding changed (call after every such write)."""
        self._cache.clear()

    def role_rules(self, role_ref: Any, namespace: str) -> tuple[list[Rule], str]:
        """The rules a binding's ``roleRef`` grants, or ``([], error)`` when they cannot be read
        (``GetRoleReferenceRules``: a missing role reads as the API's not-found message)."""
        ref = role_ref if isinstance(role_ref, dict) else {}
        kind, name = ref.get("kind"), str(ref.get("name", ""))
        if kind == "Role":
            found = self.store.get(ROLES, (namespace, name))
            what = f"role{self._suffix}.{RBAC} {_quoted(name)} not found"
        elif kind == "ClusterRole":
            found = self.store.get(CLUSTER_ROLES, ("", name))
            what = f"clusterrole{self._suffix}.{RBAC} {_quoted(name)} not found"
        else:
            return [], f"unsupported role reference kind: {_quoted(kind)}"
        if found is None:
            return [], what
        return [r for r in _list(found.obj.get("rules")) if isinstance(r, dict)], ""

    def visit(self, user: UserInfo, namespace: str) -> list[tuple[Rule | None, str]]:
        """Each ``(rule, source)`` that applies to ``user`` in ``namespace`` (``""``: cluster
        bindings only; ``source`` describes the binding and subject), and ``(None, error)``
        for each binding whose role cannot be read."""
        key = (user.name, user.groups, namespace)
        if key not in self._cache:
            if len(self._cache) > 1024:
                self._cache.clear()
            self._cache[key] = list(self._resolve(user, namespace))
        return self._cache[key]

    def _resolve(self, user: UserInfo, namespace: str) -> Iterator[tuple[Rule | None, str]]:
        sources: list[tuple[dict[str, Any], str]] = [
            (s.obj, "") for s in self.store.select(CLUSTER_ROLE_BINDINGS, None)
        ]
        if namespace:
            sources += [(s.obj, namespace) for s in self.store.select(ROLE_BINDINGS, namespace)]
        for binding, binding_namespace in sources:
            subjects = _list(binding.get("subjects"))
            subject = next((s for s in subjects if _applies(user, s, binding_namespace)), None)
            if subject is None:
                continue
            rules, error = self.role_rules(binding.get("roleRef"), binding_namespace)
            if error:
                yield None, error
                continue
            source = _describe(binding, subject, binding_namespace)
            for rule in rules:
                yield rule, source

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[Rule], list[str]]:
        """Every rule that applies, and the errors met resolving them."""
        rules: list[Rule] = []
        errors: list[str] = []
        for rule, text in self.visit(user, namespace):
            if rule is not None:
                rules.append(rule)
            else:
                errors.append(text)
        return rules, errors

    def authorize(self, attrs: Attributes) -> Decision:
        """The decision on ``attrs``: allowed ``by`` the first binding whose rule allows it;
        a refusal's reason is ``RBAC: <errors>`` when some binding's role could not be read,
        else empty."""
        errors: list[str] = []
        for rule, text in self.visit(attrs.user, attrs.namespace):
            if rule is None:
                errors.append(text)
            elif rule_allows(attrs, rule):
                return Decision(True, f"RBAC: allowed by {text}")
        if not errors:
            return Decision(False)
        joined = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        return Decision(False, f"RBAC: {joined}")


def _quoted(value: Any) -> str:
    return go_quote(str(value or ""))
