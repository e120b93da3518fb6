"""NamespaceAutoProvision and NamespaceLifecycle (``plugin/pkg/admission/namespace/autoprovision``,
``k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle``): a create needs its namespace.

Without a served ``namespaces`` resource there is nothing to check. A missing namespace is a 404
``namespaces "x" not found``; with auto-provisioning on it is created instead (not on a dry
run, which then goes on without it). Nothing new goes into a namespace being deleted (403
``NamespaceTerminating``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import Registry, ResourceType
from workloadbuilder.testing.engine.admission.attributes import CREATE, Attributes
from workloadbuilder.testing.engine.objects import NAMESPACES, resource_of
from workloadbuilder.testing.store.store import Store

AUTO_PROVISION: Final = "NamespaceAutoProvision"
LIFECYCLE: Final = "NamespaceLifecycle"


def _missing(registry: Registry, store: Store, attrs: Attributes) -> ResourceType | None:
    """The served ``namespaces`` type when the create's namespace does not exist."""
    namespaces = registry.get("", "v1", "namespaces")
    if attrs.operation != CREATE or not attrs.rt.namespaced or not attrs.namespace:
        return None
    if namespaces is None or store.get(resource_of(namespaces), ("", attrs.namespace)) is not None:
        return None
    return namespaces


class NamespaceAutoProvision:
    """Creates the missing namespace of a create (``create_namespace(name)``), when enabled."""

    name = AUTO_PROVISION

    def __init__(
        self, registry: Registry, store: Store, create_namespace: Callable[[str], object]
    ) -> None:
        self.registry, self.store, self.create_namespace = registry, store, create_namespace

    def admit(self, attrs: Attributes) -> None:
        if not attrs.dry_run and _missing(self.registry, self.store, attrs) is not None:
            self.create_namespace(attrs.namespace)


class NamespaceLifecycle:
    """Refuses a create in a missing namespace (unless auto-provisioning stands in) or in one
    being deleted."""

    name = LIFECYCLE

    def __init__(self, registry: Registry, store: Store, *, auto_provision: bool) -> None:
        self.registry, self.store, self.auto_provision = registry, store, auto_provision

    def admit(self, attrs: Attributes) -> None:
        if attrs.operation != CREATE:
            return
        rt = attrs.rt
        namespaces = None if self.auto_provision else _missing(self.registry, self.store, attrs)
        if namespaces is not None:
            raise errors.not_found(namespaces, attrs.namespace)
        if not rt.namespaced or not attrs.namespace:
            return
        ns = self.store.get(NAMESPACES, ("", attrs.namespace))
        if ns is not None and ns.obj["metadata"].get("deletionTimestamp"):
            name = attrs.obj["metadata"].get("name", "") if attrs.obj else attrs.name
            raise errors.namespace_terminating(rt, name, attrs.namespace)
