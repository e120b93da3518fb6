"""Request bodies to plain JSON values, refusing what the API server cannot decode or store.

JSON and YAML come out as dicts, lists, strings, booleans, ``None``, finite floats and
integers that fit an ``int64``. Everything else is an :class:`DecodeError` naming what was
wrong: ``NaN``/``Infinity``, integers past ``int64`` (or too long to parse), nesting deeper
than :data:`MAX_DEPTH`, YAML tags other than the JSON ones, recursive YAML aliases and alias
expansion beyond :data:`MAX_EXPANDED_NODES`, and YAML keys that are not scalars. Timestamps
written as YAML scalars stay strings, and integer, boolean and float keys become strings, as
``sigs.k8s.io/yaml`` converts them.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

import yaml

from workloadbuilder.testing.rules.errors import go_quote

MAX_DEPTH: Final = 100
"""Deepest nesting accepted (the API server's JSON decoder stops at 10,000)."""
MAX_EXPANDED_NODES: Final = 100_000
"""Most YAML nodes a body may expand to through aliases."""
_INT64: Final = (-(2**63), 2**63 - 1)
_MAX_INT_DIGITS: Final = 20


class DecodeError(ValueError):
    """A body that is not a JSON value the API server would accept; the text says why."""


# -- JSON ---------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON (Go's decoder names the letter)."""
    if name.startswith("-"):
        raise DecodeError("invalid character 'I' in numeric literal")
    raise DecodeError(f"invalid character '{name[0]}' looking for beginning of value")


def _parse_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > _MAX_INT_DIGITS or not _INT64[0] <= int(text) <= _INT64[1]:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise DecodeError(f"cannot unmarshal number {shown} into Go value of type int64")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise DecodeError(f"cannot unmarshal number {shown} into Go value of type float64")
    return value


def _from_json(body: bytes | str) -> Any:
    try:
        return json.loads(
            body, parse_constant=_reject_constant, parse_int=_parse_int, parse_float=_parse_float
        )
    except RecursionError:
        raise DecodeError("exceeded max depth") from None


def _go_char(char: str) -> str:
    """Go's ``quoteChar``: the character in single quotes, escaped as ``strconv.Quote`` does."""
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    return f"'{go_quote(char)[1:-1]}'"


_LITERALS = {"t": "true", "f": "false", "n": "null"}
_HEX = frozenset("0123456789abcdefABCDEF")


def _bad_value(text: str, pos: int) -> str:
    """Go's words for a value that does not start right: a literal or a number cut short."""
    literal = _LITERALS.get(text[pos])
    if literal is not None:
        for i, expected in enumerate(literal):
            if pos + i >= len(text):
                return "unexpected end of JSON input"
            if text[pos + i] != expected:
                found, wanted = _go_char(text[pos + i]), _go_char(expected)
                return f"invalid character {found} in literal {literal} (expecting {wanted})"
    if text[pos] == "-":
        if pos + 1 >= len(text):
            return "unexpected end of JSON input"
        return f"invalid character {_go_char(text[pos + 1])} in numeric literal"
    return f"invalid character {_go_char(text[pos])} looking for beginning of value"


def _innermost(text: str, pos: int) -> str:
    """The kind of container open at ``pos`` (``{`` or ``[``), strings skipped."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text[:pos]:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else ""


def go_syntax_error(text: str, exc: json.JSONDecodeError) -> str:
    """The error Go's ``encoding/json`` scanner reports where Python's decoder stopped."""
    if exc.pos >= len(text) or exc.msg.startswith("Unterminated string"):
        return "unexpected end of JSON input"
    char = _go_char(text[exc.pos])
    if exc.msg.startswith("Expecting property name"):
        return f"invalid character {char} looking for beginning of object key string"
    if exc.msg.startswith("Expecting ':'"):
        return f"invalid character {char} after object key"
    if exc.msg.startswith("Expecting ','"):
        where = "object key:value pair" if _innermost(text, exc.pos) == "{" else "array element"
        return f"invalid character {char} after {where}"
    if exc.msg.startswith("Extra data"):
        return f"invalid character {char} after top-level value"
    if exc.msg.startswith("Invalid control character"):
        return f"invalid character {char} in string literal"
    if exc.msg.startswith("Invalid \\uXXXX"):
        digits = text[exc.pos + 1 : exc.pos + 5]
        bad = next((c for c in digits if c not in _HEX), None)
        if bad is None or (len(digits) < 4 and all(c in _HEX for c in digits)):
            return "unexpected end of JSON input"
        return f"invalid character {_go_char(bad)} in \\u hexadecimal character escape"
    if exc.msg.startswith("Invalid \\escape"):
        return f"invalid character {_go_char(text[exc.pos + 1])} in string escape code"
    return _bad_value(text, exc.pos)


# -- YAML ---------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """A safe loader for JSON-compatible YAML: timestamps stay strings, other tags fail."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_JSON_TAGS: Final = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq")
)


