"""The API verbs with Kubernetes semantics (get, list, create, update, patch, apply, delete),
shared by the HTTP layer and the in-process API."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
from workloadbuilder.testing.engine import admission, checks, grace
from workloadbuilder.testing.engine.controllers import Controllers
from workloadbuilder.testing.engine.objects import (
    assign_name,
    deleted_status,
    finalizers_pending,
    fresh_metadata,
    generation,
    in_server_order,
    is_namespace,
    keeping_server_fields,
    new_object,
    now,
    ownership_scope,
    resource_of,
    same_ownership,
    tracks_generation,
    with_status_of,
    without_managed_fields,
)
from workloadbuilder.testing.engine.unknown_fields import FieldChecker
from workloadbuilder.testing.rules.field_labels import field_label_error
from workloadbuilder.testing.rules.metadata import FOREGROUND
from workloadbuilder.testing.store.selectors import field_selector, label_selector
from workloadbuilder.testing.store.store import GroupResource, Name, Store, Stored

__all__ = [
    "APPLY",
    "DEFAULT_REQUESTER",
    "JSON_PATCH",
    "MERGE",
    "PATCH_TYPES",
    "STRATEGIC",
    "Engine",
    "Result",
    "WriteOptions",
    "now",
]

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
PATCH_TYPES = (JSON_PATCH, MERGE, APPLY, STRATEGIC)
_CONDITIONAL_UPSERT = frozenset({("coordination.k8s.io", "Lease")})
"""Kinds whose registry strategy allows a create with PUT and no unconditional update."""
_NO_VERSION = {
    "reason": "FieldValueInvalid",
    "message": "Invalid value: 0x0: must be specified for an update",  # a uint64, as %#v
    "field": "metadata.resourceVersion",
}
DEFAULT_REQUESTER = {
    "username": "kubernetes-admin",
    "groups": ["system:masters", "system:authenticated"],
}
"""The ``userInfo`` of a request nobody authenticated: the kubeconfig's administrator."""
OwnDelete = Callable[[ResourceType, str | None, str, bool, dict[str, Any] | None], "Result | None"]
"""A kind's own DELETE: ``(rt, namespace, name, dry_run, preconditions)`` to its answer."""


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


