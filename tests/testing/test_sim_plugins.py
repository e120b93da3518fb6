"""The simulator's scheduler plugins: the profile's order and each filter's verdict.

Expected values come from kube-scheduler's sources: the order of ``getDefaultPlugins`` in
``pkg/scheduler/apis/config/v1/default_plugins.go`` (MultiPoint: SchedulingGates, PrioritySort,
NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, the
volume plugins, PodTopologySpread, InterPodAffinity, DefaultPreemption, ...; with
DynamicResourceAllocation, ``applyFeatureGates`` inserts DynamicResources just before
DefaultPreemption), and each plugin's reason: ``ErrReasonUnschedulable`` "node(s) were
unschedulable" (nodeunschedulable), ``ErrReason`` "node(s) didn't match the requested node name"
(nodename), "node(s) had untolerated taint(s)" (tainttoleration), ``ErrReasonPod`` "node(s)
didn't match Pod's node affinity/selector" (nodeaffinity), "Insufficient cpu" and "Too many
pods" (noderesources ``fitsRequest``).
"""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.testing.sim import SimNode
from workloadbuilder.testing.sim.model import Cluster, PodInfo
from workloadbuilder.testing.sim.place import plan
from workloadbuilder.testing.sim.plugins import FILTERS, POST_FILTERS, node_affinity, node_name

DEFAULT_PROFILE = [
    "SchedulingGates",
    "PrioritySort",
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "EBSLimits",
    "GCEPDLimits",
    "NodeVolumeLimits",
    "AzureDiskLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
    "DefaultPreemption",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
    "DefaultBinder",
]
TAINT = {"key": "gpu", "value": "yes", "effect": "NoSchedule"}


def test_the_filters_run_in_the_default_profiles_order() -> None:
    names = [name for name, _ in FILTERS]
    assert names == [p for p in DEFAULT_PROFILE if p in names]
    assert names == [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
    ]
    assert list(POST_FILTERS) == ["DynamicResources", "DefaultPreemption"]


def pod(cpu: str = "1", **spec: Any) -> dict[str, Any]:
    body = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}], **spec}
    return {"metadata": {"name": "p", "namespace": "ml"}, "spec": body}


def fit_error(node: SimNode, obj: dict[str, Any]) -> str:
    """The pod's message without the PostFilter part: ``0/1 nodes are available: ...``."""
    writes = plan([node], [obj], [], []).unschedulable["ml/p"]
    return writes[-1].message.split(" no new claims")[0]


@pytest.mark.parametrize(
    ("node", "obj", "reason"),
    [
        (SimNode("n", {"cpu": "2"}, unschedulable=True), pod(), "1 node(s) were unschedulable"),
        (SimNode("n", {"cpu": "2"}, taints=(TAINT,)), pod(), "1 node(s) had untolerated taint(s)"),
        (
            SimNode("n", {"cpu": "2"}),
            pod(nodeSelector={"disk": "ssd"}),
            "1 node(s) didn't match Pod's node affinity/selector",
        ),
        (SimNode("n", {"cpu": "2"}), pod(cpu="3"), "1 Insufficient cpu"),
        (SimNode("n", {"cpu": "2", "pods": "0"}), pod(), "1 Too many pods"),
    ],
    ids=["NodeUnschedulable", "TaintToleration", "NodeAffinity", "Fit-cpu", "Fit-pods"],
)
def test_each_filter_gives_its_plugins_reason(
    node: SimNode, obj: dict[str, Any], reason: str
) -> None:
    assert fit_error(node, obj) == f"0/1 nodes are available: {reason}."


def test_the_first_filter_in_order_speaks() -> None:
    cordoned = SimNode("n", {"cpu": "2"}, {"disk": "hdd"}, taints=(TAINT,), unschedulable=True)
    everything_wrong = pod(cpu="3", nodeSelector={"disk": "ssd"})
    assert fit_error(cordoned, everything_wrong) == (
        "0/1 nodes are available: 1 node(s) were unschedulable."
    )
    tainted = SimNode("n", {"cpu": "2"}, {"disk": "hdd"}, taints=(TAINT,))
    assert fit_error(tainted, everything_wrong) == (
        "0/1 nodes are available: 1 node(s) had untolerated taint(s)."
    )
    tolerated = pod(cpu="3", nodeSelector={"disk": "ssd"}, tolerations=[{"operator": "Exists"}])
    assert fit_error(tainted, tolerated) == (
        "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
    )


