"""The simulator's scheduling profile: one module per kube-scheduler plugin, at its extension
points, in the order of the default profile.

kube-scheduler's default profile (``getDefaultPlugins`` in
``pkg/scheduler/apis/config/v1/default_plugins.go``) enables, in this order, SchedulingGates,
PrioritySort, NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts,
NodeResourcesFit, the volume plugins, PodTopologySpread, InterPodAffinity, DynamicResources
(``applyFeatureGates`` puts it just before DefaultPreemption), DefaultPreemption,
NodeResourcesBalancedAllocation, ImageLocality and DefaultBinder. The workload plugins come with
their feature gates: GangScheduling (``plugins/gangscheduling``: PreEnqueue, PlacementFeasible)
and TopologyPlacementGenerator (``plugins/topologyaware``: PlacementGenerate).

The simulator runs those of them that decide something for the objects it reads (no ports,
volumes, spread constraints or pod affinity are modelled; queue sort, scoring and binding are
``place``'s fixed order, first fit by node name, and the ``pods/binding`` call). A new
behaviour is one new module here, added to the lists below in the profile's order. Plugins do
not import each other: what they share is in ``..interface`` and ``..model``, and what one
needs of the others (the filter chain, for preemption) is passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..interface import Filter, Hint
from . import (
    default_preemption,
    dynamic_resources,
    gang_scheduling,
    node_affinity,
    node_name,
    node_resources_fit,
    node_unschedulable,
    taint_toleration,
    topology_placement,
)

FILTERS: Final[tuple[tuple[str, Filter], ...]] = (
    (node_unschedulable.NAME, node_unschedulable.filter_node),
    (node_name.NAME, node_name.filter_node),
    (taint_toleration.NAME, taint_toleration.filter_node),
    (node_affinity.NAME, node_affinity.filter_node),
    (node_resources_fit.NAME, node_resources_fit.filter_node),
)
"""The Filter extension point, in the default profile's order; the first rejection speaks."""

POST_FILTERS: Final = (dynamic_resources.NAME, default_preemption.NAME)
"""The PostFilter extension point, in order: their messages are joined with ``", "``."""

HINTS: Final[Mapping[str, Hint]] = {
    node_unschedulable.NAME: node_unschedulable.hint,
    node_name.NAME: node_name.hint,
    taint_toleration.NAME: taint_toleration.hint,
    node_affinity.NAME: node_affinity.hint,
    node_resources_fit.NAME: node_resources_fit.hint,
    default_preemption.NAME: default_preemption.hint,
}
"""Each plugin's queueing hint (its ``EventsToRegister``): whether a cluster event may make a pod
it rejected schedulable."""

__all__ = [
    "FILTERS",
    "HINTS",
    "POST_FILTERS",
    "default_preemption",
    "dynamic_resources",
    "gang_scheduling",
    "node_affinity",
    "node_name",
    "node_resources_fit",
    "node_unschedulable",
    "taint_toleration",
    "topology_placement",
]
