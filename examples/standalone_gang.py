"""Print the standalone 4-worker gang PodGroup as YAML."""

from workloadbuilder import PodGroup
from workloadbuilder.api.meta_v1 import ObjectMeta
from workloadbuilder.api.scheduling_v1beta1 import (
    GangSchedulingPolicy,
    PodGroupSchedulingPolicy,
    PodGroupSpec,
)

pod_group = PodGroup(
    metadata=ObjectMeta(name="training-workers", namespace="ml-training"),
    spec=PodGroupSpec(
        scheduling_policy=PodGroupSchedulingPolicy(gang=GangSchedulingPolicy(min_count=4))
    ),
)
print(pod_group.to_yaml(), end="")
