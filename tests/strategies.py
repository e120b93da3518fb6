"""Hypothesis strategies for valid instances of every model in ``workloadbuilder.api``.

"Valid" means what the 1.37 API server accepts: DNS labels and subdomains within their limits,
label keys, unions with exactly one member, int32 ranges, ``minCount``/``minGroupCount`` >= 1,
at most one topology constraint, at most 4 resource claims with unique names, Workload template
trees with at most 8 templates per list, depth <= 4, names unique across the tree, identical
priority settings across the tree, and every composite template with at least one child.

Sizes are small by default so that property tests stay fast; every strategy that generates
lists or trees takes its bounds as keyword arguments.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from hypothesis import strategies as st

from workloadbuilder.api import (
    K8sModel,
    batch_v1,
    core_v1,
    meta_v1,
    scheduling_v1alpha3,
    scheduling_v1beta1,
)

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "MAX_PRIORITY",
    "MAX_RESOURCE_CLAIMS",
    "MAX_TEMPLATES",
    "MAX_TREE_DEPTH",
    "building_blocks",
    "composite_block_docs",
    "composite_pod_group_lists",
    "composite_pod_group_specs",
    "composite_pod_group_statuses",
    "composite_pod_groups",
    "conditions",
    "disruption_modes",
    "dns_labels",
    "dns_subdomains",
    "instances_of",
    "int32s",
    "job_scheduling_configurations",
    "label_keys",
    "list_metas",
    "object_metas",
    "owner_references",
    "pod_group_lists",
    "pod_group_specs",
    "pod_group_statuses",
    "pod_groups",
    "pod_scheduling_groups",
    "resource_claim_lists",
    "statuses",
    "timestamps",
    "topologies",
    "workload_lists",
    "workload_specs",
    "workloads",
]

T = TypeVar("T")
Version = Literal["v1beta1", "v1alpha3"]

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_PRIORITY = 1_000_000_000
MAX_TEMPLATES = 8
MAX_TREE_DEPTH = 4
MAX_RESOURCE_CLAIMS = 4

_ALNUM_LOWER = string.ascii_lowercase + string.digits
_ALNUM = string.ascii_letters + string.digits


def _builds(cls: Callable[..., T], **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[T]:
    """``cls(**drawn)``; unlike ``st.builds`` it never infers a field from the (aliased)
    signature of a pydantic model."""
    return st.fixed_dictionaries(fields).map(lambda kw: cls(**kw))


def _modules(version: Version) -> Any:
    return scheduling_v1beta1 if version == "v1beta1" else scheduling_v1alpha3


# --------------------------------------------------------------------------- scalars


@st.composite
def dns_labels(draw: st.DrawFn, /, *, max_length: int = 12) -> str:
    """An RFC 1123 label: ``[a-z0-9]([-a-z0-9]*[a-z0-9])?``, at most ``max_length`` (<= 63)."""
    assert 1 <= max_length <= 63
    first = draw(st.sampled_from(_ALNUM_LOWER))
    if max_length == 1 or draw(st.booleans()):
        return first
    middle = draw(st.text(alphabet=_ALNUM_LOWER + "-", max_size=max_length - 2))
    last = draw(st.sampled_from(_ALNUM_LOWER))
    return first + middle + last


@st.composite
def dns_subdomains(draw: st.DrawFn, /, *, max_labels: int = 3, max_label_length: int = 12) -> str:
    """An RFC 1123 subdomain: dot-separated labels, at most 253 characters."""
    labels = draw(
        st.lists(dns_labels(max_length=max_label_length), min_size=1, max_size=max_labels)
    )
    return ".".join(labels)[:253].rstrip(".-")


@st.composite
def _label_names(draw: st.DrawFn, /, *, max_length: int = 16) -> str:
    # ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63
    first = draw(st.sampled_from(_ALNUM))
    if max_length == 1 or draw(st.booleans()):
        return first
    middle = draw(st.text(alphabet=_ALNUM + "-_.", max_size=max_length - 2))
    return first + middle + draw(st.sampled_from(_ALNUM))


@st.composite
def label_keys(draw: st.DrawFn) -> str:
    """A qualified label key: an optional DNS-subdomain prefix and ``/``, then a name."""
    name = draw(_label_names())
    if draw(st.booleans()):
        return f"{draw(dns_subdomains())}/{name}"
    return name


def label_values() -> st.SearchStrategy[str]:
    return st.one_of(st.just(""), _label_names())


def int32s(min_value: int = INT32_MIN, max_value: int = INT32_MAX) -> st.SearchStrategy[int]:
    return st.integers(min_value=max(min_value, INT32_MIN), max_value=min(max_value, INT32_MAX))


def _int64s(min_value: int = 0) -> st.SearchStrategy[int]:
    return st.integers(min_value=min_value, max_value=2**63 - 1)


def _text(max_size: int = 24) -> st.SearchStrategy[str]:
    return st.text(alphabet=string.ascii_letters + string.digits + " -_.:,'", max_size=max_size)


def _reasons() -> st.SearchStrategy[str]:
    return st.sampled_from(
        ["Unschedulable", "SchedulerError", "Invalid", "Scheduled", "PreemptionByScheduler"]
    )


def timestamps() -> st.SearchStrategy[datetime]:
    """A ``metav1.Time``: UTC, second precision (what the API server writes)."""
    return st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31), timezones=st.just(UTC)
    ).map(lambda d: d.replace(microsecond=0))


def _optional(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[T | None]:
    return st.one_of(st.none(), strategy)


def _unique_by_name(
    items: st.SearchStrategy[T], key: Callable[[T], str], *, max_size: int, min_size: int = 0
) -> st.SearchStrategy[list[T]]:
    return st.lists(items, min_size=min_size, max_size=max_size, unique_by=key)


# --------------------------------------------------------------------------- meta/v1


def owner_references() -> st.SearchStrategy[meta_v1.OwnerReference]:
    return _builds(
        meta_v1.OwnerReference,
        api_version=st.sampled_from(["batch/v1", "apps/v1", "example.com/v1alpha1"]),
        kind=st.sampled_from(["Job", "JobSet", "TrainingRun"]),
        name=dns_subdomains(),
        uid=st.uuids().map(str),
        controller=_optional(st.booleans()),
        block_owner_deletion=_optional(st.booleans()),
    )


def _managed_fields_entries() -> st.SearchStrategy[meta_v1.ManagedFieldsEntry]:
    return _builds(
        meta_v1.ManagedFieldsEntry,
        manager=_optional(st.sampled_from(["job-controller", "kubectl", "workloadbuilder"])),
        operation=_optional(st.sampled_from(["Apply", "Update"])),
        api_version=_optional(st.sampled_from(["scheduling.k8s.io/v1beta1", "batch/v1"])),
        time=_optional(timestamps()),
        fields_type=_optional(st.just("FieldsV1")),
        fields_v1=_optional(
            st.sampled_from([{}, {"f:spec": {}}, {"f:metadata": {"f:labels": {"f:app": {}}}}])
        ),
        subresource=_optional(st.sampled_from(["status", "scale"])),
    )


@st.composite
def object_metas(draw: st.DrawFn, /, *, named: bool = True, rich: bool | None = None) -> Any:
    """Object metadata; ``rich`` (drawn when None) adds the server-side fields."""
    rich = draw(st.booleans()) if rich is None else rich
    fields: dict[str, Any] = {
        "name": draw(dns_subdomains()) if named else None,
        "namespace": draw(_optional(dns_labels())),
        "labels": draw(_optional(st.dictionaries(label_keys(), label_values(), max_size=3))),
        "annotations": draw(_optional(st.dictionaries(label_keys(), _text(), max_size=2))),
        "owner_references": draw(
            _optional(_unique_by_name(owner_references(), lambda o: o.uid, max_size=2))
        ),
        "finalizers": draw(_optional(st.lists(label_keys(), max_size=2, unique=True))),
    }
    if rich:
        fields |= {
            "generate_name": draw(_optional(dns_labels().map(lambda s: s + "-"))),
            "self_link": draw(_optional(st.just("/apis/scheduling.k8s.io/v1beta1/x"))),
            "uid": draw(_optional(st.uuids().map(str))),
            "resource_version": draw(_optional(st.integers(1, 10**9).map(str))),
            "generation": draw(_optional(_int64s(1))),
            "creation_timestamp": draw(_optional(timestamps())),
            "deletion_timestamp": draw(_optional(timestamps())),
            "deletion_grace_period_seconds": draw(_optional(_int64s())),
            "managed_fields": draw(_optional(st.lists(_managed_fields_entries(), max_size=2))),
        }
    return meta_v1.ObjectMeta(**fields)


def list_metas() -> st.SearchStrategy[meta_v1.ListMeta]:
    return _builds(
        meta_v1.ListMeta,
        self_link=_optional(st.just("/apis/scheduling.k8s.io/v1beta1/podgroups")),
        resource_version=_optional(st.integers(1, 10**9).map(str)),
        continue_=_optional(st.text(alphabet=_ALNUM, min_size=1, max_size=16)),
        remaining_item_count=_optional(_int64s()),
        shard_info=_optional(
            _builds(meta_v1.ShardInfo, selector=st.sampled_from(["shard=0", "hash(uid)%2==1"]))
        ),
    )


def conditions(types: tuple[str, ...]) -> st.SearchStrategy[list[meta_v1.Condition]]:
    """A list-map of conditions keyed by ``type`` (each type at most once)."""
    condition = _builds(
        meta_v1.Condition,
        type=st.sampled_from(types),
        status=st.sampled_from(["True", "False", "Unknown"]),
        observed_generation=_optional(_int64s()),
        last_transition_time=timestamps(),
        reason=_reasons(),
        message=_text(),
    )
    return _unique_by_name(condition, lambda c: c.type, max_size=len(types))


def statuses() -> st.SearchStrategy[meta_v1.Status]:
    cause = _builds(
        meta_v1.StatusCause,
        reason=_optional(st.sampled_from(["FieldValueInvalid", "FieldValueRequired"])),
        message=_optional(_text()),
        field=_optional(st.just("spec.schedulingPolicy.gang.minCount")),
    )
    details = _builds(
        meta_v1.StatusDetails,
        name=_optional(dns_subdomains()),
        group=_optional(st.just("scheduling.k8s.io")),
        kind=_optional(st.sampled_from(["PodGroup", "podgroups"])),
        uid=_optional(st.uuids().map(str)),
        causes=_optional(st.lists(cause, max_size=2)),
        retry_after_seconds=_optional(int32s(0)),
    )
    return _builds(
        meta_v1.Status,
        metadata=list_metas(),
        status=_optional(st.sampled_from(["Failure", "Success"])),
        message=_optional(_text()),
        reason=_optional(st.sampled_from(["Invalid", "NotFound", "Conflict"])),
        details=_optional(details),
        code=_optional(st.sampled_from([404, 409, 422, 429])),
    )


# --------------------------------------------------------------------------- shared parts


def topologies() -> st.SearchStrategy[list[scheduling_v1beta1.TopologyConstraint]]:
    """At most one topology constraint (the 1.37 limit)."""
    return st.lists(_builds(scheduling_v1beta1.TopologyConstraint, key=label_keys()), max_size=1)


def _preemption_policies() -> st.SearchStrategy[Any]:
    return _optional(st.sampled_from(["Never", "PreemptLowerPriority"]))


def _priorities() -> st.SearchStrategy[tuple[str | None, int | None]]:
    return st.tuples(_optional(dns_subdomains()), _optional(int32s(max_value=MAX_PRIORITY)))


def _claim_fields() -> st.SearchStrategy[dict[str, Any]]:
    ref = dns_subdomains()
    return st.one_of(
        st.fixed_dictionaries({"resource_claim_name": ref}),
        st.fixed_dictionaries({"resource_claim_template_name": ref}),
    )


def resource_claim_lists(
    cls: type[Any] = scheduling_v1beta1.PodGroupResourceClaim,
    *,
    max_size: int = MAX_RESOURCE_CLAIMS,
) -> st.SearchStrategy[list[Any]]:
    """At most 4 claims with unique DNS-label names, each with exactly one reference."""
    claim = st.tuples(dns_labels(), _claim_fields()).map(lambda t: cls(name=t[0], **t[1]))
    return _unique_by_name(claim, lambda c: c.name, max_size=max_size)


def _pod_group_policies() -> st.SearchStrategy[scheduling_v1beta1.PodGroupSchedulingPolicy]:
    m = scheduling_v1beta1
    return st.one_of(
        st.just(m.PodGroupSchedulingPolicy(basic=m.BasicSchedulingPolicy())),
        int32s(1).map(
            lambda n: m.PodGroupSchedulingPolicy(gang=m.GangSchedulingPolicy(min_count=n))
        ),
    )


def _composite_policies() -> st.SearchStrategy[
    scheduling_v1beta1.CompositePodGroupSchedulingPolicy
]:
    m = scheduling_v1beta1
    return st.one_of(
        st.just(m.CompositePodGroupSchedulingPolicy(basic=m.CompositeBasicSchedulingPolicy())),
        int32s(1).map(
            lambda n: m.CompositePodGroupSchedulingPolicy(
                gang=m.CompositeGangSchedulingPolicy(min_group_count=n)
            )
        ),
    )


def disruption_modes(*, composite: bool = False) -> st.SearchStrategy[Any]:
    m = scheduling_v1beta1
    if composite:
        return st.sampled_from(
            [
                m.CompositeDisruptionMode(single=m.SingleCompositeDisruptionMode()),
                m.CompositeDisruptionMode(all=m.AllCompositeDisruptionMode()),
            ]
        )
    return st.sampled_from(
        [
            m.DisruptionMode(single=m.SingleDisruptionMode()),
            m.DisruptionMode(all=m.AllDisruptionMode()),
        ]
    )


def _constraints(cls: type[Any]) -> st.SearchStrategy[Any]:
    return _optional(topologies().map(lambda t: cls(topology=t)))


def _workload_refs() -> st.SearchStrategy[scheduling_v1beta1.WorkloadReference]:
    return _builds(
        scheduling_v1beta1.WorkloadReference,
        workload_name=dns_subdomains(),
        template_name=dns_labels(),
    )


# --------------------------------------------------------------------------- PodGroup


@st.composite
def pod_group_specs(draw: st.DrawFn) -> scheduling_v1beta1.PodGroupSpec:
    m = scheduling_v1beta1
    priority_class_name, priority = draw(_priorities())
    workload_ref = draw(_optional(_workload_refs()))
    return m.PodGroupSpec(
        workload_ref=workload_ref,
        parent_composite_pod_group_name=(
            draw(_optional(dns_subdomains())) if workload_ref is not None else None
        ),
        scheduling_policy=draw(_pod_group_policies()),
        scheduling_constraints=draw(_constraints(m.PodGroupSchedulingConstraints)),
        resource_claims=draw(_optional(resource_claim_lists())),
        disruption_mode=draw(_optional(disruption_modes())),
        priority_class_name=priority_class_name,
        priority=priority,
        preemption_policy=draw(_preemption_policies()),
    )


@st.composite
def pod_group_statuses(
    draw: st.DrawFn, /, claim_names: tuple[str, ...] = ()
) -> scheduling_v1beta1.PodGroupStatus:
    m = scheduling_v1beta1
    names = draw(st.lists(st.sampled_from(claim_names), unique=True)) if claim_names else []
    return m.PodGroupStatus(
        conditions=draw(conditions(("PodGroupInitiallyScheduled", "DisruptionTarget"))),
        resource_claim_statuses=[
            m.PodGroupResourceClaimStatus(
                name=n, resource_claim_name=draw(_optional(dns_subdomains()))
            )
            for n in names
        ],
    )


@st.composite
def pod_groups(draw: st.DrawFn, /, *, version: Version = "v1beta1") -> Any:
    """A PodGroup of ``version``; status claim names match the spec's claims."""
    spec = draw(pod_group_specs())
    claim_names = tuple(c.name for c in spec.resource_claims or ())
    return _modules(version).PodGroup(
        metadata=draw(object_metas()),
        spec=spec,
        status=draw(_optional(pod_group_statuses(claim_names))),
    )