class Engine:
    """Create, read, update, patch and delete objects in a :class:`Store`; after every write
    the stand-in :class:`Controllers` finish what deletions started."""

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
        self.controllers = Controllers(store, self)
        self.requester: Callable[[], dict[str, Any]] = lambda: copy_json(DEFAULT_REQUESTER)
        """The ``userInfo`` of the request being served (webhooks are sent it)."""
        self.webhook_services: dict[str, str] = {}
        """A webhook ``service`` (``"namespace/name"`` or ``"namespace/name:port"``) to the
        loopback ``host:port`` serving it."""
        self.admission = admission.default_chain(
            registry,
            store,
            self._create_namespace,
            auto_create_namespaces=auto_create_namespaces,
            webhook_services=self.webhook_services,
            user=lambda: self.requester(),
        )
        self.own_deletes: dict[GroupResource, OwnDelete] = {}
        """Kinds whose registry answers a DELETE its own way, before anything is checked: the
        answer, or ``None`` to delete as usual."""

    # -- lookups ---------------------------------------------------------------------------

    def _name(self, rt: ResourceType, namespace: str | None, name: str) -> Name:
        return ((namespace or "") if rt.namespaced else "", name)

    def as_served(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as served at ``rt``'s version (a shallow copy with its apiVersion)."""
        if obj.get("apiVersion") == rt.api_version:
            return obj
        return {**obj, "apiVersion": rt.api_version}

    def _stored(self, rt: ResourceType, namespace: str | None, name: str) -> Stored:
        stored = self.store.get(resource_of(rt), self._name(rt, namespace, name))
        if stored is None:
            raise errors.not_found(rt, name)
        return stored

    def any_version(self, resource: GroupResource) -> ResourceType:
        """A served version of ``resource`` (objects are stored once for every version)."""
        for rt in self.registry.all():
            if (rt.group, rt.plural) == resource:
                return rt
        raise LookupError(f"no served version of {resource}")

    # -- admission -------------------------------------------------------------------------

    def _create_namespace(self, name: str) -> None:
        """NamespaceAutoProvision's create of a missing namespace."""
        namespaces = self.registry.get("", "v1", "namespaces")
        if namespaces is not None:
            body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            self.create(namespaces, None, body, WriteOptions(default_manager="kube-apiserver"))

    def _check_fields(
        self, rt: ResourceType, obj: dict[str, Any], opts: WriteOptions, *, apply: bool
    ) -> list[str]:
        return checks.check_fields(self.field_checker, rt, obj, opts.field_validation, apply=apply)

    def _apply_defaults(self, rt: ResourceType, obj: dict[str, Any], *, creating: bool) -> None:
        """The API defaults of ``rt``'s kind, in place (``creating``: also the create-only ones)."""
        rules.apply_defaults(rt.group, rt.kind, obj, creating=creating)

    def _manager_entries(self, stored: Stored | None, obj: dict[str, Any]) -> managed.Entries:
        """Ownership to start from: the stored one, or what a PUT/patch body set explicitly."""
        base = stored.entries if stored else {}
        given = obj["metadata"].get("managedFields")
        if (
            stored is not None
            and given is not None
            and given != stored.obj["metadata"].get("managedFields")
        ):
            try:
                base = managed.parse(given) if isinstance(given, list) else {}
            except ValueError:
                # As the field manager's decodeLiveOrNew: managedFields it cannot decode
                # are not the request's to set; the stored ones stay.
                base = stored.entries
        return base

    # -- reads -----------------------------------------------------------------------------

    def get(self, rt: ResourceType, namespace: str | None, name: str) -> dict[str, Any]:
        """The object, or a 404 error."""
        return self.as_served(rt, self._stored(rt, namespace, name).obj)

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
            self.as_served(rt, s.obj)
            for s in self.store.select(resource_of(rt), namespace if rt.namespaced else None)
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
        obj = checks.check_type(self.registry, rt, checks.decode_object(rt, body))
        meta = obj["metadata"]
        checks.check_namespace(rt, meta, namespace)
        generated = not meta.get("name")
        assign_name(rt, meta)
        warnings = self._check_fields(rt, obj, opts, apply=False)
        stamp = fresh_metadata(meta)
        if rt.status and (rt.group, rt.kind) != ("", "Node"):
            obj.pop("status", None)  # a Node keeps the status it is created with (observed)
        self._apply_defaults(rt, obj, creating=True)
        entries = managed.record_update(
            {},
            (opts.manager, "Update", ""),
            rt.api_version,
            {},
            managed.tracked_view(obj, ownership_scope(rt, "")),
            stamp,
        )
        result = self._finish(rt, None, obj, entries, opts, generated_name=generated)
        result.code, result.warnings = 201, [*warnings, *result.warnings]
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
        obj = checks.check_type(self.registry, rt, checks.decode_object(rt, body))
        checks.check_identity(rt, obj, namespace, name)
        if (rt.group, rt.kind) in _CONDITIONAL_UPSERT and not subresource:
            found = self.store.get(resource_of(rt), self._name(rt, namespace, name))
            meta = obj["metadata"]
            if found is None and meta.get("uid"):  # the UID precondition a PUT carries
                raise errors.uid_mismatch(meta["uid"], "")
            if found is None:  # AllowCreateOnUpdate: created, whatever resourceVersion it names
                meta.pop("resourceVersion", None)
                return self.create(rt, namespace, obj, opts)
            if not meta.get("resourceVersion"):  # no AllowUnconditionalUpdate
                raise errors.invalid(rt.plural, rt.group, name, [_NO_VERSION])
        stored = self._stored(rt, namespace, name)
        warnings = self._check_fields(rt, obj, opts, apply=False)
        return self._update(rt, stored, obj, opts, subresource, warnings)

    def _update(
        self,
        rt: ResourceType,
        stored: Stored,
        obj: dict[str, Any],
        opts: WriteOptions,
        subresource: str,
        warnings: Sequence[str] = (),
    ) -> Result:
        """An update (PUT, non-apply PATCH, a controller's write) answered with ``warnings``."""
        old = stored.obj
        checks.check_resource_version(rt, obj["metadata"].get("resourceVersion"), old)
        base = self._manager_entries(stored, obj)
        if subresource == "status":
            new = with_status_of(rt, old, obj)
        else:
            new = keeping_server_fields(rt, obj, old)
        self._apply_defaults(rt, new, creating=False)
        scope = ownership_scope(rt, subresource)
        entries = managed.record_update(
            base,
            (opts.manager, "Update", subresource),
            rt.api_version,
            managed.tracked_view(old, scope),
            managed.tracked_view(new, scope),
            now(),
        )
        result = self._finish(rt, stored, new, entries, opts, subresource)
        result.warnings = [*warnings, *result.warnings]
        return result

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
        accepted = self.patch_types(rt)
        if content_type not in accepted:
            raise errors.unsupported_media_type(content_type, list(accepted))
        if content_type == APPLY:
            return self._apply(rt, namespace, name, body, opts, subresource)
        if opts.force:
            raise errors.invalid_patch_options(
                "force",
                "FieldValueForbidden",
                "Forbidden: may not be specified for non-apply patch",
            )
        patch = checks.decode_patch(body, yaml_ok=False)
        stored = self._stored(rt, namespace, name)
        old = self.as_served(rt, stored.obj)
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
        obj = checks.check_type(self.registry, rt, candidate)
        checks.check_identity(rt, obj, namespace, name)
        warnings = self._check_fields(rt, obj, opts, apply=False)
        return self._update(rt, stored, obj, opts, subresource, warnings)

    def patch_types(self, rt: ResourceType) -> tuple[str, ...]:
        """The patch formats a PATCH of ``rt`` accepts (a 415 lists them)."""
        return PATCH_TYPES

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
        config = checks.apply_configuration(rt, checks.decode_patch(body, yaml_ok=True))
        meta = config["metadata"]
        checks.check_identity(rt, config, namespace, name)
        warnings = self._check_fields(rt, config, opts, apply=True)
        stored = self.store.get(resource_of(rt), self._name(rt, namespace, name))
        live_meta = stored.obj["metadata"] if stored is not None else None
        checks.check_preconditions(
            rt, name, meta.get("resourceVersion"), meta.get("uid"), live_meta
        )
        stamp = now()
        if stored is None:
            if subresource:
                raise errors.not_found(rt, name)
            live = new_object(rt, namespace, name, stamp)
            entries: managed.Entries = {}
        else:
            live, entries = without_managed_fields(self.as_served(rt, stored.obj)), stored.entries
        applied = managed.tracked_view(strip_nulls(config), ownership_scope(rt, subresource))
        merged, entries = managed.apply(
            entries,
            (opts.field_manager, "Apply", subresource),
            rt.api_version,
            live,
            applied,
            opts.force,
            stamp,
        )
        self._apply_defaults(rt, merged, creating=stored is None)
        result = self._finish(rt, stored, merged, entries, opts, subresource)
        result.warnings = [*warnings, *result.warnings]
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
        subresource: str = "",
        *,
        generated_name: bool = False,
    ) -> Result:
        """Every write ends here: admission and validation, skip a no-op, count the
        generation, then persist. A create of a name in use is a 409 after the mutating
        admission (as storage answers after it). ``generated_name``: the create's name
        comes from ``generateName`` (admission sees none, as upstream's storage makes it)."""
        old = stored.obj if stored else None
        rules.drop_disabled_fields(rt.group, rt.kind, obj, old, self.registry.gates)
        meta = obj["metadata"]
        attrs = admission.Attributes(
            admission.UPDATE if stored else admission.CREATE,
            rt,
            _admitted_namespace(rt, meta.get("namespace"), meta.get("name", ""), stored),
            "" if generated_name else meta.get("name", ""),
            obj,
            self.as_served(rt, old) if old is not None else None,
            subresource,
            opts.dry_run,
            _write_options("UpdateOptions" if stored else "CreateOptions", opts),
        )
        self.admission.admit(attrs)
        meta = obj["metadata"]  # a webhook's patch may have replaced it
        key = self._name(rt, meta.get("namespace"), meta.get("name", ""))
        if stored is None and self.store.get(resource_of(rt), key) is not None:
            raise errors.already_exists(rt, meta.get("name", ""))
        self._validate(rt, stored, obj)
        self.admission.validate(attrs)
        if stored is not None:
            if self._unchanged(rt, stored, obj, entries):
                return Result(200, self.as_served(rt, stored.obj), attrs.warnings)
            meta["resourceVersion"] = stored.obj["metadata"]["resourceVersion"]
        if tracks_generation(rt):
            meta["generation"] = generation(rt, obj, stored.obj if stored else None)
        else:
            meta.pop("generation", None)
        meta["managedFields"] = managed.render(entries)
        obj = in_server_order(obj)
        if opts.dry_run:
            if stored is None:
                obj["metadata"].pop("resourceVersion", None)
            return Result(200, obj, attrs.warnings)
        self.persist(rt, Stored(obj, entries))
        return Result(200, obj, attrs.warnings)

    def _validate(self, rt: ResourceType, stored: Stored | None, obj: dict[str, Any]) -> None:
        """The API server's rules on the final object (and the old one, on updates): else 422."""
        old = self.as_served(rt, stored.obj) if stored else None
        causes = rules.validate_object(
            rt.group, rt.version, rt.kind, obj, old, self.registry.gates, namespaced=rt.namespaced
        )
        if causes:
            raise errors.invalid(rt.kind, rt.group, obj["metadata"].get("name", ""), causes)

    def _unchanged(
        self, rt: ResourceType, stored: Stored, obj: dict[str, Any], entries: managed.Entries
    ) -> bool:
        """Whether the write changes nothing (object and ownership), so persists nothing."""
        old = self.as_served(rt, stored.obj)
        old_meta = old["metadata"]
        server_kept = {
            "resourceVersion": old_meta["resourceVersion"],
            "managedFields": old_meta.get("managedFields", []),
        }
        candidate = {**obj, "metadata": {**obj["metadata"], **server_kept}}
        return candidate == old and same_ownership(entries, stored.entries)

    def persist(self, rt: ResourceType, stored: Stored) -> None:
        """Store with a new resourceVersion; a deleting object without finalizers goes now.
        Then the stand-in controllers finish what deletions started."""
        meta = stored.obj["metadata"]
        meta["resourceVersion"] = str(self.store.next_rv())
        key = self._name(rt, meta.get("namespace"), meta["name"])
        if (
            meta.get("deletionTimestamp")
            and not finalizers_pending(stored.obj)
            and not meta.get("deletionGracePeriodSeconds")  # a pod terminating gracefully stays
        ):
            self._remove(resource_of(rt), key, stored)
            self.controllers.collect_dependents(meta["uid"], "Background")
        else:
            self.store.put(resource_of(rt), key, stored)
        self.controllers.finish_deletions()

    # -- deletion --------------------------------------------------------------------------

    def delete(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        propagation: str | None = None,
        dry_run: bool = False,
        *,
        preconditions: dict[str, Any] | None = None,
        grace_period: int | None = None,
    ) -> Result:
        """DELETE with ``propagationPolicy`` (Background by default), finalizers,
        ``preconditions`` (``uid``, ``resourceVersion``: a 409 unless the live object has them)
        and, for pods, a grace period (:mod:`.grace`).
        """
        own = self.own_deletes.get(resource_of(rt))
        handled = own(rt, namespace, name, dry_run, preconditions) if own else None
        if handled is not None:
            return handled
        if propagation not in (None, "Background", "Foreground", "Orphan"):
            raise errors.bad_request(
                f"Unsupported propagationPolicy {propagation!r}: "
                "use Background, Foreground or Orphan"
            )
        policy = propagation or "Background"
        stored = self._stored(rt, namespace, name)
        checks.check_delete_preconditions(rt, stored.obj["metadata"], preconditions or {})
        attrs = admission.Attributes(
            admission.DELETE,
            rt,
            _admitted_namespace(rt, namespace, name, stored),
            name,
            None,
            self.as_served(rt, stored.obj),
            dry_run=dry_run,
            options=_delete_options(propagation, dry_run, preconditions, grace_period),
        )
        self.admission.admit(attrs)
        self.admission.validate(attrs)
        obj = copy_json(self.as_served(rt, stored.obj))
        if policy == "Foreground" and FOREGROUND not in (obj["metadata"].get("finalizers") or []):
            # The owner stays, marked, until the garbage collector has removed its dependents.
            obj["metadata"]["finalizers"] = [*(obj["metadata"].get("finalizers") or []), FOREGROUND]
        period = grace.grace_of(obj, grace_period) if grace.is_pod(rt) else None
        if period:
            return self._terminate(rt, stored, obj, policy, period, dry_run)
        if period == 0:
            grace.mark(obj, 0)  # the answer shows the deletion, though the pod goes at once
        if finalizers_pending(obj):
            result = self._mark_deleting(rt, stored, obj, policy, dry_run)
            if not dry_run:
                self.controllers.finish_deletions()
            return result
        if not dry_run:
            final = self.as_served(rt, self._remove_now(rt, stored, policy))
            if period == 0:
                final = {**obj, "metadata": {**obj["metadata"], **_rv(final)}}
            obj = final
            self.controllers.finish_deletions()
        if rt.return_deleted_object:
            return Result(200, obj)
        return Result(200, deleted_status(rt, name, obj["metadata"]["uid"]))

    def _terminate(
        self,
        rt: ResourceType,
        stored: Stored,
        obj: dict[str, Any],
        policy: str,
        period: int,
        dry_run: bool,
    ) -> Result:
        """A pod deleted gracefully: marked, it stays until its grace is cut to 0."""
        if not grace.mark(obj, period) or dry_run:
            return Result(200, obj)
        meta = obj["metadata"]
        meta["resourceVersion"] = str(self.store.next_rv())
        key = self._name(rt, meta.get("namespace"), meta["name"])
        self.store.put(resource_of(rt), key, Stored(obj, stored.entries))
        if policy != "Background":
            self.controllers.collect_dependents(meta["uid"], policy)
        self.controllers.finish_deletions()
        return Result(200, copy_json(obj))

    def _mark_deleting(
        self, rt: ResourceType, stored: Stored, obj: dict[str, Any], policy: str, dry_run: bool
    ) -> Result:
        """An object with finalizers gets ``deletionTimestamp`` and stays until they are gone."""
        meta = obj["metadata"]
        if not meta.get("deletionTimestamp"):
            meta["deletionTimestamp"] = now()
            meta["deletionGracePeriodSeconds"] = 0
            if tracks_generation(rt):
                meta["generation"] = meta.get("generation", 1) + 1
        if is_namespace(rt):
            obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
        if dry_run:
            return Result(200, obj)
        meta["resourceVersion"] = str(self.store.next_rv())
        key = self._name(rt, meta.get("namespace"), meta["name"])
        self.store.put(resource_of(rt), key, Stored(obj, stored.entries))
        if is_namespace(rt):
            self.controllers.empty_namespace(meta["name"])
        elif policy != "Background":
            self.controllers.collect_dependents(meta["uid"], policy)
        return Result(200, copy_json(obj))

    def _remove_now(self, rt: ResourceType, stored: Stored, policy: str) -> dict[str, Any]:
        """Remove the object and handle its dependents as ``policy`` says; the final object."""
        meta = stored.obj["metadata"]
        if policy != "Background":
            self.controllers.collect_dependents(meta["uid"], policy)
        key = self._name(rt, meta.get("namespace"), meta["name"])
        final = self._remove(resource_of(rt), key, stored)
        if is_namespace(rt):
            self.controllers.empty_namespace(meta["name"])
        if policy == "Background":
            self.controllers.collect_dependents(meta["uid"], policy)
        return final

    def _remove(self, resource: GroupResource, key: Name, stored: Stored) -> dict[str, Any]:
        final: dict[str, Any] = copy_json(stored.obj)
        final["metadata"]["resourceVersion"] = str(self.store.next_rv())
        self.store.remove(resource, key, final)
        return final


