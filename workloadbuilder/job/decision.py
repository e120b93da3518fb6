"""What the native Job controller decides to create for a Job, as a pure function.

``decide_job_scheduling(job, workloads, pod_groups, pods=...)`` mirrors kubernetes/kubernetes
``pkg/controller/job/job_scheduling_manager.go`` (``ensureWorkloadAndPodGroup``): which
objects the controller manages for the Job (none, the Workload and the PodGroup, or only the
PodGroup of a parent's Workload), which existing ones it reuses, what it creates, and which
gang ``minCount`` it patches. It performs no I/O: the caller lists the objects, applies the
decision and calls again (one creation step per call, as the Workload's UID is needed for
its PodGroup), or asks the decision itself what follows once the object it created exists
(``after_created``: the Job is not read nor its Workload compiled again).
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..api.meta_v1 import OwnerReference
from ..api.scheduling_v1beta1 import PodGroup, PodGroupTemplate, Workload
from ..builder import Builder, BuildError, BuildOptions, api_group
from ..field import ErrorList, FieldPath
from ..naming import generate_pod_group_name
from ._progress import gang_size
from ._read import JobView, as_document, check_bounded, read_job
from .annotations import GROUP_TEMPLATE_NAME_ANNOTATION
from .compile import builder_for_view, link_workload

__all__ = [
    "JobEvent",
    "JobSchedulingDecision",
    "JobSchedulingMode",
    "JobSchedulingOutcome",
    "decide_job_scheduling",
    "job_scheduling_mode",
]


class JobSchedulingMode(enum.Enum):
    """Which scheduling objects the Job controller manages for a Job."""

    NONE = "None"
    """Nothing: the gate is off, the pods name their own group, or a parent manages both."""
    MANAGE_BOTH = "ManageBoth"
    """A root Job (no controller owner): its own Workload and PodGroup."""
    POD_GROUP_ONLY = "PodGroupOnly"
    """A child Job whose parent delegates: only a PodGroup of the parent's Workload."""


class JobSchedulingOutcome(enum.Enum):
    """Why the decision is what it is (one per branch of the controller)."""

    GATE_DISABLED = "GateDisabled"
    OWN_SCHEDULING_GROUP = "OwnSchedulingGroup"
    PARENT_MANAGES = "ParentManages"
    CREATE_WORKLOAD = "CreateWorkload"
    CREATE_POD_GROUP = "CreatePodGroup"
    EXISTING = "Existing"
    STARTED_WITHOUT_OBJECTS = "StartedWithoutObjects"
    SEVERAL_WORKLOADS = "SeveralWorkloads"
    SEVERAL_POD_GROUPS = "SeveralPodGroups"
    UNSUPPORTED_WORKLOAD = "UnsupportedWorkload"
    COMPILATION_FAILED = "CompilationFailed"
    PARENT_WORKLOAD_NOT_FOUND = "ParentWorkloadNotFound"
    TEMPLATE_NOT_FOUND = "TemplateNotFound"


@dataclass(frozen=True, slots=True)
class JobEvent:
    """An event the Job controller records on the Job (type, reason, message)."""

    type: str
    reason: str
    message: str

    @classmethod
    def workload_created(cls, workload_name: str, job_name: str) -> JobEvent:
        return cls(
            "Normal", "WorkloadCreated", f"Created Workload {workload_name} for Job {job_name}"
        )

    @classmethod
    def pod_group_created(cls, pod_group_name: str, job_name: str) -> JobEvent:
        return cls(
            "Normal", "PodGroupCreated", f"Created PodGroup {pod_group_name} for Job {job_name}"
        )

    @classmethod
    def failed_workload_create(cls, job_name: str, error: str) -> JobEvent:
        return cls._failed("FailedWorkloadCreate", "create", job_name, error)

    @classmethod
    def failed_workload_compilation(cls, job_name: str, error: str) -> JobEvent:
        return cls._failed("FailedWorkloadCompilation", "compile", job_name, error)

    @classmethod
    def _failed(cls, reason: str, step: str, job_name: str, error: str) -> JobEvent:
        return cls("Warning", reason, f"Failed to {step} Workload for Job {job_name}: {error}")