def pod_group_lists(*, version: Version = "v1beta1") -> st.SearchStrategy[Any]:
    return _builds(
        _modules(version).PodGroupList,
        metadata=list_metas(),
        items=st.lists(pod_groups(version=version), max_size=2),
    )


# --------------------------------------------------------------------------- CompositePodGroup


@st.composite
def composite_pod_group_specs(draw: st.DrawFn) -> scheduling_v1alpha3.CompositePodGroupSpec:
    m = scheduling_v1alpha3
    priority_class_name, priority = draw(_priorities())
    return m.CompositePodGroupSpec(
        workload_ref=draw(_workload_refs()),
        parent_composite_pod_group_name=draw(_optional(dns_subdomains())),
        scheduling_policy=draw(_composite_policies()),
        scheduling_constraints=draw(_constraints(m.CompositePodGroupSchedulingConstraints)),
        disruption_mode=draw(_optional(disruption_modes(composite=True))),
        priority_class_name=priority_class_name,
        priority=priority,
        preemption_policy=draw(_preemption_policies()),
    )


def composite_pod_group_statuses() -> st.SearchStrategy[
    scheduling_v1alpha3.CompositePodGroupStatus
]:
    return _builds(
        scheduling_v1alpha3.CompositePodGroupStatus,
        conditions=conditions(("CompositePodGroupInitiallyScheduled", "DisruptionTarget")),
    )


