"""OpenAPI documents of the served resources, generated from the SDK's models.

``/openapi/v3`` is the index (one entry per group/version, with the document's hash) and
``/openapi/v3/<api|apis/group>/<version>`` the document itself: ``paths`` for every verb, each
operation tagged ``x-kubernetes-action`` and ``x-kubernetes-group-version-kind`` and listing
its query parameters (kubectl looks for ``fieldValidation`` on PATCH to decide that the
server validates fields), and ``components.schemas`` from the pydantic models of
``workloadbuilder.api`` with the list-map extensions. Kinds the SDK does not model (Pod,
Job, Role, ...) get their top-level fields, each with an open schema
(``x-kubernetes-preserve-unknown-fields``).
``/openapi/v2`` is the same in Swagger 2.0 form.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import json
from functools import lru_cache
from typing import Any

from workloadbuilder.api import meta_v1
from workloadbuilder.testing.apply.fieldset import LIST_MAP_KEYS
from workloadbuilder.testing.common.custom_types import CustomResourceType
from workloadbuilder.testing.common.resources import Registry, ResourceType
from workloadbuilder.testing.engine import core_types, object_types
from workloadbuilder.testing.engine.core_fields import SHAPES

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_MODULE_PREFIX = {"": "core", "scheduling.k8s.io": "scheduling"}
_WRITE_PARAMS = ("dryRun", "fieldManager", "fieldValidation")
_OPEN = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
_SCALARS: dict[str, dict[str, Any]] = {
    object_types.STRING: {"type": "string"},
    object_types.BOOL: {"type": "boolean"},
    object_types.INT32: {"type": "integer", "format": "int32"},
    object_types.INT64: {"type": "integer", "format": "int64"},
    object_types.STRING_LIST: {"type": "array", "items": {"type": "string"}},
    object_types.STRING_MAP: {"type": "object", "additionalProperties": {"type": "string"}},
}
"""OpenAPI schemas of the Go types of ``core_types``' tables that need no struct."""


def schema_prefix(group: str, version: str) -> str:
    """``io.k8s.api.<group>.<version>.``, as upstream names its definitions; a custom
    resource's group reversed (``com.example.training.v1.``), as apiextensions names them."""
    if "." in group and not group.endswith(".k8s.io"):
        return ".".join(reversed(group.split("."))) + f".{version}."
    short = group.split(".")[0] if group else "core"
    return f"io.k8s.api.{short}.{version}."


def _model(rt: ResourceType) -> Any:
    prefix = _MODULE_PREFIX.get(rt.group, rt.group.split(".")[0])
    try:
        module = importlib.import_module(f"workloadbuilder.api.{prefix}_{rt.version}")
    except ImportError:
        return None
    model = getattr(module, rt.kind, None)
    return model if hasattr(model, "model_json_schema") else None


def _clean(node: Any, names: dict[str, str], ref_root: str) -> Any:
    """pydantic's JSON schema in Kubernetes' OpenAPI style: no nulls, titles or consts."""
    if isinstance(node, list):
        return [_clean(n, names, ref_root) for n in node]
    if not isinstance(node, dict):
        return node
    if "anyOf" in node:
        options = [o for o in node["anyOf"] if o != {"type": "null"}]
        if len(options) == 1:
            merged = {**{k: v for k, v in node.items() if k != "anyOf"}, **options[0]}
            return _clean(merged, names, ref_root)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "additionalProperties") and not isinstance(value, dict):
            continue
        if key == "default" and value is None:
            continue
        if key == "const":
            continue
        if key == "$ref":
            out["$ref"] = ref_root + names[value.rsplit("/", 1)[1]]
        elif key == "properties":
            out[key] = {p: _property(p, s, names, ref_root) for p, s in value.items()}
        else:
            out[key] = _clean(value, names, ref_root)
    return out


def _property(name: str, schema: Any, names: dict[str, str], ref_root: str) -> Any:
    cleaned = _clean(schema, names, ref_root)
    keys = LIST_MAP_KEYS.get(name)
    if keys and isinstance(cleaned, dict) and cleaned.get("type") == "array":
        cleaned["x-kubernetes-list-type"] = "map"
        cleaned["x-kubernetes-list-map-keys"] = list(keys)
        cleaned["x-kubernetes-patch-merge-key"] = keys[0]
        cleaned["x-kubernetes-patch-strategy"] = "merge"
    return cleaned


def _gvk(rt: ResourceType) -> list[dict[str, str]]:
    return [{"group": rt.group, "kind": rt.kind, "version": rt.version}]


