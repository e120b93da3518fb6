"""What the API server checks of a request before it writes: the body's Go types, kind,
version, name and namespace, unknown fields, and resourceVersion / uid preconditions."""

from __future__ import annotations

import json
from typing import Any

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import Registry, ResourceType
from workloadbuilder.testing.engine import decoding, object_types
from workloadbuilder.testing.engine.core_types import core_type_errors
from workloadbuilder.testing.engine.unknown_fields import FieldChecker, model_type_errors, prune


def check_go_types(rt: ResourceType, obj: dict[str, Any]) -> None:
    """400 unless ``obj``'s TypeMeta and ObjectMeta decode into their Go types."""
    try:
        object_types.check_type_meta(obj)
    except object_types.TypeMismatch as exc:
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {rt.kind}): {exc} "
            f"({decoding.summarize(obj)})"
        ) from None
    try:
        object_types.check_object_meta(obj, rt.kind)
        object_types.check_times(obj)
        problems = model_type_errors(rt.group, rt.version, rt.kind, obj) or core_type_errors(
            rt.group, rt.kind, obj
        )
        if problems:
            raise object_types.TypeMismatch(problems[0])
    except object_types.TypeMismatch as exc:
        version = str(obj.get("apiVersion") or rt.api_version).rpartition("/")[2]
        raise errors.bad_request(
            f"{obj.get('kind') or rt.kind} in version {json.dumps(version)} cannot be handled "
            f"as a {rt.kind}: {exc}"
        ) from None


def check_type(registry: Registry, rt: ResourceType, obj: Any) -> dict[str, Any]:
    """``obj`` as an object of ``rt`` (apiVersion and kind filled in), or a 400."""
    if not isinstance(obj, dict):
        raise errors.bad_request(
            f"the body of the request must be a {rt.kind} object, got {type(obj).__name__}"
        )
    check_go_types(rt, obj)
    api_version = obj.setdefault("apiVersion", rt.api_version)
    group = api_version.rpartition("/")[0]
    if (
        group != rt.group
        or registry.by_kind(rt.group, api_version.rpartition("/")[2], rt.kind) is None
    ):
        raise errors.bad_request(
            f"the API version in the data ({api_version}) does not match the expected "
            f"API version ({rt.api_version})"
        )
    if obj.setdefault("kind", rt.kind) != rt.kind:
        raise errors.bad_request(
            f"the kind in the data ({obj['kind']}) does not match the expected kind ({rt.kind})"
        )
    obj["apiVersion"] = rt.api_version
    return obj


def check_namespace(rt: ResourceType, meta: dict[str, Any], namespace: str | None) -> None:
    """The body's namespace against the URL's (filled in when the body has none)."""
    if not rt.namespaced:
        meta.pop("namespace", None)
    elif not namespace:
        raise errors.bad_request(
            f"a {rt.kind} is namespaced: set metadata.namespace, "
            "or send it to a URL with /namespaces/<namespace>/"
        )
    elif meta.setdefault("namespace", namespace) != namespace:
        raise errors.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )


def check_identity(rt: ResourceType, obj: dict[str, Any], namespace: str | None, name: str) -> None:
    """The body's name and namespace against the URL's."""
    meta = obj["metadata"]
    if meta.setdefault("name", name) != name:
        raise errors.bad_request(
            f"the name of the object ({meta['name']}) does not match the name on the URL ({name})"
        )
    check_namespace(rt, meta, namespace)


def check_fields(
    checker: FieldChecker | None,
    rt: ResourceType,
    obj: dict[str, Any],
    field_validation: str,
    *,
    apply: bool,
) -> list[str]:
    """Drop unknown fields; the warnings to send, or a 400 under ``Strict``."""
    unknown = checker(rt.group, rt.version, rt.kind, obj) if checker else []
    if unknown and field_validation == "Strict":
        if apply:
            text = "; ".join(f'json: unknown field "{p}"' for p in unknown)
            raise errors.bad_request(
                f"error strict decoding YAML: error unmarshaling JSON: while decoding JSON: {text}"
            )
        raise errors.bad_request(
            f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
            "strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in unknown)
        )
    for path in unknown:
        prune(obj, path)
    if field_validation == "Ignore":
        return []
    return [f'unknown field "{p}"' for p in unknown]


def check_resource_version(rt: ResourceType, given: Any, live: dict[str, Any]) -> None:
    """A write naming a resourceVersion other than the live one is a 409."""
    if given and given != live["metadata"]["resourceVersion"]:
        raise errors.modified(rt, live["metadata"]["name"])


def check_preconditions(
    rt: ResourceType, name: str, rv: Any, uid: Any, live_meta: dict[str, Any] | None
) -> None:
    """``resourceVersion`` and ``uid`` preconditions against the live object's metadata."""
    if live_meta is not None and rv and rv != live_meta["resourceVersion"]:
        raise errors.modified(rt, name)
    live_uid = live_meta["uid"] if live_meta is not None else ""
    if uid and uid != live_uid:
        raise errors.uid_mismatch(uid, live_uid)


def check_delete_preconditions(
    rt: ResourceType, live: dict[str, Any], preconditions: dict[str, Any]
) -> None:
    """DeleteOptions ``preconditions``: the uid, then the resourceVersion, must match."""
    for key, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
        given = preconditions.get(key)
        if given is not None and given != live.get(key, ""):
            text = f"{label} in precondition: {given}, {label} in object meta: {live.get(key, '')}"
            namespace = live.get("namespace", "") if rt.namespaced else ""
            raise errors.precondition_failed(rt, namespace, live["name"], text)


def apply_configuration(rt: ResourceType, config: Any) -> dict[str, Any]:
    """An apply body checked as the API server checks it before merging (400s)."""
    if not isinstance(config, dict):
        raise errors.bad_request("an apply patch must be a YAML or JSON object")
    check_go_types(rt, config)
    meta = config["metadata"]
    if meta.get("managedFields") is not None:
        raise errors.bad_request("metadata.managedFields must be nil")
    if config.get("apiVersion") != rt.api_version:
        raise errors.bad_request(
            "Incorrect version specified in apply patch. "
            f"Specified patch version: {config.get('apiVersion', '')}, "
            f"expected: {rt.api_version}"
        )
    if config.get("kind") != rt.kind:
        raise errors.bad_request(
            "Incorrect kind specified in apply patch. "
            f"Specified patch kind: {config.get('kind', '')}, expected: {rt.kind}"
        )
    return config


def decode_object(rt: ResourceType, body: bytes | str | Any) -> Any:
    """The body of a create or update; 400 ``BadRequest`` as the API server words it."""
    try:
        return decoding.decode(body, yaml_ok=True)
    except decoding.DecodeError as exc:
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {rt.kind}): "
            f"couldn't get version/kind; json parse error: {exc} ({decoding.summarize(body)})"
        ) from None


def decode_patch(body: bytes | str | Any, *, yaml_ok: bool) -> Any:
    """A patch body as JSON (or, when ``yaml_ok``, YAML); 400 if it is neither."""
    try:
        return decoding.decode(body, yaml_ok=yaml_ok)
    except decoding.DecodeError as exc:
        raise errors.bad_request(f"error decoding patch: {exc}") from None
