"""TopologyPlacementGenerator (PlacementGenerate): a PodGroup with a topology constraint is
tried in one domain at a time, the nodes sharing a value of its label key.

Placements are generated in label-value order; a group whose pods are bound already keeps to
the domains they use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..groups import Group
from ..model import SimNode

NAME: Final = "TopologyPlacementGenerator"


def placements(g: Group, candidates: Sequence[SimNode]) -> list[list[SimNode]]:
    """Candidate node sets: one per topology domain (by label value), or all candidates."""
    key = g.topology_key
    if key is None:
        return [list(candidates)]
    values: dict[str, list[SimNode]] = {}
    for node in candidates:
        value = node.label(key)
        if value is not None:
            values.setdefault(value, []).append(node)
    used = {
        n.label(key) for n in candidates for d in g.walk() for p in d.members if p.node == n.name
    }
    used.discard(None)
    return [values[v] for v in sorted(values) if not used or v in used]
