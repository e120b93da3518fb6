"""``reconcile``: what the native Job controller does on every sync, for any controller.

Given a ``Builder`` for one owner: find the owner's Workload (by ``spec.controllerRef`` and
the owner's controller reference) and its groups (by ``spec.workloadRef``), create what is
missing for a new execution, keep gang ``minCount`` in sync for elastic resizes, never touch
an object the owner does not control, and record the Job controller's events on the owner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..api.meta_v1 import OwnerReference
from ..api.scheduling_v1beta1 import PodGroup, Workload
from ..builder import Builder, BuildError
from ..field import ErrorList
from ..runtime import RuntimeObject, instantiate
from ._queries import list_documents
from ._resources import COMPOSITE_POD_GROUPS, POD_GROUPS, WORKLOADS, parse, ref_of, resource_of
from ._transport import RetryPolicy, Transport
from .apply import apply_documents
from .errors import ObjectRef
from .events import (
    COMPOSITE_POD_GROUP_CREATED,
    FAILED_WORKLOAD_COMPILATION,
    FAILED_WORKLOAD_CREATE,
    POD_GROUP_CREATED,
    WORKLOAD_CREATED,
    Event,
    record_event,
)
from .preflight import check, served_resources
from .resize import STRATEGIC_MERGE_PATCH, template_patch

__all__ = ["ReconcileResult", "reconcile"]


@dataclass(frozen=True)
class ReconcileResult:
    """What one reconcile found and did.

    ``workload`` and ``objects`` are the owner's objects on the server afterwards (found or
    created); ``created`` and ``resized`` what this call changed; ``foreign`` the objects with
    the owner's names that another owner controls (left alone); ``skipped`` why nothing was
    managed, if so; ``errors`` the tree's validation errors (nothing is created then);
    ``events`` the events recorded on the owner.
    """

    workload: Workload | None = None
    objects: tuple[RuntimeObject, ...] = ()
    created: tuple[ObjectRef, ...] = ()
    resized: tuple[ObjectRef, ...] = ()
    foreign: tuple[ObjectRef, ...] = ()
    skipped: str | None = None
    errors: ErrorList = field(default_factory=ErrorList)
    events: tuple[Event, ...] = ()


def controlled_by(doc: Mapping[str, Any], uid: str) -> bool:
    """``metav1.IsControlledBy``: the object's controller reference names ``uid``."""
    refs = (doc.get("metadata") or {}).get("ownerReferences") or ()
    controller = next((r for r in refs if isinstance(r, Mapping) and r.get("controller")), None)
    return controller is not None and controller.get("uid") == uid


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
    def __init__(self, transport: Transport, builder: Builder, field_manager: str) -> None:
        self.transport = transport
        self.builder = builder
        self.field_manager = field_manager
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

    async def event(self, type_: Any, reason: str, message: str) -> None:
        event = Event(type_, reason, message)
        self.events.append(event)
        await record_event(self.transport, self.owner, self.namespace, event, self.field_manager)

    def result(self, **kwargs: Any) -> ReconcileResult:
        return ReconcileResult(
            created=tuple(self.created),
            resized=tuple(self.resized),
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
        await check(self.transport, [desired.to_dict()])

        all_workloads = await list_documents(self.transport, WORKLOADS, self.namespace)
        mine = [
            w
            for w in all_workloads
            if _refers_to(w, self.owner) and controlled_by(w, self.owner.uid)
        ]
        if len(mine) > 1:
            return self.result(
                skipped=f"found {len(mine)} Workloads controlled by {self.owner_text};"
                " leaving them alone"
            )
        if not mine:
            taken = [w for w in all_workloads if ref_of(w).name == desired.metadata.name]
            if taken:
                return self.result(
                    foreign=(ref_of(taken[0]),),
                    skipped=f"Workload {desired.metadata.name} exists and is not controlled by"
                    f" {self.owner_text}",
                )
            if not new_execution:
                return self.result(skipped="not a new execution: nothing is created")
            workload_doc = await self._create_workload(desired)
        else:
            workload_doc = mine[0]
            await self._sync_template_counts(workload_doc, desired)
        return await self._runtime_objects(workload_doc, new_execution)

    def _failed(self, error: object) -> str:
        return f"Failed to compile Workload for {self.owner_text}: {error}"

    async def _create_workload(self, desired: Workload) -> dict[str, Any]:
        try:
            [doc] = await apply_documents(
                self.transport, [desired.to_dict()], field_manager=self.field_manager
            )
        except Exception as exc:
            await self.event(
                "Warning",
                FAILED_WORKLOAD_CREATE,
                f"Failed to create Workload for {self.owner_text}: {exc}",
            )
            raise
        ref = ref_of(doc)
        self.created.append(ref)
        await self.event(
            "Normal", WORKLOAD_CREATED, f"Created Workload {ref.name} for {self.owner_text}"
        )
        return doc

    async def _sync_template_counts(self, workload: dict[str, Any], desired: Workload) -> None:
        current = _gang_counts(workload.get("spec") or {})
        ref = ref_of(workload)
        for template, count in _gang_counts(desired.to_dict()["spec"]).items():
            if current.get(template, count) == count:
                continue
            patch = template_patch(workload.get("spec") or {}, template, count)
            if patch is None:
                continue
            response = await self.transport.request(
                "PATCH",
                WORKLOADS.path(ref.namespace, ref.name),
                query=[("fieldManager", self.field_manager)],
                body={"spec": patch},
                content_type=STRATEGIC_MERGE_PATCH,
                target=ref,
            )
            workload.clear()
            workload.update(response.body)
            if ref not in self.resized:
                self.resized.append(ref)

    async def _runtime_objects(
        self, workload_doc: dict[str, Any], new_execution: bool
    ) -> ReconcileResult:
        workload = Workload.from_server(workload_doc)
        name = workload.metadata.name
        desired = instantiate(self.builder)
        existing: dict[ObjectRef, dict[str, Any]] = {}
        for resource in (COMPOSITE_POD_GROUPS, POD_GROUPS):
            if resource.plural not in await served_resources(self.transport, resource):
                continue
            for doc in await list_documents(self.transport, resource, self.namespace):
                existing[ref_of(doc)] = doc
        in_use: dict[ObjectRef, dict[str, Any]] = {}
        foreign: list[ObjectRef] = []
        missing: list[dict[str, Any]] = []
        for obj in desired:
            doc = obj.to_dict()
            ref = ref_of(doc)
            found = existing.get(ref)
            if found is None:
                missing.append(doc)
            elif (
                controlled_by(found, self.owner.uid)
                and ((found.get("spec") or {}).get("workloadRef") or {}).get("workloadName") == name
            ):
                in_use[ref] = found
            else:
                foreign.append(ref)
        if missing and new_execution and not foreign:
            for doc in await apply_documents(
                self.transport, missing, field_manager=self.field_manager
            ):
                ref = ref_of(doc)
                in_use[ref] = doc
                self.created.append(ref)
                reason = (
                    COMPOSITE_POD_GROUP_CREATED
                    if ref.kind == "CompositePodGroup"
                    else POD_GROUP_CREATED
                )
                await self.event(
                    "Normal", reason, f"Created {ref.kind} {ref.name} for {self.owner_text}"
                )
        await self._sync_group_counts(in_use, desired)
        order = [ref_of(o.to_dict()) for o in desired]
        objects = tuple(parse(resource_of(in_use[r]), in_use[r]) for r in order if r in in_use)
        skipped = None
        if foreign:
            skipped = (
                f"{len(foreign)} object(s) with this execution's names are not controlled"
                f" by {self.owner_text}"
            )
        elif missing and not new_execution:
            skipped = "not a new execution: missing groups are not created"
        return self.result(
            workload=workload, objects=objects, foreign=tuple(foreign), skipped=skipped
        )

    async def _sync_group_counts(
        self, in_use: dict[ObjectRef, dict[str, Any]], desired: Sequence[RuntimeObject]
    ) -> None:
        for obj in desired:
            if not isinstance(obj, PodGroup) or obj.spec.scheduling_policy.gang is None:
                continue
            ref = ref_of(obj.to_dict())
            doc = in_use.get(ref)
            want = obj.spec.scheduling_policy.gang.min_count
            gang = (((doc or {}).get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
            if doc is None or gang is None or gang.get("minCount") == want:
                continue
            response = await self.transport.request(
                "PATCH",
                POD_GROUPS.path(ref.namespace, ref.name),
                query=[("fieldManager", self.field_manager)],
                body={"spec": {"schedulingPolicy": {"gang": {"minCount": want}}}},
                content_type=STRATEGIC_MERGE_PATCH,
                target=ref,
            )
            in_use[ref] = dict(response.body)
            self.resized.append(ref)


async def reconcile(
    api_client: Any,
    builder: Builder,
    *,
    field_manager: str,
    new_execution: bool = True,
    retry: RetryPolicy | None = None,
) -> ReconcileResult:
    """Bring the owner's Workload and runtime objects in line with ``builder``.

    The owner is ``builder.options.owner`` (with its uid). Finds the Workload whose
    ``spec.controllerRef`` names the owner and that the owner controls, and the groups whose
    ``spec.workloadRef`` names it. For a new execution (``new_execution``: as the Job
    controller, only before the owner has started) it creates what is missing (Workload
    first, then the groups, recording ``WorkloadCreated`` / ``PodGroupCreated`` on the owner);
    it always keeps gang ``minCount`` of the Workload's templates and of the PodGroups in sync
    with the tree. It never touches an object another owner controls (``foreign``), creates
    nothing when several Workloads match, and records ``FailedWorkloadCompilation`` (tree
    errors, returned in ``errors``) or ``FailedWorkloadCreate`` (then re-raises) on failure.
    Running it again changes nothing.
    """
    if not field_manager:
        raise ValueError("field_manager is required: name your controller (e.g. 'my-operator')")
    reconciler = _Reconciler(Transport(api_client, retry), builder, field_manager)
    return await reconciler.run(new_execution)