def composite_pod_groups() -> st.SearchStrategy[scheduling_v1alpha3.CompositePodGroup]:
    return _builds(
        scheduling_v1alpha3.CompositePodGroup,
        metadata=object_metas(),
        spec=composite_pod_group_specs(),
        status=_optional(composite_pod_group_statuses()),
    )


def composite_pod_group_lists() -> st.SearchStrategy[scheduling_v1alpha3.CompositePodGroupList]:
    return _builds(
        scheduling_v1alpha3.CompositePodGroupList,
        metadata=list_metas(),
        items=st.lists(composite_pod_groups(), max_size=2),
    )


# --------------------------------------------------------------------------- Workload


@st.composite
def _tree_shape(draw: st.DrawFn, depth: int, max_children: int, composite: bool) -> Any:
    """A template-tree node: ``("leaf",)`` or ``("composite", leaves, composites)``."""
    if not composite:
        return ("leaf",)
    n_composites = (
        draw(st.integers(0, max_children)) if depth < MAX_TREE_DEPTH - 1 else 0
    )  # a composite at depth 4 would be too deep
    n_leaves = draw(st.integers(0 if n_composites else 1, max_children))
    children = [
        draw(_tree_shape(depth + 1, max(1, max_children - 1), True)) for _ in range(n_composites)
    ]
    return ("composite", n_leaves, children)