@dataclass(frozen=True, slots=True)
class JobSchedulingDecision:
    """The Job controller's decision for one sync of a Job.

    Apply it in this order: create ``create_workload``; create ``create_pod_group``; set the
    gang ``minCount`` of the Workload's only template to ``workload_min_count`` and of the
    PodGroup (existing or just created) to ``pod_group_min_count``; link every new pod to
    ``pod_group_name`` (``None``: default scheduling, no ``schedulingGroup``). When ``error``
    is set the controller creates nothing and no pods, and retries the Job later.
    """

    mode: JobSchedulingMode
    outcome: JobSchedulingOutcome
    message: str
    new_job: bool = False
    workload: Workload | None = None
    pod_group: PodGroup | None = None
    create_workload: Workload | None = None
    create_pod_group: PodGroup | None = None
    workload_min_count: int | None = None
    pod_group_min_count: int | None = None
    error: str | None = None
    event: JobEvent | None = None
    then: Callable[[Any], JobSchedulingDecision] | None = field(
        default=None, repr=False, compare=False
    )
    """What ``after_created`` calls (kept from this decision's own reading of the Job)."""

    def after_created(self, obj: Any) -> JobSchedulingDecision | None:
        """The decision a new call would reach once ``obj`` (this decision's
        ``create_workload`` or ``create_pod_group``, as the API server stored it) exists and
        nothing else changed, made from what this decision already read and compiled: the Job
        is not read nor its Workload compiled again. ``None`` when this decision cannot tell
        (it creates nothing, or a delegated Job's): decide again."""
        if self.then is None:
            return None
        kind = Workload if self.create_workload is not None else PodGroup
        return self.then(_parse(kind, obj, "created"))

    @property
    def pod_group_name(self) -> str | None:
        """The PodGroup the Job's pods join (``spec.schedulingGroup.podGroupName``)."""
        group = self.pod_group or self.create_pod_group
        return group.metadata.name if group is not None else None

    @property
    def requeue(self) -> bool:
        """The controller returns an error for this sync, so the Job is retried with backoff."""
        return self.error is not None


def job_scheduling_mode(job: Any, *, gate_enabled: bool = True) -> JobSchedulingMode:
    """Which objects the Job controller manages for ``job`` (``getManagementMode``)."""
    return _mode(read_job(job), gate_enabled)[0]


def _mode(
    view: JobView, gate_enabled: bool
) -> tuple[JobSchedulingMode, JobSchedulingOutcome | None]:
    if not gate_enabled:
        return JobSchedulingMode.NONE, JobSchedulingOutcome.GATE_DISABLED
    if view.pod_spec.scheduling_group is not None:
        return JobSchedulingMode.NONE, JobSchedulingOutcome.OWN_SCHEDULING_GROUP
    if view.meta.controller() is None:
        return JobSchedulingMode.MANAGE_BOTH, None
    if GROUP_TEMPLATE_NAME_ANNOTATION in (view.meta.annotations or {}):
        return JobSchedulingMode.POD_GROUP_ONLY, None
    return JobSchedulingMode.NONE, JobSchedulingOutcome.PARENT_MANAGES


_NONE_MESSAGES = {
    JobSchedulingOutcome.GATE_DISABLED: "the WorkloadWithJob feature gate is disabled",
    JobSchedulingOutcome.OWN_SCHEDULING_GROUP: (
        "the pod template sets spec.schedulingGroup: the pods join the user's own PodGroup"
    ),
    JobSchedulingOutcome.PARENT_MANAGES: (
        "the Job is controlled by another controller that does not delegate its PodGroup"
        f" (no {GROUP_TEMPLATE_NAME_ANNOTATION} annotation)"
    ),
}


def is_new_job(view: JobView, pods: Collection[object]) -> bool:
    """A Job that has never started (``isNewJob``): no pods, no start time, nothing finished,
    never suspended. Only such a Job gets new scheduling objects."""
    status = view.job_status
    if len(pods) or status.start_time is not None or status.succeeded or status.failed:
        return False
    return not any(c.type == "Suspended" for c in status.conditions or ())


