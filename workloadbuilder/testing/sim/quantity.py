"""Kubernetes resource quantities (``500m``, ``1Gi``, ``1G``, ``129e6``) as exact fractions.

A quantity is read as the API server reads it (:mod:`workloadbuilder.testing.rules.quantity`):
values finer than ``1n`` round up, ``BinarySI`` values stop at ``2**63 - 1``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Final

from workloadbuilder.testing.rules import quantity

# Beyond this decimal exponent the exact value is not worth its cost (10**(2**31) would not
# finish); such a quantity is refused rather than computed.
MAX_EXPONENT: Final = 1000


def parse_quantity(value: object) -> Fraction:
    """The exact value of a quantity; raises ``ValueError`` naming the bad input."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"invalid quantity {value!r}: expected a string or a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"invalid quantity {value!r}: expected a finite number")
    text = value if isinstance(value, str) else json.dumps(value)
    try:
        parsed = quantity.parse(text.strip())
    except quantity.QuantityError as exc:
        raise ValueError(
            f"invalid quantity {value!r}: expected a number with an optional suffix "
            f"(e.g. '500m', '2', '1Gi', '1G', '129e6'): {exc}"
        ) from None
    if parsed.exponent > MAX_EXPONENT:
        raise ValueError(
            f"quantity {value!r} is beyond the simulator's range"
            f" (decimal exponents up to {MAX_EXPONENT})"
        )
    return parsed.value
