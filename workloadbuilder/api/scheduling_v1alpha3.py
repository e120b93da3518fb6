"""scheduling.k8s.io/v1alpha3: Workload, PodGroup, CompositePodGroup and the building blocks.

The template and policy shapes are the same as in v1beta1 and are re-exported from there. The
``WorkloadPodGroup*`` / ``WorkloadCompositePodGroup*`` building blocks are what a controller
embeds in its own API: they hold any structurally typed value (no union is enforced, any
integer is kept) so that ``validate()`` can report problems at the controller's field paths.
"""

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, StrictInt

from ._base import DeferredModel, Int32, K8sModel, OptList, OptTuple, Str
from .meta_v1 import Condition, ListMeta, ObjectMeta
from .scheduling_v1beta1 import (
    AllCompositeDisruptionMode,
    AllDisruptionMode,
    BasicSchedulingPolicy,
    CompositeBasicSchedulingPolicy,
    CompositeDisruptionMode,
    CompositeGangSchedulingPolicy,
    CompositePodGroupSchedulingConstraints,
    CompositePodGroupSchedulingPolicy,
    CompositePodGroupTemplate,
    DisruptionMode,
    GangSchedulingPolicy,
    PodGroupResourceClaim,
    PodGroupResourceClaimStatus,
    PodGroupSchedulingConstraints,
    PodGroupSchedulingPolicy,
    PodGroupSpec,
    PodGroupStatus,
    PodGroupTemplate,
    PreemptionPolicy,
    SingleCompositeDisruptionMode,
    SingleDisruptionMode,
    TopologyConstraint,
    TypedLocalObjectReference,
    WorkloadReference,
    WorkloadSpec,
)

__all__ = [
    "GROUP",
    "VERSION",
    "AllCompositeDisruptionMode",
    "AllDisruptionMode",
    "BasicSchedulingPolicy",
    "CompositeBasicSchedulingPolicy",
    "CompositeDisruptionMode",
    "CompositeGangSchedulingPolicy",
    "CompositePodGroup",
    "CompositePodGroupList",
    "CompositePodGroupSchedulingConstraints",
    "CompositePodGroupSchedulingPolicy",
    "CompositePodGroupSpec",
    "CompositePodGroupStatus",
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
    "WorkloadCompositePodGroupAllDisruptionMode",
    "WorkloadCompositePodGroupBasicSchedulingPolicy",
    "WorkloadCompositePodGroupDisruptionMode",
    "WorkloadCompositePodGroupGangSchedulingPolicy",
    "WorkloadCompositePodGroupSchedulingConstraints",
    "WorkloadCompositePodGroupSchedulingPolicy",
    "WorkloadCompositePodGroupSingleDisruptionMode",
    "WorkloadList",
    "WorkloadPodGroupAllDisruptionMode",
    "WorkloadPodGroupBasicSchedulingPolicy",
    "WorkloadPodGroupDisruptionMode",
    "WorkloadPodGroupGangSchedulingPolicy",
    "WorkloadPodGroupResourceClaim",
    "WorkloadPodGroupSchedulingConstraints",
    "WorkloadPodGroupSchedulingPolicy",
    "WorkloadPodGroupSingleDisruptionMode",
    "WorkloadReference",
    "WorkloadSpec",
]

GROUP = "scheduling.k8s.io"
VERSION = "v1alpha3"

APIVersion = Literal["scheduling.k8s.io/v1alpha3"]
API_VERSION: APIVersion = "scheduling.k8s.io/v1alpha3"


class Workload(K8sModel):
    """The scheduling description of a controller's workload (v1alpha3)."""

    api_version: APIVersion = API_VERSION
    kind: Literal["Workload"] = "Workload"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: WorkloadSpec


class WorkloadList(K8sModel):
    """A list of Workloads (v1alpha3)."""

    api_version: APIVersion = API_VERSION
    kind: Literal["WorkloadList"] = "WorkloadList"
    metadata: ListMeta = Field(default_factory=ListMeta)
    items: list[Workload]


class PodGroup(K8sModel):
    """A runtime group of pods scheduled together (v1alpha3)."""

    api_version: APIVersion = API_VERSION
    kind: Literal["PodGroup"] = "PodGroup"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PodGroupSpec
    status: PodGroupStatus | None = None


class PodGroupList(K8sModel):
    """A list of PodGroups (v1alpha3)."""

    api_version: APIVersion = API_VERSION
    kind: Literal["PodGroupList"] = "PodGroupList"
    metadata: ListMeta = Field(default_factory=ListMeta)
    items: list[PodGroup]


class CompositePodGroupSpec(K8sModel):
    """The desired state of a CompositePodGroup, copied from its template."""

    workload_ref: WorkloadReference
    parent_composite_pod_group_name: Str | None = None
    scheduling_policy: CompositePodGroupSchedulingPolicy
    scheduling_constraints: CompositePodGroupSchedulingConstraints | None = None
    disruption_mode: CompositeDisruptionMode | None = None
    priority_class_name: Str | None = None
    priority: Int32 | None = None
    preemption_policy: PreemptionPolicy | None = None


