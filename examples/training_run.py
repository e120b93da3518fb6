"""Compile a Polyaxon-style training run into its Workload and runtime objects.

Usage: python examples/training_run.py [RUN.yaml]. Prints the objects as a YAML stream, or
the validation errors (at the run's own field paths) and exits 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

import workloadbuilder as wb
from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)


def role(name: str, spec: dict[str, Any]) -> wb.WorkloadItem:
    """One replica spec: its integer knob is mapped onto the gang block's minCount."""
    path = wb.FieldPath("spec", "replicaSpecs").key(name)
    topology = spec.get("topologyKey")
    return wb.WorkloadItem(
        name,
        path=path,
        input=wb.WorkloadInput(
            policy=wb.PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=spec.get("minAvailable"))
                ),
                field_paths={"gang.minCount": path.child("minAvailable")},
            ),
            constraints=wb.ConstraintsInput(
                pod_group_data=WorkloadPodGroupSchedulingConstraints(
                    topology=[TopologyConstraint(key=topology)]
                )
                if topology
                else None,
                field_paths={"topology[0].key": path.child("topologyKey")},
            ),
        ),
    )


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("training-run.yaml")
    run = yaml.safe_load(source.read_text())
    spec = run["spec"]
    root = wb.composite(
        run["metadata"]["name"],
        [role(name, replica) for name, replica in spec["replicaSpecs"].items()],
        path="spec",
        policy=wb.gang(min_group_count=spec["minGroups"]),
        topology=[spec["topologyKey"]] if spec.get("topologyKey") else (),
    )
    options = wb.BuildOptions(
        name=wb.generate_workload_name(run["metadata"]["name"], run["metadata"]["uid"]),
        namespace=run["metadata"]["namespace"],
        owner=wb.controller_ref(run),
        allowed_policies=frozenset(wb.SchedulingPolicyOption),
        allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
    )
    builder = wb.Builder(root, options)
    errors = builder.validate()
    if errors:
        print(errors, file=sys.stderr)
        return 1
    objects = [builder.build_workload(), *wb.instantiate(builder)]
    print(yaml.safe_dump_all([o.to_dict() for o in objects], sort_keys=False), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
