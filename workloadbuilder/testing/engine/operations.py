"""The API verbs with Kubernetes semantics, shared by the HTTP layer and the in-process API."""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from workloadbuilder.testing import rules
from workloadbuilder.testing.apply import managed
from workloadbuilder.testing.apply.merge import (
    JSONPatchError,
    copy_json,
    json_patch,
    merge_patch,
    strategic_merge,
    strip_nulls,
)
from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import Registry, ResourceType
from workloadbuilder.testing.engine import decoding, object_types
from workloadbuilder.testing.engine.admission import admit_priority
from workloadbuilder.testing.engine.core_types import core_type_errors
from workloadbuilder.testing.engine.unknown_fields import (
    FieldChecker,
    model_type_errors,
    prune,
)
from workloadbuilder.testing.rules.field_labels import field_label_error
from workloadbuilder.testing.rules.metadata import FOREGROUND
from workloadbuilder.testing.store.selectors import field_selector, label_selector
from workloadbuilder.testing.store.store import GroupResource, Name, Store, Stored

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
PATCH_TYPES = (JSON_PATCH, MERGE, APPLY, STRATEGIC)

_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATED_PREFIX = 58  # 63 minus the 5 random characters (apiserver's names.go)
_NAMESPACES = ("", "namespaces")
_PODS = ("", "pods")
_POD_GROUPS = ("scheduling.k8s.io", "podgroups")


@dataclass(frozen=True)
class WriteOptions:
    """Options of one write (the query parameters of a create, update, patch or delete)."""

    field_manager: str | None = None
    default_manager: str = "unknown"
    dry_run: bool = False
    force: bool = False
    field_validation: str = "Warn"

    @property
    def manager(self) -> str:
        """The manager recorded for a non-apply write."""
        return self.field_manager or self.default_manager


@dataclass
class Result:
    """The outcome of a verb: HTTP status, body and ``Warning`` header texts."""

    code: int
    body: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def now() -> str:
    """The current time as the API server writes it (RFC 3339, seconds, ``Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _scope(rt: ResourceType, subresource: str) -> str:
    if subresource == "status":
        return "status"
    return "main" if rt.status else "all"


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


_METADATA_ORDER = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)
_TOP_ORDER = ("kind", "apiVersion", "metadata", "spec")


def _ordered(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with its keys in the order the API server writes them."""
    meta = obj["metadata"]
    ordered_meta = {k: meta[k] for k in _METADATA_ORDER if k in meta}
    ordered_meta.update((k, v) for k, v in meta.items() if k not in ordered_meta)
    out = {k: obj[k] for k in _TOP_ORDER if k in obj}
    out["metadata"] = ordered_meta
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def _resource(rt: ResourceType) -> GroupResource:
    return (rt.group, rt.plural)


