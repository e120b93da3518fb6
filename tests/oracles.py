"""Independent oracles for the models: the upstream 1.37 strict JSON schema and the official client.

* ``assert_schema_valid(doc, definition=None)``: the strict schema shipped by
  ``kubernetes-validate==1.37.0`` (a top-level kind by its ``apiVersion``/``kind``, or any
  definition of ``_definitions.json`` by name). Validators are built once and cached.
* ``official_model_for(...)`` / ``assert_official_round_trip(doc, definition)``: the
  pydantic models of ``kubernetes==37.0.2``.
* ``assert_conforms(obj)``: both oracles plus our own round trip, for one of our model
  instances, against every upstream definition its class stands for.

The ``WorkloadCompositePodGroup*`` building blocks are Go-only types with no schema or official
model; they are checked against the composite API shape that has the same JSON.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from types import ModuleType
from typing import Any, cast

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import kubernetes.client
import kubernetes_validate
from pydantic import BaseModel, ValidationError
from referencing import Registry, Resource

from workloadbuilder.api import (
    K8sModel,
    batch_v1,
    core_v1,
    meta_v1,
    scheduling_v1alpha3,
    scheduling_v1beta1,
)

__all__ = [
    "API_MODULES",
    "COMPOSITE_BLOCK_COUNTERPARTS",
    "KUBERNETES_VERSION",
    "ClassInfo",
    "all_model_classes",
    "assert_conforms",
    "assert_official_round_trip",
    "assert_schema_valid",
    "class_info",
    "definition_for_doc",
    "definition_schema",
    "official_dump",
    "official_model_for",
    "schema_errors",
    "to_official",
    "validate_with_package",
    "wire_dump",
]

KUBERNETES_VERSION = "1.37.0"
_SCHEMA_DIR = "v1.37.0-local-strict"
_DEFINITIONS_ID = "https://kubernetes.io/api/_definitions.json"

API_MODULES: tuple[ModuleType, ...] = (
    meta_v1,
    core_v1,
    batch_v1,
    scheduling_v1beta1,
    scheduling_v1alpha3,
)

_DEFINITION_PREFIX: dict[ModuleType, str] = {
    meta_v1: "io.k8s.apimachinery.pkg.apis.meta.v1.",
    core_v1: "io.k8s.api.core.v1.",
    batch_v1: "io.k8s.api.batch.v1.",
    scheduling_v1beta1: "io.k8s.api.scheduling.v1beta1.",
    scheduling_v1alpha3: "io.k8s.api.scheduling.v1alpha3.",
}

COMPOSITE_BLOCK_COUNTERPARTS: dict[str, str] = {
    "WorkloadCompositePodGroupBasicSchedulingPolicy": "CompositeBasicSchedulingPolicy",
    "WorkloadCompositePodGroupGangSchedulingPolicy": "CompositeGangSchedulingPolicy",
    "WorkloadCompositePodGroupSchedulingPolicy": "CompositePodGroupSchedulingPolicy",
    "WorkloadCompositePodGroupSchedulingConstraints": "CompositePodGroupSchedulingConstraints",
    "WorkloadCompositePodGroupSingleDisruptionMode": "SingleCompositeDisruptionMode",
    "WorkloadCompositePodGroupAllDisruptionMode": "AllCompositeDisruptionMode",
    "WorkloadCompositePodGroupDisruptionMode": "CompositeDisruptionMode",
}
"""Go-only building block -> the v1alpha3 API type with the same JSON (when the block is valid)."""


# --------------------------------------------------------------------------- the JSON schema


def _schema_path(name: str) -> Traversable:
    return files("kubernetes_validate") / "kubernetes-json-schema" / _SCHEMA_DIR / name


def _schema_file(name: str) -> Any:
    return json.loads(_schema_path(name).read_text(encoding="utf-8"))


@cache
def _definitions() -> dict[str, Any]:
    return cast(dict[str, Any], _schema_file("_definitions.json"))


@cache
def _registry() -> Registry[Any]:
    resource: Resource[Any] = Resource.from_contents(_definitions())
    return resource @ Registry()


_RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
)


def _check_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _RFC3339.match(value):
        return False
    datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    return True


def _int_range(bits: int) -> Any:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def check(value: object) -> bool:
        return not isinstance(value, int) or isinstance(value, bool) or low <= value <= high

    return check


@cache
def _format_checker() -> jsonschema.FormatChecker:
    # The upstream formats the API server enforces on decode; kubernetes-validate checks none.
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("date-time", raises=ValueError)(_check_date_time)
    checker.checks("int32")(_int_range(32))
    checker.checks("int64")(_int_range(64))
    return checker


@cache
def _validator_for(kind_file: str | None, definition: str | None) -> jsonschema.Validator:
    schema: dict[str, Any]
    if kind_file is not None:
        schema = cast(dict[str, Any], _schema_file(kind_file))
    else:
        if definition not in _definitions()["$defs"]:
            raise KeyError(f"no upstream 1.37 definition {definition!r}")
        schema = {"$ref": f"{_DEFINITIONS_ID}#/$defs/{definition}"}
    cls = jsonschema.validators.Draft202012Validator
    return cls(schema, registry=_registry(), format_checker=_format_checker())


def _kind_file(doc: Mapping[str, Any]) -> str:
    # Same file naming as kubernetes-validate: <kind>-<group's first label>-<version>.json
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", str(doc["apiVersion"]))
    return f"{str(doc['kind']).lower()}-{group_version}.json"


def definition_for_doc(doc: Mapping[str, Any]) -> str:
    """The definition name of a top-level document, from its ``apiVersion`` and ``kind``."""
    api_version, kind = str(doc["apiVersion"]), str(doc["kind"])
    group, _, version = api_version.rpartition("/")
    if not group:
        return f"io.k8s.apimachinery.pkg.apis.meta.v1.{kind}"
    return f"io.k8s.api.{group.split('.')[0] or 'core'}.{version}.{kind}"


def definition_schema(definition: str) -> dict[str, Any]:
    """The raw upstream definition (properties, required, ...)."""
    return cast(dict[str, Any], _definitions()["$defs"][definition])


def schema_errors(doc: Any, definition: str | None = None) -> list[str]:
    """Every violation of the strict schema, as ``path: message`` (empty when valid)."""
    if definition is None:
        kind_file = _kind_file(doc)
        if _schema_path(kind_file).is_file():
            validator = _validator_for(kind_file, None)
        else:  # e.g. meta/v1 Status: no file of its own, only a definition
            validator = _validator_for(None, definition_for_doc(doc))
    else:
        validator = _validator_for(None, definition)
    return [
        f"{'.'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.path)))
    ]


def assert_schema_valid(doc: Any, definition: str | None = None) -> None:
    """``doc`` validates against the 1.37 strict schema (the top-level kind, or ``definition``)."""
    errors = schema_errors(doc, definition)
    where = definition or f"{doc.get('apiVersion')}/{doc.get('kind')}"
    assert not errors, f"not valid against the 1.37 strict schema of {where}:\n" + "\n".join(errors)


def validate_with_package(doc: dict[str, Any]) -> None:
    """The package's own entry point (slower: it reloads the schema on every call)."""
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


