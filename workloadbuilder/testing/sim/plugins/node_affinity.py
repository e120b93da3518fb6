"""NodeAffinity (Filter): the node must match the pod's ``nodeSelector`` and its required node
affinity (``requiredDuringSchedulingIgnoredDuringExecution``), as component-helpers'
``GetRequiredNodeAffinity`` reads them.

The affinity's ``nodeSelectorTerms`` are ORed, a term's requirements ANDed; a term without
requirements, or with one the selector libraries refuse (an unknown operator, ``In`` without
values, ``Gt`` without exactly one integer, ...), matches no node. ``matchExpressions`` look at
labels (an absent label satisfies ``NotIn`` and ``DoesNotExist`` only; ``Gt`` / ``Lt`` compare
the label as a 64-bit integer), ``matchFields`` at ``metadata.name`` (``In`` / ``NotIn`` with
one value)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..interface import NODE_CHANGED, POD_UPDATED, ClusterEvent, Rejection, Status
from ..model import Cluster, PodInfo, SimNode

NAME: Final = "NodeAffinity"
REASON: Final = "node(s) didn't match Pod's node affinity/selector"
_INTEGER: Final = re.compile(r"[+-]?[0-9]+")
_INT64: Final = range(-(2**63), 2**63)


def filter_node(cluster: Cluster, node: SimNode, pod: PodInfo) -> Status | None:
    """Rejects a node the pod's selector or required affinity excludes (unresolvable by
    preemption)."""
    if not matches(node, pod):
        return Status(NAME, (REASON,), unresolvable=True)
    return None


def matches(node: SimNode, pod: PodInfo) -> bool:
    """Whether ``node`` satisfies both the pod's ``nodeSelector`` and its required affinity."""
    if any(node.label(k) != v for k, v in pod.node_selector.items()):
        return False
    if pod.required_terms is None:
        return True
    return any(_term(node, t) for t in pod.required_terms)


def _term(node: SimNode, term: Mapping[str, Any]) -> bool:
    expressions: Sequence[Any] = term.get("matchExpressions") or []
    fields: Sequence[Any] = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # an empty term selects nothing
    return all(_expression(node, e) for e in expressions) and all(_field(node, f) for f in fields)


def _expression(node: SimNode, requirement: Any) -> bool:
    if not isinstance(requirement, Mapping):
        return False
    key, operator = requirement.get("key"), requirement.get("operator")
    values = [v for v in requirement.get("values") or [] if isinstance(v, str)]
    if not isinstance(key, str):
        return False
    value = node.label(key)
    if operator in ("In", "NotIn"):
        if not values:
            return False  # refused: In / NotIn need values
        return (value in values) if operator == "In" else (value is None or value not in values)
    if operator in ("Exists", "DoesNotExist"):
        if values:
            return False  # refused: Exists / DoesNotExist take no values
        return (value is not None) if operator == "Exists" else value is None
    if operator in ("Gt", "Lt"):
        bound, have = _int64(values[0]) if len(values) == 1 else None, _int64(value)
        if bound is None or have is None:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False  # an operator the selector does not know


def _field(node: SimNode, requirement: Any) -> bool:
    if not isinstance(requirement, Mapping):
        return False
    values = [str(v) for v in requirement.get("values") or []]
    if len(values) != 1 or requirement.get("operator") not in ("In", "NotIn"):
        return False  # refused: one value, In or NotIn only
    have = node.name if requirement.get("key") == "metadata.name" else ""
    return (have == values[0]) is (requirement.get("operator") == "In")


def _int64(text: str | None) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: None when it is not a 64-bit decimal integer."""
    if text is None or not _INTEGER.fullmatch(text):
        return None
    number = int(text)
    return number if number in _INT64 else None


def hint(event: ClusterEvent, rejection: Rejection) -> bool:
    """A Node added or relabelled, or the pod's own selector changed."""
    return event.kind == NODE_CHANGED or (event.kind == POD_UPDATED and event.key == rejection.pod)
