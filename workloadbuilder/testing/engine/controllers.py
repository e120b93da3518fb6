"""The controllers the test server stands in for, run after every write: the garbage
collector (background, foreground and orphan deletion), PodGroup protection, the
namespace controller, and the node lifecycle controller's untainting (a Node whose ``Ready``
condition is True loses the ``node.kubernetes.io/not-ready:NoSchedule`` taint admission gave
it, written as manager ``node-lifecycle-controller``). Each reads the store's indexes, never a
scan of every object."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Protocol

from workloadbuilder.testing import rules
from workloadbuilder.testing.apply import managed
from workloadbuilder.testing.apply.merge import copy_json
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.engine.admission.taint_nodes import NOT_READY_TAINT
from workloadbuilder.testing.engine.objects import (
    NAMESPACES,
    POD_GROUPS,
    PODS,
    now,
    owner_uids,
    pod_group_of,
)
from workloadbuilder.testing.rules.metadata import FOREGROUND
from workloadbuilder.testing.store.store import GroupResource, Store, Stored

_BY_UID = "uid"
_BY_OWNER = "owner-uid"
_BY_POD_GROUP = "pod-group"
_BY_READY_TAINTED = "ready-not-ready-tainted"
_FINISHED = ("Succeeded", "Failed")
_NODES: GroupResource = ("", "nodes")


def _not_ready_taint(taint: Any) -> bool:
    return isinstance(taint, dict) and (taint.get("key"), taint.get("effect")) == (
        NOT_READY_TAINT["key"],
        NOT_READY_TAINT["effect"],
    )


def _ready_tainted_keys(resource: GroupResource, obj: dict[str, Any]) -> Iterable[Hashable]:
    """A Ready Node that still has the not-ready taint: the node lifecycle stand-in's work."""
    if resource != _NODES:
        return ()
    conditions = (obj.get("status") or {}).get("conditions") or []
    ready = any(
        isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
        for c in conditions
    )
    taints = (obj.get("spec") or {}).get("taints")
    tainted = isinstance(taints, list) and any(_not_ready_taint(t) for t in taints)
    return (True,) if ready and tainted else ()


def _uid_keys(resource: GroupResource, obj: dict[str, Any]) -> Iterable[Hashable]:
    uid = obj["metadata"].get("uid")
    return (uid,) if isinstance(uid, str) else ()


def _owner_keys(resource: GroupResource, obj: dict[str, Any]) -> Iterable[Hashable]:
    return {uid for uid in owner_uids(obj) if isinstance(uid, str)}


def _pod_group_keys(resource: GroupResource, obj: dict[str, Any]) -> Iterable[Hashable]:
    group = pod_group_of(obj) if resource == PODS else None
    return ((obj["metadata"].get("namespace", ""), group),) if isinstance(group, str) else ()


def _written_by(manager: str, stored: Stored, obj: dict[str, Any]) -> managed.Entries:
    """Record a controller's update of ``stored`` to ``obj`` in its managedFields."""
    entries = managed.record_update(
        stored.entries,
        (manager, "Update", ""),
        obj["apiVersion"],
        managed.tracked_view(stored.obj, "main"),
        managed.tracked_view(obj, "main"),
        now(),
    )
    obj["metadata"]["managedFields"] = managed.render(entries)
    return entries


class Deleter(Protocol):
    """What the controllers need of the verbs: delete an object, persist one, find a version."""

    def delete(
        self, rt: ResourceType, namespace: str | None, name: str, propagation: str | None = None
    ) -> object: ...

    def persist(self, rt: ResourceType, stored: Stored) -> None: ...

    def any_version(self, resource: GroupResource) -> ResourceType: ...


