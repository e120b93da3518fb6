"""Functions that make fresh copies of one JSON document fast: its literal, compiled once.

A controller stamps thousands of objects from one template, and each ``to_dict()`` is a deep
copy of the same JSON but for a name. Copying it value by value costs several times what
building it from a literal costs, so the stamping compiles the literal, once per template.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Any

__all__ = ["JsonFactory", "json_factory"]

JsonFactory = Callable[[dict[str, Any]], dict[str, Any]]
"""Given an input document, a fresh copy of the sample with the input's values at the holes."""

_Path = tuple[str | int, ...]


class _NotLiteral(Exception):
    """The sample holds a value that is not a plain JSON literal."""


def json_factory(sample: dict[str, Any], holes: Collection[_Path]) -> JsonFactory | None:
    """A function of ``data`` that returns a fresh deep copy of ``sample`` (same keys in the
    same order, same values of the same types) in which the value at each path of ``holes`` is
    ``data``'s value at the same path; ``None`` when ``sample`` holds anything other than exact
    ``dict``, ``list``, ``str``, ``int``, ``bool``, ``None`` and finite ``float`` values (or a
    hole's path is not in it).

    The copy is built by one compiled expression (a flat object of several members copied
    from a private constant), so it shares nothing with ``sample`` or with other copies but
    the immutable scalars."""
    wanted = set(holes)
    # Flat objects of several members are copied from a private constant (a copy of a table
    # is faster than inserting its keys one by one); everything else is a literal.
    constants: dict[str, Any] = {"__builtins__": {}}
    try:
        source = _source(sample, (), wanted, constants)
    except _NotLiteral:
        return None
    if wanted:
        return None
    namespace: dict[str, Any] = {}
    # Only literals, ``data[...]`` lookups and copies of the constants: every key and scalar
    # is an exact ``str`` (or number, bool, None) written with ``repr``, which Python reads
    # back as the same value.
    exec(f"def factory(data):\n    return {source}\n", constants, namespace)
    factory: JsonFactory = namespace["factory"]
    return factory


# Members from which a flat object is copied from a constant rather than written out.
_COPIED_FROM = 4


def _source(value: Any, path: _Path, holes: set[_Path], constants: dict[str, Any]) -> str:
    """The Python expression of ``value`` at ``path`` (holes read from ``data``)."""
    if path in holes:
        holes.discard(path)
        return "data" + "".join(f"[{key!r}]" for key in path)
    kind = type(value)
    if kind is dict:
        parts = []
        flat = len(value) >= _COPIED_FROM and not any(h[: len(path)] == path for h in holes)
        for key, item in value.items():
            if type(key) is not str:
                raise _NotLiteral
            member = _source(item, (*path, key), holes, constants)
            flat = flat and type(item) is not dict and type(item) is not list
            parts.append(f"{key!r}: {member}")
        if flat:
            name = f"_c{len(constants)}"
            constants[name] = dict(value)
            return f"{name}.copy()"
        return "{" + ", ".join(parts) + "}"
    if kind is list:
        items = (_source(item, (*path, i), holes, constants) for i, item in enumerate(value))
        return "[" + ", ".join(items) + "]"
    if kind is str or kind is bool or value is None:
        return repr(value)
    if kind is int:
        try:
            return repr(value)
        except ValueError:  # more digits than the interpreter prints
            raise _NotLiteral from None
    if kind is float and math.isfinite(value):
        return repr(value)
    raise _NotLiteral
