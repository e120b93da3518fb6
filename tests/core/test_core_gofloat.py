"""Go's float formatting (``%v`` and ``encoding/json``) has one implementation in
``_gorender``; on any float64 it answers as Go's rules say, computed here another way: the
shortest round-tripping digits from Python's ``repr`` (the same digits Go's shortest
formatting picks), ``%v`` (strconv ``'g'``, precision -1) in exponent form when the decimal
exponent is below -4 or from 6 on, ``encoding/json`` when the magnitude is below 1e-6 or from
1e21 on, with a one-digit negative exponent written ``e-7``, not ``e-07``."""

from __future__ import annotations

import math
import struct
from decimal import Decimal

from hypothesis import example, given
from hypothesis import strategies as st

from workloadbuilder._gorender import _go_float_v, _go_json_float


def _digits(f: float) -> tuple[str, int]:
    """The shortest digits of ``abs(f)`` and the decimal exponent of the first one."""
    _, digits, exponent = Decimal(repr(abs(f))).normalize().as_tuple()
    assert isinstance(exponent, int)
    return "".join(map(str, digits)), len(digits) + exponent - 1


def _layout(digits: str, exponent: int, *, scientific: bool) -> str:
    if scientific:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    point = exponent + 1
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def expected(f: float, *, for_json: bool) -> str:
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, f) < 0 else ""
    if f == 0:
        return sign + "0"
    digits, exponent = _digits(f)
    if for_json:
        text = _layout(digits, exponent, scientific=abs(f) < 1e-6 or abs(f) >= 1e21)
        return sign + (text.replace("e-0", "e-") if text[-3:-1] == "-0" else text)
    return sign + _layout(digits, exponent, scientific=exponent < -4 or exponent >= 6)


_BITS = st.integers(0, 2**64 - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0])


@given(st.one_of(st.floats(), _BITS))
@example(0.0)
@example(-0.0)
@example(math.nan)
@example(math.inf)
@example(-math.inf)
@example(5e-324)
@example(1e-4)
@example(1e-5)
@example(1e-6)
@example(9.99e-7)
@example(1e-7)
@example(123456.0)
@example(999999.0)
@example(1e6)
@example(1e20)
@example(1e21)
@example(-1e21)
@example(1e100)
@example(1.7976931348623157e308)
def test_go_float_formatting_follows_gos_rules(f: float) -> None:
    assert _go_float_v(f) == expected(f, for_json=False)
    assert _go_json_float(f) == expected(f, for_json=True)
