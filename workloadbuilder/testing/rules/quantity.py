"""``resource.Quantity`` as kube-apiserver reads and writes it: ``ParseQuantity``, then the
canonical text its encoder writes back.

The rules are apimachinery's (``pkg/api/resource``): a quantity remembers its format
(``DecimalSI``, ``BinarySI``, ``DecimalExponent``); values finer than ``1n`` round up (away
from zero); ``BinarySI`` values are capped at ``2**63 - 1``; an ``e`` exponent is read as an
int64 and kept as its low 32 bits (an int32). A text that small enough numbers already write
canonically is kept as sent (``1e3``, ``1Ki``, ``+1``); anything else is written with no
fraction digits and the largest exponent (``1000m`` -> ``1``, ``1024Mi`` -> ``1Gi``). As in
Kubernetes 1.37, a ``DecimalSI`` value whose exponent has no suffix (above ``E``) loses it
(kubernetes/kubernetes#141249: ``1000E`` reads back ``1``), and exponent arithmetic wraps
as int32 does. Values are exact integers times a power of ten; nothing is a float.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Final

DECIMAL_SI: Final = "DecimalSI"
BINARY_SI: Final = "BinarySI"
DECIMAL_EXPONENT: Final = "DecimalExponent"

FORMAT_ERROR: Final = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_ERROR: Final = "unable to parse quantity's suffix"
NUMERIC_ERROR: Final = "unable to parse numeric part of quantity"

_DECIMAL: Final = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15}
_DECIMAL_SUFFIXES: Final = {**_DECIMAL, "E": 18}
_BINARY_SUFFIXES: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT: Final = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT: Final = {e: s for s, e in _BINARY_SUFFIXES.items()}
_DIGITS: Final = frozenset("0123456789")
_SUFFIX_LETTERS: Final = frozenset("eEinumkKMGTP")
_INT64_TEXT: Final = re.compile(r"[+-]?0*([0-9]+)")
_MAX_INT64: Final = 2**63 - 1
_NANO: Final = -9
_MAX_SIGNIFICANT_DIGITS: Final = 18
"""Digits an int64 always holds; longer numbers take the arbitrary-precision path."""


class QuantityError(ValueError):
    """A text ``ParseQuantity`` refuses; ``str()`` is its error's text."""


def _int32(n: int) -> int:
    """``n`` as Go's int32 arithmetic leaves it (the low 32 bits, signed)."""
    return (n + 2**31) % 2**32 - 2**31


def _go_rem(a: int, b: int) -> int:
    """Go's ``a % b``: the remainder takes the dividend's sign."""
    r = abs(a) % b
    return -r if a < 0 else r


# Decimal converts numbers of any length (int() and str() stop at 4300 digits).
def _to_int(digits: str) -> int:
    return int(digits) if len(digits) < 4000 else int(Decimal(digits))


def _to_text(n: int) -> str:
    return str(n) if n.bit_length() < 13000 else str(Decimal(n))


def _strip(n: int, base: int) -> tuple[int, int]:
    """``n`` without its factors of ``base``, and how many there were (``n`` non-zero)."""
    times = 0
    while n % base == 0:
        n //= base
        times += 1
    return n, times


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: (negative, the number as written, integer digits without
    leading zeros, fraction digits, suffix)."""
    pos, end = 0, len(text)
    negative = False
    if text[:1] in ("+", "-"):
        negative = text[0] == "-"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos == end:
        return negative, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos == end:
        return negative, text, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos == end:
            return negative, text, num, denom, ""
    number, suffix_start = text[:pos], pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_ERROR)
    return negative, number, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """The suffix's base, exponent and format."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    match = _INT64_TEXT.fullmatch(suffix[1:]) if suffix[:1] in ("e", "E") else None
    if match is not None and len(match[1]) <= 19:
        exponent = int(suffix[1:])
        if -(2**63) <= exponent <= _MAX_INT64:
            return 10, _int32(exponent), DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_ERROR)


