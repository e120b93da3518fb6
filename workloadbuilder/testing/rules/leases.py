"""Validation of a coordination.k8s.io/v1 ``Lease`` (``pkg/apis/coordination/validation``).

``ValidateLeaseSpec`` on create and on every update: ``leaseDurationSeconds`` greater than 0,
``leaseTransitions`` at least 0, ``strategy`` a Kubernetes-defined name or a qualified
``domain/name``, and ``preferredHolder`` only with a ``strategy``. The strategy's error paths
are upstream's (``spec.strategy.strategy``: it appends the child twice). A Lease has no
defaults and no status.
"""

from __future__ import annotations

from typing import Final

from .common import Errs, Obj, mapping
from .errors import forbidden, invalid, not_supported
from .formats import qualified_name

__all__ = ["validate_lease"]

_STRATEGIES: Final = ["OldestEmulationVersion"]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _strategy(strategy: str) -> Errs:
    path = "spec.strategy.strategy"
    if "/" not in strategy:
        if strategy in _STRATEGIES:
            return []
        return [not_supported(path, strategy, _STRATEGIES)]
    return [invalid(path, strategy, msg, ratchet=False) for msg in qualified_name(strategy)]


def validate_lease(obj: Obj) -> Errs:
    """``ValidateLeaseSpec`` (the same on create and update)."""
    spec = mapping(obj.get("spec"))
    errs: Errs = []
    duration = _int(spec.get("leaseDurationSeconds"))
    if duration is not None and duration <= 0:
        errs.append(
            invalid("spec.leaseDurationSeconds", duration, "must be greater than 0", ratchet=False)
        )
    transitions = _int(spec.get("leaseTransitions"))
    if transitions is not None and transitions < 0:
        errs.append(
            invalid(
                "spec.leaseTransitions",
                transitions,
                "must be greater than or equal to 0",
                ratchet=False,
            )
        )
    strategy = spec.get("strategy")
    if isinstance(strategy, str):
        errs += _strategy(strategy)
    if spec.get("preferredHolder") and not strategy:
        errs.append(
            forbidden(
                "spec.preferredHolder",
                "may only be specified if `strategy` is defined",
                ratchet=False,
            )
        )
    return errs
