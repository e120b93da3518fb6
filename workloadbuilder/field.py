"""Field paths and field errors with the behaviour of apimachinery's ``validation/field`` package.

``FieldPath`` mirrors ``field.Path``, ``FieldError`` mirrors ``field.Error`` (same types, same
rendering), and ``ErrorList`` mirrors ``field.ErrorList``, plus the two things a Python controller
needs around it: a ``metav1.Status`` for an admission webhook (``ErrorList.to_status``) and the
conversion of a pydantic ``ValidationError`` into errors at the controller's own paths
(``ErrorList.from_pydantic``). See ``docs/field-errors.md``.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, SupportsIndex, TypeVar, overload

from ._gorender import go_quote, render_value, sprint

if TYPE_CHECKING:
    import pydantic

__all__ = [
    "OMIT_VALUE",
    "ErrorList",
    "ErrorType",
    "FieldError",
    "FieldPath",
    "PathLike",
    "child_path",
    "parse_model",
    "render_value",
]

# --------------------------------------------------------------------------------------------
# FieldPath
# --------------------------------------------------------------------------------------------

_NAME: Final = 0
_SUB: Final = 1

_Elem = tuple[int, str]


class FieldPath:
    """An immutable path from a root to a field, as apimachinery's ``field.Path``.

    ``FieldPath("spec", "replicaSpecs").key("Worker").child("scheduling")`` renders as
    ``spec.replicaSpecs[Worker].scheduling``. Index and key subscripts are the same element
    (``.index(0) == .key("0")``), as in Go. Paths are hashable, ordered and render once.
    """

    __slots__ = ("_elems", "_hash", "_str")

    _elems: tuple[_Elem, ...]
    _str: str
    _hash: int

    def __init__(self, name: str, *more_names: str) -> None:
        elems = tuple(_name_elem(n) for n in (name, *more_names))
        self._init(elems, _render(elems))

    def _init(self, elems: tuple[_Elem, ...], rendered: str) -> None:
        object.__setattr__(self, "_elems", elems)
        object.__setattr__(self, "_str", rendered)
        object.__setattr__(self, "_hash", hash(elems))

    @classmethod
    def _make(cls, elems: tuple[_Elem, ...], rendered: str) -> FieldPath:
        p = cls.__new__(cls)
        p._init(elems, rendered)
        return p

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("FieldPath is immutable")

    def child(self, name: str, *more_names: str) -> FieldPath:
        """The path of a field below this one (several names descend several levels)."""
        elems = self._elems
        s = self._str
        for n in (name, *more_names):
            e = _name_elem(n)
            elems = (*elems, e)
            s = s + "." + n if e[0] == _NAME else s + "[" + e[1] + "]"
        return FieldPath._make(elems, s)

    def index(self, index: int) -> FieldPath:
        """This path subscripted by a list index: ``spec.podGroupTemplates[0]``."""
        i = str(int(index))
        return FieldPath._make((*self._elems, (_SUB, i)), self._str + "[" + i + "]")

    def key(self, key: str) -> FieldPath:
        """This path subscripted by a map key, rendered without quotes: ``labels[app]``."""
        return FieldPath._make((*self._elems, (_SUB, key)), self._str + "[" + key + "]")

    def root(self) -> FieldPath:
        """The first element of this path."""
        first = self._elems[:1]
        return FieldPath._make(first, _render(first))

    @property
    def parent(self) -> FieldPath | None:
        """This path without its last element, or ``None`` for a root."""
        if len(self._elems) == 1:
            return None
        elems = self._elems[:-1]
        return FieldPath._make(elems, _render(elems))

    @property
    def elements(self) -> tuple[str | int, ...]:
        """Names as ``str`` and subscripts as ``int`` when numeric, else as ``[key]`` strings."""
        out: list[str | int] = []
        for kind, value in self._elems:
            if kind == _NAME:
                out.append(value)
            elif _INT_RE.fullmatch(value):
                out.append(int(value))
            else:
                out.append("[" + value + "]")
        return tuple(out)

    @classmethod
    def parse(cls, text: str) -> FieldPath:
        """Parse a rendered path such as ``spec.a[0].b[key]`` back into a ``FieldPath``.

        Names are separated by ``.``; a subscript runs from ``[`` to the next ``]``. Names that
        themselves contain ``.`` or ``[`` cannot be told apart from structure (as in Go's
        rendering), so such paths do not round-trip.
        """
        if not text:
            raise ValueError("cannot parse an empty field path")
        elems: list[_Elem] = []
        i, n = 0, len(text)
        expect_name = not text.startswith("[")
        while i < n:
            c = text[i]
            if c == "[":
                end = text.find("]", i + 1)
                if end < 0:
                    raise ValueError(f"unterminated subscript in field path {text!r}")
                elems.append((_SUB, text[i + 1 : end]))
                i = end + 1
                expect_name = False
            elif c == ".":
                if not elems or i + 1 >= n or text[i + 1] in ".[":
                    raise ValueError(f"empty name in field path {text!r}")
                i += 1
                expect_name = True
            else:
                if not expect_name:
                    raise ValueError(f"expected '.' or '[' at offset {i} in field path {text!r}")
                j = i
                while j < n and text[j] not in ".[":
                    j += 1
                elems.append((_NAME, text[i:j]))
                i = j
                expect_name = False
        t = tuple(elems)
        return cls._make(t, _render(t))

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return f"FieldPath.parse({self._str!r})"

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldPath):
            return NotImplemented
        return self._elems == other._elems

    def __lt__(self, other: FieldPath) -> bool:
        if not isinstance(other, FieldPath):
            return NotImplemented
        return self._elems < other._elems

    def __le__(self, other: FieldPath) -> bool:
        if not isinstance(other, FieldPath):
            return NotImplemented
        return self._elems <= other._elems

    def __gt__(self, other: FieldPath) -> bool:
        if not isinstance(other, FieldPath):
            return NotImplemented
        return self._elems > other._elems

    def __ge__(self, other: FieldPath) -> bool:
        if not isinstance(other, FieldPath):
            return NotImplemented
        return self._elems >= other._elems

    def __len__(self) -> int:
        return len(self._elems)

    def __reduce__(self) -> tuple[Callable[..., FieldPath], tuple[Any, ...]]:
        return (FieldPath._make, (self._elems, self._str))


_INT_RE = re.compile(r"-?[0-9]+")


def _name_elem(name: str) -> _Elem:
    if not isinstance(name, str):
        raise TypeError(f"field path names must be str, got {type(name).__name__}")
    # As in Go, an empty name is indistinguishable from an empty subscript.
    return (_NAME, name) if name else (_SUB, "")


def _render(elems: tuple[_Elem, ...]) -> str:
    parts: list[str] = []
    for i, (kind, value) in enumerate(elems):
        if kind == _NAME:
            parts.append("." + value if i else value)
        else:
            parts.append("[" + value + "]")
    return "".join(parts)


def child_path(path: FieldPath | None, *names: str) -> FieldPath:
    """``path`` extended by ``names``; the names alone for a missing path."""
    return FieldPath(*names) if path is None else path.child(*names)


PathLike = FieldPath | str | None
"""What the ``FieldError`` constructors accept as a path: a ``FieldPath``, an already rendered
path string, or ``None`` (apimachinery's nil path, rendered ``<nil>``)."""


def _bound(limit: int, phrase: str, unit: str, unbounded: str) -> str:
    """The detail of a length or count bound, as apimachinery words it (``unbounded`` when the
    limit is negative: unknown)."""
    if limit < 0:
        return unbounded
    return f"{phrase} {limit} {unit if limit == 1 else unit + 's'}"


def _path_str(path: PathLike) -> str:
    if path is None:
        return "<nil>"
    if isinstance(path, FieldPath):
        return path._str
    if isinstance(path, str):
        return path
    raise TypeError(f"path must be a FieldPath, a str or None, got {type(path).__name__}")


# --------------------------------------------------------------------------------------------
# ErrorType
# --------------------------------------------------------------------------------------------


class ErrorType(str, enum.Enum):  # noqa: UP042 (str() is the human text, not the value)
    """Why a field is invalid. ``.value`` is the machine reason (the ``StatusCause`` reason);
    ``str()`` and ``.description`` give apimachinery's human text."""

    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    TOO_FEW = "FieldValueTooFew"
    TOO_SHORT = "FieldValueTooShort"
    INTERNAL = "InternalError"
    TYPE_INVALID = "FieldValueTypeInvalid"

    @property
    def description(self) -> str:
        """The canonical human text, e.g. ``Invalid value``."""
        return _DESCRIPTIONS[self]

    def __str__(self) -> str:
        return _DESCRIPTIONS[self]

    def __format__(self, format_spec: str) -> str:
        return format(_DESCRIPTIONS[self], format_spec)


_DESCRIPTIONS: Final[dict[ErrorType, str]] = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.TOO_FEW: "Too few",
    ErrorType.TOO_SHORT: "Too short",
    ErrorType.INTERNAL: "Internal error",
    ErrorType.TYPE_INVALID: "Invalid value",
}

# Types whose rendering never shows the bad value.
_VALUELESS: Final = frozenset(
    {
        ErrorType.REQUIRED,
        ErrorType.FORBIDDEN,
        ErrorType.TOO_LONG,
        ErrorType.TOO_SHORT,
        ErrorType.INTERNAL,
    }
)


class _OmitValue:
    __slots__ = ()

    def __repr__(self) -> str:
        return "OMIT_VALUE"

    def __reduce__(self) -> str:
        return "OMIT_VALUE"


OMIT_VALUE: Final = _OmitValue()
"""A ``bad_value`` that is never rendered (apimachinery's ``omitValue``)."""


# --------------------------------------------------------------------------------------------
# FieldError
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldError:
    """One field-level validation error, rendered exactly as apimachinery's ``field.Error``.

    ``field`` is the rendered path (``<nil>`` for a nil path). ``str(err)`` is
    ``<field>: <error_body()>``.
    """

    type: ErrorType
    field: str
    bad_value: Any = dataclasses.field(default=None, hash=False)
    detail: str = ""
    origin: str = ""
    covered_by_declarative: bool = False

    # -- constructors, one per apimachinery helper --------------------------------------------

    @classmethod
    def required(cls, path: PathLike, detail: str = "") -> FieldError:
        """A required value is missing (``Required value[: detail]``)."""
        return cls(ErrorType.REQUIRED, _path_str(path), "", detail)

    @classmethod
    def invalid(cls, path: PathLike, value: Any, detail: str) -> FieldError:
        """A malformed or out-of-range value (``Invalid value: <value>: detail``)."""
        return cls(ErrorType.INVALID, _path_str(path), value, detail)

    @classmethod
    def type_invalid(cls, path: PathLike, value: Any, detail: str) -> FieldError:
        """A value of the wrong type for its schema (renders as ``Invalid value``)."""
        return cls(ErrorType.TYPE_INVALID, _path_str(path), value, detail)

    @classmethod
    def not_supported(cls, path: PathLike, value: Any, valid_values: Iterable[Any]) -> FieldError:
        """A value outside an enumeration; ``valid_values`` are listed quoted, in given order."""
        quoted = [go_quote(sprint(v)) for v in valid_values]
        detail = "supported values: " + ", ".join(quoted) if quoted else ""
        return cls(ErrorType.NOT_SUPPORTED, _path_str(path), value, detail)

    @classmethod
    def forbidden(cls, path: PathLike, detail: str = "") -> FieldError:
        """A well-formed value that is not permitted here (``Forbidden[: detail]``)."""
        return cls(ErrorType.FORBIDDEN, _path_str(path), "", detail)

    @classmethod
    def too_long(cls, path: PathLike, value: Any = None, max_length: int = -1) -> FieldError:
        """A string longer than ``max_length`` bytes; the value itself is never shown."""
        detail = _bound(max_length, "may not be more than", "byte", "value is too long")
        return cls(ErrorType.TOO_LONG, _path_str(path), "<value omitted>", detail)

    @classmethod
    def too_short(cls, path: PathLike, value: Any, min_length: int) -> FieldError:
        """A string shorter than ``min_length`` characters."""
        detail = _bound(min_length, "must be at least", "character", "value is too short")
        return cls(ErrorType.TOO_SHORT, _path_str(path), value, detail)

    @classmethod
    def too_many(cls, path: PathLike, actual: int, max_items: int) -> FieldError:
        """A list with more than ``max_items`` items (``Too many: <actual>: ...``)."""
        detail = _bound(max_items, "must have at most", "item", "has too many items")
        bad: Any = actual if actual >= 0 else OMIT_VALUE
        return cls(ErrorType.TOO_MANY, _path_str(path), bad, detail)

    @classmethod
    def too_few(cls, path: PathLike, actual: int, min_items: int) -> FieldError:
        """A list with fewer than ``min_items`` items."""
        detail = _bound(min_items, "must have at least", "item", "has too few items")
        return cls(ErrorType.TOO_FEW, _path_str(path), actual, detail)

    @classmethod
    def duplicate(cls, path: PathLike, value: Any) -> FieldError:
        """A value that must be unique appears again (``Duplicate value: <value>``)."""
        return cls(ErrorType.DUPLICATE, _path_str(path), value)

    @classmethod
    def not_found(cls, path: PathLike, value: Any) -> FieldError:
        """A referenced value does not exist (``Not found: <value>``)."""
        return cls(ErrorType.NOT_FOUND, _path_str(path), value)

    @classmethod
    def internal(cls, path: PathLike, detail: str | BaseException) -> FieldError:
        """An error not caused by user input (``Internal error: detail``)."""
        return cls(ErrorType.INTERNAL, _path_str(path), None, str(detail))

    # -- behaviour ----------------------------------------------------------------------------

    def error_body(self) -> str:
        """The message without the field, as ``StatusCause.message`` carries it."""
        t = self.type
        if t in _VALUELESS or self.bad_value is OMIT_VALUE:
            s = _DESCRIPTIONS[t]
        else:
            s = _DESCRIPTIONS[t] + ": " + render_value(self.bad_value)
        if self.detail:
            s += ": " + self.detail
        return s

    def __str__(self) -> str:
        return self.field + ": " + self.error_body()

    def with_origin(self, origin: str) -> FieldError:
        """A copy with ``origin`` set (e.g. ``minimum``, ``format=k8s-short-name``)."""
        return dataclasses.replace(self, origin=origin)

    def mark_covered_by_declarative(self) -> FieldError:
        """A copy marked as also reported by declarative validation."""
        return dataclasses.replace(self, covered_by_declarative=True)

    def with_field(self, path: PathLike) -> FieldError:
        """A copy of this error at another path."""
        return dataclasses.replace(self, field=_path_str(path))


# --------------------------------------------------------------------------------------------
# ErrorList
# --------------------------------------------------------------------------------------------


class ErrorList(list[FieldError]):
    """A list of ``FieldError`` (a real ``list``), with apimachinery's aggregate rendering.

    ``str()`` is the aggregate message: empty for no error, the error itself for one, and
    ``[a, b]`` (duplicates dropped) for several.
    """

    __slots__ = ()

    @overload
    def __getitem__(self, index: SupportsIndex) -> FieldError: ...

    @overload
    def __getitem__(self, index: slice) -> ErrorList: ...

    def __getitem__(self, index: SupportsIndex | slice) -> FieldError | ErrorList:
        if isinstance(index, slice):
            return ErrorList(super().__getitem__(index))
        return super().__getitem__(index)

    def __add__(self, other: Iterable[FieldError]) -> ErrorList:  # type: ignore[override]
        out = ErrorList(self)
        out.extend(other)
        return out

    def __iadd__(self, other: Iterable[FieldError]) -> ErrorList:  # type: ignore[override]
        self.extend(other)
        return self

    def copy(self) -> ErrorList:
        return ErrorList(self)

    def __repr__(self) -> str:
        return f"ErrorList({list.__repr__(self)})"

    def __str__(self) -> str:
        msgs = list(dict.fromkeys(str(e) for e in self))
        if not msgs:
            return ""
        if len(msgs) == 1:
            return msgs[0]
        return "[" + ", ".join(msgs) + "]"

    # -- helpers ------------------------------------------------------------------------------

    def of_type(self, *types: ErrorType) -> ErrorList:
        """The errors of the given types."""
        wanted = set(types)
        return ErrorList(e for e in self if e.type in wanted)

    def without_type(self, *types: ErrorType) -> ErrorList:
        """The errors not of the given types (Go's ``Filter(NewErrorTypeMatcher(...))``)."""
        unwanted = set(types)
        return ErrorList(e for e in self if e.type not in unwanted)

    def by_field(self) -> dict[str, ErrorList]:
        """The errors grouped by rendered field, in first-seen order."""
        out: dict[str, ErrorList] = {}
        for e in self:
            out.setdefault(e.field, ErrorList()).append(e)
        return out

    def with_origin(self, origin: str) -> ErrorList:
        """A copy with every error's ``origin`` set."""
        return ErrorList(e.with_origin(origin) for e in self)

    def mark_covered_by_declarative(self) -> ErrorList:
        """A copy with every error marked as covered by declarative validation."""
        return ErrorList(e.mark_covered_by_declarative() for e in self)

    def prefix_detail(self, prefix: str) -> ErrorList:
        """A copy with ``prefix`` prepended to every error's detail."""
        return ErrorList(dataclasses.replace(e, detail=prefix + e.detail) for e in self)

    def extract_covered_by_declarative(self) -> ErrorList:
        """The errors marked as covered by declarative validation."""
        return ErrorList(e for e in self if e.covered_by_declarative)

    def remove_covered_by_declarative(self) -> ErrorList:
        """The errors not marked as covered by declarative validation."""
        return ErrorList(e for e in self if not e.covered_by_declarative)

    # -- Status -------------------------------------------------------------------------------

    def to_status(self, *, kind: str = "", group: str = "", name: str = "") -> dict[str, Any]:
        """The ``metav1.Status`` an API server answers for these errors (HTTP 422, ``Invalid``).

        ``kind``/``group``/``name`` identify the rejected object; empty keys are omitted as the
        server omits them. An admission webhook can return the dict as its ``status``.
        """
        qualified = f"{kind}.{group}" if group else kind
        message = f"{qualified} {go_quote(name)} is invalid"
        aggregate = str(self)
        if aggregate:
            message += ": " + aggregate
        details: dict[str, Any] = {}
        if name:
            details["name"] = name
        if group:
            details["group"] = group
        if kind:
            details["kind"] = kind
        causes: list[dict[str, str]] = []
        for e in self:
            cause = {"reason": e.type.value}
            body = e.error_body()
            if body:
                cause["message"] = body
            if e.field:
                cause["field"] = e.field
            causes.append(cause)
        if causes:
            details["causes"] = causes
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": "Invalid",
            "details": details,
            "code": 422,
        }

    # -- pydantic -----------------------------------------------------------------------------

    @classmethod
    def from_pydantic(
        cls,
        exc: pydantic.ValidationError,
        root_path: FieldPath | None = None,
        *,
        aliases: bool = True,
        model: type[Any] | None = None,
    ) -> ErrorList:
        """Field errors for a pydantic ``ValidationError``, at paths below ``root_path``.

        Each error's ``loc`` becomes a path: ints are indexes, strings are field names (or map
        keys where ``model`` says the field is a mapping). With ``aliases`` (pydantic's default
        ``loc_by_alias``) the names are used as reported; otherwise snake_case names are turned
        into lowerCamelCase. ``model`` (the validated class, defaulting to none) makes the mapping
        exact: keys, union tags and allowed enum values are read from its annotations. The
        mapping of error kinds is documented in ``docs/field-errors.md``.
        """
        from ._pydantic_errors import convert_pydantic_error, loc_to_path  # on errors only

        out = cls()
        for err in exc.errors(include_url=False):
            loc = tuple(err.get("loc", ()))
            if err.get("type") == "invalid_key" and loc:
                loc = loc[:-1]  # the last element is the bad key: report it at its mapping
            elements, leaf_type = loc_to_path(loc, aliases, model)
            path = root_path
            for is_name, text in elements:
                if path is None:
                    elem = _name_elem(text) if is_name else (_SUB, text)
                    path = FieldPath._make((elem,), _render((elem,)))
                else:
                    path = path.child(text) if is_name else path.key(text)
            constructor, args = convert_pydantic_error(err, leaf_type)
            out.append(getattr(FieldError, constructor)(path, *args))
        return out


_Model = TypeVar("_Model", bound="pydantic.BaseModel")


def parse_model(model: type[_Model], value: object, expected: str) -> _Model:
    """``value`` as ``model``: itself if it is one, else its mapping parsed (pydantic's
    ``ValidationError`` when it does not parse); any other value is a ``TypeError`` that says
    ``expected`` and the type it got."""
    if isinstance(value, model):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"{expected}, not {type(value).__name__}")
    return model.model_validate(value)