def _kind_schemas(rt: ResourceType, ref_root: str) -> dict[str, Any]:
    """The schema of ``rt``'s kind and of every type it uses, by Kubernetes name."""
    prefix = schema_prefix(rt.group, rt.version)
    if isinstance(rt, CustomResourceType):
        return _custom_schemas(rt, ref_root)
    model = _model(rt)
    if model is None:
        meta_schema = _kind_schemas_meta(ref_root)
        return {
            **meta_schema,
            prefix + rt.kind: {
                "description": f"{rt.kind} (open schema: its fields are not modelled here).",
                "type": "object",
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"$ref": ref_root + _META + "ObjectMeta"},
                    **_open_fields(rt),
                },
                "x-kubernetes-group-version-kind": _gvk(rt),
            },
        }
    raw = model.model_json_schema(by_alias=True, mode="validation")
    defs = raw.pop("$defs", {})
    names = {n: (_META if hasattr(meta_v1, n) else prefix) + n for n in defs}
    out = {names[n]: _clean(s, names, ref_root) for n, s in defs.items()}
    top = _clean(raw, names, ref_root)
    for field in ("apiVersion", "kind"):
        top["properties"][field] = {"type": "string"}
    top["x-kubernetes-group-version-kind"] = _gvk(rt)
    out[prefix + rt.kind] = top
    return out


def _custom_schemas(rt: CustomResourceType, ref_root: str) -> dict[str, Any]:
    """A custom resource's schema: its version's ``openAPIV3Schema`` with the type and object
    metadata apiextensions adds, and ObjectMeta's schemas."""
    top = copy.deepcopy(dict(rt.schema)) or dict(_OPEN)
    properties = top.setdefault("properties", {})
    properties["apiVersion"] = {"type": "string"}
    properties["kind"] = {"type": "string"}
    properties["metadata"] = {"$ref": ref_root + _META + "ObjectMeta"}
    top["x-kubernetes-group-version-kind"] = _gvk(rt)
    return {**_kind_schemas_meta(ref_root), schema_prefix(rt.group, rt.version) + rt.kind: top}


def _open_fields(rt: ResourceType) -> dict[str, Any]:
    """The top-level fields of a kind the SDK does not model, each with an open schema: the
    known fields of ``fieldValidation`` (``core_fields``), else ``spec`` and ``status``."""
    shape = SHAPES.get((rt.group, rt.kind))
    if shape is None:
        return {"spec": dict(_OPEN), "status": dict(_OPEN)}
    go_types = core_types.KINDS.get((rt.group, rt.kind), ("", {}))[1]
    out: dict[str, Any] = {}
    for name, inner in shape.items():
        if name in ("apiVersion", "kind", "metadata"):
            continue
        go_type = go_types.get(name)
        scalar = _SCALARS.get(go_type) if isinstance(go_type, str) else None
        if scalar is not None:
            out[name] = copy.deepcopy(scalar)
        elif isinstance(inner, list):
            out[name] = {"type": "array", "items": dict(_OPEN)}
        elif isinstance(inner, dict):
            out[name] = dict(_OPEN)
        else:
            out[name] = {"x-kubernetes-preserve-unknown-fields": True}
    return out


def _kind_schemas_meta(ref_root: str) -> dict[str, Any]:
    raw = meta_v1.ObjectMeta.model_json_schema(by_alias=True, mode="validation")
    defs = raw.pop("$defs", {})
    names = {n: _META + n for n in (*defs, "ObjectMeta")}
    out = {names[n]: _clean(s, names, ref_root) for n, s in defs.items()}
    out[_META + "ObjectMeta"] = _clean(raw, names, ref_root)
    return out


def _param(name: str, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": {"type": kind}, "uniqueItems": True}


def _operation(
    rt: ResourceType, action: str, verb: str, params: tuple[str, ...], ref: str
) -> dict[str, Any]:
    return {
        "operationId": f"{verb}{rt.kind}",
        "parameters": [_param(p, "boolean" if p == "force" else "string") for p in params],
        "responses": {
            "200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": ref}}}}
        },
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": _gvk(rt)[0],
    }