class Engine:
    """Create, read, update, patch, delete and garbage-collect objects in a :class:`Store`."""

    def __init__(
        self,
        registry: Registry,
        store: Store,
        field_checker: FieldChecker | None,
        *,
        auto_create_namespaces: bool = False,
    ) -> None:
        self.registry = registry
        self.store = store
        self.field_checker = field_checker
        self.auto_create_namespaces = auto_create_namespaces
        self._settling = False

    # -- helpers ---------------------------------------------------------------------------

    def _name(self, rt: ResourceType, namespace: str | None, name: str) -> Name:
        return ((namespace or "") if rt.namespaced else "", name)

    def present(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as served at ``rt``'s version (a shallow copy with its apiVersion)."""
        if obj.get("apiVersion") == rt.api_version:
            return obj
        return {**obj, "apiVersion": rt.api_version}

    def _stored(self, rt: ResourceType, namespace: str | None, name: str) -> Stored:
        stored = self.store.get(_resource(rt), self._name(rt, namespace, name))
        if stored is None:
            raise errors.not_found(rt, name)
        return stored

    def _check_type(self, rt: ResourceType, obj: Any) -> dict[str, Any]:
        if not isinstance(obj, dict):
            raise errors.bad_request(
                f"the body of the request must be a {rt.kind} object, got {type(obj).__name__}"
            )
        _check_go_types(rt, obj)
        api_version = obj.setdefault("apiVersion", rt.api_version)
        group = api_version.rpartition("/")[0]
        if (
            group != rt.group
            or self.registry.by_kind(rt.group, api_version.rpartition("/")[2], rt.kind) is None
        ):
            raise errors.bad_request(
                f"the API version in the data ({api_version}) does not match the expected "
                f"API version ({rt.api_version})"
            )
        if obj.setdefault("kind", rt.kind) != rt.kind:
            raise errors.bad_request(
                f"the kind in the data ({obj['kind']}) does not match the expected kind ({rt.kind})"
            )
        obj["apiVersion"] = rt.api_version
        return obj

    def _check_identity(
        self, rt: ResourceType, obj: dict[str, Any], namespace: str | None, name: str
    ) -> None:
        meta = obj["metadata"]
        if meta.setdefault("name", name) != name:
            raise errors.bad_request(
                f"the name of the object ({meta['name']}) does not match "
                f"the name on the URL ({name})"
            )
        self._check_namespace(rt, meta, namespace)

    def _check_namespace(
        self, rt: ResourceType, meta: dict[str, Any], namespace: str | None
    ) -> None:
        if not rt.namespaced:
            meta.pop("namespace", None)
        elif not namespace:
            raise errors.bad_request(
                f"a {rt.kind} is namespaced: set metadata.namespace, "
                "or send it to a URL with /namespaces/<namespace>/"
            )
        elif meta.setdefault("namespace", namespace) != namespace:
            raise errors.bad_request(
                "the namespace of the provided object does not match "
                "the namespace sent on the request"
            )

    def _admit_namespace(self, rt: ResourceType, namespace: str | None) -> None:
        """NamespaceLifecycle admission: a create needs its namespace (404 when missing).

        With ``auto_create_namespaces`` the namespace is created instead. Without a served
        ``namespaces`` resource there is nothing to check.
        """
        namespaces = self.registry.get("", "v1", "namespaces")
        if not rt.namespaced or not namespace or namespaces is None:
            return
        if self.store.get(_resource(namespaces), ("", namespace)) is not None:
            return
        if not self.auto_create_namespaces:
            raise errors.not_found(namespaces, namespace)
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        self.create(namespaces, None, body, WriteOptions(default_manager="kube-apiserver"))

    def _check_fields(
        self, rt: ResourceType, obj: dict[str, Any], opts: WriteOptions, *, apply: bool
    ) -> list[str]:
        """Drop unknown fields; the warnings to send, or a 400 under ``Strict``."""
        checker = self.field_checker
        unknown = checker(rt.group, rt.version, rt.kind, obj) if checker else []
        if unknown and opts.field_validation == "Strict":
            if apply:
                text = "; ".join(f'json: unknown field "{p}"' for p in unknown)
                raise errors.bad_request(
                    "error strict decoding YAML: error unmarshaling JSON: "
                    f"while decoding JSON: {text}"
                )
            raise errors.bad_request(
                f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                "strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in unknown)
            )
        for path in unknown:
            prune(obj, path)
        if opts.field_validation == "Ignore":
            return []
        return [f'unknown field "{p}"' for p in unknown]

    def _defaults(self, rt: ResourceType, obj: dict[str, Any], *, creating: bool = False) -> None:
        rules.apply_defaults(rt.group, rt.kind, obj, creating=creating)

    def _check_namespace_active(self, rt: ResourceType, namespace: str | None, name: str) -> None:
        """Nothing new in a namespace that is being deleted (403 ``NamespaceTerminating``)."""
        if not rt.namespaced or not namespace:
            return
        ns = self.store.get(_NAMESPACES, ("", namespace))
        if ns is not None and ns.obj["metadata"].get("deletionTimestamp"):
            raise errors.namespace_terminating(rt, name, namespace)

    def _manager_entries(self, stored: Stored | None, obj: dict[str, Any]) -> managed.Entries:
        """Ownership to start from: the stored one, or what a PUT/patch body set explicitly."""
        base = stored.entries if stored else {}
        given = obj["metadata"].get("managedFields")
        if (
            stored is not None
            and given is not None
            and given != stored.obj["metadata"].get("managedFields")
        ):
            base = managed.parse(given) if isinstance(given, list) else {}
        return base

    # -- reads -----------------------------------------------------------------------------

    def get(self, rt: ResourceType, namespace: str | None, name: str) -> dict[str, Any]:
        """The object, or a 404 error."""
        return self.present(rt, self._stored(rt, namespace, name).obj)

    def listing(
        self,
        rt: ResourceType,
        namespace: str | None,
        labels: str | None = None,
        fields: str | None = None,
    ) -> dict[str, Any]:
        """A ``<Kind>List`` of the matching objects (``namespace=None``: all namespaces)."""
        try:
            match_labels, match_fields = label_selector(labels), field_selector(fields)
        except ValueError as exc:
            raise errors.bad_request(str(exc)) from None
        unsupported = field_label_error(rt.group, rt.kind, fields)
        if unsupported is not None:
            raise errors.bad_request(unsupported)
        items = [
            self.present(rt, s.obj)
            for s in self.store.select(_resource(rt), namespace if rt.namespaced else None)
            if match_labels(s.obj) and match_fields(s.obj)
        ]
        return {
            "kind": f"{rt.kind}List",
            "apiVersion": rt.api_version,
            "metadata": {"resourceVersion": str(self.store.rv)},
            "items": items,
        }

    # -- writes ----------------------------------------------------------------------------

    def create(
        self, rt: ResourceType, namespace: str | None, body: Any, opts: WriteOptions
    ) -> Result:
        """POST: a new object (201)."""
        obj = self._check_type(rt, decode_object(rt, body))
        meta = obj["metadata"]
        self._check_namespace(rt, meta, namespace)
        name = _assign_name(rt, meta)
        if not opts.dry_run or not self.auto_create_namespaces:
            self._admit_namespace(rt, namespace)
        self._check_namespace_active(rt, namespace, name)
        if self.store.get(_resource(rt), self._name(rt, namespace, name)) is not None:
            raise errors.already_exists(rt, name)
        warnings = self._check_fields(rt, obj, opts, apply=False)
        stamp = _fresh_metadata(meta)
        if rt.status:
            obj.pop("status", None)
        self._defaults(rt, obj, creating=True)
        scope = _scope(rt, "")
        entries = managed.record_update(
            {},
            (opts.manager, "Update", ""),
            rt.api_version,
            {},
            managed.tracked_view(obj, scope),
            stamp,
        )
        rules.admit(rt.group, rt.kind, obj)  # after the field manager, as admission runs
        result = self._finish(rt, None, obj, entries, opts)
        result.code, result.warnings = 201, warnings
        return result

    def replace(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        body: Any,
        opts: WriteOptions,
        subresource: str = "",
    ) -> Result:
        """PUT: replace the object (or only its status); a stale resourceVersion is a 409."""
        obj = self._check_type(rt, decode_object(rt, body))
        self._check_identity(rt, obj, namespace, name)
        stored = self._stored(rt, namespace, name)
        warnings = self._check_fields(rt, obj, opts, apply=False)
        result = self._update(rt, stored, obj, opts, subresource)
        result.warnings = warnings
        return result

    def _update(
        self,
        rt: ResourceType,
        stored: Stored,
        obj: dict[str, Any],
        opts: WriteOptions,
        subresource: str,
    ) -> Result:
        old = stored.obj
        _check_resource_version(rt, obj["metadata"].get("resourceVersion"), old)
        base = self._manager_entries(stored, obj)
        if subresource == "status":
            new = _with_status_of(rt, old, obj)
        else:
            new = _keeping_server_fields(rt, obj, old)
        self._defaults(rt, new)
        scope = _scope(rt, subresource)
        entries = managed.record_update(
            base,
            (opts.manager, "Update", subresource),
            rt.api_version,
            managed.tracked_view(old, scope),
            managed.tracked_view(new, scope),
            now(),
        )
        return self._finish(rt, stored, new, entries, opts)

    def patch(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        body: bytes | str | Any,
        content_type: str,
        opts: WriteOptions,
        subresource: str = "",
    ) -> Result:
        """PATCH in any of the four patch formats; apply creates a missing object (201)."""
        content_type = content_type.split(";")[0].strip().lower()
        if content_type not in PATCH_TYPES:
            raise errors.unsupported_media_type(content_type, list(PATCH_TYPES))
        if content_type == APPLY:
            return self._apply(rt, namespace, name, body, opts, subresource)
        if opts.force:
            raise errors.invalid_patch_options(
                "force",
                "FieldValueForbidden",
                "Forbidden: may not be specified for non-apply patch",
            )
        patch = decode_body(body, yaml_ok=False)
        stored = self._stored(rt, namespace, name)
        old = self.present(rt, stored.obj)
        try:
            if content_type == JSON_PATCH:
                candidate = json_patch(old, patch)
            elif not isinstance(patch, dict):
                raise errors.bad_request(f"a {content_type} patch must be a JSON object")
            elif content_type == MERGE:
                candidate = merge_patch(old, patch)
            else:
                candidate = strategic_merge(old, patch)
        except JSONPatchError:
            # The API server drops the json-patch error text (observed).
            raise errors.APIStatusError(
                errors.status_body(
                    422,
                    "Invalid",
                    "the server rejected our request due to an error in our request",
                    {},
                )
            ) from None
        obj = self._check_type(rt, candidate)
        self._check_identity(rt, obj, namespace, name)
        warnings = self._check_fields(rt, obj, opts, apply=False)
        result = self._update(rt, stored, obj, opts, subresource)
        result.warnings = warnings
        return result

    def _apply(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        body: bytes | str | Any,
        opts: WriteOptions,
        subresource: str,
    ) -> Result:
        if not opts.field_manager:
            raise errors.invalid_patch_options(
                "fieldManager", "FieldValueRequired", "Required value: is required for apply patch"
            )
        config = _apply_configuration(rt, decode_body(body, yaml_ok=True))
        meta = config["metadata"]
        self._check_identity(rt, config, namespace, name)
        warnings = self._check_fields(rt, config, opts, apply=True)
        stored = self.store.get(_resource(rt), self._name(rt, namespace, name))
        live_meta = stored.obj["metadata"] if stored is not None else None
        _check_preconditions(rt, name, meta.get("resourceVersion"), meta.get("uid"), live_meta)
        stamp = now()
        if stored is None:
            if subresource:
                raise errors.not_found(rt, name)
            if not opts.dry_run or not self.auto_create_namespaces:
                self._admit_namespace(rt, namespace)
            self._check_namespace_active(rt, namespace, name)
            live = _new_object(rt, namespace, name, stamp)
            entries: managed.Entries = {}
        else:
            live, entries = _without_managed_fields(self.present(rt, stored.obj)), stored.entries
        applied = managed.tracked_view(strip_nulls(config), _scope(rt, subresource))
        merged, entries = managed.apply(
            entries,
            (opts.field_manager, "Apply", subresource),
            rt.api_version,
            live,
            applied,
            opts.force,
            stamp,
        )
        self._defaults(rt, merged, creating=stored is None)
        if stored is None:
            rules.admit(rt.group, rt.kind, merged)
        result = self._finish(rt, stored, merged, entries, opts)
        result.warnings = warnings
        if stored is None:
            result.code = 201
        return result

    def _finish(
        self,
        rt: ResourceType,
        stored: Stored | None,
        obj: dict[str, Any],
        entries: managed.Entries,
        opts: WriteOptions,
    ) -> Result:
        """Every write ends here: validate, skip a no-op, count the generation, then persist."""
        if stored is None:
            admit_priority(self.store, rt, obj, self.registry.gates)
        self._validate(rt, stored, obj)
        if stored is not None and self._unchanged(rt, stored, obj, entries):
            return Result(200, self.present(rt, stored.obj))
        if _tracks_generation(rt):
            obj["metadata"]["generation"] = _generation(obj, stored.obj if stored else None)
        else:
            obj["metadata"].pop("generation", None)
        obj["metadata"]["managedFields"] = managed.render(entries)
        obj = _ordered(obj)
        if opts.dry_run:
            if stored is None:
                obj["metadata"].pop("resourceVersion", None)
            return Result(200, obj)
        self._persist(rt, Stored(obj, entries))
        return Result(200, obj)

    def _validate(self, rt: ResourceType, stored: Stored | None, obj: dict[str, Any]) -> None:
        """The API server's rules on the final object (and the old one, on updates): else 422."""
        old = self.present(rt, stored.obj) if stored else None
        causes = rules.validate_object(
            rt.group, rt.version, rt.kind, obj, old, self.registry.gates, namespaced=rt.namespaced
        )
        if causes:
            raise errors.invalid(rt.kind, rt.group, obj["metadata"].get("name", ""), causes)

    def _unchanged(
        self, rt: ResourceType, stored: Stored, obj: dict[str, Any], entries: managed.Entries
    ) -> bool:
        """Whether the write changes nothing (object and ownership), so persists nothing."""
        old_meta = stored.obj["metadata"]
        obj["metadata"]["resourceVersion"] = old_meta["resourceVersion"]
        obj["metadata"]["managedFields"] = old_meta.get("managedFields", [])
        return obj == self.present(rt, stored.obj) and _same_ownership(entries, stored.entries)

    def _persist(self, rt: ResourceType, stored: Stored) -> None:
        """Store with a new resourceVersion; a deleting object without finalizers goes now."""
        meta = stored.obj["metadata"]
        meta["resourceVersion"] = str(self.store.next_rv())
        key = self._name(rt, meta.get("namespace"), meta["name"])
        if meta.get("deletionTimestamp") and not _finalizers_pending(stored.obj):
            self._remove(_resource(rt), key, stored)
            self.collect_dependents(meta["uid"], "Background")
        else:
            self.store.put(_resource(rt), key, stored)
        self.settle()

    # -- deletion and garbage collection ---------------------------------------------------

    def delete(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        propagation: str | None = None,
        dry_run: bool = False,
        *,
        preconditions: dict[str, Any] | None = None,
    ) -> Result:
        """DELETE with ``propagationPolicy`` (Background by default), finalizers and
        ``preconditions`` (``uid``, ``resourceVersion``: a 409 unless the live object has them).
        """
        if propagation not in (None, "Background", "Foreground", "Orphan"):
            raise errors.bad_request(
                f"Unsupported propagationPolicy {propagation!r}: "
                "use Background, Foreground or Orphan"
            )
        policy = propagation or "Background"
        stored = self._stored(rt, namespace, name)
        _check_delete_preconditions(rt, stored.obj["metadata"], preconditions or {})
        obj = copy_json(self.present(rt, stored.obj))
        if policy == "Foreground" and FOREGROUND not in (obj["metadata"].get("finalizers") or []):
            # The owner stays, marked, until the garbage collector has removed its dependents.
            obj["metadata"]["finalizers"] = [*(obj["metadata"].get("finalizers") or []), FOREGROUND]
        if _finalizers_pending(obj):
            result = self._mark_deleting(rt, stored, obj, policy, dry_run)
            if not dry_run:
                self.settle()
            return result
        if not dry_run:
            obj = self.present(rt, self._remove_now(rt, stored, policy))
            self.settle()
        if rt.return_deleted_object:
            return Result(200, obj)
        return Result(200, _deleted_status(rt, name, obj["metadata"]["uid"]))

    def _mark_deleting(
        self, rt: ResourceType, stored: Stored, obj: dict[str, Any], policy: str, dry_run: bool
    ) -> Result:
        """An object with finalizers gets ``deletionTimestamp`` and stays until they are gone."""
        meta = obj["metadata"]
        if not meta.get("deletionTimestamp"):
            meta["deletionTimestamp"] = now()
            meta["deletionGracePeriodSeconds"] = 0
            if _tracks_generation(rt):
                meta["generation"] = meta.get("generation", 1) + 1
        if _is_namespace(rt):
            obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
        if dry_run:
            return Result(200, obj)
        meta["resourceVersion"] = str(self.store.next_rv())
        key = self._name(rt, meta.get("namespace"), meta["name"])
        self.store.put(_resource(rt), key, Stored(obj, stored.entries))
        if _is_namespace(rt):
            self._empty_namespace(meta["name"])  # the namespace controller's sweep
        elif policy != "Background":
            self.collect_dependents(meta["uid"], policy)
        return Result(200, copy_json(obj))

    def _remove_now(self, rt: ResourceType, stored: Stored, policy: str) -> dict[str, Any]:
        """Remove the object and handle its dependents as ``policy`` says; the final object."""
        meta = stored.obj["metadata"]
        if policy != "Background":
            self.collect_dependents(meta["uid"], policy)
        key = self._name(rt, meta.get("namespace"), meta["name"])
        final = self._remove(_resource(rt), key, stored)
        if _is_namespace(rt):
            self._empty_namespace(meta["name"])
        if policy == "Background":
            self.collect_dependents(meta["uid"], policy)
        return final

    def _remove(self, resource: GroupResource, key: Name, stored: Stored) -> dict[str, Any]:
        final: dict[str, Any] = copy_json(stored.obj)
        final["metadata"]["resourceVersion"] = str(self.store.next_rv())
        self.store.remove(resource, key, final)
        return final

    def _empty_namespace(self, namespace: str) -> None:
        for resource in self.store.resources():
            for stored in self.store.select(resource, namespace):
                if stored.obj["metadata"].get("namespace") == namespace:
                    self._delete_stored(resource, stored, "Background")

    def _delete_stored(self, resource: GroupResource, stored: Stored, policy: str) -> None:
        rt = self._any_version(resource)
        meta = stored.obj["metadata"]
        self.delete(rt, meta.get("namespace"), meta["name"], policy)

    def _any_version(self, resource: GroupResource) -> ResourceType:
        for rt in self.registry.all():
            if (rt.group, rt.plural) == resource:
                return rt
        raise LookupError(f"no served version of {resource}")

    # -- the controllers that finish deletions ---------------------------------------------

    def settle(self) -> None:
        """Run the controllers that finish deletions until nothing changes: PodGroup protection,
        the garbage collector's foreground deletion, the namespace controller."""
        if self._settling:
            return
        self._settling = True
        try:
            while (
                self._release_pod_groups() or self._finish_foreground() or self._finish_namespaces()
            ):
                pass
        finally:
            self._settling = False

    def _deleting(self, resource: GroupResource) -> list[Stored]:
        return self.store.terminating(resource)

    def _release_pod_groups(self) -> bool:
        """PodGroup protection: a deleting PodGroup that no live pod names loses its finalizer."""
        for stored in self._deleting(_POD_GROUPS):
            meta = stored.obj["metadata"]
            if rules.POD_GROUP_PROTECTION not in (meta.get("finalizers") or []):
                continue
            if not any(
                _pod_group_of(p.obj) == meta["name"]
                and (p.obj.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
                for p in self.store.select(_PODS, meta.get("namespace"))
            ):
                self._drop_finalizer(_POD_GROUPS, stored, rules.POD_GROUP_PROTECTION)
                return True
        return False

    def _finish_foreground(self) -> bool:
        """Foreground deletion: an owner whose dependents are all gone loses its finalizer."""
        for resource in self.store.resources():
            for stored in self._deleting(resource):
                meta = stored.obj["metadata"]
                if FOREGROUND in (meta.get("finalizers") or []) and not self._has_dependents(
                    meta["uid"]
                ):
                    self._drop_finalizer(resource, stored, FOREGROUND)
                    return True
        return False

    def _finish_namespaces(self) -> bool:
        """The namespace controller: a terminating namespace that is empty is removed."""
        for stored in self._deleting(_NAMESPACES):
            name = stored.obj["metadata"]["name"]
            if any(
                self.store.select(resource, name)
                for resource in self.store.resources()
                if resource != _NAMESPACES
            ):
                continue
            obj = copy_json(stored.obj)
            obj.setdefault("spec", {})["finalizers"] = [
                f for f in obj["spec"].get("finalizers") or [] if f != "kubernetes"
            ]
            self._persist(self._any_version(_NAMESPACES), Stored(obj, stored.entries))
            return True
        return False

    def _has_dependents(self, owner_uid: str) -> bool:
        return any(
            any(r.get("uid") == owner_uid for r in s.obj["metadata"].get("ownerReferences") or [])
            for resource in self.store.resources()
            for s in self.store.select(resource, None)
        )

    def _drop_finalizer(self, resource: GroupResource, stored: Stored, finalizer: str) -> None:
        obj = copy_json(stored.obj)
        meta = obj["metadata"]
        remaining = [f for f in meta.get("finalizers") or [] if f != finalizer]
        if remaining:
            meta["finalizers"] = remaining
        else:
            meta.pop("finalizers", None)
        self._persist(self._any_version(resource), Stored(obj, stored.entries))

    def collect_dependents(self, owner_uid: str, policy: str) -> None:
        """Delete (``Orphan``: release) the objects whose ownerReferences name ``owner_uid``."""
        for resource in self.store.resources():
            for stored in self.store.select(resource, None):
                refs = stored.obj["metadata"].get("ownerReferences") or []
                if not any(r.get("uid") == owner_uid for r in refs):
                    continue
                remaining = [r for r in refs if r.get("uid") != owner_uid]
                if policy == "Orphan" or any(self._uid_exists(r.get("uid")) for r in remaining):
                    self._drop_owner(resource, stored, remaining)
                else:
                    self._delete_stored(resource, stored, policy)

    def _uid_exists(self, uid: Any) -> bool:
        return any(
            s.obj["metadata"].get("uid") == uid
            for resource in self.store.resources()
            for s in self.store.select(resource, None)
        )

    def _drop_owner(self, resource: GroupResource, stored: Stored, remaining: list[Any]) -> None:
        obj = copy_json(stored.obj)
        meta = obj["metadata"]
        if remaining:
            meta["ownerReferences"] = remaining
        else:
            meta.pop("ownerReferences", None)
        entries = managed.record_update(
            stored.entries,
            ("garbage-collector", "Update", ""),
            obj["apiVersion"],
            managed.tracked_view(stored.obj, "main"),
            managed.tracked_view(obj, "main"),
            now(),
        )
        meta["managedFields"] = managed.render(entries)
        meta["resourceVersion"] = str(self.store.next_rv())
        self.store.put(resource, (meta.get("namespace", ""), meta["name"]), Stored(obj, entries))


def _is_namespace(rt: ResourceType) -> bool:
    return (rt.group, rt.kind) == ("", "Namespace")


def _finalizers_pending(obj: dict[str, Any]) -> bool:
    """Finalizers hold the object: its own, or a Namespace's ``spec.finalizers``."""
    if obj["metadata"].get("finalizers"):
        return True
    spec = obj.get("spec")
    return (
        obj.get("kind") == "Namespace" and isinstance(spec, dict) and bool(spec.get("finalizers"))
    )


def _pod_group_of(pod: dict[str, Any]) -> Any:
    spec = pod.get("spec")
    group = spec.get("schedulingGroup") if isinstance(spec, dict) else None
    return group.get("podGroupName") if isinstance(group, dict) else None


def _assign_name(rt: ResourceType, meta: dict[str, Any]) -> str:
    """``metadata.name``, generated from ``generateName`` when empty (422 without either)."""
    if not meta.get("name"):
        if not meta.get("generateName"):
            cause = {
                "reason": "FieldValueRequired",
                "message": "Required value: name or generateName is required",
                "field": "metadata.name",
            }
            raise errors.invalid(rt.kind, rt.group, "", [cause])
        prefix = meta["generateName"][:_MAX_GENERATED_PREFIX]
        meta["name"] = prefix + "".join(random.choices(_NAME_CHARS, k=5))
    return str(meta["name"])


def _fresh_metadata(meta: dict[str, Any]) -> str:
    """Replace what a client may not set on create with a new uid and creationTimestamp."""
    for key in managed.SERVER_METADATA - {"name", "namespace"}:
        meta.pop(key, None)
    meta["uid"] = str(uuid.uuid4())
    meta["creationTimestamp"] = stamp = now()
    return stamp


def _new_object(rt: ResourceType, namespace: str | None, name: str, stamp: str) -> dict[str, Any]:
    """The empty live object an apply to a missing name starts from."""
    live: dict[str, Any] = {
        "apiVersion": rt.api_version,
        "kind": rt.kind,
        "metadata": {"name": name, "uid": str(uuid.uuid4()), "creationTimestamp": stamp},
    }
    if rt.namespaced:
        live["metadata"]["namespace"] = namespace
    return live


def _check_resource_version(rt: ResourceType, given: Any, live: dict[str, Any]) -> None:
    """A write naming a resourceVersion other than the live one is a 409."""
    if given and given != live["metadata"]["resourceVersion"]:
        raise errors.modified(rt, live["metadata"]["name"])


def _check_preconditions(
    rt: ResourceType, name: str, rv: Any, uid: Any, live_meta: dict[str, Any] | None
) -> None:
    """``resourceVersion`` and ``uid`` preconditions against the live object's metadata."""
    if live_meta is not None and rv and rv != live_meta["resourceVersion"]:
        raise errors.modified(rt, name)
    live_uid = live_meta["uid"] if live_meta is not None else ""
    if uid and uid != live_uid:
        raise errors.uid_mismatch(uid, live_uid)


def _check_delete_preconditions(
    rt: ResourceType, live: dict[str, Any], preconditions: dict[str, Any]
) -> None:
    """DeleteOptions ``preconditions``: the uid, then the resourceVersion, must match."""
    for key, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
        given = preconditions.get(key)
        if given is not None and given != live.get(key, ""):
            text = f"{label} in precondition: {given}, {label} in object meta: {live.get(key, '')}"
            namespace = live.get("namespace", "") if rt.namespaced else ""
            raise errors.precondition_failed(rt, namespace, live["name"], text)


def _apply_configuration(rt: ResourceType, config: Any) -> dict[str, Any]:
    """An apply body checked as the API server checks it before merging (400s)."""
    if not isinstance(config, dict):
        raise errors.bad_request("an apply patch must be a YAML or JSON object")
    _check_go_types(rt, config)
    meta = config["metadata"]
    if meta.get("managedFields") is not None:
        raise errors.bad_request("metadata.managedFields must be nil")
    if config.get("apiVersion") != rt.api_version:
        raise errors.bad_request(
            "Incorrect version specified in apply patch. "
            f"Specified patch version: {config.get('apiVersion', '')}, "
            f"expected: {rt.api_version}"
        )
    if config.get("kind") != rt.kind:
        raise errors.bad_request(
            "Incorrect kind specified in apply patch. "
            f"Specified patch kind: {config.get('kind', '')}, expected: {rt.kind}"
        )
    return config


def _with_status_of(rt: ResourceType, old: dict[str, Any], obj: dict[str, Any]) -> dict[str, Any]:
    """A status write: the live object with only ``status`` taken from ``obj``."""
    new: dict[str, Any] = copy_json(old)
    new["apiVersion"] = rt.api_version
    if "status" in obj:
        new["status"] = obj["status"]
    else:
        new.pop("status", None)
    return new


def _keeping_server_fields(
    rt: ResourceType, obj: dict[str, Any], old: dict[str, Any]
) -> dict[str, Any]:
    """A main-resource write: ``obj`` with the server's metadata (and status) of ``old``."""
    for key in managed.SERVER_METADATA - {"managedFields", "resourceVersion"}:
        if key in old["metadata"]:
            obj["metadata"][key] = old["metadata"][key]
        else:
            obj["metadata"].pop(key, None)
    if rt.status:
        if "status" in old:
            obj["status"] = copy_json(old["status"])
        else:
            obj.pop("status", None)
    return obj


_NO_GENERATION = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "Event"),
        # 1.37's PodGroup and CompositePodGroup strategies never set it (observed on 1.36 too)
        ("scheduling.k8s.io", "PodGroup"),
        ("scheduling.k8s.io", "CompositePodGroup"),
    }
)