def _count_nodes(shape: Any) -> int:
    if shape[0] == "leaf":
        return 1
    return 1 + int(shape[1]) + sum(_count_nodes(c) for c in shape[2])


def _controller_refs() -> st.SearchStrategy[scheduling_v1beta1.TypedLocalObjectReference]:
    return _builds(
        scheduling_v1beta1.TypedLocalObjectReference,
        api_group=_optional(st.sampled_from(["batch", "jobset.x-k8s.io", "example.com"])),
        kind=st.sampled_from(["Job", "JobSet", "TrainingRun"]),
        name=dns_subdomains(),
    )


@st.composite
def workload_specs(
    draw: st.DrawFn,
    /,
    *,
    max_templates: int = 3,
    max_children: int = 2,
    composite: bool | None = None,
) -> scheduling_v1beta1.WorkloadSpec:
    """A WorkloadSpec: leaf templates, or a tree of composites (at most 8 per list, depth <= 4).

    Names are unique across the tree, priority settings are identical on every template, and
    every composite has at least one child.
    """
    m = scheduling_v1beta1
    assert 1 <= max_templates <= MAX_TEMPLATES and 1 <= max_children <= MAX_TEMPLATES
    composite = draw(st.booleans()) if composite is None else composite
    roots = [
        draw(_tree_shape(1, max_children, composite))
        for _ in range(draw(st.integers(1, max_templates)))
    ]
    total = sum(_count_nodes(r) for r in roots)
    names = iter(draw(st.lists(dns_labels(), min_size=total, max_size=total, unique=True)))
    priority_class_name, priority = draw(_priorities())

    def leaf() -> scheduling_v1beta1.PodGroupTemplate:
        return m.PodGroupTemplate(
            name=next(names),
            scheduling_policy=draw(_pod_group_policies()),
            scheduling_constraints=draw(_constraints(m.PodGroupSchedulingConstraints)),
            resource_claims=draw(_optional(resource_claim_lists(max_size=2))),
            disruption_mode=draw(_optional(disruption_modes())),
            priority_class_name=priority_class_name,
            priority=priority,
            preemption_policy=draw(_preemption_policies()),
        )

    def node(shape: Any) -> Any:
        if shape[0] == "leaf":
            return leaf()
        name = next(names)
        return m.CompositePodGroupTemplate(
            name=name,
            scheduling_policy=draw(_composite_policies()),
            scheduling_constraints=draw(_constraints(m.CompositePodGroupSchedulingConstraints)),
            disruption_mode=draw(_optional(disruption_modes(composite=True))),
            priority_class_name=priority_class_name,
            priority=priority,
            preemption_policy=draw(_preemption_policies()),
            pod_group_templates=[leaf() for _ in range(shape[1])],
            composite_pod_group_templates=[node(c) for c in shape[2]],
        )

    templates = [node(r) for r in roots]
    controller_ref = draw(_optional(_controller_refs()))
    if composite:
        return m.WorkloadSpec(
            controller_ref=controller_ref, composite_pod_group_templates=templates
        )
    return m.WorkloadSpec(controller_ref=controller_ref, pod_group_templates=templates)


