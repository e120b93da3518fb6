"""The scheduler simulator: ``simulator`` talks to the server, ``place`` decides placements.

``model`` is the cluster (nodes, pod requests), ``groups`` the PodGroup hierarchy and
``quantity`` Kubernetes resource quantities.
"""

from .model import SimNode
from .simulator import GangSimulator, StepResult

__all__ = ["GangSimulator", "SimNode", "StepResult"]
