"""workloadbuilder: the Kubernetes 1.37 workload-aware scheduling APIs for Python controllers."""

from . import api
from .api.scheduling_v1alpha3 import CompositePodGroup
from .api.scheduling_v1beta1 import PodGroup, Workload

__all__ = [
    "CompositePodGroup",
    "PodGroup",
    "Workload",
    "api",
]
