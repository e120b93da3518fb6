"""workloadbuilder: the Kubernetes 1.37 workload-aware scheduling APIs for Python controllers.

Describe a workload as a tree of ``WorkloadItem``s, ``validate()`` it at the controller's own
field paths, compile it with ``Builder.build_workload()`` and stamp the runtime objects, or do
all three in one call with ``Builder.release()``.
"""

import importlib
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # every name loads on first use (PEP 562), its module with it
    from . import api
    from .api.scheduling_v1alpha3 import CompositePodGroup
    from .api.scheduling_v1beta1 import PodGroup, Workload
    from .builder import (
        Builder,
        BuildError,
        BuildOptions,
        DisruptionModeOption,
        Release,
        SchedulingPolicyOption,
        build_workload,
        controller_ref,
        validate,
    )
    from .config import *  # the intermediate form: every name of config's __all__
    from .field import ErrorList, ErrorType, FieldError, FieldPath
    from .item import (
        ConstraintsInput,
        DisruptionModeInput,
        PolicyInput,
        ResourceClaimsInput,
        WorkloadInput,
        WorkloadItem,
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
    from .runtime import RuntimeObjects, group_names, instantiate, set_scheduling_group
    from .shorthands import basic, composite, gang, leaf

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
    "Release",
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
    "group_names",
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

# Where each name lives; ``__getattr__`` imports its module on first access. A reconcile loop
# loads the tree, the Builder and the models it uses; the Job integration, migration and the
# one-execution helpers load only if used. A name of ``__all__`` not listed is config's.
_LAZY_MODULES = {
    "api.scheduling_v1alpha3": ("CompositePodGroup",),
    "api.scheduling_v1beta1": ("PodGroup", "Workload"),
    "builder": (
        "Builder",
        "BuildError",
        "BuildOptions",
        "DisruptionModeOption",
        "Release",
        "SchedulingPolicyOption",
        "build_workload",
        "controller_ref",
        "validate",
    ),
    "field": ("ErrorList", "ErrorType", "FieldError", "FieldPath"),
    "item": (
        "ConstraintsInput",
        "DisruptionModeInput",
        "PolicyInput",
        "ResourceClaimsInput",
        "WorkloadInput",
        "WorkloadItem",
    ),
    "naming": ("generate_pod_group_name", "generate_workload_name"),
    "shorthands": ("basic", "composite", "gang", "leaf"),
    "job.annotations": (
        "GROUP_TEMPLATE_NAME_ANNOTATION",
        "PARENT_COMPOSITE_POD_GROUP_ANNOTATION",
        "delegate_to_job",
    ),
    "job.compile": ("job_builder", "job_pod_group", "workload_item_for_job"),
    "job.decision": (
        "JobSchedulingDecision",
        "JobSchedulingMode",
        "JobSchedulingOutcome",
        "decide_job_scheduling",
    ),
    "job.rules": ("validate_job",),
    "migration": ("MigrationFinding", "MigrationResult", "migrate"),
    "runtime": ("RuntimeObjects", "group_names", "instantiate", "set_scheduling_group"),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}


def _load_lazily(name: str) -> object:
    """A name of ``__all__`` from its module, imported now; Python's own error for any other."""
    if name == "api":
        return importlib.import_module(f"{__name__}.api")  # which binds it here
    module = _LAZY.get(name) or ("config" if name in __all__ else None)  # config's: the rest
    if module is None:
        raise AttributeError(
            f"module {__name__!r} has no attribute {name!r}", name=name, obj=sys.modules[__name__]
        )
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if not TYPE_CHECKING:  # type checkers see the imports above, and still flag misspelt names
    __getattr__ = _load_lazily