# --------------------------------------------------------------------------- the official client


def official_model_for(
    definition_or_kind: str, api_version: str | None = None
) -> type[BaseModel] | None:
    """The official ``kubernetes`` 37 model of a definition or kind, or None when it has none.

    ``official_model_for("io.k8s.api.scheduling.v1alpha3.CompositePodGroup")``,
    ``official_model_for("PodGroup", "scheduling.k8s.io/v1beta1")``. The client has no class
    for the empty structs (``basic: {}``, ``all: {}``): it holds them as plain dicts.
    """
    if api_version is not None:
        version = api_version.rpartition("/")[2]
        type_name = definition_or_kind
    elif "." in definition_or_kind:
        parts = definition_or_kind.split(".")
        version, type_name = parts[-2], parts[-1]
    else:
        raise ValueError(f"{definition_or_kind!r}: pass a definition name or an api_version")
    model = getattr(kubernetes.client, version.capitalize() + type_name, None)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model
    return None


def official_dump(model: BaseModel) -> dict[str, Any]:
    """What the official client sends: camelCase, no nulls, RFC 3339 timestamps."""
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def wire_dump(model: BaseModel) -> Any:
    """What the official ``ApiClient`` sends for ``model`` (timestamps as ``+00:00``)."""
    return cast(Any, kubernetes.client.ApiClient()).sanitize_for_serialization(model)


def _json_name(name: str, field: Any) -> str:
    return str(field.serialization_alias or field.alias or name)


def to_official(obj: K8sModel, definition: str | None = None) -> Any:
    """Build the official client's instance of ``obj`` through its constructors (not from JSON).

    Nested objects become nested official instances; the empty structs become ``{}``.
    """
    definition = definition or class_info(type(obj)).definitions[0]
    official = official_model_for(definition)
    if official is None:
        return {}
    # Keyword arguments by JSON name: the client maps some names (``var_field``, ``var_continue``)
    # that its constructors do not accept under the Python name.
    by_json = {_json_name(n, f) for n, f in official.model_fields.items()}
    props = definition_schema(definition).get("properties", {})
    kwargs: dict[str, Any] = {}
    for name, field in type(obj).model_fields.items():
        value = getattr(obj, name)
        if value is None:
            continue
        key = field.alias or name
        assert key in by_json, f"{official.__name__} has no field {key!r}"
        kwargs[key] = _value_to_official(value, props.get(key, {}), definition)
    return official(**kwargs)


def _ref_of(prop: Mapping[str, Any]) -> str | None:
    ref = prop.get("$ref") or prop.get("items", {}).get("$ref")
    return str(ref).rsplit("/", 1)[-1] if ref else None


