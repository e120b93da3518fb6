"""Go's float formatting (``%v`` and ``encoding/json``) has one implementation; it answers as
the two it replaced did, written out here as they were, on any float64."""

from __future__ import annotations

import math
import re
import struct

from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder import _gorender
from workloadbuilder._gorender import _fmt_e, _fmt_f, _shortest_digits


def _previous_special(f: float) -> str | None:
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    return None


def previous_float_v(f: float) -> str:
    special = _previous_special(f)
    if special is not None:
        return special
    neg = "-" if math.copysign(1.0, f) < 0 else ""
    if f == 0:
        return neg + "0"
    ds, dp = _shortest_digits(f)
    exp = dp - 1
    body = _fmt_e(ds, dp) if exp < -4 or exp >= 6 else _fmt_f(ds, dp)
    return neg + body


def previous_json_float(f: float) -> str:
    special = _previous_special(f)
    if special is not None:
        return special
    neg = "-" if math.copysign(1.0, f) < 0 else ""
    if f == 0:
        return neg + "0"
    ds, dp = _shortest_digits(f)
    a = abs(f)
    if a < 1e-6 or a >= 1e21:
        s = _fmt_e(ds, dp)
        s = re.sub(r"e-0(\d)$", r"e-\1", s)
    else:
        s = _fmt_f(ds, dp)
    return neg + s


_EDGES = [0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, 1e-4, 1e-5, 1e-6, 9.99e-7]
_EDGES += [1e-7, 123456.0, 999999.0, 1e6, 1234567.0, 1e20, 1e21, -1e21, 1.7976931348623157e308]


@given(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(0, 2**64 - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0]),
        st.sampled_from(_EDGES),
    )
)
def test_one_float_formatter_answers_as_the_two_before(f: float) -> None:
    assert _gorender._go_float_v(f) == previous_float_v(f)
    assert _gorender._go_json_float(f) == previous_json_float(f)


def test_edges() -> None:
    for f in _EDGES:
        test_one_float_formatter_answers_as_the_two_before.hypothesis.inner_test(f)
