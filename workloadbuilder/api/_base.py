"""The base model of every Kubernetes object and part: camelCase JSON, strict unknown fields."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Self, TypeVar, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import to_jsonable_python

from ._client_models import is_openapi_model, plain_json
from ._json_factory import JsonFactory

__all__ = [
    "DeferredModel",
    "Int32",
    "Int64",
    "K8sModel",
    "K8sUnion",
    "OptList",
    "OptMap",
    "OptTuple",
    "Time",
    "client_json",
    "deferred_json",
    "yaml_document",
]

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

Int32 = Annotated[StrictInt, Field(ge=INT32_MIN, le=INT32_MAX)]
"""A Go ``int32``: an API object cannot hold a value the API server could not decode."""

Int64 = StrictInt
Str = StrictStr
Bool = StrictBool

_T = TypeVar("_T")


def _none_if_empty(value: Any) -> Any:
    return value or None


OptList = Annotated[list[_T] | None, AfterValidator(_none_if_empty)]
"""An ``omitempty`` list: an empty list is held as ``None`` so it is never emitted."""

OptTuple = Annotated[tuple[_T, ...] | None, AfterValidator(_none_if_empty)]
"""An ``omitempty`` list held as a tuple (in frozen building blocks); empty is ``None``."""

OptMap = Annotated[dict[str, _T] | None, AfterValidator(_none_if_empty)]
"""An ``omitempty`` map: an empty map is held as ``None`` so it is never emitted."""


_RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def _time(value: Any) -> datetime:
    """A ``metav1.Time``: an RFC 3339 string (or a ``datetime``), in UTC."""
    if isinstance(value, str):
        if not _RFC3339.fullmatch(value):
            raise ValueError("must be an RFC 3339 timestamp such as 2026-09-20T10:00:00Z")
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a valid date and time") from None
    if not isinstance(value, datetime):
        raise ValueError("must be an RFC 3339 timestamp string such as 2026-09-20T10:00:00Z")
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        raise ValueError("is out of range: years 0001 to 9999 in UTC") from None


def _time_json(value: datetime) -> str:
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
        f"T{value.hour:02d}:{value.minute:02d}:{value.second:02d}Z"
    )


Time = Annotated[
    datetime,
    PlainValidator(_time, json_schema_input_type=str),
    PlainSerializer(_time_json, return_type=str, when_used="json"),
]
"""``metav1.Time``: RFC 3339 in UTC with second precision and ``Z``, as the API server writes
it (``2026-09-20T10:00:00Z``)."""


def client_json(obj: object) -> dict[str, Any] | None:
    """The Kubernetes JSON of ``obj`` when it is a dict, one of our models, an official-client
    model of any release or a lightkube object; ``None`` for anything else. Client models
    inside a dict (an ``V1ObjectMeta`` as ``metadata``) are read as well."""
    if isinstance(obj, Mapping):
        try:
            return dict(plain_json(obj))
        except RecursionError:  # too deep or cyclic: the caller's own copy says so
            return dict(obj)
    if isinstance(obj, K8sModel):
        return obj.to_dict()
    if is_openapi_model(obj) or callable(getattr(obj, "model_dump", None)):
        result = plain_json(obj)
        return dict(result) if isinstance(result, Mapping) else None
    convert = getattr(obj, "to_dict", None)
    if callable(convert):
        result = convert()
        if isinstance(result, Mapping):
            return dict(plain_json(result))
    return None


_PRINTABLE_ASCII = re.compile(r"[ -~]*")


def same_in_both_emitters(doc: Any) -> bool:
    """Whether PyYAML's C and pure emitters write ``doc`` alike: a map or a list, every string
    printable ASCII and no empty key. (They differ on empty or control-character keys, in how
    they fold escaped non-ASCII text, and the C emitter leaves out the ``...`` that ends a lone
    scalar; ``tests/test_yaml_emitter.py`` hunts for more.)"""
    if type(doc) is not dict and type(doc) is not list:
        return False
    stack = [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if not _PRINTABLE_ASCII.fullmatch(value):
                return False
        elif isinstance(value, dict):
            for key in value:
                if not isinstance(key, str) or not key or not _PRINTABLE_ASCII.fullmatch(key):
                    return False
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif not (value is None or isinstance(value, int | float)):
            return False
    return True


def yaml_document(doc: Any) -> str:
    """``yaml.safe_dump(doc, sort_keys=False)``'s bytes, from PyYAML's C emitter when it has
    one and the document is one both emitters write alike. PyYAML is imported on first use."""
    import yaml

    dumper: type[Any] = yaml.SafeDumper
    if hasattr(yaml, "CSafeDumper") and same_in_both_emitters(doc):
        dumper = yaml.CSafeDumper
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False)


class K8sModel(BaseModel):
    """A Kubernetes JSON object: snake_case attributes, camelCase JSON, unknown fields rejected."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        extra="forbid",
        validate_assignment=True,
        revalidate_instances="never",
        # Schemas are built on a model's first use, not at import (about 60 models).
        defer_build=True,
    )

    @classmethod
    def from_server(cls, data: Mapping[str, Any]) -> Self:
        """Parse a document read back from an API server, ignoring fields this SDK does not know.

        A newer server may add fields; a controller must keep working, as client-go does.
        """
        return cls.model_validate(data, extra="ignore")

    def to_dict(self) -> dict[str, Any]:
        """The Kubernetes JSON of this object: camelCase keys, no nulls, no empty lists."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")

    def to_yaml(self) -> str:
        """The object as a YAML document, keys in API order (``yaml.safe_dump``'s bytes)."""
        return yaml_document(self.to_dict())

    if not TYPE_CHECKING:  # pydantic's own signatures for type checkers

        def __setattr__(self, name: str, value: Any) -> None:
            _own_fields_set(self)  # an assignment adds to the set in place
            super().__setattr__(name, value)

        @property
        def model_fields_set(self) -> set[str]:
            """The names of the fields set explicitly (this object's own set)."""
            return _own_fields_set(self)


class _SharedFieldsSet(set[str]):
    """The fields set of validated stamps, one per distinct set of names and shared between
    objects, never changed: an object gets its own copy before anything could change it (an
    assignment, ``model_fields_set``); copies and pickles are plain sets."""

    __slots__ = ()

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> set[str]:
        return set(self)

    def __reduce__(self) -> tuple[type[set[str]], tuple[list[str]]]:
        return set, (list(self),)


_SHARED_FIELDS_SETS: dict[frozenset[str], _SharedFieldsSet] = {}
_MAX_SHARED_FIELDS_SETS = 4096


def _own_fields_set(model: BaseModel) -> set[str]:
    """``model``'s fields set, made its own first if it was shared."""
    fields_set = model.__pydantic_fields_set__
    if type(fields_set) is _SharedFieldsSet:
        fields_set = set(fields_set)
        object.__setattr__(model, "__pydantic_fields_set__", fields_set)
    return fields_set


def _compact(model: K8sModel) -> None:
    """Make ``model`` and every model it holds take less memory, the same in every other way:
    each one's fields set is the shared copy of equal sets (``_SharedFieldsSet``) and its
    fields are in a key-sharing dict (``_fields_dict_maker``)."""
    stack = [model]
    while stack:
        model = stack.pop()
        kind = type(model)
        plan = _PLANS.get(kind)
        if plan is None:
            splits = len(kind.__pydantic_fields__) >= _SPLIT_FROM
            maker = _fields_dict_maker(kind) if splits else None
            plan = _PLANS[kind] = (maker, _nested_fields(kind))
        make, nested = plan
        fields_set = model.__pydantic_fields_set__
        if type(fields_set) is set:
            key = frozenset(fields_set)
            shared = _SHARED_FIELDS_SETS.get(key)
            if shared is None and len(_SHARED_FIELDS_SETS) < _MAX_SHARED_FIELDS_SETS:
                shared = _SHARED_FIELDS_SETS.setdefault(key, _SharedFieldsSet(key))
            if shared is not None:
                _SET_FIELDS_SET(model, shared)
        fields = _GET_FIELDS(model)
        if make is not None:
            _SET_FIELDS(model, make(fields))
        for name in nested:
            value = fields[name]
            if value is None:
                continue
            values = value.values() if type(value) is dict else value
            for item in (value,) if isinstance(value, K8sModel) else values:
                if isinstance(item, K8sModel):  # whose assignments unshare the set
                    stack.append(item)


_FieldsDict = Callable[[dict[str, Any]], dict[str, Any]]
# Per model class: its fields dict maker (``None``: kept as it is) and the fields that may
# hold models.
_PLANS: dict[type[K8sModel], tuple[_FieldsDict | None, tuple[str, ...]]] = {}
# The fields from which a model's dict is made key-sharing: an ordinary dict of up to 5 keys
# takes 184 bytes, a key-sharing one about 100, not worth the time it takes to make.
_SPLIT_FROM = 6


def _nested_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The names of ``cls``'s fields whose type names a model (alone, in a list or a map)."""

    def names_a_model(annotation: Any) -> bool:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return True
        return any(names_a_model(arg) for arg in get_args(annotation))

    return tuple(n for n, info in cls.__pydantic_fields__.items() if names_a_model(info.annotation))


def _fields_dict_maker(cls: type[BaseModel]) -> _FieldsDict:
    """A function that makes a dict equal to a model's fields (same keys in the same order,
    the same values) as the attributes of an instance of a plain class of its own: CPython
    then shares the keys between all such dicts, which hold only their values. It returns
    its argument itself when its keys are not the model's fields in order."""
    names = tuple(cls.__pydantic_fields__)
    holder = type(f"{cls.__name__}Fields", (), {})
    # Field names are identifiers; each store is one attribute of ``holder``'s instances.
    stores = "".join(f"    h.{name} = fields[{name!r}]\n" for name in names)
    namespace: dict[str, Any] = {}
    exec(
        "def make(fields):\n"
        "    if tuple(fields) != names:\n"
        "        return fields\n"
        "    h = new(holder)\n"
        f"{stores}"
        "    return h.__dict__\n",
        {"names": names, "new": object.__new__, "holder": holder, "tuple": tuple},
        namespace,
    )
    make: _FieldsDict = namespace["make"]
    return make


class K8sUnion(K8sModel):
    """An API union: exactly one of the fields named in ``union_members`` is set.

    Enforced whenever the model is built or parsed, with the API server's message.
    """

    union_members: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _exactly_one_member(self) -> Self:
        count = sum(getattr(self, m) is not None for m in self.union_members)
        if count != 1:
            listed = ", ".join(f"`{to_camel(m)}`" for m in self.union_members)
            which = "exactly one" if count else "one"
            raise ValueError(f"must specify {which} of: {listed}")
        return self


# The instance-dict slot every pydantic model has; ``DeferredModel`` puts a property before it.
_INSTANCE_DICT: Any = vars(BaseModel)["__dict__"]
_SET_FIELDS_SET: Any = vars(BaseModel)["__pydantic_fields_set__"].__set__
_GET_FIELDS, _SET_FIELDS = _INSTANCE_DICT.__get__, _INSTANCE_DICT.__set__
_Deferred = TypeVar("_Deferred", bound="DeferredModel")
_MATERIALIZING = threading.Lock()


class DeferredModel(K8sModel):
    """An API object that can also be made from input already known to be valid, and then
    validated only when first used.

    ``_deferred(data)`` keeps ``data`` (what ``model_validate`` would be given) and, if given,
    a function that makes its ``to_dict()`` form: ``to_dict()`` copies it, and the first other
    use (an attribute, ``==``, ``repr``, ``model_dump``, a copy, pickling, nesting in another
    model) validates it into the object, exactly as ``model_validate(data)`` would have, and
    drops it. A kept input therefore never
    goes stale: the object can only change once it has been validated.
    """

    __slots__ = ("_deferred_input", "_deferred_json")

    # The string defaults (apiVersion, kind) to_dict() emits before the deferred input.
    _deferred_defaults: ClassVar[dict[str, str]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._deferred_defaults = {
            info.alias or name: info.default
            for name, info in cls.model_fields.items()
            if isinstance(info.default, str)
        }

    @classmethod
    def _deferred(cls, data: dict[str, Any], to_json: JsonFactory | None = None) -> Self:
        """An object of ``data``, which the caller guarantees ``model_validate`` accepts.

        ``data`` holds every field the class defaults to something other than a string or
        ``None``, its keys in field order, its values in ``to_dict()`` form (no ``None``, no
        empty list or map) except that members of its top-level objects (``metadata``,
        ``spec``) may be ``None``. It must not be changed afterwards: it may share parts with
        other objects' inputs. ``to_json``, if given, makes ``to_dict()``'s result from
        ``data`` (``deferred_json(cls, data)``'s, faster)."""
        obj = cls.__new__(cls)
        _SET_INPUT(obj, data)
        _SET_JSON(obj, to_json)
        return obj

    @classmethod
    def _deferred_maker(
        cls: type[_Deferred], data: dict[str, Any], to_json: JsonFactory | None = None
    ) -> Callable[[str], _Deferred]:
        """A function of a name that makes ``cls._deferred(copy, to_json)``, where ``copy`` is
        ``data`` with that ``metadata.name`` (in its place; the other parts shared), faster:
        for a sweep of one template's objects."""
        metadata: dict[str, Any] = data["metadata"]
        new, set_input, set_json = cls.__new__, _SET_INPUT, _SET_JSON
        if next(iter(data)) != "metadata" or next(iter(metadata)) != "name":

            def make_any(name: str) -> _Deferred:
                obj = new(cls)
                set_input(obj, {**data, "metadata": {**metadata, "name": name}})
                set_json(obj, to_json)
                return obj

            return make_any
        # The same dicts, built faster: the name and the metadata come first.
        rest = {k: v for k, v in metadata.items() if k != "name"}
        others = {k: v for k, v in data.items() if k != "metadata"}

        def make(name: str) -> _Deferred:
            obj = new(cls)
            set_input(obj, {"metadata": {"name": name, **rest}, **others})
            set_json(obj, to_json)
            return obj

        return make

    @property
    def __dict__(self) -> dict[str, Any]:
        """The instance's fields, validated first if the object was deferred."""
        self._materialize()
        fields: dict[str, Any] = _INSTANCE_DICT.__get__(self)
        return fields

    @__dict__.setter
    def __dict__(self, value: dict[str, Any]) -> None:
        _INSTANCE_DICT.__set__(self, value)

    def _pending(self) -> dict[str, Any] | None:
        """The deferred input, or ``None`` once the object is validated (its fields are in its
        ``__dict__``: tested without raising, as validated objects ask on every use)."""
        if _INSTANCE_DICT.__get__(self):
            return None
        try:
            pending: dict[str, Any] = _DEFERRED_INPUT.__get__(self)
        except AttributeError:  # validated, or being validated by another thread
            return None
        return pending

    def _materialize(self) -> bool:
        """Validate a deferred input into the object; whether there was one."""
        if self._pending() is None:
            return False
        with _MATERIALIZING:
            data = self._pending()
            if data is None:  # another thread did it meanwhile
                return True
            valid = type(self).model_validate(data)
            _compact(valid)
            # The slots first: a thread that sees the fields sees a whole object.
            for slot in ("__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
                object.__setattr__(self, slot, getattr(valid, slot))
            _INSTANCE_DICT.__set__(self, _INSTANCE_DICT.__get__(valid))
            _DEFERRED_INPUT.__delete__(self)
            _DEFERRED_JSON.__delete__(self)
        return True

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            if self._materialize():
                return getattr(self, name)
            return super().__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._materialize()
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._materialize()
        super().__delattr__(name)

    def _json_view(self) -> dict[str, Any] | None:
        """``to_dict()`` of a deferred object without copying its input (it shares the input's
        parts: read it, never change it); ``None`` once the object is validated."""
        data = self._pending()
        if data is None:
            return None
        view = {**self._deferred_defaults, **data}
        _leave_out_unset_members(view)
        return view

    def to_dict(self) -> dict[str, Any]:
        """The Kubernetes JSON of this object (of a deferred one: a copy of its input)."""
        try:  # the deferred input first: the hot path is a stamp's to_dict()
            data: dict[str, Any] = _GET_INPUT(self)
            to_json: JsonFactory | None = _GET_JSON(self)
        except AttributeError:  # validated (or being validated: then done with the lock)
            return super().to_dict()
        if to_json is not None:
            return to_json(data)
        return deferred_json(type(self), data)


def deferred_json(cls: type[DeferredModel], data: dict[str, Any]) -> dict[str, Any]:
    """``to_dict()`` of ``cls._deferred(data)``: a fresh copy of ``data`` without its ``None``
    members, after the class's apiVersion and kind."""
    copied: dict[str, Any] = to_jsonable_python(data)
    _leave_out_unset_members(copied)
    return {**cls._deferred_defaults, **copied}


def _leave_out_unset_members(document: dict[str, Any]) -> None:
    """Replace each top-level object of ``document`` that has ``None`` members by a copy
    without them (a deferred input's only ``None`` values)."""
    for key, part in document.items():
        if type(part) is dict and None in part.values():
            document[key] = {k: v for k, v in part.items() if v is not None}


_DEFERRED_INPUT: Any = vars(DeferredModel)["_deferred_input"]
_DEFERRED_JSON: Any = vars(DeferredModel)["_deferred_json"]
# The slots' accessors, bound once: the hot path calls them per stamp.
_GET_INPUT, _SET_INPUT = _DEFERRED_INPUT.__get__, _DEFERRED_INPUT.__set__
_GET_JSON, _SET_JSON = _DEFERRED_JSON.__get__, _DEFERRED_JSON.__set__
