"""Kubernetes resource quantities (``500m``, ``1Gi``, ``1G``, ``129e6``) as exact fractions."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Final

# Binary suffixes (Ki = 2**10 ... Ei = 2**60), then decimal ones (n = 10**-9 ... E = 10**18).
_SUFFIXES: Final = {
    **{f"{p}i": Fraction(2 ** (10 * k)) for k, p in enumerate("KMGTPE", 1)},
    **{
        p: Fraction(10) ** (3 * k)
        for k, p in enumerate(["n", "u", "m", "", "k", "M", "G", "T", "P", "E"], -3)
    },
}
_QUANTITY: Final = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(?P<exp>[eE][+-]?[0-9]+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)"
)


# Beyond this decimal exponent the exact value is not worth its cost (10**(2**62) would not
# finish); such a quantity is refused rather than computed.
MAX_EXPONENT: Final = 1000


def parse_quantity(value: object) -> Fraction:
    """The exact value of a quantity; raises ``ValueError`` naming the bad input."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"invalid quantity {value!r}: expected a string or a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"invalid quantity {value!r}: expected a finite number")
    if isinstance(value, int | float):
        return Fraction(value)
    match = _QUANTITY.fullmatch(value.strip())
    if match is None:
        raise ValueError(
            f"invalid quantity {value!r}: expected a number with an optional suffix "
            "(e.g. '500m', '2', '1Gi', '1G', '129e6')"
        )
    number = Fraction(match["number"])
    if match["exp"]:
        exponent = int(match["exp"][1:])
        if abs(exponent) > MAX_EXPONENT:
            raise ValueError(
                f"quantity {value!r} is beyond the simulator's range"
                f" (decimal exponents up to {MAX_EXPONENT} either way)"
            )
        return number * Fraction(10) ** exponent
    return number * _SUFFIXES[match["suffix"] or ""]
