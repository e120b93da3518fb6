"""scheduling.k8s.io/v1beta1: Workload and PodGroup (Kubernetes 1.37).

These are API objects: what the SDK emits. Every "exactly one of" union is enforced when a
model is built or parsed, so an object the API server would reject cannot be made by accident.
The v1alpha3 version shares these shapes (see ``scheduling_v1alpha3``).
"""

from typing import Literal

from pydantic import Field

from ._base import DeferredModel, Int32, K8sModel, K8sUnion, OptList, Str
from .meta_v1 import Condition, ListMeta, ObjectMeta

__all__ = [
    "GROUP",
    "VERSION",
    "AllCompositeDisruptionMode",
    "AllDisruptionMode",
    "BasicSchedulingPolicy",
    "CompositeBasicSchedulingPolicy",
    "CompositeDisruptionMode",
    "CompositeGangSchedulingPolicy",
    "CompositePodGroupSchedulingConstraints",
    "CompositePodGroupSchedulingPolicy",
    "CompositePodGroupTemplate",
    "DisruptionMode",
    "GangSchedulingPolicy",
    "PodGroup",
    "PodGroupList",
    "PodGroupResourceClaim",
    "PodGroupResourceClaimStatus",
    "PodGroupSchedulingConstraints",
    "PodGroupSchedulingPolicy",
    "PodGroupSpec",
    "PodGroupStatus",
    "PodGroupTemplate",
    "PreemptionPolicy",
    "SingleCompositeDisruptionMode",
    "SingleDisruptionMode",
    "TopologyConstraint",
    "TypedLocalObjectReference",
    "Workload",
    "WorkloadList",
    "WorkloadReference",
    "WorkloadSpec",
]

GROUP = "scheduling.k8s.io"
VERSION = "v1beta1"

PreemptionPolicy = Literal["Never", "PreemptLowerPriority"]


class BasicSchedulingPolicy(K8sModel):
    """Standard Kubernetes scheduling: each pod on its own."""


class GangSchedulingPolicy(K8sModel):
    """All-or-nothing scheduling: bind only when ``min_count`` members can be placed."""

    min_count: Int32


class PodGroupSchedulingPolicy(K8sUnion):
    """Exactly one of ``basic`` or ``gang``."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None

    union_members = ("basic", "gang")


class CompositeBasicSchedulingPolicy(K8sModel):
    """Children of a composite group are scheduled independently."""


class CompositeGangSchedulingPolicy(K8sModel):
    """All-or-nothing over children: ``min_group_count`` child groups must be satisfiable."""

    min_group_count: Int32


class CompositePodGroupSchedulingPolicy(K8sUnion):
    """Exactly one of ``basic`` or ``gang`` for a composite group."""

    basic: CompositeBasicSchedulingPolicy | None = None
    gang: CompositeGangSchedulingPolicy | None = None

    union_members = ("basic", "gang")


class SingleDisruptionMode(K8sModel):
    """Pods of the group may be disrupted one at a time."""


class AllDisruptionMode(K8sModel):
    """The group is disrupted as a whole."""


class DisruptionMode(K8sUnion):
    """Exactly one of ``single`` or ``all``."""

    single: SingleDisruptionMode | None = None
    all: AllDisruptionMode | None = None

    union_members = ("single", "all")


class SingleCompositeDisruptionMode(K8sModel):
    """Child groups may be disrupted independently."""


class AllCompositeDisruptionMode(K8sModel):
    """The composite group is disrupted as a whole."""


class CompositeDisruptionMode(K8sUnion):
    """Exactly one of ``single`` or ``all`` for a composite group."""

    single: SingleCompositeDisruptionMode | None = None
    all: AllCompositeDisruptionMode | None = None

    union_members = ("single", "all")


class TopologyConstraint(K8sModel):
    """Place the whole group inside one domain of the node label ``key``."""

    key: Str


class PodGroupSchedulingConstraints(K8sModel):
    """Scheduling constraints of a pod group (at most one topology constraint)."""

    topology: OptList[TopologyConstraint] = None


class CompositePodGroupSchedulingConstraints(K8sModel):
    """Scheduling constraints of a composite group."""

    topology: OptList[TopologyConstraint] = None


class PodGroupResourceClaim(K8sUnion):
    """A DRA claim shared by the group's pods: exactly one of the two references."""

    name: Str
    resource_claim_name: Str | None = None
    resource_claim_template_name: Str | None = None

    union_members = ("resource_claim_name", "resource_claim_template_name")