def decide_job_scheduling(
    job: Any,
    workloads: Iterable[Any] = (),
    pod_groups: Iterable[Any] = (),
    *,
    pods: Collection[object] = (),
    gate_enabled: bool = True,
    by_version: bool = False,
) -> JobSchedulingDecision:
    """What the Job controller does for ``job`` in one sync, given what exists.

    ``job`` is a Job as read from the API server (dict, official-client ``V1Job``, lightkube
    ``Job``); ``workloads`` and ``pod_groups`` are the Workloads and PodGroups that exist
    (any namespace; dicts of v1beta1 or v1alpha3, our models, client models); ``pods`` are
    the Job's pods (only whether there are any matters). Raises ``TypeError`` / ``BuildError``
    for input that is not what it should be, ``ValueError`` for a Job without name or UID.

    ``by_version=True`` says every object is as the server holds it, so that the same
    ``(uid, resourceVersion)`` is the same content: when the Job, its Workloads and PodGroups
    and whether it has pods are the versions of the Job's last decision, that decision is the
    answer, without compiling again (``aio.reconcile_job`` reads them so). A decision that
    creates something is never kept; at most ``STEADY_LIMIT`` Jobs' decisions are.
    """
    key = _versions(job, workloads, pod_groups, pods, gate_enabled) if by_version else None
    kept = _kept(key)
    if kept is not None:
        return kept
    decision = _decide(job, workloads, pod_groups, pods, gate_enabled)
    if key is not None and decision.create_workload is None and decision.create_pod_group is None:
        # what a decision creates is made anew each time (a new model for the caller to send)
        _STEADY[key[0]] = (key, decision)
        while len(_STEADY) > STEADY_LIMIT:
            _STEADY.popitem(last=False)
    return decision


_Versions = tuple[str, tuple[object, ...]]


def kept_decision(
    job: Any,
    workloads: Iterable[Any] = (),
    pod_groups: Iterable[Any] = (),
    *,
    pods: Collection[object] = (),
    gate_enabled: bool = True,
) -> JobSchedulingDecision | None:
    """The decision ``decide_job_scheduling(..., by_version=True)`` keeps for exactly these
    versions, or ``None``: a caller holding the objects' JSON asks before parsing them."""
    return _kept(_versions(job, workloads, pod_groups, pods, gate_enabled))


def _kept(key: _Versions | None) -> JobSchedulingDecision | None:
    kept = _STEADY.get(key[0]) if key is not None else None
    if kept is None or kept[0] != key:
        return None
    _STEADY.move_to_end(kept[0][0])
    return kept[1]


STEADY_LIMIT = 1 << 17
"""Jobs whose last decision is kept (least recently decided dropped first)."""

_STEADY: OrderedDict[str, tuple[_Versions, JobSchedulingDecision]] = OrderedDict()


def _version(obj: object) -> tuple[str, str] | None:
    """``(uid, resourceVersion)`` of an object as read from a server; ``None`` without both."""
    if isinstance(obj, Mapping):
        meta = obj.get("metadata")
        uid, rv = (
            (meta.get("uid"), meta.get("resourceVersion"))
            if isinstance(meta, Mapping)
            else (None, None)
        )
    else:
        meta = getattr(obj, "metadata", None)
        uid, rv = getattr(meta, "uid", None), getattr(meta, "resource_version", None)
    if isinstance(uid, str) and isinstance(rv, str) and uid and rv:
        return uid, rv
    return None


def _versions(
    job: Any,
    workloads: Iterable[Any],
    pod_groups: Iterable[Any],
    pods: Collection[object],
    gate_enabled: bool,
) -> _Versions | None:
    """What one decision reads, by version: the same key, the same decision.

    Objects as a server holds them are immutable per ``(uid, resourceVersion)``: any change of
    any input (another manager's field included) gives a new resourceVersion, an object deleted
    and made again a new uid. Only whether pods exist is read of them. ``None`` (decide afresh)
    when anything lacks a version, or the inputs are not re-iterable collections.
    """
    if not isinstance(gate_enabled, bool) or not isinstance(pods, Collection):
        return None
    if not isinstance(workloads, (list, tuple)) or not isinstance(pod_groups, (list, tuple)):
        return None
    own = _version(job)
    if own is None:
        return None
    seen: list[object] = [own[1], gate_enabled, len(pods) > 0, len(workloads)]
    for obj in (*workloads, *pod_groups):
        version = _version(obj)
        if version is None:
            return None
        seen.append(version)
    return own[0], tuple(seen)


