"""A gang of four workers sharing one DRA claim, each pod linked with ``set_scheduling_group``.

The group's claim is allocated once for the whole group; a pod uses it by declaring the same
claim (same name, same source) in its own ``spec.resourceClaims``. Prints the Workload, the
PodGroup and the four pods as a YAML stream.
"""

from __future__ import annotations

import sys
from typing import Any

import workloadbuilder as wb
from workloadbuilder.testing.fixtures import to_yaml

OWNER = {
    "apiVersion": "kubeflow.org/v1",
    "kind": "PyTorchJob",
    "metadata": {"name": "shared-gpu", "namespace": "ml", "uid": "4a5b6c7d-8e9f-4a0b-8c1d"},
}
CLAIM = {"name": "interconnect", "resourceClaimTemplateName": "imex-channel"}


def worker_pod(index: int) -> dict[str, Any]:
    """A worker declaring the group's claim exactly, and using it in its container."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"shared-gpu-worker-{index}", "namespace": "ml"},
        "spec": {
            "resourceClaims": [dict(CLAIM)],
            "containers": [
                {
                    "name": "worker",
                    "image": "registry.example.com/trainer:1",
                    "resources": {"claims": [{"name": CLAIM["name"]}]},
                }
            ],
        },
    }


def main() -> int:
    root = wb.leaf("workers", policy=wb.gang(4), resource_claims=[CLAIM])
    options = wb.BuildOptions(
        name=wb.generate_workload_name("shared-gpu", OWNER["metadata"]["uid"]),
        namespace="ml",
        owner=wb.controller_ref(OWNER),
        allowed_policies=frozenset({wb.SchedulingPolicyOption.GANG}),
        allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
    )
    builder = wb.Builder(root, options)
    errors = builder.validate()
    if errors:
        print(errors, file=sys.stderr)
        return 1
    (group,) = wb.instantiate(builder)
    assert isinstance(group, wb.PodGroup)
    pods = [wb.set_scheduling_group(worker_pod(i), group) for i in range(4)]
    print(to_yaml([builder.build_workload(), group, *pods]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