@st.composite
def workloads(draw: st.DrawFn, /, *, version: Version = "v1beta1", **spec_bounds: Any) -> Any:
    """A Workload of ``version`` (``v1beta1`` or ``v1alpha3``); see ``workload_specs``."""
    return _modules(version).Workload(
        metadata=draw(object_metas()), spec=draw(workload_specs(**spec_bounds))
    )


def workload_lists(*, version: Version = "v1beta1") -> st.SearchStrategy[Any]:
    return _builds(
        _modules(version).WorkloadList,
        metadata=list_metas(),
        items=st.lists(workloads(version=version, max_templates=2), max_size=2),
    )


# --------------------------------------------------------------------------- blocks


def _block_policies() -> st.SearchStrategy[scheduling_v1alpha3.WorkloadPodGroupSchedulingPolicy]:
    m = scheduling_v1alpha3
    return st.one_of(
        st.just(
            m.WorkloadPodGroupSchedulingPolicy(basic=m.WorkloadPodGroupBasicSchedulingPolicy())
        ),
        _optional(int32s(1)).map(
            lambda n: m.WorkloadPodGroupSchedulingPolicy(
                gang=m.WorkloadPodGroupGangSchedulingPolicy(min_count=n)
            )
        ),
    )


def _block_disruption_modes() -> st.SearchStrategy[
    scheduling_v1alpha3.WorkloadPodGroupDisruptionMode
]:
    m = scheduling_v1alpha3
    return st.sampled_from(
        [
            m.WorkloadPodGroupDisruptionMode(single=m.WorkloadPodGroupSingleDisruptionMode()),
            m.WorkloadPodGroupDisruptionMode(all=m.WorkloadPodGroupAllDisruptionMode()),
        ]
    )


