"""``reconcile``: what the native Job controller does on every sync, for any controller.

Given a ``Builder`` for one owner: find the owner's Workload (by ``spec.controllerRef`` and
the owner's controller reference) and its groups (by ``spec.workloadRef``), create what is
missing for a new execution (a create, never an apply: an object someone else made is never
taken over), keep gang ``minCount`` in sync for elastic resizes, report what cannot change on a
live object, and record the Job controller's events on the owner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from ...api.meta_v1 import OwnerReference
from ...api.scheduling_v1beta1 import Workload
from ...builder import Builder, BuildError
from ...field import ErrorList
from ...runtime import RuntimeObject, instantiate
from ..cache.cache import Cache, CacheIndex
from ..cache.reader import Reads, reader_for
from ..errors import APIError, ApplyError, ObjectRef, TakenNameError
from ..wire.queries import get_document
from ..wire.resources import (
    COMPOSITE_POD_GROUPS,
    POD_GROUPS,
    WORKLOADS,
    Resource,
    ref_of,
    resource_of,
)
from ..wire.retry import CONFLICT_ROUNDS
from ..wire.transport import RetryPolicy, Transport, transport_for
from .apply import apply_documents, create_document
from .drift import ImmutableChange, group_changes, workload_changes
from .events import (
    COMPOSITE_POD_GROUP_CREATED,
    FAILED_WORKLOAD_COMPILATION,
    FAILED_WORKLOAD_CREATE,
    IMMUTABLE_CHANGE_NOT_APPLIED,
    POD_GROUP_CREATED,
    WORKLOAD_CREATED,
    Event,
    record_event,
)
from .ownership import adopt_orphan, already_exists, controlled_by, controller_of
from .preflight import check, served_resources
from .resize import patch_spec, template_patch

__all__ = ["ImmutableChange", "ReconcileResult", "held_why", "reconcile", "taken_name"]

_MESSAGE_LIMIT = 1024  # what an events.k8s.io/v1 Event note holds


@dataclass(frozen=True)
class ReconcileResult:
    """What one reconcile found and did.

    ``workload`` and ``objects`` are the owner's objects on the server afterwards (found or
    created); ``created`` what this call created (each object once, however many reconciles
    run at the same time), ``resized`` the gang ``minCount`` it changed, ``adopted`` the
    objects without a controller it adopted (``adopt=True``); ``foreign`` the objects with the
    owner's names that it left alone (another owner's, or an orphan not adopted: the result of
    a ``TakenNameError``, which is raised then); ``immutable``
    each change of the tree that a live object cannot take (field, live and desired value,
    why); ``skipped`` why nothing (more) was managed, if so; ``errors`` the tree's validation
    errors (nothing is created then); ``events`` the events recorded on the owner.
    """

    workload: Workload | None = None
    objects: tuple[RuntimeObject, ...] = ()
    created: tuple[ObjectRef, ...] = ()
    resized: tuple[ObjectRef, ...] = ()
    adopted: tuple[ObjectRef, ...] = ()
    foreign: tuple[ObjectRef, ...] = ()
    immutable: tuple[ImmutableChange, ...] = ()
    skipped: str | None = None
    errors: ErrorList = field(default_factory=ErrorList)
    events: tuple[Event, ...] = ()


def taken_name(
    holder: Mapping[str, Any],
    owner_text: str,
    why: str,
    result: ReconcileResult,
    error: APIError | None = None,
) -> TakenNameError:
    """The error for an object the owner needs that exists under its name and that the owner
    does not control: it names the object, its controller and what to do."""
    ref = ref_of(holder)
    controller = controller_of(holder)
    held_by = _owner_text(controller) if controller is not None else None
    more = len(result.foreign) - 1
    also = f" (and {more} more object(s) with this execution's names)" if more > 0 else ""
    return TakenNameError(
        f"{ref} exists and is not controlled by {owner_text}: {why}{also}. Delete or rename"
        " it, then reconcile again",
        controller=held_by,
        result=result,
        status=error.status if error is not None else 409,
        reason=error.reason if error is not None else "AlreadyExists",
        status_body=error.status_body if error is not None else None,
        target=ref,
    )


def _owner_text(ref: Mapping[str, Any]) -> str:
    """``Kind name (uid ...)`` of an owner reference."""
    kind, name = ref.get("kind") or "an owner", ref.get("name") or "without a name"
    return f"{kind} {name} (uid {ref.get('uid') or 'unknown'})"


def held_why(holder: Mapping[str, Any], adoptable: bool) -> str:
    """Why ``holder`` is not the owner's: who controls it, or why it is not adopted."""
    controller = controller_of(holder)
    if controller is not None:
        return f"{_owner_text(controller)} controls it"
    if not adoptable:
        return (
            "it has no controller, and cannot be adopted: its spec.controllerRef (immutable)"
            " names another owner"
        )
    return "it has no controller; pass adopt=True to adopt it"


