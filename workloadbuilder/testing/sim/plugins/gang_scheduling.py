"""GangScheduling (PreEnqueue, PlacementFeasible): a gang is tried only once ``minCount`` pods
(or ``minGroupCount`` ready child groups) exist, and admitted only when that many are placed
together; a member that had a place waits for the rest."""

from __future__ import annotations

from typing import Final

from ..groups import COMPOSITE, Group

NAME: Final = "GangScheduling"
WAITING_FOR_GANG: Final = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled,"
    " one or more plugins asked to wait and no plugin rejected pod"
)


def need(g: Group, top: bool) -> int:
    """How many pods (or satisfiable children) the group needs placed now."""
    if g.admitted:
        return 0
    threshold = g.threshold
    if threshold is None:
        return 0 if top else 1
    return threshold


def ready(g: Group, top: bool) -> tuple[bool, str]:
    """PreEnqueue: whether enough members exist to try the group, and if not, what it waits
    for."""
    wanted = need(g, top)
    if g.kind != COMPOSITE:
        have = len(g.members)
        return have >= wanted, f"waiting for pods: {have} of {wanted} required by minCount exist"
    have = sum(ready(c, False)[0] for c in g.children)
    return have >= wanted, f"waiting for child groups: {have} of {wanted} have enough pods"