def _decide(
    job: Any,
    workloads: Iterable[Any],
    pod_groups: Iterable[Any],
    pods: Collection[object],
    gate_enabled: bool,
) -> JobSchedulingDecision:
    view = read_job(job)
    view.require_identity()
    existing_workloads = [_parse(Workload, w, f"workloads[{i}]") for i, w in enumerate(workloads)]
    existing_groups = [_parse(PodGroup, g, f"pod_groups[{i}]") for i, g in enumerate(pod_groups)]
    if not isinstance(gate_enabled, bool):
        raise TypeError(f"gate_enabled must be a bool, not {type(gate_enabled).__name__}")
    mode, outcome = _mode(view, gate_enabled)
    if outcome is not None:
        return JobSchedulingDecision(mode, outcome, _NONE_MESSAGES[outcome])
    new_job = is_new_job(view, pods)
    if mode is JobSchedulingMode.POD_GROUP_ONLY:
        return _delegated(view, new_job, existing_workloads, existing_groups)
    return _root(view, new_job, existing_workloads, existing_groups)


# -- a root Job: its own Workload and PodGroup ----------------------------------------------------


def _root(
    view: JobView,
    new_job: bool,
    workloads: list[Workload],
    pod_groups: list[PodGroup],
    builder: Callable[[], Builder] | None = None,
) -> JobSchedulingDecision:
    mode = JobSchedulingMode.MANAGE_BOTH
    compiled = builder or _once(lambda: builder_for_view(view, gang_size(view)))
    ns = view.namespace
    mine = [
        w
        for w in workloads
        if (w.metadata.namespace or "") == ns
        and _refers_to_job(w, view.name)
        and _controlled_by(w.metadata.owner_references, view.uid)
    ]
    if len(mine) > 1:
        return JobSchedulingDecision(
            mode,
            JobSchedulingOutcome.SEVERAL_WORKLOADS,
            f"found {len(mine)} Workloads referencing Job {ns}/{view.name}, falling back to"
            " default scheduling",
            new_job,
        )
    if not mine:
        if not new_job:
            return _started(mode, new_job)
        try:
            created = compiled().build_workload()
        except BuildError as exc:  # createWorkloadForJob records the event
            return _compile_failure(mode, view, new_job, exc, record_event=True)
        return JobSchedulingDecision(
            mode,
            JobSchedulingOutcome.CREATE_WORKLOAD,
            f"create Workload {created.metadata.name}; decide again once it exists to create"
            " its PodGroup",
            new_job,
            create_workload=created,
            then=lambda made: _root(view, new_job, [*workloads, made], pod_groups, compiled),
        )
    workload = mine[0]
    templates = workload.spec.pod_group_templates or []
    if len(templates) != 1:
        detail = (
            f"workload {workload.metadata.namespace}/{workload.metadata.name} for job"
            f" {ns}/{view.name} has {len(templates)} PodGroupTemplates, want exactly 1"
        )
        return JobSchedulingDecision(
            mode, JobSchedulingOutcome.UNSUPPORTED_WORKLOAD, detail, new_job, error=detail
        )
    groups = [
        g
        for g in _groups_of(workload, pod_groups)
        if _controlled_by(g.metadata.owner_references, view.uid)
    ]
    if len(groups) > 1:
        pod_group, create = None, None
        outcome = JobSchedulingOutcome.SEVERAL_POD_GROUPS
        message = (
            f"found {len(groups)} PodGroups referencing Workload {workload.metadata.namespace}/"
            f"{workload.metadata.name}, falling back to default scheduling"
        )
    else:
        pod_group, create, outcome, message = _pod_group_step(
            groups[0] if groups else None,
            new_job,
            lambda: _new_pod_group(view, workload, templates[0], link=True),
        )
    try:
        desired = compiled().workload().spec.pod_group_templates or []
    except BuildError as exc:  # syncGangMinCount returns the error, without an event
        return _compile_failure(mode, view, new_job, exc, record_event=False)
    want = _gang_count(desired[0]) if desired else None
    current_group = pod_group or create
    return JobSchedulingDecision(
        mode,
        outcome,
        message,
        new_job,
        workload=workload,
        pod_group=pod_group,
        create_pod_group=create,
        workload_min_count=_patch(_gang_count(templates[0]), want),
        pod_group_min_count=_patch(_group_count(current_group), want),
        then=None
        if create is None
        else lambda made: _root(view, new_job, workloads, [*pod_groups, made], compiled),
    )