def test_node_name_keeps_a_pod_to_its_named_node() -> None:
    nodes = (SimNode("a", {"cpu": "2"}), SimNode("b", {"cpu": "2"}))
    cluster = Cluster.build(nodes, [])
    named = PodInfo.from_object(pod(nodeName="a"))
    status = node_name.filter_node(cluster, nodes[1], named)
    assert status is not None
    assert status.reasons == ("node(s) didn't match the requested node name",)
    assert status.unresolvable
    assert node_name.filter_node(cluster, nodes[0], named) is None


# -- NodeAffinity's required terms: component-helpers' nodeaffinity (terms ORed, "nil or empty
# term matches no objects", matchFields on metadata.name) and apimachinery's
# labels.Requirement.Matches ("NotIn and Labels does not have the Requirement's key", "the
# operator is GreaterThan or LessThan and Labels has the Requirement's key and the corresponding
# value is an integer greater (less) than the Requirement's value") --------------------------


def affinity(*terms: dict[str, Any]) -> dict[str, Any]:
    required = {"nodeSelectorTerms": list(terms)}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    body: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        body["values"] = list(values)
    return {"matchExpressions": [body]}


NODES = [
    SimNode("gpu-1", {"cpu": "2"}, {"disk": "ssd", "cores": "16"}),
    SimNode("gpu-2", {"cpu": "2"}, {"disk": "hdd", "cores": "8"}),
    SimNode("cpu-1", {"cpu": "2"}, {"cores": "x"}),
]


@pytest.mark.parametrize(
    ("spec", "chosen"),
    [
        ({"affinity": affinity(expr("disk", "In", "ssd", "nvme"))}, ["gpu-1"]),
        ({"affinity": affinity(expr("disk", "NotIn", "ssd"))}, ["cpu-1", "gpu-2"]),
        ({"affinity": affinity(expr("disk", "Exists"))}, ["gpu-1", "gpu-2"]),
        ({"affinity": affinity(expr("disk", "DoesNotExist"))}, ["cpu-1"]),
        ({"affinity": affinity(expr("cores", "Gt", "8"))}, ["gpu-1"]),
        ({"affinity": affinity(expr("cores", "Lt", "16"))}, ["gpu-2"]),
        ({"affinity": affinity(expr("cores", "Gt", "eight"))}, []),
        ({"affinity": affinity(expr("disk", "In"))}, []),
        ({"affinity": affinity(expr("disk", "Exists", "ssd"))}, []),
        (
            {
                "affinity": affinity(
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["cpu-1"]}
                        ]
                    }
                )
            },
            ["cpu-1"],
        ),
        (
            {"affinity": affinity(expr("disk", "In", "ssd"), expr("cores", "Lt", "9"))},
            ["gpu-1", "gpu-2"],
        ),
        (
            {
                "affinity": affinity(
                    {
                        "matchExpressions": [
                            {"key": "disk", "operator": "Exists"},
                            {"key": "cores", "operator": "Lt", "values": ["9"]},
                        ]
                    }
                )
            },
            ["gpu-2"],
        ),
        ({"affinity": affinity({})}, []),
        ({"affinity": affinity()}, []),
        (
            {"affinity": affinity(expr("disk", "Exists")), "nodeSelector": {"cores": "16"}},
            ["gpu-1"],
        ),
    ],
    ids=[
        "In",
        "NotIn-absent-label-too",
        "Exists",
        "DoesNotExist",
        "Gt",
        "Lt",
        "Gt-not-an-integer",
        "In-without-values",
        "Exists-with-values",
        "matchFields-name",
        "terms-ORed",
        "requirements-ANDed",
        "empty-term",
        "no-terms",
        "selector-and-affinity",
    ],
)
def test_required_node_affinity(spec: dict[str, Any], chosen: list[str]) -> None:
    cluster = Cluster.build(NODES, [])
    info = PodInfo.from_object(pod(**spec))
    allowed = sorted(n.name for n in NODES if node_affinity.filter_node(cluster, n, info) is None)
    assert allowed == chosen


def test_a_pod_no_node_matches_gets_the_affinity_reason_and_is_not_helped_by_preemption() -> None:
    obj = pod(affinity=affinity(expr("disk", "In", "nvme")), priority=1000)
    writes = plan(NODES, [obj], [], []).unschedulable["ml/p"]
    assert writes[-1].message == (
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
        " no new claims to deallocate, preemption: 0/3 nodes are available:"
        " 3 Preemption is not helpful for scheduling."
    )