def job_scheduling_configurations() -> st.SearchStrategy[batch_v1.JobSchedulingConfiguration]:
    """A valid batch/v1 ``Job.spec.scheduling`` (gang ``minCount`` may be left unset)."""
    m = scheduling_v1alpha3
    return _builds(
        batch_v1.JobSchedulingConfiguration,
        scheduling_policy=_optional(_block_policies()),
        scheduling_constraints=_constraints(m.WorkloadPodGroupSchedulingConstraints),
        disruption_mode=_optional(_block_disruption_modes()),
        resource_claims=_optional(resource_claim_lists(m.WorkloadPodGroupResourceClaim)),
    )


def _composite_block_policies() -> st.SearchStrategy[Any]:
    m = scheduling_v1alpha3
    return st.one_of(
        st.just(
            m.WorkloadCompositePodGroupSchedulingPolicy(
                basic=m.WorkloadCompositePodGroupBasicSchedulingPolicy()
            )
        ),
        int32s(1).map(
            lambda n: m.WorkloadCompositePodGroupSchedulingPolicy(
                gang=m.WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=n)
            )
        ),
    )


def _composite_block_disruption_modes() -> st.SearchStrategy[Any]:
    m = scheduling_v1alpha3
    return st.sampled_from(
        [
            m.WorkloadCompositePodGroupDisruptionMode(
                single=m.WorkloadCompositePodGroupSingleDisruptionMode()
            ),
            m.WorkloadCompositePodGroupDisruptionMode(
                all=m.WorkloadCompositePodGroupAllDisruptionMode()
            ),
        ]
    )


def building_blocks() -> st.SearchStrategy[K8sModel]:
    """Any valid v1alpha3 building block (leaf and composite) or a Job ``spec.scheduling``.

    Composite blocks are drawn with their optional counts set, so that each is also a valid
    instance of its composite API counterpart.
    """
    m = scheduling_v1alpha3
    return st.one_of(
        _block_policies(),
        _block_disruption_modes(),
        topologies().map(lambda t: m.WorkloadPodGroupSchedulingConstraints(topology=t)),
        resource_claim_lists(m.WorkloadPodGroupResourceClaim, max_size=1)
        .filter(lambda c: len(c) > 0)
        .map(lambda c: c[0]),
        _composite_block_policies(),
        _composite_block_disruption_modes(),
        topologies().map(lambda t: m.WorkloadCompositePodGroupSchedulingConstraints(topology=t)),
        job_scheduling_configurations(),
    )


