"""``decide_job_scheduling(..., by_version=True)``: the decision of the same versions, kept.

An object as the API server holds it is one content per ``(uid, resourceVersion)``
(apimachinery's ``resourceVersion``: "changes on every update", ``uid``: "unique in time and
space"). So the only thing to prove is that the kept decision is the one a fresh decision
gives for those versions, and that any other version is decided afresh.
"""

from __future__ import annotations

import copy
from typing import Any

from test_core_job_decision import created_workload, make_job, stored

import workloadbuilder as wb
from workloadbuilder.job import decision as decision_module


def versioned(job: dict[str, Any], rv: str = "10") -> dict[str, Any]:
    job = copy.deepcopy(job)
    job["metadata"]["resourceVersion"] = rv
    return job


def existing(job: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    workload = created_workload(job)
    decided = wb.decide_job_scheduling(job, [workload])
    assert decided.create_pod_group is not None
    return [workload], [stored(decided.create_pod_group, "pg-uid")]


def test_the_same_versions_are_the_same_decision_and_it_is_the_fresh_one() -> None:
    job = versioned(make_job(parallelism=4))
    workloads, groups = existing(job)
    first = wb.decide_job_scheduling(job, workloads, groups, by_version=True)
    again = wb.decide_job_scheduling(
        copy.deepcopy(job), copy.deepcopy(workloads), copy.deepcopy(groups), by_version=True
    )
    assert again is first
    assert first == wb.decide_job_scheduling(job, workloads, groups)


def test_any_other_version_is_decided_afresh() -> None:
    job = versioned(make_job(parallelism=4))
    workloads, groups = existing(job)
    wb.decide_job_scheduling(job, workloads, groups, by_version=True)

    bigger = versioned(make_job(parallelism=6), rv="11")  # the Job changed
    decided = wb.decide_job_scheduling(bigger, workloads, groups, by_version=True)
    assert decided == wb.decide_job_scheduling(bigger, workloads, groups)
    assert decided.workload_min_count == 6 and decided.pod_group_min_count == 6

    remade = copy.deepcopy(groups)  # the PodGroup deleted and made again: another uid
    remade[0]["metadata"]["uid"] = "pg-uid-2"
    decided = wb.decide_job_scheduling(job, workloads, remade, by_version=True)
    assert decided.pod_group is not None and decided.pod_group.metadata.uid == "pg-uid-2"

    started = wb.decide_job_scheduling(job, workloads, groups, pods=["p"], by_version=True)
    assert started.new_job is False
    assert started == wb.decide_job_scheduling(job, workloads, groups, pods=["p"])


def test_what_a_decision_creates_is_never_kept_nor_anything_without_versions() -> None:
    job = versioned(make_job())
    one = wb.decide_job_scheduling(job, by_version=True)
    two = wb.decide_job_scheduling(job, by_version=True)
    assert one.create_workload is not None and two.create_workload is not None
    assert one.create_workload is not two.create_workload  # a new model for each create

    unversioned = make_job()  # no resourceVersion: nothing says it is unchanged
    workloads, groups = existing(unversioned)
    a = wb.decide_job_scheduling(unversioned, workloads, groups, by_version=True)
    b = wb.decide_job_scheduling(unversioned, workloads, groups, by_version=True)
    assert a is not b and a == b


def test_at_most_the_limit_of_jobs_is_kept(monkeypatch: Any) -> None:
    monkeypatch.setattr(decision_module, "STEADY_LIMIT", 3)
    for i in range(5):
        job = versioned(make_job(name=f"job-{i}"))
        workloads, groups = existing(job)
        wb.decide_job_scheduling(job, workloads, groups, by_version=True)
    assert len(decision_module._STEADY) <= 3
