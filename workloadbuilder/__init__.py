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
from .job import (
    GROUP_TEMPLATE_NAME_ANNOTATION,
    PARENT_COMPOSITE_POD_GROUP_ANNOTATION,
    JobSchedulingDecision,
    JobSchedulingMode,
    JobSchedulingOutcome,
    decide_job_scheduling,
    delegate_to_job,
    job_builder,
    job_pod_group,
    validate_job,
    workload_item_for_job,
)
from .migration import MigrationFinding, MigrationResult, migrate
from .naming import generate_pod_group_name, generate_workload_name
from .runtime import RuntimeObjects, instantiate, set_scheduling_group

__all__ = [
    "GROUP_TEMPLATE_NAME_ANNOTATION",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION",
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
    "JobSchedulingDecision",
    "JobSchedulingMode",
    "JobSchedulingOutcome",
    "MigrationFinding",
    "MigrationResult",
    "PodGroup",
    "PolicyInput",
    "ResourceClaim",
    "ResourceClaimsInput",
    "RuntimeObjects",
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
    "decide_job_scheduling",
    "delegate_to_job",
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
    "validate_job",
    "workload_item_for_job",
]
