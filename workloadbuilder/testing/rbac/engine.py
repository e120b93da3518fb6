"""The verbs of a server that serves the RBAC API (in every authorization mode): every kind's
verbs, plus escalation prevention on roles and bindings (when the request has an
authenticated requester, i.e. under RBAC), the review APIs (answered, never stored) and the
ClusterRole aggregation controller (an aggregated role's rules are the union of the rules of
the ClusterRoles its selectors match, in name order, each rule once).
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.apply.merge import copy_json
from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import Registry, ResourceType
from workloadbuilder.testing.engine import checks
from workloadbuilder.testing.engine.custom_resources import CustomResourceEngine
from workloadbuilder.testing.engine.unknown_fields import FieldChecker
from workloadbuilder.testing.engine.verbs import Result, WriteOptions
from workloadbuilder.testing.rbac.authorizer import CLUSTER_ROLES, RBAC, RBACAuthorizer
from workloadbuilder.testing.rbac.escalation import BINDING_KINDS, ROLE_KINDS, EscalationCheck
from workloadbuilder.testing.rbac.identity import REQUESTER, UserInfo
from workloadbuilder.testing.rbac.reviews import REVIEW_GROUPS, review
from workloadbuilder.testing.store.selectors import matches_label_selector
from workloadbuilder.testing.store.store import GroupResource, Name, Store, Stored

AGGREGATOR: Final = WriteOptions(field_manager="clusterrole-aggregation-controller")
_SYSTEM: Final = UserInfo("system:apiserver", ("system:masters",))


def _is_review(rt: ResourceType) -> bool:
    return rt.group in REVIEW_GROUPS


class RBACEngine(CustomResourceEngine):
    """:class:`CustomResourceEngine` with what the RBAC API adds; the requester of each write
    is :data:`~workloadbuilder.testing.rbac.identity.REQUESTER`."""

    def __init__(
        self,
        registry: Registry,
        store: Store,
        field_checker: FieldChecker | None,
        **options: bool,
    ) -> None:
        """As :class:`CustomResourceEngine`; the authorizer reads ``store``."""
        super().__init__(registry, store, field_checker, **options)
        self.authorizer = RBACAuthorizer(self.store)
        self.escalation = EscalationCheck(self.authorizer)
        self._aggregating = False

    # -- reviews -----------------------------------------------------------------------------

    def create(
        self, rt: ResourceType, namespace: str | None, body: Any, opts: WriteOptions
    ) -> Result:
        """POST; a review is answered (201) and not stored."""
        if not _is_review(rt):
            return super().create(rt, namespace, body, opts)
        obj = checks.check_type(self.registry, rt, checks.decode_object(rt, body))
        user = REQUESTER.get() or _SYSTEM
        return Result(201, review(self.authorizer, rt, user, copy_json(obj)))

    def get(self, rt: ResourceType, namespace: str | None, name: str) -> dict[str, Any]:
        if _is_review(rt):
            raise errors.method_not_allowed("GET")
        return super().get(rt, namespace, name)

    def listing(self, rt: ResourceType, namespace: str | None, *args: Any) -> dict[str, Any]:
        if _is_review(rt):
            raise errors.method_not_allowed("GET")
        return super().listing(rt, namespace, *args)

    # -- escalation --------------------------------------------------------------------------

    def _validate(self, rt: ResourceType, stored: Stored | None, obj: dict[str, Any]) -> None:
        user = REQUESTER.get()
        if user is not None and rt.group == RBAC and rt.kind in {**ROLE_KINDS, **BINDING_KINDS}:
            old = self.as_served(rt, stored.obj) if stored else None
            self.escalation.check(user, rt.kind, obj, old)
        super()._validate(rt, stored, obj)

    # -- aggregation -------------------------------------------------------------------------

    def persist(self, rt: ResourceType, stored: Stored) -> None:
        super().persist(rt, stored)
        if rt.group == RBAC:
            self._rbac_changed()
        if (rt.group, rt.plural) == CLUSTER_ROLES:
            self.aggregate()

    def _remove(self, resource: GroupResource, key: Name, stored: Stored) -> dict[str, Any]:
        final = super()._remove(resource, key, stored)
        if resource[0] == RBAC:
            self._rbac_changed()
            if resource == CLUSTER_ROLES:
                self.aggregate()
        return final

    def _rbac_changed(self) -> None:
        self.authorizer.changed()
        self.escalation.resolver.changed()

    def aggregate(self) -> None:
        """Bring every aggregated ClusterRole's rules up to date (a chain settles in a few
        rounds: ``view`` feeds ``edit``, which feeds ``admin``)."""
        if self._aggregating:
            return
        self._aggregating = True
        token = REQUESTER.set(None)
        try:
            for _ in range(8):
                if not self._aggregate_once():
                    break
        finally:
            REQUESTER.reset(token)
            self._aggregating = False

    def _aggregate_once(self) -> bool:
        roles = sorted(
            self.store.select(CLUSTER_ROLES, None), key=lambda s: s.obj["metadata"]["name"]
        )
        rt = self.any_version(CLUSTER_ROLES)
        changed = False
        for stored in roles:
            rule = stored.obj.get("aggregationRule")
            if not isinstance(rule, dict) or stored.obj["metadata"].get("deletionTimestamp"):
                continue
            selectors = rule.get("clusterRoleSelectors") or []
            wanted: list[Any] = []
            for other in roles:
                meta = other.obj["metadata"]
                if meta["name"] == stored.obj["metadata"]["name"]:
                    continue
                labels = meta.get("labels") or {}
                if not any(matches_label_selector(s, labels) for s in selectors):
                    continue
                wanted += [r for r in other.obj.get("rules") or [] if r not in wanted]
            if (stored.obj.get("rules") or []) == wanted:
                continue
            obj = copy_json(stored.obj)
            obj["rules"] = wanted
            self._update(rt, stored, obj, AGGREGATOR, "")
            changed = True
        return changed