def _once(make: Callable[[], Builder]) -> Callable[[], Builder]:
    """``make``, called at most once (a failure is raised again on the next call)."""
    made: list[Builder] = []

    def get() -> Builder:
        if not made:
            made.append(make())
        return made[0]

    return get


# -- a delegated child Job: only a PodGroup of the parent's Workload ------------------------------


def _delegated(
    view: JobView, new_job: bool, workloads: list[Workload], pod_groups: list[PodGroup]
) -> JobSchedulingDecision:
    mode = JobSchedulingMode.POD_GROUP_ONLY
    parent = view.meta.controller()
    assert parent is not None  # the mode says so
    group = api_group(parent.api_version)
    parent_workload = next(
        (
            w
            for w in workloads
            if group is not None
            and (w.metadata.namespace or "") == view.namespace
            and w.spec.controller_ref is not None
            and (w.spec.controller_ref.api_group or "") == group
            and w.spec.controller_ref.kind == parent.kind
            and w.spec.controller_ref.name == parent.name
        ),
        None,
    )
    if parent_workload is None:
        return JobSchedulingDecision(
            mode,
            JobSchedulingOutcome.PARENT_WORKLOAD_NOT_FOUND,
            f"no Workload of {parent.kind} {view.namespace}/{parent.name} yet; the Job is"
            " synced again when it appears",
            new_job,
        )
    wanted = (view.meta.annotations or {})[GROUP_TEMPLATE_NAME_ANNOTATION]
    template = _template_named(parent_workload, wanted)
    if template is None:
        return JobSchedulingDecision(
            mode,
            JobSchedulingOutcome.TEMPLATE_NOT_FOUND,
            f"PodGroupTemplate {wanted!r} not found among the podGroupTemplates of Workload"
            f" {parent_workload.metadata.namespace}/{parent_workload.metadata.name}",
            new_job,
            workload=parent_workload,
        )
    pod_group = next(
        (
            g
            for g in _groups_of(parent_workload, pod_groups)
            if _controlled_by(g.metadata.owner_references, view.uid)
        ),
        None,
    )
    pod_group, create, outcome, message = _pod_group_step(
        pod_group, new_job, lambda: _new_pod_group(view, parent_workload, template, link=False)
    )
    return JobSchedulingDecision(
        mode,
        outcome,
        message,
        new_job,
        workload=parent_workload,
        pod_group=pod_group,
        create_pod_group=create,
        pod_group_min_count=_patch(_group_count(pod_group or create), _gang_count(template)),
    )


# -- helpers ---------------------------------------------------------------------------------------


def _pod_group_step(
    found: PodGroup | None, new_job: bool, make: Callable[[], PodGroup]
) -> tuple[PodGroup | None, PodGroup | None, JobSchedulingOutcome, str]:
    """The existing PodGroup; else a new one for a new Job; else none (default scheduling)."""
    if found is not None:
        return found, None, JobSchedulingOutcome.EXISTING, "in use"
    if new_job:
        create = make()
        return (
            None,
            create,
            JobSchedulingOutcome.CREATE_POD_GROUP,
            f"create PodGroup {create.metadata.name}",
        )
    return (
        None,
        None,
        JobSchedulingOutcome.STARTED_WITHOUT_OBJECTS,
        "the Job has started: its PodGroup is not created, default scheduling",
    )


