"""The framework runtime: runs the profile's plugins (``plugins``) for one pod, as
kube-scheduler's ``frameworkImpl`` does, and words the outcome as its ``FitError``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .interface import Status
from .model import Cluster, PodInfo, SimNode
from .plugins import FILTERS, dynamic_resources


def run_filters(cluster: Cluster, node: SimNode, pod: PodInfo) -> Status | None:
    """The Filter extension point on one node: the first plugin that rejects it, in order."""
    for _, filter_node in FILTERS:
        status = filter_node(cluster, node, pod)
        if status is not None:
            return status
    return None


def fits(cluster: Cluster, node: SimNode, pod: PodInfo) -> bool:
    """Whether ``pod`` passes every filter on ``node``."""
    return run_filters(cluster, node, pod) is None


def first_fit(cluster: Cluster, pod: PodInfo, candidates: Sequence[SimNode]) -> str | None:
    """The first candidate (in name order) ``pod`` fits on."""
    for node in candidates:
        if fits(cluster, node, pod):
            return node.name
    return None


def fit_error(
    cluster: Cluster, pod: PodInfo, candidates: Sequence[SimNode]
) -> tuple[str, frozenset[str]]:
    """The scheduler's fit error (``0/N nodes are available: <count> <reason>, ....``) and the
    plugins that rejected some node (upstream's ``UnschedulablePlugins``)."""
    reasons: Counter[str] = Counter()
    plugins = set()
    for node in candidates:
        status = run_filters(cluster, node, pod)
        if status is not None:
            reasons.update(status.reasons)
            plugins.add(status.plugin)
    listed = ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))
    return f"0/{len(candidates)} nodes are available: {listed}.", frozenset(plugins)


def nodes_message(cluster: Cluster, pod: PodInfo, candidates: Sequence[SimNode]) -> str:
    """The scheduler's fit error for ``pod`` over ``candidates``."""
    return fit_error(cluster, pod, candidates)[0]


def post_filter_message(preemption: str) -> str:
    """What the PostFilter plugins say when none helps: DynamicResources' message, then
    DefaultPreemption's wrapped as ``preemption: ...``, joined as a status's reasons are."""
    return ", ".join([dynamic_resources.POST_FILTER, f"preemption: {preemption}"])