def _unsupported_tag(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    raise DecodeError(f"yaml: the tag {node.tag} is not supported: use plain JSON values")


for _tag in ("binary", "set", "omap", "pairs", "timestamp"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _unsupported_tag)
_Loader.add_constructor(None, _unsupported_tag)  # any other tag, e.g. !custom


def _check_nodes(root: yaml.Node) -> None:
    """Refuse recursive aliases and bodies that expand past :data:`MAX_EXPANDED_NODES`."""
    sizes: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            active.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_EXPANDED_NODES:
                raise DecodeError("yaml: document contains excessive aliasing")
            continue
        if key in sizes:
            continue
        if key in active:
            raise DecodeError("yaml: anchor value contains itself")
        active.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))
        if len(active) > MAX_DEPTH + 1:
            raise DecodeError("exceeded max depth")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _from_yaml(body: bytes | str) -> Any:
    try:
        loader = _Loader(body)
    except yaml.YAMLError as exc:
        raise DecodeError(f"yaml: {_one_line(exc)}") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node)
        if node.tag not in _JSON_TAGS:
            _unsupported_tag(loader, node)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise DecodeError(f"yaml: {_one_line(exc)}") from None
    except DecodeError:
        raise
    except (ValueError, TypeError) as exc:  # int() of thousands of digits, unhashable keys
        raise DecodeError(f"yaml: {exc}") from None
    finally:
        loader.dispose()


def _one_line(exc: yaml.YAMLError) -> str:
    return " ".join(str(exc).split())


# -- JSON values --------------------------------------------------------------------------


def _key(key: Any) -> str:
    """A map key as ``sigs.k8s.io/yaml`` writes it to JSON."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float) and math.isfinite(key):
        return repr(key)
    raise DecodeError(f"unsupported map key of type: {type(key).__name__}, key: {key!r}")


def json_value(value: Any) -> Any:
    """``value`` as plain JSON (a new structure), or :class:`DecodeError`."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]
    while stack:
        item, parent, slot, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DecodeError("exceeded max depth")
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            parent[slot] = out
            for k, v in item.items():
                name = _key(k)
                out[name] = None
                stack.append((v, out, name, depth + 1))
        elif isinstance(item, list):
            items: list[Any] = [None] * len(item)
            parent[slot] = items
            stack.extend((v, items, i, depth + 1) for i, v in enumerate(item))
        elif isinstance(item, bool) or item is None or isinstance(item, str):
            parent[slot] = item
        elif isinstance(item, int):
            if not _INT64[0] <= item <= _INT64[1]:
                raise DecodeError("cannot unmarshal number into Go value of type int64")
            parent[slot] = item
        elif isinstance(item, float):
            if not math.isfinite(item):
                shown = "NaN" if math.isnan(item) else ("+Inf" if item > 0 else "-Inf")
                raise DecodeError(f"json: unsupported value: {shown}")
            parent[slot] = item
        else:
            raise DecodeError(f"unsupported value of type {type(item).__name__}")
    return root[0]


def decode(body: bytes | str | Any, *, yaml_ok: bool) -> Any:
    """A request body as a JSON value: JSON, or (when ``yaml_ok``) YAML; an object as given."""
    if not isinstance(body, bytes | str):
        return json_value(body)
    try:
        return json_value(_from_json(body))
    except DecodeError:
        raise
    except json.JSONDecodeError as exc:
        if not yaml_ok:
            text = body.decode(errors="replace") if isinstance(body, bytes) else body
            raise DecodeError(go_syntax_error(text, exc)) from None
    except ValueError as exc:
        if not yaml_ok:
            raise DecodeError(str(exc)) from None
    return json_value(_from_yaml(body))


def summarize(body: bytes | str | Any) -> str:
    """The start of a body as the API server quotes it in decoding errors."""
    data = body.encode() if isinstance(body, str) else body
    if not isinstance(data, bytes):
        data = json.dumps(body).encode()
    if not data:
        return "<empty>"
    if data[:1] == b"{":
        return data[:30].decode(errors="replace") + (" ..." if len(data) > 30 else "")
    return data[:30].hex() + (" ..." if len(data) > 30 else "")