def _started(mode: JobSchedulingMode, new_job: bool) -> JobSchedulingDecision:
    return JobSchedulingDecision(
        mode,
        JobSchedulingOutcome.STARTED_WITHOUT_OBJECTS,
        "the Job has started without a Workload: nothing is created, default scheduling",
        new_job,
    )


def _compile_failure(
    mode: JobSchedulingMode, view: JobView, new_job: bool, exc: BuildError, *, record_event: bool
) -> JobSchedulingDecision:
    return JobSchedulingDecision(
        mode,
        JobSchedulingOutcome.COMPILATION_FAILED,
        f"the Workload of Job {view.namespace}/{view.name} cannot be compiled",
        new_job,
        error=str(exc),
        event=JobEvent.failed_workload_compilation(view.name, str(exc)) if record_event else None,
    )


def _parse(kind: type[Workload] | type[PodGroup], obj: object, what: str) -> Any:
    if isinstance(obj, kind):
        return obj
    doc = dict(as_document(obj, what))
    unbounded = check_bounded(doc, FieldPath(what))
    if unbounded:
        raise BuildError(f"{what} is not a {kind.__name__}: {unbounded}", unbounded)
    if doc.get("apiVersion") == "scheduling.k8s.io/v1alpha3":  # the same shapes in 1.37
        doc["apiVersion"] = "scheduling.k8s.io/v1beta1"
    try:
        return kind.from_server(doc)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, FieldPath(what), model=kind)
        raise BuildError(f"{what} is not a {kind.__name__}: {errors}", errors) from None


def _refers_to_job(workload: Workload, job_name: str) -> bool:
    ref = workload.spec.controller_ref
    return (
        ref is not None
        and ref.api_group == "batch"
        and ref.kind == "Job"
        and bool(ref.name)
        and ref.name == job_name
    )


def _controlled_by(refs: list[OwnerReference] | None, uid: str) -> bool:
    """``metav1.IsControlledBy``: the first controller reference names ``uid``."""
    controller = next((r for r in refs or () if r.controller), None)
    return controller is not None and controller.uid == uid


def _groups_of(workload: Workload, pod_groups: list[PodGroup]) -> list[PodGroup]:
    """The PodGroups whose ``spec.workloadRef`` names ``workload`` (in its namespace)."""
    name, ns = workload.metadata.name, workload.metadata.namespace or ""
    return [
        g
        for g in pod_groups
        if (g.metadata.namespace or "") == ns
        and g.spec.workload_ref is not None
        and bool(g.spec.workload_ref.workload_name)
        and g.spec.workload_ref.workload_name == name
    ]


def _template_named(workload: Workload, name: str) -> PodGroupTemplate | None:
    """A top-level podGroupTemplate by name; an empty name is the first one."""
    templates = workload.spec.pod_group_templates or []
    if not templates:
        return None
    if not name:
        return templates[0]
    return next((t for t in templates if t.name == name), None)


def _new_pod_group(
    view: JobView, workload: Workload, template: PodGroupTemplate, *, link: bool
) -> PodGroup:
    """The PodGroup the controller creates from an existing Workload's template."""
    options = BuildOptions(owner=view.owner_reference())
    builder = Builder.from_existing_workload(workload, options)
    name = generate_pod_group_name(workload.metadata.name or "", template.name)
    pod_group = builder.new_pod_group(name, template.name)
    pod_group.metadata.namespace = view.namespace or None
    if not link:
        return pod_group
    uid = workload.metadata.uid
    if not uid:
        raise ValueError(
            f"Workload {workload.metadata.name!r} has no metadata.uid: pass the Workloads as"
            " read from the API server"
        )
    return link_workload(pod_group, workload, uid)


def _gang_count(template: PodGroupTemplate) -> int | None:
    gang = template.scheduling_policy.gang
    return gang.min_count if gang is not None else None


def _group_count(pod_group: PodGroup | None) -> int | None:
    gang = pod_group.spec.scheduling_policy.gang if pod_group is not None else None
    return gang.min_count if gang is not None else None


def _patch(current: int | None, want: int | None) -> int | None:
    """The gang minCount to set, when both are gangs and they differ."""
    return want if current is not None and want is not None and current != want else None