@dataclass(frozen=True)
class Quantity:
    """A parsed quantity: ``unscaled * 10**exponent`` in ``format``.

    ``text`` is the input when it is kept as the canonical text; ``small`` says the value took
    the int64 path (whose canonical form is computed with int64 arithmetic).
    """

    unscaled: int
    exponent: int
    format: str
    text: str | None = None
    small: bool = True

    @property
    def value(self) -> Fraction:
        """The exact value (mind huge exponents: ``10**exponent`` is computed)."""
        return Fraction(self.unscaled) * Fraction(10) ** self.exponent

    def canonical(self) -> str:
        """The text the API server writes back (``Quantity.String``)."""
        if self.text is not None:
            return self.text
        if self.unscaled == 0:
            return "0"
        if self.format == BINARY_SI:
            whole = self._whole()
            if whole is not None and abs(self.value) >= 1024:
                mantissa, times = _strip(abs(whole), 1024)
                sign = "-" if whole < 0 else ""
                return f"{sign}{mantissa}{_BINARY_BY_EXPONENT.get(times * 10, '')}"
        mantissa, exponent = self._base10()
        if self.format == DECIMAL_EXPONENT:
            suffix = f"e{exponent}" if exponent else ""
        else:
            suffix = _DECIMAL_BY_EXPONENT.get(exponent, "")
        return f"{_to_text(mantissa)}{suffix}"

    def _whole(self) -> int | None:
        """The value as an integer when it is one (BinarySI exponents are small)."""
        if self.exponent >= 0:
            return int(self.unscaled * 10**self.exponent)
        whole, rest = divmod(abs(self.unscaled), 10**-self.exponent)
        return None if rest else (whole if self.unscaled > 0 else -whole)

    def _base10(self) -> tuple[int, int]:
        """The mantissa without trailing zeros and an exponent that is a multiple of 3."""
        magnitude, times = _strip(abs(self.unscaled), 10)
        exponent = _int32(_int32(self.exponent) + times)
        if self.small:
            # one step of 10 or 100, back to the general path if the int64 would overflow
            step = {1: 1, -2: 1, 2: 2, -1: 2}.get(_go_rem(exponent, 3), 0)
            if magnitude * 10**step <= _MAX_INT64:
                magnitude, exponent = magnitude * 10**step, _int32(exponent - step)
                return (magnitude if self.unscaled > 0 else -magnitude), exponent
        while _go_rem(exponent, 3):
            magnitude, exponent = magnitude * 10, _int32(exponent - 1)
        return (magnitude if self.unscaled > 0 else -magnitude), exponent


def parse(text: str) -> Quantity:
    """``resource.ParseQuantity(text)``; :class:`QuantityError` with its message if refused."""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return Quantity(0, 0, DECIMAL_SI, text)
    negative, number, num, denom, suffix = _scan(text)
    base, exponent, form = _interpret(suffix)
    precision, scale, factor = -1, 0, 1
    if form != BINARY_SI:
        scale, precision = exponent, _MAX_SIGNIFICANT_DIGITS - len(num) - len(denom)
    elif not denom:
        factor, precision = 1 << exponent, 15 - len(num) - exponent * 3 // 10 - 1
    if precision >= 0:
        scale = _int32(scale - len(denom))
        shifted = num + denom
        amount = int(shifted) * factor
        if scale >= _NANO and amount <= _MAX_INT64:
            if form == BINARY_SI:
                kept = int(shifted) & 7 != 0
            else:
                kept = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
            return Quantity(-amount if negative else amount, scale, form, text if kept else None)
    return _parse_large(negative, number, num, denom, base, exponent, form)


def _parse_large(
    negative: bool, number: str, num: str, denom: str, base: int, exponent: int, form: str
) -> Quantity:
    """The arbitrary-precision path: round up to ``1n``, cap ``BinarySI`` at ``2**63 - 1``."""
    if not any(c in _DIGITS for c in number):
        raise QuantityError(NUMERIC_ERROR)
    digits = (num + denom).lstrip("0")
    unscaled = _to_int(digits or "0")
    scale = len(denom) if "." in number else 0  # inf.Dec's scale: value = unscaled / 10**scale
    if base == 10:
        scale = _int32(scale + _int32(-exponent))
    else:
        unscaled <<= exponent
        digits = _to_text(unscaled)
    if unscaled and scale > -_NANO:
        places = scale + _NANO
        if places > len(digits):
            unscaled = 1
        else:
            whole, rest = divmod(unscaled, 10**places)
            unscaled = whole + (1 if rest else 0)
        scale = -_NANO
    if form == BINARY_SI and unscaled > _MAX_INT64 * 10**scale:
        unscaled, scale = _MAX_INT64, 0
    if form == BINARY_SI and 0 < unscaled < 10**scale:
        form = DECIMAL_SI
    return Quantity(-unscaled if negative else unscaled, -scale, form, small=False)
