"""The scheduler simulator: ``simulator`` talks to the server, ``place`` decides placements.

``queue`` holds unschedulable pods until a cluster event, ``framework`` runs the scheduler
plugins of ``plugins`` (one module each, in kube-scheduler's default profile order) over what
``interface`` defines; ``model`` is the cluster (nodes, pod requests), ``groups`` the PodGroup
hierarchy and ``quantity`` Kubernetes resource quantities.
"""

from .model import SimNode
from .simulator import GangSimulator, StepResult

__all__ = ["GangSimulator", "SimNode", "StepResult"]