def _admitted_namespace(
    rt: ResourceType, namespace: str | None, name: str, stored: Stored | None
) -> str:
    """The namespace admission is told: the object's, or for a Namespace that exists its own
    name (kube-apiserver's ``RequestInfo`` of ``/api/v1/namespaces/<name>``)."""
    if is_namespace(rt):
        return name if stored is not None else ""
    return (namespace or "") if rt.namespaced else ""


def _write_options(kind: str, opts: WriteOptions) -> dict[str, Any]:
    """The ``CreateOptions`` / ``UpdateOptions`` admission sees (a patch's, converted)."""
    out: dict[str, Any] = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if opts.dry_run:
        out["dryRun"] = ["All"]
    if opts.field_manager:
        out["fieldManager"] = opts.field_manager
    return out


def _delete_options(
    propagation: str | None,
    dry_run: bool,
    preconditions: dict[str, Any] | None,
    grace_period: int | None,
) -> dict[str, Any]:
    """The ``DeleteOptions`` admission sees: what the request set."""
    out: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    if grace_period is not None:
        out["gracePeriodSeconds"] = grace_period
    if preconditions:
        out["preconditions"] = preconditions
    if propagation:
        out["propagationPolicy"] = propagation
    if dry_run:
        out["dryRun"] = ["All"]
    return out


def _rv(obj: dict[str, Any]) -> dict[str, Any]:
    return {"resourceVersion": obj["metadata"]["resourceVersion"]}