def _tracks_generation(rt: ResourceType) -> bool:
    """Whether the kind's registry strategy keeps ``metadata.generation`` (namespaces, nodes,
    events, PodGroups and CompositePodGroups have none)."""
    return (rt.group, rt.kind) not in _NO_GENERATION


def _generation(obj: dict[str, Any], old: dict[str, Any] | None) -> int:
    """1 on create; +1 when anything outside metadata and status changes."""
    if old is None:
        return 1
    generation = int(old["metadata"].get("generation", 1))
    return generation + 1 if _spec(obj) != _spec(old) else generation


def _deleted_status(rt: ResourceType, name: str, uid: str) -> dict[str, Any]:
    """The ``Status`` of ``Success`` a delete answers for kinds that do not return the object."""
    details: dict[str, Any] = {"name": name}
    if rt.group:
        details["group"] = rt.group
    details.update(kind=rt.plural, uid=uid)
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    }


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in obj["metadata"].items() if k != "managedFields"}
    return {**obj, "metadata": meta}


def _same_ownership(a: managed.Entries, b: managed.Entries) -> bool:
    return a.keys() == b.keys() and all(
        a[k].fields == b[k].fields and a[k].api_version == b[k].api_version for k in a
    )


def _check_go_types(rt: ResourceType, obj: dict[str, Any]) -> None:
    """400 unless ``obj``'s TypeMeta and ObjectMeta decode into their Go types."""
    try:
        object_types.check_type_meta(obj)
    except object_types.TypeMismatch as exc:
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {rt.kind}): {exc} "
            f"({decoding.summarize(obj)})"
        ) from None
    try:
        object_types.check_object_meta(obj, rt.kind)
        object_types.check_times(obj)
        problems = model_type_errors(rt.group, rt.version, rt.kind, obj) or core_type_errors(
            rt.group, rt.kind, obj
        )
        if problems:
            raise object_types.TypeMismatch(problems[0])
    except object_types.TypeMismatch as exc:
        version = str(obj.get("apiVersion") or rt.api_version).rpartition("/")[2]
        raise errors.bad_request(
            f"{obj.get('kind') or rt.kind} in version {json.dumps(version)} cannot be handled "
            f"as a {rt.kind}: {exc}"
        ) from None


def decode_object(rt: ResourceType, body: bytes | str | Any) -> Any:
    """The body of a create or update; 400 ``BadRequest`` as the API server words it."""
    try:
        return decoding.decode(body, yaml_ok=True)
    except decoding.DecodeError as exc:
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {rt.kind}): "
            f"couldn't get version/kind; json parse error: {exc} ({decoding.summarize(body)})"
        ) from None


def decode_body(body: bytes | str | Any, *, yaml_ok: bool) -> Any:
    """A patch body as JSON (or, when ``yaml_ok``, YAML); 400 if it is neither."""
    try:
        return decoding.decode(body, yaml_ok=yaml_ok)
    except decoding.DecodeError as exc:
        raise errors.bad_request(f"error decoding patch: {exc}") from None