class CompositePodGroupStatus(K8sModel):
    """Observed state: ``CompositePodGroupInitiallyScheduled``, ``DisruptionTarget``."""

    conditions: OptList[Condition] = None


class CompositePodGroup(DeferredModel):
    """A runtime group of pod groups scheduled together."""

    api_version: APIVersion = API_VERSION
    kind: Literal["CompositePodGroup"] = "CompositePodGroup"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: CompositePodGroupSpec
    status: CompositePodGroupStatus | None = None


class CompositePodGroupList(K8sModel):
    """A list of CompositePodGroups."""

    api_version: APIVersion = API_VERSION
    kind: Literal["CompositePodGroupList"] = "CompositePodGroupList"
    metadata: ListMeta = Field(default_factory=ListMeta)
    items: list[CompositePodGroup]


# Building blocks for a leaf group (as a controller embeds them in its own API).


class _Block(K8sModel):
    """A building block: a frozen value (a WorkloadItem holds it), hashable by its JSON."""

    model_config = ConfigDict(frozen=True)

    def __hash__(self) -> int:
        import json  # not loaded with the package: few programs hash building blocks

        return hash(json.dumps(self.to_dict(), sort_keys=True))


class _HeldTopologyConstraint(TopologyConstraint):
    """A topology constraint as a building block holds it: frozen, as the block (equal to a
    ``TopologyConstraint`` of the same key), so that a tree cannot change once made."""

    model_config = ConfigDict(frozen=True)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TopologyConstraint):
            return self.__dict__ == other.__dict__
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr_name__(self) -> str:
        return TopologyConstraint.__name__


def _held(topology: tuple[TopologyConstraint, ...] | None) -> Any:
    """``topology`` with each constraint frozen (a copy of any other is made)."""
    if topology is None:
        return None
    held = _HeldTopologyConstraint
    return tuple(t if type(t) is held else held(key=t.key) for t in topology)


HeldTopology = Annotated[OptTuple[TopologyConstraint], AfterValidator(_held)]


class WorkloadPodGroupBasicSchedulingPolicy(_Block):
    """Building block: basic scheduling."""


class WorkloadPodGroupGangSchedulingPolicy(_Block):
    """Building block: gang scheduling; ``min_count`` may be left to the controller's default."""

    min_count: StrictInt | None = None


class WorkloadPodGroupSchedulingPolicy(_Block):
    """Building block: one of ``basic`` / ``gang`` (checked by ``validate()``, not here)."""

    basic: WorkloadPodGroupBasicSchedulingPolicy | None = None
    gang: WorkloadPodGroupGangSchedulingPolicy | None = None


class WorkloadPodGroupSchedulingConstraints(_Block):
    """Building block: topology constraints of a pod group."""

    topology: HeldTopology = None


class WorkloadPodGroupSingleDisruptionMode(_Block):
    """Building block: disrupt pods one at a time."""


class WorkloadPodGroupAllDisruptionMode(_Block):
    """Building block: disrupt the group as a whole."""


class WorkloadPodGroupDisruptionMode(_Block):
    """Building block: one of ``single`` / ``all`` (checked by ``validate()``, not here)."""

    single: WorkloadPodGroupSingleDisruptionMode | None = None
    all: WorkloadPodGroupAllDisruptionMode | None = None


class WorkloadPodGroupResourceClaim(_Block):
    """Building block: a DRA claim shared by the group (references checked by ``validate()``)."""

    name: Str
    resource_claim_name: Str | None = None
    resource_claim_template_name: Str | None = None


# Building blocks for a composite group.


class WorkloadCompositePodGroupBasicSchedulingPolicy(_Block):
    """Building block: children scheduled independently."""


class WorkloadCompositePodGroupGangSchedulingPolicy(_Block):
    """Building block: gang over children; ``min_group_count`` may be defaulted by callbacks."""

    min_group_count: StrictInt | None = None


class WorkloadCompositePodGroupSchedulingPolicy(_Block):
    """Building block: one of ``basic`` / ``gang`` for a composite group."""

    basic: WorkloadCompositePodGroupBasicSchedulingPolicy | None = None
    gang: WorkloadCompositePodGroupGangSchedulingPolicy | None = None


class WorkloadCompositePodGroupSchedulingConstraints(_Block):
    """Building block: topology constraints of a composite group."""

    topology: HeldTopology = None


class WorkloadCompositePodGroupSingleDisruptionMode(_Block):
    """Building block: child groups disrupted independently."""


class WorkloadCompositePodGroupAllDisruptionMode(_Block):
    """Building block: the composite group disrupted as a whole."""


class WorkloadCompositePodGroupDisruptionMode(_Block):
    """Building block: one of ``single`` / ``all`` for a composite group."""

    single: WorkloadCompositePodGroupSingleDisruptionMode | None = None
    all: WorkloadCompositePodGroupAllDisruptionMode | None = None