class Controllers:
    """The stand-in controllers over one store; ``verbs`` carries out their writes."""

    def __init__(self, store: Store, verbs: Deleter) -> None:
        self.store = store
        self.verbs = verbs
        self._running = False
        store.add_index(_BY_UID, _uid_keys)
        store.add_index(_BY_OWNER, _owner_keys)
        store.add_index(_BY_POD_GROUP, _pod_group_keys)
        store.add_index(_BY_READY_TAINTED, _ready_tainted_keys)

    def finish_deletions(self) -> None:
        """Run PodGroup protection, the garbage collector's foreground deletion, the
        namespace controller and the node untainting until none of them changes anything."""
        if self._running:
            return
        self._running = True
        try:
            while (
                self._release_pod_groups()
                or self._finish_foreground()
                or self._finish_namespaces()
                or self._untaint_ready_node()
            ):
                pass
        finally:
            self._running = False

    def collect_dependents(self, owner_uid: str, policy: str) -> None:
        """Delete (``Orphan``: release) the objects whose ownerReferences name ``owner_uid``."""
        for resource, found in self.store.indexed(_BY_OWNER, owner_uid):
            meta = found.obj["metadata"]
            stored = self.store.get(resource, (meta.get("namespace", ""), meta["name"]))
            if stored is None or owner_uid not in owner_uids(stored.obj):
                continue  # gone, or released, by an earlier cascade
            refs = stored.obj["metadata"].get("ownerReferences") or []
            remaining = [r for r in refs if r.get("uid") != owner_uid]
            if policy == "Orphan" or any(self.uid_exists(r.get("uid")) for r in remaining):
                self._drop_owner(resource, stored, remaining)
            else:
                self._delete_stored(resource, stored, policy)

    def empty_namespace(self, namespace: str) -> None:
        """The namespace controller's sweep: delete every object in ``namespace``."""
        for resource in self.store.resources():
            for stored in self.store.select(resource, namespace):
                self._delete_stored(resource, stored, "Background")

    def uid_exists(self, uid: Any) -> bool:
        """Whether any stored object has ``uid``."""
        return isinstance(uid, str) and bool(self.store.indexed(_BY_UID, uid))

    def _has_dependents(self, owner_uid: str) -> bool:
        return bool(self.store.indexed(_BY_OWNER, owner_uid))

    def _release_pod_groups(self) -> bool:
        """PodGroup protection: a deleting PodGroup that no live pod names loses its finalizer."""
        for stored in self.store.terminating(POD_GROUPS):
            meta = stored.obj["metadata"]
            if rules.POD_GROUP_PROTECTION not in (meta.get("finalizers") or []):
                continue
            members = self.store.indexed(_BY_POD_GROUP, (meta.get("namespace", ""), meta["name"]))
            if not any(
                (pod.obj.get("status") or {}).get("phase") not in _FINISHED for _, pod in members
            ):
                self._drop_finalizer(POD_GROUPS, stored, rules.POD_GROUP_PROTECTION)
                return True
        return False

    def _finish_foreground(self) -> bool:
        """Foreground deletion: an owner whose dependents are all gone loses its finalizer."""
        for resource in self.store.resources():
            for stored in self.store.terminating(resource):
                meta = stored.obj["metadata"]
                if FOREGROUND in (meta.get("finalizers") or []) and not self._has_dependents(
                    meta["uid"]
                ):
                    self._drop_finalizer(resource, stored, FOREGROUND)
                    return True
        return False

    def _finish_namespaces(self) -> bool:
        """The namespace controller: a terminating namespace that is empty is removed."""
        for stored in self.store.terminating(NAMESPACES):
            name = stored.obj["metadata"]["name"]
            if any(
                self.store.has_objects(resource, name)
                for resource in self.store.resources()
                if resource != NAMESPACES
            ):
                continue
            obj = copy_json(stored.obj)
            obj.setdefault("spec", {})["finalizers"] = [
                f for f in obj["spec"].get("finalizers") or [] if f != "kubernetes"
            ]
            self.verbs.persist(self.verbs.any_version(NAMESPACES), Stored(obj, stored.entries))
            return True
        return False

    def _untaint_ready_node(self) -> bool:
        """The node lifecycle controller: a Ready Node loses the not-ready taint."""
        for _, found in self.store.indexed(_BY_READY_TAINTED, True):
            stored = self.store.get(_NODES, ("", found.obj["metadata"]["name"]))
            if stored is None:
                continue
            obj = copy_json(stored.obj)
            remaining = [t for t in obj["spec"]["taints"] if not _not_ready_taint(t)]
            if remaining:
                obj["spec"]["taints"] = remaining
            else:
                obj["spec"].pop("taints")
            entries = _written_by("node-lifecycle-controller", stored, obj)
            self.verbs.persist(self.verbs.any_version(_NODES), Stored(obj, entries))
            return True
        return False

    def _delete_stored(self, resource: GroupResource, stored: Stored, policy: str) -> None:
        meta = stored.obj["metadata"]
        self.verbs.delete(
            self.verbs.any_version(resource), meta.get("namespace"), meta["name"], policy
        )

    def _drop_finalizer(self, resource: GroupResource, stored: Stored, finalizer: str) -> None:
        obj = copy_json(stored.obj)
        meta = obj["metadata"]
        remaining = [f for f in meta.get("finalizers") or [] if f != finalizer]
        if remaining:
            meta["finalizers"] = remaining
        else:
            meta.pop("finalizers", None)
        self.verbs.persist(self.verbs.any_version(resource), Stored(obj, stored.entries))

    def _drop_owner(self, resource: GroupResource, stored: Stored, remaining: list[Any]) -> None:
        obj = copy_json(stored.obj)
        meta = obj["metadata"]
        if remaining:
            meta["ownerReferences"] = remaining
        else:
            meta.pop("ownerReferences", None)
        entries = _written_by("garbage-collector", stored, obj)
        meta["resourceVersion"] = str(self.store.next_rv())
        self.store.put(resource, (meta.get("namespace", ""), meta["name"]), Stored(obj, entries))
