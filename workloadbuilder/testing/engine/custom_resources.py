"""Custom resources: the verbs over kinds that CustomResourceDefinitions add, and the
apiextensions controllers the test server stands in for.

:class:`CustomResourceEngine` is the :class:`~.verbs.Engine` with what
apiextensions-apiserver adds:

- a created or changed CRD gets the status its naming and establishing controllers write
  (``NamesAccepted``, ``Established``, ``acceptedNames``, ``storedVersions``), as a status
  update by ``kube-apiserver``; from then on its served versions are in the registry, so in
  discovery, OpenAPI and on their URLs;
- a custom resource is pruned, defaulted and validated by its version's structural schema
  (``rules.structural``), and refuses strategic merge patches (415, as apiextensions offers
  only JSON patch, merge patch and apply);
- deleting a CRD marks it with the ``customresourcecleanup.apiextensions.k8s.io`` finalizer
  and a ``Terminating`` condition; its objects are deleted, then the finalizer goes and the
  kind is no longer served.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.testing import rules
from workloadbuilder.testing.apply.merge import copy_json
from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.custom_types import (
    DEFINITIONS,
    CustomResourceType,
    from_definition,
    is_definition,
)
from workloadbuilder.testing.common.resources import Registry, ResourceType
from workloadbuilder.testing.engine import checks
from workloadbuilder.testing.engine.unknown_fields import FieldChecker, metadata_unknown_fields
from workloadbuilder.testing.engine.verbs import (
    APPLY,
    JSON_PATCH,
    MERGE,
    Engine,
    Result,
    WriteOptions,
    now,
)
from workloadbuilder.testing.rules import definitions, structural
from workloadbuilder.testing.store.store import GroupResource, Name, Store, Stored

CLEANUP = "customresourcecleanup.apiextensions.k8s.io"
"""The finalizer that holds a deleted CRD until its objects are gone."""
CUSTOM_PATCH_TYPES = (JSON_PATCH, MERGE, APPLY)
"""What a PATCH of a custom resource accepts (no strategic merge)."""
_SERVER = WriteOptions(default_manager="kube-apiserver")
_TERMINATING = {
    "type": "Terminating",
    "status": "True",
    "reason": "InstanceDeletionPending",
    "message": "CustomResourceDefinition marked for deletion; "
    "CustomResource deletion will begin soon",
}


def custom_field_checker(registry: Registry, base: FieldChecker | None) -> FieldChecker:
    """``base`` for the built-in kinds; for a custom resource, the unknown fields of its
    ``metadata`` and the fields its schema prunes."""

    def check(group: str, version: str, kind: str, obj: dict[str, Any]) -> list[str]:
        rt = registry.by_kind(group, version, kind)
        if isinstance(rt, CustomResourceType):
            unknown = metadata_unknown_fields(obj)
            return unknown + structural.unknown_fields(dict(rt.schema), obj)
        return base(group, version, kind, obj) if base is not None else []

    return check


class CustomResourceEngine(Engine):
    """The verbs of every served kind, CustomResourceDefinitions and their kinds included."""

    def __init__(
        self,
        registry: Registry,
        store: Store,
        field_checker: FieldChecker | None,
        **options: bool,
    ) -> None:
        """As :class:`Engine`, ``field_checker`` extended to custom resources."""
        super().__init__(registry, store, custom_field_checker(registry, field_checker), **options)
        self._synced: dict[str, str] = {}
        """CRD name -> the resourceVersion whose types are in the registry."""
        self._cleaning = False
        self.own_deletes[DEFINITIONS] = self._delete_definition

    # -- custom resources: schema, status, patch types ----------------------------------

    def _apply_defaults(self, rt: ResourceType, obj: dict[str, Any], *, creating: bool) -> None:
        if isinstance(rt, CustomResourceType):
            structural.apply_defaults(dict(rt.schema), obj)
        elif is_definition(rt):
            definitions.apply_defaults(obj)
            if creating:
                obj["status"] = definitions.initial_status(obj)
        else:
            super()._apply_defaults(rt, obj, creating=creating)

    def _validate(self, rt: ResourceType, stored: Stored | None, obj: dict[str, Any]) -> None:
        if not isinstance(rt, CustomResourceType) and not is_definition(rt):
            super()._validate(rt, stored, obj)
            return
        old = self.as_served(rt, stored.obj) if stored else None
        causes = rules.validate_object(
            rt.group, rt.version, rt.kind, obj, old, self.registry.gates, namespaced=rt.namespaced
        )
        if isinstance(rt, CustomResourceType):
            found = structural.validate(dict(rt.schema), obj, old)
        else:
            found = definitions.validate(obj, old)
        causes += [e.to_cause() for e in found]
        if causes:
            raise errors.invalid(rt.kind, rt.group, obj["metadata"].get("name", ""), causes)

    def create(
        self, rt: ResourceType, namespace: str | None, body: Any, opts: WriteOptions
    ) -> Result:
        """POST; a kind whose CRD is being deleted takes no new objects (405, as
        apiextensions' handler answers)."""
        if isinstance(rt, CustomResourceType):
            crd = self.store.get(DEFINITIONS, ("", rt.definition))
            if crd is not None and crd.obj["metadata"].get("deletionTimestamp"):
                raise errors.APIStatusError(
                    errors.status_body(
                        405,
                        "MethodNotAllowed",
                        "create not allowed while custom resource definition is terminating",
                        {"group": rt.group, "kind": rt.plural},
                    )
                )
        return super().create(rt, namespace, body, opts)

    def patch_types(self, rt: ResourceType) -> tuple[str, ...]:
        """A custom resource takes JSON patch, merge patch and apply only (else 415)."""
        if isinstance(rt, CustomResourceType):
            return CUSTOM_PATCH_TYPES
        return super().patch_types(rt)

    # -- the naming and establishing controllers -----------------------------------------

    def persist(self, rt: ResourceType, stored: Stored) -> None:
        """Store; a CRD write then runs its controllers, and every write the CRD finalizer."""
        super().persist(rt, stored)
        if is_definition(rt):
            self._sync_definitions()
        self._clean_definitions()

    def _remove(self, resource: GroupResource, key: Name, stored: Stored) -> dict[str, Any]:
        final = super()._remove(resource, key, stored)
        if resource == DEFINITIONS:
            self._sync_definitions()
        return final

    def _sync_definitions(self) -> None:
        """Establish new CRDs and serve exactly the versions of the established ones."""
        crd_rt = self.any_version(DEFINITIONS)
        live: dict[str, Stored] = {}
        for stored in self.store.select(DEFINITIONS, None):
            crd = stored.obj
            if not crd["metadata"].get("deletionTimestamp") and not definitions.is_established(crd):
                self._establish(crd_rt, stored)
                return  # the status write syncs again
            live[crd["metadata"]["name"]] = stored
        for rt in self.registry.all():
            if isinstance(rt, CustomResourceType) and rt.definition not in live:
                self.registry.remove(rt)
                self._synced.pop(rt.definition, None)
        for name, stored in live.items():
            rv = stored.obj["metadata"]["resourceVersion"]
            if self._synced.get(name) == rv:
                continue
            for rt in self.registry.all():
                if isinstance(rt, CustomResourceType) and rt.definition == name:
                    self.registry.remove(rt)
            for rt in from_definition(stored.obj):
                served = self.registry.get(rt.group, rt.version, rt.plural)
                if served is None or isinstance(served, CustomResourceType):
                    self.registry.add(rt)  # a built-in kind of the same name stays served
            self._synced[name] = rv

    def _establish(self, crd_rt: ResourceType, stored: Stored) -> None:
        obj = copy_json(stored.obj)
        obj["status"] = definitions.established_status(obj, now())
        self._update(crd_rt, stored, obj, _SERVER, "status")

    # -- deleting a definition: the finalizer controller --------------------------------

    def _delete_definition(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        dry_run: bool,
        preconditions: dict[str, Any] | None,
    ) -> Result | None:
        """The first DELETE of a CRD only marks it, as its registry does: in one write
        ``deletionTimestamp``, the cleanup finalizer and a ``Terminating`` condition (no
        field manager records it). The finalizer controller then takes over."""
        stored = self._stored(rt, namespace, name)
        if stored.obj["metadata"].get("deletionTimestamp"):
            return None
        checks.check_delete_preconditions(rt, stored.obj["metadata"], preconditions or {})
        obj = copy_json(stored.obj)
        meta = obj["metadata"]
        meta["deletionTimestamp"] = now()
        if CLEANUP not in (meta.get("finalizers") or []):
            meta["finalizers"] = [*(meta.get("finalizers") or []), CLEANUP]
        status = obj.setdefault("status", {})
        status["conditions"] = [
            c for c in status.get("conditions") or [] if c.get("type") != "Terminating"
        ] + [_TERMINATING | {"lastTransitionTime": now()}]
        if dry_run:
            return Result(200, self.as_served(rt, obj))
        meta["resourceVersion"] = str(self.store.next_rv())
        self.store.put(DEFINITIONS, ("", name), Stored(obj, stored.entries))
        self._clean_definitions()
        return Result(200, self.as_served(rt, copy_json(obj)))

    def _clean_definitions(self) -> None:
        """The CRD finalizer: a deleted CRD's objects are deleted; once none is left, the
        finalizer goes (and with it the CRD)."""
        if self._cleaning:
            return
        self._cleaning = True
        try:
            while self._clean_one_definition():
                pass
        finally:
            self._cleaning = False

    def _clean_one_definition(self) -> bool:
        for stored in self.store.terminating(DEFINITIONS):
            crd = stored.obj
            if CLEANUP not in (crd["metadata"].get("finalizers") or []):
                continue
            resource = (crd["spec"]["group"], crd["spec"]["names"]["plural"])
            remaining = self.store.select(resource, None)
            pending = [s for s in remaining if not s.obj["metadata"].get("deletionTimestamp")]
            served = next(
                (rt for rt in self.registry.all() if (rt.group, rt.plural) == resource), None
            )
            if pending and served is not None:
                for item in pending:
                    meta = item.obj["metadata"]
                    super().delete(served, meta.get("namespace"), meta["name"])
                return True
            if not remaining or served is None:
                obj = copy_json(crd)
                finalizers = [f for f in obj["metadata"]["finalizers"] if f != CLEANUP]
                if finalizers:
                    obj["metadata"]["finalizers"] = finalizers
                else:
                    del obj["metadata"]["finalizers"]
                self.persist(self.any_version(DEFINITIONS), Stored(obj, stored.entries))
                return True
        return False
