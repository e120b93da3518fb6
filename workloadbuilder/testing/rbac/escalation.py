"""Escalation prevention on writes of Roles, ClusterRoles and their bindings, as kubernetes'
``pkg/registry/rbac`` policy-based storages do it: a requester outside ``system:masters``
writes a role only with ``escalate`` on it or holding every permission it grants (and, for a
ClusterRole's ``aggregationRule``, every permission there is), and writes a binding only with
``bind`` on its role or holding every permission the role grants.
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.rbac.attributes import Attributes
from workloadbuilder.testing.rbac.authorizer import RBAC, RBACAuthorizer
from workloadbuilder.testing.rbac.identity import UserInfo
from workloadbuilder.testing.rbac.messages import escalation, forbidden
from workloadbuilder.testing.rbac.policy import Rule, uncovered

ROLE_KINDS: Final = {"Role": "roles", "ClusterRole": "clusterroles"}
BINDING_KINDS: Final = {"RoleBinding": "rolebindings", "ClusterRoleBinding": "clusterrolebindings"}
_FULL_AUTHORITY: Final = [
    {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
    {"nonResourceURLs": ["*"], "verbs": ["*"]},
]
_GC_FIELDS: Final = ("ownerReferences", "finalizers", "resourceVersion", "managedFields")


def _without_gc_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in obj.get("metadata", {}).items() if k not in _GC_FIELDS}
    return {**obj, "metadata": meta}


def _rules(obj: dict[str, Any]) -> list[Rule]:
    value = obj.get("rules")
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _role_ref(obj: dict[str, Any]) -> dict[str, Any]:
    ref = obj.get("roleRef")
    return ref if isinstance(ref, dict) else {}


class EscalationCheck:
    """Refuses (403) a requester's write that would grant more than it holds."""

    def __init__(self, authorizer: RBACAuthorizer) -> None:
        self.authorizer = authorizer
        self.resolver = RBACAuthorizer(authorizer.store, registry=True)

    def _allowed(self, user: UserInfo, verb: str, resource: str, name: str, ns: str) -> bool:
        attrs = Attributes(
            user, verb, True, api_group=RBAC, api_version="*", namespace=ns,
            resource=resource, name=name,
        )  # fmt: skip
        return self.authorizer.authorize(attrs).allowed

    def _confirm(
        self, user: UserInfo, namespace: str, wanted: list[Rule], resource: str, name: str
    ) -> None:
        held, resolution = self.resolver.rules_for(user, namespace)
        missing = uncovered(held, wanted)
        if missing:
            raise forbidden(RBAC, resource, name, escalation(user, missing, resolution))

    def check(
        self, user: UserInfo, kind: str, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> None:
        """Raise the API server's 403 if ``user`` may not write ``obj`` (``old``: the stored
        object of an update)."""
        if user.privileged:
            return
        if old is not None and _without_gc_fields(obj) == _without_gc_fields(old):
            return
        meta = obj.get("metadata", {})
        name, namespace = str(meta.get("name", "")), str(meta.get("namespace") or "")
        if kind in ROLE_KINDS:
            resource = ROLE_KINDS[kind]
            if self._allowed(user, "escalate", resource, name, namespace):
                return
            self._confirm(user, namespace, _rules(obj), resource, name)
            aggregation = obj.get("aggregationRule")
            if (
                kind == "ClusterRole"
                and aggregation
                and (old is None or old.get("aggregationRule") != aggregation)
            ):
                held, _ = self.resolver.rules_for(user, namespace)
                if uncovered(held, _FULL_AUTHORITY):
                    message = "must have cluster-admin privileges to use the aggregationRule"
                    raise forbidden(RBAC, resource, name, message)
            return
        ref = _role_ref(obj)
        target = ROLE_KINDS.get(str(ref.get("kind")))
        if target is None:
            return  # validation refuses the roleRef (422)
        bind = Attributes(
            user, "bind", True, api_group=str(ref.get("apiGroup", "")), namespace=namespace,
            resource=target, name=str(ref.get("name", "")),
        )  # fmt: skip
        if self.authorizer.authorize(bind).allowed:
            return
        rules, error = self.resolver.role_rules(ref, namespace)
        if error:
            ref_name = str(ref.get("name", ""))
            details = {"name": ref_name, "group": RBAC, "kind": target}
            raise errors.APIStatusError(errors.status_body(404, "NotFound", error, details))
        self._confirm(user, namespace, rules, BINDING_KINDS[kind], name)
