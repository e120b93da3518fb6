"""``reconcile_job``: the native Job controller's sync of one Job, through the core's decision.

Each step asks ``decide_job_scheduling`` (the Job controller's decision as a pure function)
what to do with what exists, does it, and asks again: create the Workload, then (with its uid)
the PodGroup, then keep gang ``minCount`` in sync. Objects are created, never applied over, so
an object another controller or a person made is never taken over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ...api.meta_v1 import OwnerReference
from ...job import JobEvent, JobSchedulingDecision, decide_job_scheduling, kept_decision
from ...naming import generate_pod_group_name, generate_workload_name
from ..cache.cache import Cache, CacheIndex
from ..cache.indexer import key_of
from ..cache.reader import Reads, reader_for
from ..errors import APIError, ApplyError, ObjectRef
from ..wire.queries import get_document
from ..wire.resources import POD_GROUPS, PODS, WORKLOADS, Resource, parse, ref_of
from ..wire.transport import RetryPolicy, Transport, transport_for
from .apply import create_document
from .events import Event, record_event
from .ownership import controller_of
from .reconcile import ReconcileResult, held_why, taken_name
from .resize import patch_spec

__all__ = ["JOB_CONTROLLER_UID_LABEL", "reconcile_job"]

JOB_CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
"""The label the Job controller puts on every pod of a Job: the Job's uid."""

_ROUNDS = 5  # decide-and-create rounds: the Workload, its PodGroup, an AlreadyExists each


def _document(job: Any) -> dict[str, Any]:
    """The Job's JSON: a dict, an official-client ``V1Job`` or a lightkube ``Job``."""
    if isinstance(job, dict):
        return job  # read only here
    if isinstance(job, Mapping):
        return dict(job)
    dumps: tuple[tuple[str, dict[str, Any]], ...] = (
        ("model_dump", {"by_alias": True, "exclude_none": True, "mode": "json"}),
        ("to_dict", {}),
    )
    for method, kwargs in dumps:
        dump = getattr(job, method, None)
        doc = dump(**kwargs) if callable(dump) else None
        if isinstance(doc, dict):
            return doc
    raise TypeError(f"job must be a Job dict or a client's Job model, not {type(job).__name__}")


def _identity(job: Any) -> tuple[str, str, str]:
    """The Job's namespace, name and uid."""
    meta = _document(job).get("metadata") or {}
    namespace, name, uid = (str(meta.get(k) or "") for k in ("namespace", "name", "uid"))
    if not name or not uid:
        raise ValueError(
            "the Job needs metadata.name and metadata.uid (read it from the API server)"
        )
    return namespace or "default", name, uid


