"""The hardened reader of spec files: YAML or JSON, safely, with the line of every path.

UTF-8 only; nesting and YAML aliases are bounded before anything recurses ("billion laughs");
every problem is a :class:`DocumentError` with its line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import yaml

__all__ = [
    "MAX_ALIASED_VALUES",
    "MAX_NESTING",
    "DocumentError",
    "read_documents",
    "read_located",
]

MAX_NESTING = 100
"""The deepest a spec file may nest mappings and lists (a tree of about 45 levels)."""

MAX_ALIASED_VALUES = 100_000
"""How many values YAML aliases may add to a spec file once expanded ("billion laughs")."""


class DocumentError(ValueError):
    """A file that is not a readable YAML stream or JSON document: the 1-based ``line`` and
    ``column`` of the problem (``None`` when unknown) and its one-line ``message``."""

    def __init__(self, line: int, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message

    def located(self, source: str) -> str:
        """``SOURCE:LINE:COLUMN: MESSAGE`` (``SOURCE:LINE: MESSAGE`` without a column)."""
        column = "" if self.column is None else f"{self.column}:"
        return f"{source}:{self.line}:{column} {self.message}"


def read_documents(raw: bytes) -> list[Any]:
    """The documents of a YAML stream, or the one of a JSON file, read safely.

    The file is UTF-8; JSON is read as JSON (which YAML 1.1 reads differently in places: tab
    indentation, escaped surrogate pairs). A file that is not valid YAML or JSON, nests deeper
    than :data:`MAX_NESTING`, contains itself through an alias or expands aliases to more than
    :data:`MAX_ALIASED_VALUES` values raises :class:`DocumentError`.
    """
    text = _decoded(raw)
    document = _json(text)
    if not isinstance(document, _NotJSON):
        return [document]
    try:
        _check_structure(text)
        return list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, text) from None


class _NotJSON:
    pass


def _decoded(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - raw.rfind(b"\n", 0, exc.start)  # in bytes: the line is not text
        message = f"not valid UTF-8: {exc.reason} at byte {exc.start}"
        raise DocumentError(line, message, column) from None


def _json(text: str) -> Any:
    """The JSON document of ``text``, or a ``_NotJSON`` when it is not JSON."""
    try:
        document = json.loads(text)
    except RecursionError:
        raise DocumentError(1, f"nested deeper than {MAX_NESTING} levels") from None
    except ValueError:
        return _NotJSON()
    if _nesting(document) > MAX_NESTING:
        raise DocumentError(1, f"nested deeper than {MAX_NESTING} levels")
    return document


def read_located(raw: bytes) -> tuple[Any, dict[str, int]]:
    """The one document of a file and the 1-based line of each of its paths, read as
    :func:`read_documents` reads it; :class:`DocumentError` when it cannot be."""
    return _read(_decoded(raw))


def _read(text: str) -> tuple[Any, dict[str, int]]:
    """The one document of ``text`` and the line of each of its paths."""
    document = _json(text)
    is_json = not isinstance(document, _NotJSON)
    try:
        _check_structure(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if not is_json:
            document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        if is_json:  # JSON that YAML 1.1 cannot read: no line numbers
            return document, {}
        raise _yaml_error(exc, text) from None
    lines = dict(_node_lines(node, "")) if node is not None else {}
    return document, lines


def _nesting(document: Any) -> int:
    """How deep lists and objects nest in a JSON document (iteratively: any depth)."""
    deepest = 0
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((v, depth) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


def _check_structure(text: str) -> None:
    """Nesting and aliases of a YAML stream, from its events (before anything recurses)."""
    open_nodes: list[list[Any]] = []  # [anchor, values] of each open collection
    sizes: dict[str, int] = {}  # values of each closed anchor
    aliased = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        mark = event.start_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, None)
        size = 0
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_nodes) >= MAX_NESTING:
                raise DocumentError(line, f"nested deeper than {MAX_NESTING} levels", column)
            open_nodes.append([event.anchor, 1])
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, size = open_nodes.pop()
            if anchor is not None:
                sizes[anchor] = size
        elif isinstance(event, yaml.ScalarEvent):
            size = 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            name = event.anchor or ""
            if any(anchor == name for anchor, _ in open_nodes):
                raise DocumentError(
                    line,
                    f"not valid YAML: anchor {name!r} value contains itself (alias *{name})",
                    column,
                )
            size = sizes.get(name, 1)  # an undefined alias is the composer's error
            aliased += size
            if aliased > MAX_ALIASED_VALUES:
                raise DocumentError(
                    line,
                    "not valid YAML: the aliases expand to more than"
                    f" {MAX_ALIASED_VALUES} values (excessive aliasing)",
                    column,
                )
        if size and open_nodes:
            open_nodes[-1][1] += size


def _yaml_error(exc: yaml.YAMLError, text: str) -> DocumentError:
    return DocumentError(*_yaml_problem(exc, text))


def _yaml_problem(exc: yaml.YAMLError, text: str) -> tuple[int, str, int | None]:
    """The line, the one-line description (``not valid YAML: ...``) and the column of a YAML
    error."""
    if isinstance(exc, yaml.reader.ReaderError):
        character = exc.character
        code = character if isinstance(character, int) else ord(character)
        line = text[: exc.position].count("\n") + 1
        column = exc.position - text.rfind("\n", 0, exc.position)
        reason = f"not valid YAML: unacceptable character #x{code:04x}: {exc.reason}"
        return line, reason, column
    mark = getattr(exc, "problem_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, None)
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    problem = ", ".join(p for p in parts if p) or str(exc).splitlines()[0]
    return line, f"not valid YAML: {problem}", column


def _node_lines(node: yaml.Node, prefix: str) -> Iterator[tuple[str, int]]:
    """Each path in a composed YAML document with the 1-based line where it starts."""
    yield prefix, node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = str(key.value)
            path = name if not prefix else f"{prefix}.{name}"
            yield path, key.start_mark.line + 1
            for sub, line in _node_lines(value, path):
                if sub != path:
                    yield sub, line
    elif isinstance(node, yaml.SequenceNode):
        for i, value in enumerate(node.value):
            yield from _node_lines(value, f"{prefix}[{i}]")