class PodGroupResourceClaimStatus(K8sModel):
    """The ResourceClaim generated for a template claim."""

    name: Str
    resource_claim_name: Str | None = None


class PodGroupTemplate(K8sModel):
    """A template in a Workload from which PodGroups are made."""

    name: Str
    scheduling_policy: PodGroupSchedulingPolicy
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: OptList[PodGroupResourceClaim] = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: Str | None = None
    priority: Int32 | None = None
    preemption_policy: PreemptionPolicy | None = None


class CompositePodGroupTemplate(K8sModel):
    """A template of a group of groups; its children are nested templates."""

    name: Str
    scheduling_policy: CompositePodGroupSchedulingPolicy
    scheduling_constraints: CompositePodGroupSchedulingConstraints | None = None
    disruption_mode: CompositeDisruptionMode | None = None
    priority_class_name: Str | None = None
    priority: Int32 | None = None
    preemption_policy: PreemptionPolicy | None = None
    pod_group_templates: OptList[PodGroupTemplate] = None
    composite_pod_group_templates: OptList["CompositePodGroupTemplate"] = None


class TypedLocalObjectReference(K8sModel):
    """The controller object a Workload belongs to."""

    api_group: Str | None = None
    kind: Str
    name: Str


class WorkloadSpec(K8sUnion):
    """Exactly one of ``pod_group_templates`` or ``composite_pod_group_templates``."""

    controller_ref: TypedLocalObjectReference | None = None
    pod_group_templates: OptList[PodGroupTemplate] = None
    composite_pod_group_templates: OptList["CompositePodGroupTemplate"] = None

    union_members = ("pod_group_templates", "composite_pod_group_templates")


class Workload(DeferredModel):
    """The scheduling description of a controller's workload."""

    api_version: Literal["scheduling.k8s.io/v1beta1"] = "scheduling.k8s.io/v1beta1"
    kind: Literal["Workload"] = "Workload"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: WorkloadSpec


class WorkloadList(K8sModel):
    """A list of Workloads."""

    api_version: Literal["scheduling.k8s.io/v1beta1"] = "scheduling.k8s.io/v1beta1"
    kind: Literal["WorkloadList"] = "WorkloadList"
    metadata: ListMeta = Field(default_factory=ListMeta)
    items: list[Workload]


class WorkloadReference(K8sModel):
    """The Workload template a PodGroup was made from."""

    workload_name: Str
    template_name: Str


class PodGroupSpec(K8sModel):
    """The desired state of a PodGroup, copied from its template."""

    workload_ref: WorkloadReference | None = None
    parent_composite_pod_group_name: Str | None = None
    scheduling_policy: PodGroupSchedulingPolicy
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: OptList[PodGroupResourceClaim] = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: Str | None = None
    priority: Int32 | None = None
    preemption_policy: PreemptionPolicy | None = None


class PodGroupStatus(K8sModel):
    """Observed state: ``PodGroupInitiallyScheduled``, ``DisruptionTarget``, claim statuses."""

    conditions: OptList[Condition] = None
    resource_claim_statuses: OptList[PodGroupResourceClaimStatus] = None


class PodGroup(DeferredModel):
    """A runtime group of pods scheduled together."""

    api_version: Literal["scheduling.k8s.io/v1beta1"] = "scheduling.k8s.io/v1beta1"
    kind: Literal["PodGroup"] = "PodGroup"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PodGroupSpec
    status: PodGroupStatus | None = None


class PodGroupList(K8sModel):
    """A list of PodGroups."""

    api_version: Literal["scheduling.k8s.io/v1beta1"] = "scheduling.k8s.io/v1beta1"
    kind: Literal["PodGroupList"] = "PodGroupList"
    metadata: ListMeta = Field(default_factory=ListMeta)
    items: list[PodGroup]