def _parent_key(job: Any, namespace: str) -> str | None:
    """The ``controller-ref`` index value of the Workload of the Job's controlling owner."""
    for ref in (_document(job).get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            group = str(ref.get("apiVersion") or "").rpartition("/")[0]
            return f"{namespace}/{group}/{ref.get('kind')}/{ref.get('name')}"
    return None


class _JobSync:
    def __init__(self, transport: Transport, reader: Reads, job: Any, field_manager: str) -> None:
        self.transport = transport
        self.reader = reader
        self.job = job
        self.field_manager = field_manager
        self.namespace, self.name, uid = _identity(job)
        self.uid = uid
        self.created: list[ObjectRef] = []
        self.resized: list[ObjectRef] = []
        self.events: list[Event] = []

    def owner(self) -> OwnerReference:
        """The Job as the owner its events name (made only when an event is recorded)."""
        return OwnerReference(api_version="batch/v1", kind="Job", name=self.name, uid=self.uid)

    async def event(self, job_event: JobEvent) -> None:
        event = Event(
            "Warning" if job_event.type == "Warning" else "Normal",
            job_event.reason,
            job_event.message,
        )
        recorded = await record_event(
            self.transport, self.owner(), self.namespace, event, self.field_manager
        )
        self.events.append(event if recorded else replace(event, recorded=False))

    async def decide(self, pods: Sequence[Any], gate_enabled: bool) -> JobSchedulingDecision:
        """The decision on what exists. Through a cache: the Job's objects from its indexes.
        Live: the Workload and PodGroup by the names the Job controller gives them (two GETs),
        the namespace's lists only when one of them is missing or not the Job's."""
        if self.reader.cached:
            return await self.decide_cached(pods, gate_enabled)
        found = await self.decide_by_name(pods, gate_enabled)
        if found is not None:
            return found
        # parsed here: an object the server answers that is not a valid one is an APIError
        # naming it (the decision would take it for an error of the caller's)
        listed = await self.reader.list(WORKLOADS, self.namespace)
        workloads = [self.reader.model(WORKLOADS, doc) for doc in listed]
        listed = await self.reader.list(POD_GROUPS, self.namespace)
        pod_groups = [self.reader.model(POD_GROUPS, doc) for doc in listed]
        return decide_job_scheduling(
            self.job, workloads, pod_groups, pods=pods, gate_enabled=gate_enabled, by_version=True
        )

    async def decide_cached(self, pods: Sequence[Any], gate_enabled: bool) -> JobSchedulingDecision:
        """The decision on the Job's objects in the cache's indexes: the one kept for their
        versions when nothing changed (nothing parsed), else decided on their models."""
        uid, ns = self.uid, self.namespace
        by_uid = CacheIndex.CONTROLLER_UID
        workloads = await self.reader.indexed(WORKLOADS, ns, by_uid, uid)
        parent = _parent_key(self.job, ns)
        if parent is not None:
            seen = {key_of(w) for w in workloads}
            parents = await self.reader.indexed(WORKLOADS, ns, CacheIndex.CONTROLLER_REF, parent)
            workloads += [w for w in parents if key_of(w) not in seen]
        pod_groups = await self.reader.indexed(POD_GROUPS, ns, by_uid, uid)
        kept = kept_decision(self.job, workloads, pod_groups, pods=pods, gate_enabled=gate_enabled)
        if kept is not None:
            return kept
        return decide_job_scheduling(
            self.job,
            [self.reader.model(WORKLOADS, w) for w in workloads],
            [self.reader.model(POD_GROUPS, g) for g in pod_groups],
            pods=pods,
            gate_enabled=gate_enabled,
            by_version=True,
        )

    async def decide_by_name(
        self, pods: Sequence[Any], gate_enabled: bool
    ) -> JobSchedulingDecision | None:
        """The decision from the Job's own Workload and PodGroup read by the names the Job
        controller gives them; ``None`` when either is missing or not the Job's (then only
        the lists can tell)."""
        name = generate_workload_name(self.name, self.uid)
        workload = await self.reader.get(WORKLOADS, self.namespace, name)
        templates = ((workload or {}).get("spec") or {}).get("podGroupTemplates") or []
        if workload is None or len(templates) != 1 or not isinstance(templates[0], Mapping):
            return None
        group_name = generate_pod_group_name(name, str(templates[0].get("name") or ""))
        group = await self.reader.get(POD_GROUPS, self.namespace, group_name)
        if group is None:
            return None
        decision = decide_job_scheduling(
            self.job,
            [self.reader.model(WORKLOADS, workload)],
            [self.reader.model(POD_GROUPS, group)],
            pods=pods,
            gate_enabled=gate_enabled,
            by_version=True,
        )
        if decision.workload is None or decision.pod_group is None:
            return None
        return decision

    async def create(self, doc: dict[str, Any]) -> APIError | dict[str, Any]:
        """Create ``doc`` (never apply over an existing object); the object as the server
        stored it, or the ``AlreadyExists`` answer when the name is taken."""
        try:
            stored = await create_document(self.transport, doc, self.field_manager)
        except ApplyError as exc:
            if doc.get("kind") == "Workload":
                [failure] = exc.failures.values()
                await self.event(JobEvent.failed_workload_create(self.name, failure.message))
            raise
        resource = WORKLOADS if doc.get("kind") == "Workload" else POD_GROUPS
        if isinstance(stored, APIError):
            # Not a creation. Through a cache, read the holder live, so the next decision sees
            # it even before the cache does (a concurrent sync of this Job may have made it).
            ref = ref_of(doc)
            if self.reader.cached:
                holder = await get_document(self.transport, resource, ref.namespace, ref.name)
                if holder is not None:
                    self.reader.wrote(resource, holder)
            return stored
        self.reader.wrote(resource, stored)
        self.created.append(ref_of(stored))
        return stored

    async def set_min_count(self, ref: ObjectRef, spec_patch: dict[str, Any]) -> None:
        resource: Resource = WORKLOADS if ref.kind == "Workload" else POD_GROUPS
        response = await patch_spec(self.transport, resource, ref, spec_patch, self.field_manager)
        if isinstance(response.body, Mapping):
            self.reader.wrote(resource, response.body)
        self.resized.append(ref)

    async def run(self, pods: Sequence[Any], gate_enabled: bool) -> ReconcileResult:
        """Decide, create what the decision says, and go on from the object the server stored
        (``after_created``: the Job is decided once). A create answered
        ``AlreadyExists`` is decided again too: the object is the Job's (made by a concurrent
        sync) or another's, which is left alone: ``FailedWorkloadCreate`` for a Workload, with
        the API server's message, as the Job controller records it, then ``TakenNameError``,
        as the Job controller returns the error so that its sync is retried."""
        decision = await self.decide(pods, gate_enabled)
        taken: dict[str, APIError] = {}
        for _ in range(_ROUNDS):
            if decision.event is not None:
                await self.event(decision.event)
            want = decision.create_workload or decision.create_pod_group
            if want is None:
                break
            doc = want.to_dict()
            ref = ref_of(doc)
            if ref.kind in taken:  # still missing after AlreadyExists: another holds the name
                await self.refuse_taken(ref, taken.pop(ref.kind), decision)
                decision = await self.decide(pods, gate_enabled)  # it went away: again
                continue
            made = await self.create(doc)
            if isinstance(made, APIError):
                taken[ref.kind] = made
                decision = await self.decide(pods, gate_enabled)
                continue
            if ref.kind == "Workload":
                await self.event(JobEvent.workload_created(ref.name, self.name))
            else:
                await self.event(JobEvent.pod_group_created(ref.name, self.name))
            # what deciding again would say, from what this decision read: the Job is decided
            # once per sync, not once per object created
            stored = parse(WORKLOADS if ref.kind == "Workload" else POD_GROUPS, made)
            decision = decision.after_created(stored) or await self.decide(pods, gate_enabled)
        await self.settle_counts(decision)
        return self.result(decision)

    def result(
        self, decision: JobSchedulingDecision, foreign: tuple[ObjectRef, ...] = ()
    ) -> ReconcileResult:
        group = decision.pod_group
        skipped = None if group is not None else decision.message
        if foreign:
            skipped = f"{foreign[0]} exists and is not controlled by Job {self.name}"
        return ReconcileResult(
            workload=decision.workload,
            objects=(group,) if group is not None else (),
            created=tuple(self.created),
            resized=tuple(self.resized),
            foreign=foreign,
            skipped=skipped,
            events=tuple(self.events),
        )

    async def refuse_taken(
        self, ref: ObjectRef, error: APIError, decision: JobSchedulingDecision
    ) -> None:
        """The name of ``ref`` is held by an object the Job does not control: record
        ``FailedWorkloadCreate`` (a Workload) and raise ``TakenNameError``; return only when
        the object went away meanwhile."""
        resource = WORKLOADS if ref.kind == "Workload" else POD_GROUPS
        holder = await get_document(self.transport, resource, ref.namespace, ref.name)
        if holder is None:
            return
        if ref.kind == "Workload":
            await self.event(JobEvent.failed_workload_create(self.name, error.message))
        if controller_of(holder) is not None:
            why = held_why(holder, adoptable=False)
        else:
            why = "it has no controller (the Job controller adopts none)"
        result = self.result(decision, (ref,))
        raise taken_name(holder, f"Job {self.name}", why, result, error)

    async def settle_counts(self, decision: JobSchedulingDecision) -> None:
        workload, group = decision.workload, decision.pod_group
        if decision.workload_min_count is not None and workload is not None:
            template = (workload.spec.pod_group_templates or [])[0].name
            gang = {"gang": {"minCount": decision.workload_min_count}}
            await self.set_min_count(
                ObjectRef("Workload", self.namespace, workload.metadata.name or ""),
                {"podGroupTemplates": [{"name": template, "schedulingPolicy": gang}]},
            )
        if decision.pod_group_min_count is not None and group is not None:
            gang = {"gang": {"minCount": decision.pod_group_min_count}}
            await self.set_min_count(
                ObjectRef("PodGroup", self.namespace, group.metadata.name or ""),
                {"schedulingPolicy": gang},
            )


async def reconcile_job(
    api_client: Any,
    job: Any,
    *,
    field_manager: str | None = None,
    pods: Sequence[Any] | None = None,
    gate_enabled: bool = True,
    retry: RetryPolicy | None = None,
    cache: Cache | None = None,
) -> ReconcileResult:
    """Do for ``job`` what the native Job controller does on one sync.

    ``job`` is the Job as read from the API server (dict or client model). The decision is the
    core's ``decide_job_scheduling``: nothing for a Job whose pod template sets its own
    ``schedulingGroup`` or that another controller owns without delegating; for a new Job, the
    Workload (``WorkloadCreated``) and then its PodGroup (``PodGroupCreated``), or only a
    PodGroup of the parent's Workload when the parent delegates; gang ``minCount`` kept in
    sync with ``parallelism`` and ``spec.scheduling``. ``pods`` are the Job's pods (by default
    listed by the ``batch.kubernetes.io/controller-uid`` label): a Job that has any is not new.
    ``gate_enabled`` says whether the cluster runs with ``WorkloadWithJob`` (``preflight``
    checks it). Running it again creates nothing. Returns what it found and did; the
    ``objects`` are the Job's PodGroup. ``field_manager`` defaults to an ``aio.Client``'s, else
    ``job-controller`` (the Job controller's).

    With a ``cache`` (or an ``aio.Client``'s), everything is read from it: a steady sync sends
    no request at all, and compiles nothing: the decision of the versions it read last
    (``decide_job_scheduling(..., by_version=True)``) is the answer while the Job, its
    Workloads and PodGroups keep their uid and resourceVersion and whether it has pods does
    not change. Pass the Job as the server holds it (what the cache holds is read-only):
    a copy changed without a new resourceVersion is taken for the version it names. Its own
    creates are remembered until the cache observes them, and a create answered
    ``AlreadyExists`` is read back live, so a cache that lags never makes a second object or a
    second "created". Without one, the Job's Workload and PodGroup are read by name (the
    namespace is listed only when one is missing).
    """
    transport = transport_for(api_client, retry)
    reader = reader_for(api_client, cache, transport)
    sync = _JobSync(
        transport, reader, job, transport.resolve_field_manager(field_manager, "job-controller")
    )
    if pods is None:
        if reader.cached:
            pods = await reader.indexed(
                PODS, sync.namespace, CacheIndex.JOB_CONTROLLER_UID, sync.uid
            )
        else:
            pods = await reader.list(
                PODS,
                sync.namespace,
                label_selector=f"{JOB_CONTROLLER_UID_LABEL}={sync.uid}",
            )
    return await sync.run(pods, gate_enabled)