def _paths(rt: ResourceType, ref: str) -> dict[str, Any]:
    base = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    scoped = (
        f"{base}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else (f"{base}/{rt.plural}")
    )
    write = _WRITE_PARAMS
    paths: dict[str, Any] = {
        scoped: {
            "get": _operation(rt, "list", "list", ("labelSelector", "fieldSelector", "limit"), ref),
            "post": _operation(rt, "post", "create", write, ref),
            "delete": _operation(rt, "deletecollection", "deletecollection", ("dryRun",), ref),
        },
        f"{scoped}/{{name}}": {
            "get": _operation(rt, "get", "read", (), ref),
            "put": _operation(rt, "put", "replace", write, ref),
            "patch": _operation(rt, "patch", "patch", (*write, "force"), ref),
            "delete": _operation(rt, "delete", "delete", ("dryRun", "propagationPolicy"), ref),
        },
    }
    if rt.namespaced:
        paths[f"{base}/{rt.plural}"] = {
            "get": _operation(rt, "list", "listForAllNamespaces", ("labelSelector",), ref)
        }
    if rt.status:
        paths[f"{scoped}/{{name}}/status"] = {
            "get": _operation(rt, "get", "readStatus", (), ref),
            "put": _operation(rt, "put", "replaceStatus", write, ref),
            "patch": _operation(rt, "patch", "patchStatus", (*write, "force"), ref),
        }
    return paths


def key(group: str, version: str) -> str:
    """The index key of a group/version: ``api/v1`` or ``apis/<group>/<version>``."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _served(registry: Registry) -> dict[str, list[ResourceType]]:
    out: dict[str, list[ResourceType]] = {}
    for rt in registry.all():
        out.setdefault(key(rt.group, rt.version), []).append(rt)
    return out


def v3_document(resources: list[ResourceType]) -> dict[str, Any]:
    """The OpenAPI 3.0 document of one group/version."""
    ref_root = "#/components/schemas/"
    schemas: dict[str, Any] = {}
    paths: dict[str, Any] = {}
    for rt in resources:
        schemas.update(_kind_schemas(rt, ref_root))
        paths.update(_paths(rt, ref_root + schema_prefix(rt.group, rt.version) + rt.kind))
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.37.0"},
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(schemas.items()))},
    }


def _v2_operation(op: dict[str, Any]) -> dict[str, Any]:
    schema = op["responses"]["200"]["content"]["application/json"]["schema"]
    ref = schema["$ref"].replace("#/components/schemas/", "#/definitions/")
    params = [
        {"name": p["name"], "in": "query", "type": p["schema"]["type"], "uniqueItems": True}
        for p in op["parameters"]
    ]
    return {
        **{k: v for k, v in op.items() if k not in ("parameters", "responses")},
        "parameters": params,
        "responses": {"200": {"description": "OK", "schema": {"$ref": ref}}},
    }


def v2_document(registry: Registry) -> dict[str, Any]:
    """The Swagger 2.0 document of everything served."""
    definitions: dict[str, Any] = {}
    paths: dict[str, Any] = {}
    for rt in registry.all():
        definitions.update(_kind_schemas(rt, "#/definitions/"))
        ref = "#/components/schemas/" + schema_prefix(rt.group, rt.version) + rt.kind
        for path, ops in _paths(rt, ref).items():
            paths[path] = {verb: _v2_operation(op) for verb, op in ops.items()}
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "v1.37.0"},
        "paths": dict(sorted(paths.items())),
        "definitions": dict(sorted(definitions.items())),
    }


def etag(data: bytes) -> str:
    """kube-openapi's hash of a document: SHA-512, upper-case hex."""
    return hashlib.sha512(data).hexdigest().upper()


class Documents:
    """The encoded documents of one registry, built on first use."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    def v3(self, gv_key: str) -> bytes | None:
        """The encoded v3 document of ``gv_key``, or ``None`` if not served."""
        return self._v3(gv_key, self._registry.revision)

    @lru_cache(maxsize=64)  # noqa: B019 - one Documents per server, kept for its lifetime
    def _v3(self, gv_key: str, revision: int) -> bytes | None:
        resources = _served(self._registry).get(gv_key)
        if not resources:
            return None
        return json.dumps(v3_document(resources)).encode()

    def index(self) -> bytes:
        """``/openapi/v3``: every group/version with its current hash."""
        paths = {}
        for gv_key in _served(self._registry):
            data = self.v3(gv_key)
            assert data is not None
            paths[gv_key] = {"serverRelativeURL": f"/openapi/v3/{gv_key}?hash={etag(data)}"}
        return json.dumps({"paths": paths}).encode()

    def v2(self) -> bytes:
        """``/openapi/v2``."""
        return self._v2(self._registry.revision)

    @lru_cache(maxsize=4)  # noqa: B019 - as above
    def _v2(self, revision: int) -> bytes:
        return json.dumps(v2_document(self._registry)).encode()