def _value_to_official(value: Any, prop: Mapping[str, Any], parent: str) -> Any:
    if isinstance(value, K8sModel):
        ref = _ref_of(prop)
        assert ref is not None, f"{parent}: no $ref for a nested object"
        return to_official(value, ref)
    if isinstance(value, (list, tuple)):
        return [_value_to_official(v, prop, parent) for v in value]
    return value


def assert_official_round_trip(
    doc: dict[str, Any], definition: str, model: type[K8sModel] | None = None
) -> None:
    """The official model parses ``doc`` strictly, dumps it unchanged, and ours parses the dump
    back to the same ``to_dict()``."""
    official = official_model_for(definition)
    assert official is not None, f"the official client has no model for {definition}"
    try:
        parsed = official.model_validate(doc)
    except ValidationError as err:
        raise AssertionError(f"{official.__name__} rejects the document:\n{err}") from err
    dumped = official_dump(parsed)
    assert dumped == doc, f"{official.__name__} changed the document:\n{dumped}\n!=\n{doc}"
    ours = model or _model_for_definition(definition)
    assert ours.model_validate(dumped).to_dict() == doc


# --------------------------------------------------------------------------- our classes


@dataclass(frozen=True)
class ClassInfo:
    """What an exported model class corresponds to upstream."""

    cls: type[K8sModel]
    modules: tuple[ModuleType, ...]
    definitions: tuple[str, ...]
    """Upstream definitions with exactly this JSON shape (both versions for shared shapes)."""
    counterpart: type[K8sModel] | None = None
    """For a Go-only composite building block: our API model with the same JSON when valid."""


def all_model_classes() -> Iterator[type[K8sModel]]:
    """Every model class exported (``__all__``) by a ``workloadbuilder.api`` module, once."""
    seen: set[type[K8sModel]] = set()
    for module in API_MODULES:
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) and issubclass(value, K8sModel) and value not in seen:
                seen.add(value)
                yield value


@cache
def _class_infos() -> dict[type[K8sModel], ClassInfo]:
    modules: dict[type[K8sModel], list[ModuleType]] = {}
    for module in API_MODULES:
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) and issubclass(value, K8sModel):
                modules.setdefault(value, []).append(module)
    infos: dict[type[K8sModel], ClassInfo] = {}
    for cls, mods in modules.items():
        name = cls.__name__
        if name in COMPOSITE_BLOCK_COUNTERPARTS:
            counterpart = cast(
                type[K8sModel],
                getattr(scheduling_v1alpha3, COMPOSITE_BLOCK_COUNTERPARTS[name]),
            )
            infos[cls] = ClassInfo(cls, tuple(mods), (), counterpart)
            continue
        # A re-export (batch/v1 importing the v1alpha3 blocks) is the same upstream type, but
        # a v1alpha3 re-export of a v1beta1 shape is also the v1alpha3 type of that name.
        own = [m for m in mods if m.__name__ == cls.__module__]
        scheduling = [m for m in mods if m in (scheduling_v1beta1, scheduling_v1alpha3)]
        defs = tuple(_DEFINITION_PREFIX[m] + name for m in (scheduling or own))
        infos[cls] = ClassInfo(cls, tuple(mods), defs)
    return infos


def class_info(cls: type[K8sModel]) -> ClassInfo:
    """The upstream definitions (or the composite counterpart) of one of our classes (a
    private subclass, such as a block's frozen topology constraint, is its public type's)."""
    infos = _class_infos()
    for base in cls.__mro__:
        if base in infos:
            return infos[base]  # type: ignore[index]
    raise KeyError(cls)


def _model_for_definition(definition: str) -> type[K8sModel]:
    for info in _class_infos().values():
        if definition in info.definitions:
            return info.cls
    raise KeyError(f"no model of ours stands for {definition}")


def assert_conforms(obj: K8sModel) -> None:
    """``obj`` is schema-valid and round-trips through the official model and through our own.

    A shape shared by v1beta1 and v1alpha3 is checked against both versions. A Go-only composite
    building block must dump the JSON of its API counterpart (which must accept it).
    """
    cls = type(obj)
    doc = obj.to_dict()
    assert cls.model_validate(doc).to_dict() == doc, f"{cls.__name__} does not round-trip"
    info = class_info(cls)
    definitions = info.definitions
    if info.counterpart is not None:
        try:
            api = info.counterpart.model_validate(doc)
        except ValidationError as err:
            raise AssertionError(
                f"{cls.__name__} JSON is not a valid {info.counterpart.__name__}:\n{err}"
            ) from err
        assert api.to_dict() == doc
        definitions = class_info(info.counterpart).definitions
    for definition in definitions:
        assert_schema_valid(doc, definition)
        if official_model_for(definition) is not None:
            assert_official_round_trip(doc, definition, info.counterpart or cls)
    if any("x-kubernetes-group-version-kind" in definition_schema(d) for d in definitions):
        assert_schema_valid(doc)  # a top-level kind: also through its own schema file
