"""workloadbuilder: the Kubernetes 1.37 workload-aware scheduling APIs for Python controllers.

Describe a workload as a tree of ``WorkloadItem``s, ``validate()`` it at the controller's own
field paths, compile it with ``Builder.build_workload()`` and stamp the runtime objects.
"""

from . import api
from .api.scheduling_v1alpha3 import CompositePodGroup
from .api.scheduling_v1beta1 import PodGroup, Workload
from .builder import (
    Builder,
    BuildError,
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
    build_workload,
    controller_ref,
    validate,
)
from .config import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConfigFunc,
    SchedulingConstraints,
    SchedulingPolicy,
    SingleDisruptionMode,
)
from .field import ErrorList, ErrorType, FieldError, FieldPath
from .item import (
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
    basic,
    composite,
    gang,
    leaf,
)
from .job import job_builder, job_pod_group, workload_item_for_job
from .migration import MigrationFinding, MigrationResult, migrate
from .naming import generate_pod_group_name, generate_workload_name
from .runtime import instantiate, set_scheduling_group

__all__ = [
    "AllDisruptionMode",
    "BasicSchedulingPolicy",
    "BuildError",
    "BuildOptions",
    "Builder",
    "CompositePodGroup",
    "ConstraintsInput",
    "DisruptionMode",
    "DisruptionModeInput",
    "DisruptionModeOption",
    "ErrorList",
    "ErrorType",
    "FieldError",
    "FieldPath",
    "GangSchedulingPolicy",
    "MigrationFinding",
    "MigrationResult",
    "PodGroup",
    "PolicyInput",
    "ResourceClaim",
    "ResourceClaimsInput",
    "SchedulingConfig",
    "SchedulingConfigFunc",
    "SchedulingConstraints",
    "SchedulingPolicy",
    "SchedulingPolicyOption",
    "SingleDisruptionMode",
    "Workload",
    "WorkloadInput",
    "WorkloadItem",
    "api",
    "basic",
    "build_workload",
    "composite",
    "controller_ref",
    "gang",
    "generate_pod_group_name",
    "generate_workload_name",
    "instantiate",
    "job_builder",
    "job_pod_group",
    "leaf",
    "migrate",
    "set_scheduling_group",
    "validate",
    "workload_item_for_job",
]