def composite_block_docs() -> st.SearchStrategy[dict[str, Any]]:
    """JSON of the composite building blocks, including values only ``validate()`` rejects."""
    return st.fixed_dictionaries(
        {},
        optional={
            "basic": st.just({}),
            "gang": st.fixed_dictionaries(
                {},
                optional={
                    "minGroupCount": st.one_of(st.integers(-5, 10), st.integers(-(2**40), 2**40))
                },
            ),
        },
    )


def pod_scheduling_groups() -> st.SearchStrategy[core_v1.PodSchedulingGroup]:
    return _builds(core_v1.PodSchedulingGroup, pod_group_name=_optional(dns_subdomains()))


# --------------------------------------------------------------------------- any class


def instances_of(cls: type[K8sModel]) -> st.SearchStrategy[K8sModel]:
    """Valid instances of any exported model class (every class has at least one source)."""
    factory = _BY_CLASS.get(cls)
    if factory is None:
        raise KeyError(f"no strategy for {cls.__module__}.{cls.__name__}")
    return factory()


def _parts_of(
    strategy: Callable[[], st.SearchStrategy[Any]], attr: Callable[[Any], Any]
) -> Callable[[], st.SearchStrategy[Any]]:
    return lambda: strategy().map(attr).filter(lambda v: v is not None)


def _first(
    items: Callable[[], st.SearchStrategy[list[Any]]],
) -> Callable[[], st.SearchStrategy[Any]]:
    return lambda: items().filter(lambda xs: len(xs) > 0).map(lambda xs: xs[0])


def _leaf_templates() -> st.SearchStrategy[scheduling_v1beta1.PodGroupTemplate]:
    return workload_specs(composite=False, max_templates=1).map(
        lambda s: (s.pod_group_templates or [])[0]
    )


def _composite_templates() -> st.SearchStrategy[scheduling_v1beta1.CompositePodGroupTemplate]:
    return workload_specs(composite=True, max_templates=1).map(
        lambda s: (s.composite_pod_group_templates or [])[0]
    )


def _simple(value: Any) -> Callable[[], st.SearchStrategy[Any]]:
    return lambda: st.just(value)


