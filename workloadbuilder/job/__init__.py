"""The batch/v1 Job integration, as the native Job controller does it.

- ``compile``: the Job's WorkloadItem and Builder (``job_builder``), its PodGroup;
- ``rules``: the API server's rules on ``spec.scheduling`` (``validate_job``);
- ``decision``: what the controller creates or reuses for a Job (``decide_job_scheduling``);
- ``annotations``: the delegation annotations a parent stamps on a child Job.
"""

from .annotations import (
    GROUP_TEMPLATE_NAME_ANNOTATION,
    PARENT_COMPOSITE_POD_GROUP_ANNOTATION,
    delegate_to_job,
)
from .compile import (
    JOB_SCHEDULING_PATH,
    job_builder,
    job_pod_group,
    job_template_name,
    workload_item_for_job,
)
from .decision import (
    JobEvent,
    JobSchedulingDecision,
    JobSchedulingMode,
    JobSchedulingOutcome,
    decide_job_scheduling,
    job_scheduling_mode,
    kept_decision,
)
from .rules import validate_job

__all__ = [
    "GROUP_TEMPLATE_NAME_ANNOTATION",
    "JOB_SCHEDULING_PATH",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION",
    "JobEvent",
    "JobSchedulingDecision",
    "JobSchedulingMode",
    "JobSchedulingOutcome",
    "decide_job_scheduling",
    "delegate_to_job",
    "job_builder",
    "job_pod_group",
    "job_scheduling_mode",
    "job_template_name",
    "kept_decision",
    "validate_job",
    "workload_item_for_job",
]