def _refers_to(doc: Mapping[str, Any], owner: OwnerReference) -> bool:
    ref = (doc.get("spec") or {}).get("controllerRef") or {}
    group = owner.api_version.rpartition("/")[0]
    return bool(
        ref.get("apiGroup", "") == group
        and ref.get("kind") == owner.kind
        and ref.get("name") == owner.name
    )


def _gang_counts(spec: Mapping[str, Any]) -> dict[str, int]:
    """Every leaf template's gang ``minCount`` in a Workload spec, by template name."""
    out: dict[str, int] = {}
    for leaf in spec.get("podGroupTemplates") or ():
        gang = (leaf.get("schedulingPolicy") or {}).get("gang")
        if gang is not None and "minCount" in gang:
            out[str(leaf.get("name"))] = gang["minCount"]
    for parent in spec.get("compositePodGroupTemplates") or ():
        out.update(_gang_counts(parent))
    return out


class _Reconciler:
    def __init__(
        self,
        transport: Transport,
        reader: Reads,
        builder: Builder,
        field_manager: str,
        adopt: bool,
    ) -> None:
        self.transport = transport
        self.reader = reader
        self.builder = builder
        self.field_manager = field_manager
        self.adopt = adopt
        owner = builder.options.owner
        if owner is None or not owner.uid:
            raise ValueError(
                "reconcile needs BuildOptions(owner=...) with the owner's uid"
                " (controller_ref(obj) of the object read from the API server)"
            )
        if not builder.options.namespace:
            raise ValueError("reconcile needs BuildOptions(namespace=...)")
        self.owner = owner
        self.namespace = builder.options.namespace
        self.events: list[Event] = []
        self.created: list[ObjectRef] = []
        self.resized: list[ObjectRef] = []
        self.adopted: list[ObjectRef] = []
        self.immutable: list[ImmutableChange] = []

    async def event(self, type_: Any, reason: str, message: str) -> None:
        event = Event(type_, reason, message)
        recorded = await record_event(
            self.transport, self.owner, self.namespace, event, self.field_manager
        )
        self.events.append(event if recorded else replace(event, recorded=False))

    def result(self, **kwargs: Any) -> ReconcileResult:
        return ReconcileResult(
            created=tuple(self.created),
            resized=tuple(self.resized),
            adopted=tuple(self.adopted),
            immutable=tuple(self.immutable),
            events=tuple(self.events),
            **kwargs,
        )

    @property
    def owner_text(self) -> str:
        return f"{self.owner.kind} {self.owner.name}"

    async def run(self, new_execution: bool) -> ReconcileResult:
        errors = self.builder.validate()
        if errors:
            await self.event("Warning", FAILED_WORKLOAD_COMPILATION, self._failed(errors))
            return self.result(errors=errors, skipped="the Workload cannot be compiled")
        try:
            desired = self.builder.workload()
        except BuildError as exc:
            await self.event("Warning", FAILED_WORKLOAD_COMPILATION, self._failed(exc))
            return self.result(errors=exc.errors or ErrorList(), skipped=str(exc))
        desired_doc = desired.to_dict()
        await check(self.transport, [desired_doc])
        found = await self._workload(desired_doc, new_execution)
        if isinstance(found, ReconcileResult):
            return found
        workload_doc, created = found
        if not created:
            await self._report_changes(
                workload_changes(ref_of(workload_doc), workload_doc, desired_doc)
            )
            workload_doc = await self._sync_template_counts(workload_doc, desired)
        return await self._runtime_objects(workload_doc, new_execution)

    def _failed(self, error: object) -> str:
        return f"Failed to compile Workload for {self.owner_text}: {error}"

    def _mine(self, doc: Mapping[str, Any]) -> bool:
        return _refers_to(doc, self.owner) and controlled_by(doc, self.owner.uid)

    async def _workload(
        self, desired: dict[str, Any], new_execution: bool
    ) -> tuple[dict[str, Any], bool] | ReconcileResult:
        """The owner's Workload (and whether this call created it), or the result to return.

        As the Job controller: list, create when none is controlled by the owner, and on
        ``AlreadyExists`` list again: a concurrent reconcile of the same owner made it (then it
        is used, not reported as created), or another owner holds the name (then
        ``FailedWorkloadCreate`` with the server's message, and nothing further).
        """
        name = str(desired["metadata"]["name"])
        taken: APIError | None = None
        for _ in range(CONFLICT_ROUNDS):
            listed = await self._workloads(name)
            mine = [w for w in listed if self._mine(w)]
            if len(mine) > 1:
                return self.result(
                    skipped=f"found {len(mine)} Workloads controlled by {self.owner_text};"
                    " leaving them alone"
                )
            if mine:
                return mine[0], False
            holder = next((w for w in listed if ref_of(w).name == name), None)
            if self.adopt and holder is not None and self._adoptable(holder):
                adopted = await adopt_orphan(
                    self.transport, WORKLOADS, holder, self.owner, self.field_manager
                )
                if adopted is not None:
                    self.reader.wrote(WORKLOADS, adopted)
                    self.adopted.append(ref_of(adopted))
                    return adopted, False
                continue  # it changed meanwhile: look again
            if taken is not None and holder is not None:
                await self._taken(holder, taken)
            if not new_execution:
                return self.result(skipped="not a new execution: nothing is created")
            try:
                doc = await create_document(self.transport, desired, self.field_manager)
            except ApplyError as exc:
                [failure] = exc.failures.values()
                await self.event("Warning", FAILED_WORKLOAD_CREATE, self._create_failed(failure))
                raise
            if isinstance(doc, APIError):
                taken = doc
                await self._read_back(WORKLOADS, name)
                continue
            self.reader.wrote(WORKLOADS, doc)
            ref = ref_of(doc)
            self.created.append(ref)
            await self.event(
                "Normal", WORKLOAD_CREATED, f"Created Workload {ref.name} for {self.owner_text}"
            )
            return doc, True
        return self.result(
            skipped=f"Workload {name} kept appearing and going away; reconcile again later"
        )

    async def _workloads(self, name: str) -> list[dict[str, Any]]:
        """The Workloads that matter: those the owner controls and the one called ``name``.

        Through a cache: its controller index and a lookup. Live: the Workload called
        ``name`` (one GET) when it is the owner's, else the namespace's list.
        """
        holder = await self.reader.get(WORKLOADS, self.namespace, name)
        if not self.reader.cached:
            if holder is not None and self._mine(holder):
                return [holder]
            return await self.reader.list(WORKLOADS, self.namespace)
        found: list[dict[str, Any]] = await self.reader.indexed(
            WORKLOADS, self.namespace, CacheIndex.CONTROLLER_UID, self.owner.uid
        )
        if holder is not None and all(ref_of(w).name != name for w in found):
            found.append(holder)
        return found

    async def _read_back(self, resource: Resource, name: str) -> None:
        """After ``AlreadyExists``: through a cache, read the holder live, so the next look
        sees it even before the cache does (a concurrent reconcile may have made it)."""
        if self.reader.cached:
            holder = await get_document(self.transport, resource, self.namespace, name)
            if holder is not None:
                self.reader.wrote(resource, holder)

    def _adoptable(self, doc: Mapping[str, Any]) -> bool:
        """No controller, and a ``spec.controllerRef`` naming the owner (it is immutable)."""
        return controller_of(doc) is None and _refers_to(doc, self.owner)

    def _create_failed(self, error: APIError) -> str:
        """The Job controller's ``FailedWorkloadCreate`` message: the server's own words."""
        return f"Failed to create Workload for {self.owner_text}: {error.message}"

    async def _taken(self, holder: Mapping[str, Any], error: APIError) -> NoReturn:
        """``FailedWorkloadCreate`` with the server's message, then ``TakenNameError``: as
        the Job controller returns the error, so that the sync is retried with backoff."""
        await self.event("Warning", FAILED_WORKLOAD_CREATE, self._create_failed(error))
        ref = ref_of(holder)
        why = held_why(holder, self._adoptable(holder))
        skipped = f"Workload {ref.name} exists and is not controlled by {self.owner_text}: {why}"
        result = self.result(foreign=(ref,), skipped=skipped)
        raise taken_name(holder, self.owner_text, why, result, error)

    async def _report_changes(self, changes: Sequence[ImmutableChange]) -> None:
        """Record what cannot reach a live object: in the result and as a Warning event."""
        if not changes:
            return
        self.immutable.extend(changes)
        ref = changes[0].object
        fields = "; ".join(f"{c.field}: {c.reason}" for c in changes)
        message = (
            f"Cannot change {ref.kind} {ref.name} of {self.owner_text}: {fields}."
            " Roll the change out as a new execution (new objects), see docs/apply.md"
        )
        await self.event("Warning", IMMUTABLE_CHANGE_NOT_APPLIED, message[:_MESSAGE_LIMIT])

    async def _sync_template_counts(
        self, workload: dict[str, Any], desired: Workload
    ) -> dict[str, Any]:
        """Patch the templates' gang ``minCount``; the Workload as it is afterwards (a cached
        object is never changed in place)."""
        current = _gang_counts(workload.get("spec") or {})
        ref = ref_of(workload)
        for template, count in _gang_counts(desired.to_dict()["spec"]).items():
            if current.get(template, count) == count:
                continue
            patch = template_patch(workload.get("spec") or {}, template, count)
            if patch is None:
                continue
            response = await patch_spec(self.transport, WORKLOADS, ref, patch, self.field_manager)
            self.reader.wrote(WORKLOADS, response.body)
            workload = dict(response.body)
            if ref not in self.resized:
                self.resized.append(ref)
        return workload

    async def _existing_groups(self, refs: Sequence[ObjectRef]) -> dict[ObjectRef, dict[str, Any]]:
        """The groups with the execution's names, by name (a GET each, or the cache's)."""
        existing: dict[ObjectRef, dict[str, Any]] = {}
        for resource in (COMPOSITE_POD_GROUPS, POD_GROUPS):
            if resource.plural not in await served_resources(self.transport, resource):
                continue
            for ref in refs:
                if ref.kind == resource.kind:
                    doc = await self.reader.get(resource, self.namespace, ref.name)
                    if doc is not None:
                        existing[ref] = doc
        return existing

    async def _runtime_objects(
        self, workload_doc: dict[str, Any], new_execution: bool
    ) -> ReconcileResult:
        workload: Workload = self.reader.model(WORKLOADS, workload_doc)
        name = workload.metadata.name
        desired = {ref_of(d): d for d in (o.to_dict() for o in instantiate(self.builder))}
        in_use: dict[ObjectRef, dict[str, Any]] = {}
        foreign: list[ObjectRef] = []
        missing: list[dict[str, Any]] = []
        holders: dict[ObjectRef, dict[str, Any]] = {}
        for _ in range(CONFLICT_ROUNDS):
            existing = await self._existing_groups(list(desired))
            in_use, foreign, missing = {}, [], []
            orphans: list[dict[str, Any]] = []
            for ref, doc in desired.items():
                found = existing.get(ref)
                refers = ((found or {}).get("spec") or {}).get("workloadRef") or {}
                if found is None:
                    missing.append(doc)
                elif refers.get("workloadName") != name:
                    foreign.append(ref)
                    holders[ref] = found
                elif controlled_by(found, self.owner.uid):
                    in_use[ref] = found
                elif self.adopt and controller_of(found) is None:
                    orphans.append(found)
                else:
                    foreign.append(ref)
                    holders[ref] = found
            if orphans:
                await self._adopt_groups(orphans)
                continue  # look again, with the adopted groups in use
            if foreign or not missing or not new_execution:
                break
            if not await self._create_groups(missing):
                continue  # a name was taken meanwhile: look again
        for ref, doc in in_use.items():
            await self._report_changes(group_changes(ref, doc, desired[ref]))
        await self._sync_group_counts(in_use, desired)
        objects = tuple(
            self.reader.model(resource_of(in_use[r]), in_use[r]) for r in desired if r in in_use
        )
        skipped = None
        if foreign:
            skipped = (
                f"{len(foreign)} object(s) with this execution's names are not controlled"
                f" by {self.owner_text}"
            )
        elif missing and not new_execution:
            skipped = "not a new execution: missing groups are not created"
        elif missing:
            skipped = "the groups kept appearing and going away; reconcile again later"
        result = self.result(
            workload=workload, objects=objects, foreign=tuple(foreign), skipped=skipped
        )
        if foreign:
            holder = holders[foreign[0]]
            refers = (holder.get("spec") or {}).get("workloadRef") or {}
            if refers.get("workloadName") != name:
                why = f"it belongs to Workload {refers.get('workloadName') or '(none)'}"
            else:
                why = held_why(holder, adoptable=True)
            raise taken_name(holder, self.owner_text, why, result)
        return result

    async def _adopt_groups(self, orphans: Sequence[dict[str, Any]]) -> None:
        for doc in orphans:
            resource = resource_of(doc)
            adopted = await adopt_orphan(
                self.transport, resource, doc, self.owner, self.field_manager
            )
            if adopted is not None:
                self.reader.wrote(resource, adopted)
                self.adopted.append(ref_of(adopted))

    async def _create_groups(self, missing: list[dict[str, Any]]) -> bool:
        """Create the missing groups; ``False`` when a name was taken (look again)."""
        try:
            docs = await apply_documents(
                self.transport, missing, field_manager=self.field_manager, create_only=True
            )
        except ApplyError as exc:
            await self._created_groups(exc.applied)
            if not all(already_exists(e) for e in exc.failures.values()):
                raise
            for ref in exc.failures:
                await self._read_back(
                    resource_of({"apiVersion": ref.api_version, "kind": ref.kind}), ref.name
                )
            return False
        for doc in docs:
            self.reader.wrote(resource_of(doc), doc)
        await self._created_groups([ref_of(d) for d in docs])
        return True

    async def _created_groups(self, refs: Sequence[ObjectRef]) -> None:
        for ref in refs:
            self.created.append(ref)
            reason = (
                COMPOSITE_POD_GROUP_CREATED
                if ref.kind == "CompositePodGroup"
                else POD_GROUP_CREATED
            )
            await self.event(
                "Normal", reason, f"Created {ref.kind} {ref.name} for {self.owner_text}"
            )

    async def _sync_group_counts(
        self,
        in_use: dict[ObjectRef, dict[str, Any]],
        desired: Mapping[ObjectRef, Mapping[str, Any]],
    ) -> None:
        for ref, want_doc in desired.items():
            doc = in_use.get(ref)
            if doc is None or ref.kind != "PodGroup":
                continue
            want = (
                ((want_doc.get("spec") or {}).get("schedulingPolicy") or {}).get("gang") or {}
            ).get("minCount")
            gang = ((doc.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
            if want is None or gang is None or gang.get("minCount") == want:
                continue
            policy = {"schedulingPolicy": {"gang": {"minCount": want}}}
            response = await patch_spec(self.transport, POD_GROUPS, ref, policy, self.field_manager)
            self.reader.wrote(POD_GROUPS, response.body)
            in_use[ref] = dict(response.body)
            self.resized.append(ref)


async def reconcile(
    api_client: Any,
    builder: Builder,
    *,
    field_manager: str | None = None,
    new_execution: bool = True,
    adopt: bool = False,
    retry: RetryPolicy | None = None,
    cache: Cache | None = None,
) -> ReconcileResult:
    """Bring the owner's Workload and runtime objects in line with ``builder``.

    The owner is ``builder.options.owner`` (with its uid). Finds the Workload whose
    ``spec.controllerRef`` names the owner and that the owner controls, and the groups whose
    ``spec.workloadRef`` names it. For a new execution (``new_execution``: as the Job
    controller, only before the owner has started) it creates what is missing (Workload
    first, then the groups, recording ``WorkloadCreated`` / ``PodGroupCreated`` on the owner);
    it always keeps gang ``minCount`` of the Workload's templates and of the PodGroups in sync
    with the tree. Objects are created (201), never applied over: a name another owner or a
    person holds is left alone and raises ``TakenNameError`` (naming the object and its
    controller; its ``result`` says what was done before), after ``FailedWorkloadCreate`` with
    the API server's message for a Workload: as the Job controller returns the error, so that
    the caller's requeue tries again once the name is free. An object with the owner's names
    but no controller reference is adopted only with ``adopt=True`` (a Workload only if its
    ``spec.controllerRef`` names the owner). Any other change of the tree a live object
    cannot take is returned in ``immutable`` and recorded as an ``ImmutableChangeNotApplied``
    Warning. It creates nothing when several Workloads match, and records
    ``FailedWorkloadCompilation`` (tree errors, returned in ``errors``) or
    ``FailedWorkloadCreate`` (then raises the ``ApplyError``) on failure. Running it again
    changes nothing. ``field_manager`` is required unless
    ``api_client`` is an ``aio.Client`` (then it defaults to the client's). With a ``cache``
    (or an ``aio.Client``'s), reads come from it: a steady reconcile sends no request; its own
    writes count until the cache observes them, so a lagging cache never creates twice.
    """
    transport = transport_for(api_client, retry)
    manager = transport.resolve_field_manager(field_manager)
    if not isinstance(adopt, bool):
        raise TypeError(f"adopt must be a bool, not {type(adopt).__name__}")
    reader = reader_for(api_client, cache, transport)
    reconciler = _Reconciler(transport, reader, builder, manager, adopt)
    return await reconciler.run(new_execution)