def _strategies_by_class() -> dict[type[K8sModel], Callable[[], st.SearchStrategy[Any]]]:
    b1, a3, meta = scheduling_v1beta1, scheduling_v1alpha3, meta_v1
    table: dict[type[K8sModel], Callable[[], st.SearchStrategy[Any]]] = {
        meta.ObjectMeta: object_metas,
        meta.ListMeta: list_metas,
        meta.ShardInfo: _parts_of(list_metas, lambda x: x.shard_info),
        meta.OwnerReference: owner_references,
        meta.ManagedFieldsEntry: _managed_fields_entries,
        meta.Condition: _first(lambda: conditions(("PodGroupInitiallyScheduled",))),
        meta.Status: statuses,
        meta.StatusDetails: _parts_of(statuses, lambda s: s.details),
        meta.StatusCause: _first(
            _parts_of(_parts_of(statuses, lambda s: s.details), lambda d: d.causes)
        ),
        core_v1.PodSchedulingGroup: pod_scheduling_groups,
        batch_v1.JobSchedulingConfiguration: job_scheduling_configurations,
        b1.BasicSchedulingPolicy: _simple(b1.BasicSchedulingPolicy()),
        b1.CompositeBasicSchedulingPolicy: _simple(b1.CompositeBasicSchedulingPolicy()),
        b1.SingleDisruptionMode: _simple(b1.SingleDisruptionMode()),
        b1.AllDisruptionMode: _simple(b1.AllDisruptionMode()),
        b1.SingleCompositeDisruptionMode: _simple(b1.SingleCompositeDisruptionMode()),
        b1.AllCompositeDisruptionMode: _simple(b1.AllCompositeDisruptionMode()),
        b1.GangSchedulingPolicy: lambda: _builds(b1.GangSchedulingPolicy, min_count=int32s(1)),
        b1.CompositeGangSchedulingPolicy: lambda: _builds(
            b1.CompositeGangSchedulingPolicy, min_group_count=int32s(1)
        ),
        b1.PodGroupSchedulingPolicy: _pod_group_policies,
        b1.CompositePodGroupSchedulingPolicy: _composite_policies,
        b1.DisruptionMode: disruption_modes,
        b1.CompositeDisruptionMode: lambda: disruption_modes(composite=True),
        b1.TopologyConstraint: _first(topologies),
        b1.PodGroupSchedulingConstraints: lambda: topologies().map(
            lambda t: b1.PodGroupSchedulingConstraints(topology=t)
        ),
        b1.CompositePodGroupSchedulingConstraints: lambda: topologies().map(
            lambda t: b1.CompositePodGroupSchedulingConstraints(topology=t)
        ),
        b1.PodGroupResourceClaim: _first(resource_claim_lists),
        b1.PodGroupResourceClaimStatus: _first(
            _parts_of(lambda: pod_group_statuses(("a", "b")), lambda s: s.resource_claim_statuses)
        ),
        b1.PodGroupTemplate: _leaf_templates,
        b1.CompositePodGroupTemplate: _composite_templates,
        b1.TypedLocalObjectReference: _controller_refs,
        b1.WorkloadSpec: workload_specs,
        b1.Workload: workloads,
        b1.WorkloadList: workload_lists,
        b1.WorkloadReference: _workload_refs,
        b1.PodGroupSpec: pod_group_specs,
        b1.PodGroupStatus: pod_group_statuses,
        b1.PodGroup: pod_groups,
        b1.PodGroupList: pod_group_lists,
        a3.Workload: lambda: workloads(version="v1alpha3"),
        a3.WorkloadList: lambda: workload_lists(version="v1alpha3"),
        a3.PodGroup: lambda: pod_groups(version="v1alpha3"),
        a3.PodGroupList: lambda: pod_group_lists(version="v1alpha3"),
        a3.CompositePodGroup: composite_pod_groups,
        a3.CompositePodGroupList: composite_pod_group_lists,
        a3.CompositePodGroupSpec: composite_pod_group_specs,
        a3.CompositePodGroupStatus: composite_pod_group_statuses,
        a3.WorkloadPodGroupBasicSchedulingPolicy: _simple(
            a3.WorkloadPodGroupBasicSchedulingPolicy()
        ),
        a3.WorkloadPodGroupGangSchedulingPolicy: lambda: _builds(
            a3.WorkloadPodGroupGangSchedulingPolicy, min_count=_optional(int32s(1))
        ),
        a3.WorkloadPodGroupSchedulingPolicy: _block_policies,
        a3.WorkloadPodGroupSchedulingConstraints: lambda: topologies().map(
            lambda t: a3.WorkloadPodGroupSchedulingConstraints(topology=t)
        ),
        a3.WorkloadPodGroupSingleDisruptionMode: _simple(a3.WorkloadPodGroupSingleDisruptionMode()),
        a3.WorkloadPodGroupAllDisruptionMode: _simple(a3.WorkloadPodGroupAllDisruptionMode()),
        a3.WorkloadPodGroupDisruptionMode: _block_disruption_modes,
        a3.WorkloadPodGroupResourceClaim: _first(
            lambda: resource_claim_lists(a3.WorkloadPodGroupResourceClaim)
        ),
        a3.WorkloadCompositePodGroupBasicSchedulingPolicy: _simple(
            a3.WorkloadCompositePodGroupBasicSchedulingPolicy()
        ),
        a3.WorkloadCompositePodGroupGangSchedulingPolicy: lambda: _builds(
            a3.WorkloadCompositePodGroupGangSchedulingPolicy, min_group_count=int32s(1)
        ),
        a3.WorkloadCompositePodGroupSchedulingPolicy: _composite_block_policies,
        a3.WorkloadCompositePodGroupSchedulingConstraints: lambda: topologies().map(
            lambda t: a3.WorkloadCompositePodGroupSchedulingConstraints(topology=t)
        ),
        a3.WorkloadCompositePodGroupSingleDisruptionMode: _simple(
            a3.WorkloadCompositePodGroupSingleDisruptionMode()
        ),
        a3.WorkloadCompositePodGroupAllDisruptionMode: _simple(
            a3.WorkloadCompositePodGroupAllDisruptionMode()
        ),
        a3.WorkloadCompositePodGroupDisruptionMode: _composite_block_disruption_modes,
    }
    return table


_BY_CLASS = _strategies_by_class()
