"""A gang whose minCount defaults to parallelism shrinks to the work left near a Job's end.

Expected values are upstream's own test vectors: kubernetes/kubernetes
``pkg/controller/job/job_scheduling_manager_test.go`` @0040ecbee061811c752821a4617f5b5bdb4db8ac
(``TestDesiredGangMinCount``; the same file's tests list Workloads and PodGroups through the
v1beta1 informers), and the reading of ``status.failedIndexes`` of ``parseIndexesFromString``
in ``pkg/controller/job/indexed_job_utils.go`` (malformed intervals skipped, the first interval
at or past ``completions`` ends the list, a range cut at ``completions - 1``).
"""

from __future__ import annotations

from typing import Any

import pytest

import workloadbuilder as wb
from workloadbuilder.job._progress import index_count


def tail_job(
    parallelism: int,
    completions: int | None,
    mode: str,
    *,
    min_count: int | None = None,
    succeeded: int = 0,
    failed_indexes: str | None = None,
) -> dict[str, Any]:
    gang: dict[str, Any] = {} if min_count is None else {"minCount": min_count}
    spec: dict[str, Any] = {
        "parallelism": parallelism,
        "completionMode": mode,
        "scheduling": {"schedulingPolicy": {"gang": gang}},
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c"}]}},
    }
    if completions is not None:
        spec["completions"] = completions
    status: dict[str, Any] = {"succeeded": succeeded}
    if failed_indexes is not None:
        status["failedIndexes"] = failed_indexes
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "test", "namespace": "ml", "uid": "test-uid"},
        "spec": spec,
        "status": status,
    }


def with_uid(obj: wb.Workload | wb.PodGroup, uid: str) -> dict[str, Any]:
    doc = obj.to_dict()
    doc["metadata"]["uid"] = uid
    return doc


# (name, parallelism, completions, mode, explicit minCount, succeeded, failedIndexes, want)
VECTORS = [
    ("preserves the initial gang size while enough indexed work remains",
     10, 100, "Indexed", None, 9, None, 10),
    ("shrinks an indexed gang in the tail", 10, 100, "Indexed", None, 95, None, 5),
    ("excludes permanently failed indexes", 3, 3, "Indexed", None, 1, "2", 1),
    ("counts compressed failed index ranges", 5, 10, "Indexed", None, 4, "1-2,7", 3),
    ("shrinks a non-indexed gang in the tail", 4, 4, "NonIndexed", None, 2, None, 2),
    ("clamps the threshold to one after all work is accounted for",
     3, 3, "Indexed", None, 2, "2", 1),
    ("leaves an explicit minCount unchanged", 4, 4, "Indexed", 3, 3, None, 3),
    ("leaves a work-queue Job unchanged", 4, None, "NonIndexed", None, 0, None, 4),
]  # fmt: skip


@pytest.mark.parametrize(
    ("parallelism", "completions", "mode", "min_count", "succeeded", "failed", "want"),
    [v[1:] for v in VECTORS],
    ids=[v[0] for v in VECTORS],
)
def test_the_gang_follows_the_work_left(
    parallelism: int,
    completions: int | None,
    mode: str,
    min_count: int | None,
    succeeded: int,
    failed: str | None,
    want: int,
) -> None:
    resolved = parallelism if min_count is None else min_count
    fresh = tail_job(parallelism, completions, mode, min_count=min_count)
    first = wb.decide_job_scheduling(fresh)
    assert first.create_workload is not None
    workload = with_uid(first.create_workload, "wl-uid")
    group = wb.decide_job_scheduling(fresh, [workload]).create_pod_group
    assert group is not None
    gang = workload["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]
    assert gang["minCount"] == resolved  # a new Job starts at the full size
    later = tail_job(
        parallelism, completions, mode, min_count=min_count, succeeded=succeeded,
        failed_indexes=failed,
    )  # fmt: skip
    decision = wb.decide_job_scheduling(later, [workload], [with_uid(group, "pg-uid")])
    expected = None if want == resolved else want
    assert (decision.workload_min_count, decision.pod_group_min_count) == (expected, expected)


def test_a_new_job_with_less_work_than_parallelism_starts_at_the_work_left() -> None:
    """parallelism 4, completions 2: the controller never runs more than 2 pods at once."""
    decision = wb.decide_job_scheduling(tail_job(4, 2, "Indexed"))
    assert decision.create_workload is not None
    template = decision.create_workload.spec.pod_group_templates or []
    assert template[0].scheduling_policy.gang is not None
    assert template[0].scheduling_policy.gang.min_count == 2


@pytest.mark.parametrize(
    ("indexes", "completions", "count"),
    [
        ("1-2,7", 10, 3),
        ("", 5, 0),
        ("0,x,3", 5, 2),  # a corrupted interval is skipped
        ("1,5,2", 5, 1),  # the first interval at completions ends the list
        ("3-9", 5, 2),  # a range is cut at completions - 1
        ("1-y,2", 5, 1),
        ("+1", 5, 1),  # strconv.Atoi takes a sign
    ],
)
def test_failed_indexes_are_counted_as_the_controller_reads_them(
    indexes: str, completions: int, count: int
) -> None:
    assert index_count(indexes, completions) == count


def test_job_builder_keeps_the_spec_sizing() -> None:
    """``job_builder`` compiles the Job's spec (as the registry does); only the controller's
    decision shrinks the gang to the work left."""
    builder = wb.job_builder(tail_job(10, 100, "Indexed", succeeded=95))
    templates = builder.build_workload().spec.pod_group_templates or []
    assert templates[0].scheduling_policy.gang is not None
    assert templates[0].scheduling_policy.gang.min_count == 10
