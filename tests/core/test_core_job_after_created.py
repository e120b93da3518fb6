"""JobSchedulingDecision.after_created: the decision once the object a decision created exists,
from what that decision read, equal to deciding again with that object added.

The oracle is ``decide_job_scheduling`` called afresh on the same Job with the created object
(as the API server stored it) added to what exists: the function whose every outcome
tests/core/test_core_job_decision.py checks against kubernetes/kubernetes
``pkg/controller/job/job_scheduling_manager.go``. A sync that creates the Workload and then the
PodGroup (``ensureWorkloadAndPodGroup``) goes on from the created Workload, not from a new read.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_core_job_decision import (
    PARENT_WORKLOAD,
    child,
    created_workload,
    job_controller_ref,
    make_job,
    stored,
)

import workloadbuilder as wb
from workloadbuilder.job import JobSchedulingOutcome

Outcome = JobSchedulingOutcome


def both_steps(job: dict[str, Any], pod_groups: list[dict[str, Any]]) -> None:
    """Create the Workload, then (if decided) the PodGroup: each ``after_created`` equals a
    fresh decision with the stored object added."""
    first = wb.decide_job_scheduling(job, [], pod_groups)
    assert first.outcome is Outcome.CREATE_WORKLOAD and first.create_workload is not None
    workload = stored(first.create_workload, "wl-uid")
    second = first.after_created(workload)
    fresh = wb.decide_job_scheduling(job, [workload], pod_groups)
    assert second == fresh
    assert second is not None and second.create_workload is None
    if second.create_pod_group is None:
        assert second.after_created({}) is None  # nothing created: nothing follows
        return
    group = stored(second.create_pod_group, "pg-uid")
    third = second.after_created(group)
    assert third == wb.decide_job_scheduling(job, [workload], [*pod_groups, group])
    assert third is not None and third.outcome is Outcome.EXISTING
    assert third.create_workload is None and third.create_pod_group is None
    assert third.after_created(group) is None


@pytest.mark.parametrize("parallelism", [1, 4, None])
def test_a_new_gang_job_goes_on_from_its_created_workload_and_pod_group(
    parallelism: int | None,
) -> None:
    both_steps(make_job(parallelism=parallelism), [])


def test_a_pod_group_left_from_before_is_found_after_the_workload_is_created() -> None:
    job = make_job()
    workload = created_workload(job)
    left = wb.decide_job_scheduling(job, [workload]).create_pod_group
    assert left is not None
    orphan = stored(left, "old-pg-uid")
    both_steps(job, [orphan])
    after = wb.decide_job_scheduling(job, [], [orphan]).after_created(workload)
    assert after is not None and after.pod_group is not None
    assert after.pod_group.metadata.uid == "old-pg-uid" and after.create_pod_group is None


def test_a_workload_stored_with_another_min_count_is_patched_as_a_new_decision_would() -> None:
    job = make_job(parallelism=4)
    first = wb.decide_job_scheduling(job)
    assert first.create_workload is not None
    workload = stored(first.create_workload, "wl-uid")  # a webhook changed what was sent
    workload["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"] = 2
    second = first.after_created(workload)
    assert second == wb.decide_job_scheduling(job, [workload])
    assert second is not None and second.workload_min_count == 4


def test_the_created_pod_group_owned_by_the_job_and_linked_to_its_workload() -> None:
    job = make_job()
    first = wb.decide_job_scheduling(job)
    assert first.create_workload is not None
    second = first.after_created(stored(first.create_workload, "wl-uid"))
    assert second is not None and second.create_pod_group is not None
    refs = second.create_pod_group.to_dict()["metadata"]["ownerReferences"]
    assert refs[0] == job_controller_ref(job) and refs[1]["uid"] == "wl-uid"


def test_a_delegated_job_decides_again() -> None:
    decision = wb.decide_job_scheduling(child(), [PARENT_WORKLOAD])
    assert decision.create_pod_group is not None
    assert decision.after_created(stored(decision.create_pod_group, "pg-uid")) is None
