"""A Polyaxon-style runtime plugin: a run spec with replica specs and a scheduling policy
converted into the tree, with every error at the run spec's own paths.

The run's ``schedulingPolicy`` maps field by field:

- ``minAvailable`` (pods of the whole run) becomes the gang minimum of the run's PodGroup;
  unset, every replica must start together;
- ``priorityClass`` becomes the group's priority class;
- ``queue`` is not a scheduling field: it goes on Kueue's ``kueue.x-k8s.io/queue-name`` label;
- ``minResources`` and ``scheduleTimeoutSeconds`` have no native equivalent and are refused
  with a clear error rather than dropped.

Usage: python examples/polyaxon_plugin.py [RUN.yaml]. Prints the Workload, the PodGroup and
the run's pods as a YAML stream, or the errors and exits 1.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import workloadbuilder as wb
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)
from workloadbuilder.testing.fixtures import to_yaml

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
POLICY = wb.FieldPath("spec", "schedulingPolicy")
NO_EQUIVALENT = {
    "minResources": "no native equivalent: the gang checks placement, not a resource floor;"
    " use a Kueue ClusterQueue quota",
    "scheduleTimeoutSeconds": "no native equivalent: the scheduler waits for the gang; watch"
    " PodGroupInitiallyScheduled and give up in the plugin",
}
KNOWN = {"minAvailable", "queue", "priorityClass", *NO_EQUIVALENT}


@dataclass(frozen=True)
class Conversion:
    """What the plugin makes of a run: the Builder, the labels of the run's pods, the errors."""

    builder: wb.Builder
    pod_labels: dict[str, str]
    errors: wb.ErrorList


def convert(run: dict[str, Any]) -> Conversion:
    """The run as one gang over all its replicas."""
    spec = run.get("spec") or {}
    policy = spec.get("schedulingPolicy") or {}
    replicas = spec.get("replicaSpecs") or {}
    errors = wb.ErrorList()
    for key in sorted(set(policy) - KNOWN):
        errors.append(wb.FieldError.forbidden(POLICY.child(key), "unknown field"))
    for key, why in NO_EQUIVALENT.items():
        if key in policy:
            errors.append(wb.FieldError.forbidden(POLICY.child(key), why))
    total = sum(int(r.get("replicas", 1)) for r in replicas.values())
    min_available = policy.get("minAvailable", total)
    # with replicas, validate() reports a minAvailable above them at its own path
    root = wb.WorkloadItem(
        run["metadata"]["name"],
        path=POLICY,
        default_config=wb.SchedulingConfig(priority_class_name=policy.get("priorityClass", "")),
        input=wb.WorkloadInput(
            policy=wb.PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=min_available)
                ),
                field_paths={"gang.minCount": POLICY.child("minAvailable")},
            ),
        ),
        replicas=total,
    )
    meta = run["metadata"]
    options = wb.BuildOptions(
        name=wb.generate_workload_name(meta["name"], meta["uid"]),
        namespace=meta["namespace"],
        owner=wb.controller_ref(run),
        allowed_policies=frozenset({wb.SchedulingPolicyOption.GANG}),
        allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
    )
    builder = wb.Builder(root, options)
    labels = {QUEUE_LABEL: policy["queue"]} if policy.get("queue") else {}
    return Conversion(builder, labels, _at_run_paths(builder.validate()) + errors)


def _at_run_paths(errors: wb.ErrorList) -> wb.ErrorList:
    """The SDK reports the priority class at the item's path: move it to ``priorityClass``."""
    return wb.ErrorList(
        e.with_field(POLICY.child("priorityClass")) if e.field == str(POLICY) else e for e in errors
    )


def run_pods(run: dict[str, Any], conversion: Conversion, group: wb.PodGroup) -> list[Any]:
    """One pod per replica of every replica spec, labelled and linked to the group."""
    meta = run["metadata"]
    pods = []
    for role, replica in (run["spec"].get("replicaSpecs") or {}).items():
        for i in range(int(replica.get("replicas", 1))):
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{meta['name']}-{role}-{i}",
                    "namespace": meta["namespace"],
                    "labels": {"app.example.com/role": role, **conversion.pod_labels},
                },
                "spec": {"containers": [{"name": "pytorch", "image": "pytorch/pytorch:2"}]},
            }
            pods.append(wb.set_scheduling_group(pod, group))
    return pods


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("polyaxon-run.yaml")
    run = yaml.safe_load(source.read_text())
    conversion = convert(run)
    if conversion.errors:
        print("\n".join(str(e) for e in conversion.errors), file=sys.stderr)
        return 1
    (group,) = wb.instantiate(conversion.builder)
    assert isinstance(group, wb.PodGroup)
    workload = conversion.builder.build_workload()
    print(to_yaml([workload, group, *run_pods(run, conversion, group)]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
