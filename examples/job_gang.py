"""An 8-worker batch/v1 Job with ``gang: {}`` and ``disruptionMode: all``.

The Job controller compiles ``spec.scheduling`` into a Workload and a PodGroup whose gang
``minCount`` defaults to ``parallelism``; this prints the Job and the objects it will get, as
a YAML stream, or the errors at ``spec.scheduling...`` and exits 1.

Usage: python examples/job_gang.py [PARALLELISM]
"""

from __future__ import annotations

import sys
from typing import Any

import workloadbuilder as wb
from workloadbuilder.testing.fixtures import to_yaml


def trainer_job(parallelism: int) -> dict[str, Any]:
    """The Job, as read back from the API server (it needs its uid)."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "trainer",
            "namespace": "ml",
            "uid": "7e3d2c1b-0a9f-4e8d-8c7b-6a5f4e3d2c1b",
        },
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism,
            "completionMode": "Indexed",
            "scheduling": {"schedulingPolicy": {"gang": {}}, "disruptionMode": {"all": {}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "trainer", "image": "registry.example.com/trainer:1"}],
                }
            },
        },
    }


def main(argv: list[str]) -> int:
    job = trainer_job(int(argv[1]) if len(argv) > 1 else 8)
    builder = wb.job_builder(job)
    errors = builder.validate()
    if errors:
        print(errors, file=sys.stderr)
        return 1
    print(to_yaml([job, builder.build_workload(), wb.job_pod_group(builder)]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
