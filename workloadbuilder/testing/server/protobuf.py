"""Protobuf request bodies, for the kinds kubectl's generators send that way.

``kubectl create namespace``, ``create job``, ``create priorityclass`` and ``run`` POST
``application/vnd.kubernetes.protobuf``: the magic ``k8s\\x00``, then a ``runtime.Unknown``
holding the type and the object's own message. This module decodes the fields those
generators (and hand-written clients of the same kinds) set on a Namespace, Pod, Job or
PriorityClass into the JSON object the rest of the server handles. Every other kind, and a
message with a non-empty field outside this table, is answered as the API server answers a
body type a resource does not accept: 415 ``the body of the request was in an unknown format
- accepted media types include: application/json, application/yaml``. Answers are always
JSON, which these clients also accept. The tables of the RBAC kinds and the reviews are in
``rbac/wire.py``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.rbac import wire

MAGIC = b"k8s\x00"

# A field: (JSON name, kind, message type for "msg"/"rep_msg", keep a zero value).
# kinds: str, int, bool, bytes, msg, rep_str, rep_msg, map_str, map_qty, time, and skip (a
# status, which a create or update of the main resource ignores)
Field = tuple[str, str, str, bool]

_MESSAGES: dict[str, dict[int, Field]] = {
    "Unknown": {
        1: ("typeMeta", "msg", "TypeMeta", False),
        2: ("raw", "bytes", "", False),
        3: ("contentEncoding", "str", "", False),
        4: ("contentType", "str", "", False),
    },
    "TypeMeta": {1: ("apiVersion", "str", "", False), 2: ("kind", "str", "", False)},
    "ObjectMeta": {
        1: ("name", "str", "", False),
        2: ("generateName", "str", "", False),
        3: ("namespace", "str", "", False),
        4: ("selfLink", "str", "", False),
        5: ("uid", "str", "", False),
        6: ("resourceVersion", "str", "", False),
        7: ("generation", "int", "", False),
        8: ("creationTimestamp", "time", "", False),
        10: ("deletionGracePeriodSeconds", "int", "", True),
        11: ("labels", "map_str", "", False),
        12: ("annotations", "map_str", "", False),
        13: ("ownerReferences", "rep_msg", "OwnerReference", False),
        14: ("finalizers", "rep_str", "", False),
    },
    "OwnerReference": {
        1: ("kind", "str", "", False),
        3: ("name", "str", "", False),
        4: ("uid", "str", "", False),
        5: ("apiVersion", "str", "", False),
        6: ("controller", "bool", "", True),
        7: ("blockOwnerDeletion", "bool", "", True),
    },
    "LabelSelector": {
        1: ("matchLabels", "map_str", "", False),
        2: ("matchExpressions", "rep_msg", "LabelSelectorRequirement", False),
    },
    "LabelSelectorRequirement": {
        1: ("key", "str", "", False),
        2: ("operator", "str", "", False),
        3: ("values", "rep_str", "", False),
    },
    "Namespace": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("spec", "msg", "NamespaceSpec", False),
        3: ("status", "skip", "", False),
    },
    "NamespaceSpec": {1: ("finalizers", "rep_str", "", False)},
    "Pod": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("spec", "msg", "PodSpec", False),
        3: ("status", "skip", "", False),
    },
    "PodTemplateSpec": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("spec", "msg", "PodSpec", False),
    },
    "PodSpec": {
        2: ("containers", "rep_msg", "Container", False),
        3: ("restartPolicy", "str", "", False),
        4: ("terminationGracePeriodSeconds", "int", "", True),
        5: ("activeDeadlineSeconds", "int", "", True),
        6: ("dnsPolicy", "str", "", False),
        7: ("nodeSelector", "map_str", "", False),
        8: ("serviceAccountName", "str", "", False),
        9: ("serviceAccount", "str", "", False),
        10: ("nodeName", "str", "", False),
        11: ("hostNetwork", "bool", "", False),
        12: ("hostPID", "bool", "", False),
        13: ("hostIPC", "bool", "", False),
        16: ("hostname", "str", "", False),
        17: ("subdomain", "str", "", False),
        19: ("schedulerName", "str", "", False),
        20: ("initContainers", "rep_msg", "Container", False),
        21: ("automountServiceAccountToken", "bool", "", True),
        24: ("priorityClassName", "str", "", False),
        25: ("priority", "int", "", True),
        43: ("schedulingGroup", "msg", "PodSchedulingGroup", False),
    },
    "PodSchedulingGroup": {1: ("podGroupName", "str", "", True)},
    "Container": {
        1: ("name", "str", "", False),
        2: ("image", "str", "", False),
        3: ("command", "rep_str", "", False),
        4: ("args", "rep_str", "", False),
        5: ("workingDir", "str", "", False),
        6: ("ports", "rep_msg", "ContainerPort", False),
        7: ("env", "rep_msg", "EnvVar", False),
        8: ("resources", "msg", "ResourceRequirements", False),
        13: ("terminationMessagePath", "str", "", False),
        14: ("imagePullPolicy", "str", "", False),
        16: ("stdin", "bool", "", False),
        17: ("stdinOnce", "bool", "", False),
        18: ("tty", "bool", "", False),
        20: ("terminationMessagePolicy", "str", "", False),
    },
    "ContainerPort": {
        1: ("name", "str", "", False),
        2: ("hostPort", "int", "", False),
        3: ("containerPort", "int", "", False),
        4: ("protocol", "str", "", False),
        5: ("hostIP", "str", "", False),
    },
    "EnvVar": {1: ("name", "str", "", False), 2: ("value", "str", "", False)},
    "ResourceRequirements": {
        1: ("limits", "map_qty", "", False),
        2: ("requests", "map_qty", "", False),
    },
    "PriorityClass": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("value", "int", "", True),
        3: ("globalDefault", "bool", "", False),
        4: ("description", "str", "", False),
        5: ("preemptionPolicy", "str", "", False),
    },
    "Job": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("spec", "msg", "JobSpec", False),
        3: ("status", "skip", "", False),
    },
    "JobSpec": {
        1: ("parallelism", "int", "", True),
        2: ("completions", "int", "", True),
        3: ("activeDeadlineSeconds", "int", "", True),
        4: ("selector", "msg", "LabelSelector", False),
        5: ("manualSelector", "bool", "", True),
        6: ("template", "msg", "PodTemplateSpec", False),
        7: ("backoffLimit", "int", "", True),
        8: ("ttlSecondsAfterFinished", "int", "", True),
        9: ("completionMode", "str", "", True),
        10: ("suspend", "bool", "", True),
    },
}
_KINDS = {
    ("", "v1", "Namespace"),
    ("", "v1", "Pod"),
    ("batch", "v1", "Job"),
    ("scheduling.k8s.io", "v1", "PriorityClass"),
}
_MESSAGES.update(wire.PROTOBUF_MESSAGES)
_KINDS |= wire.PROTOBUF_KINDS
_ACCEPTED = "application/json, application/yaml"


class _Malformed(ValueError):
    pass


class _Unsupported(ValueError):
    pass


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if pos >= len(data) or shift > 63:
            raise _Malformed("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """``(field number, value)`` pairs: ints for varints, bytes for length-delimited."""
    out: list[tuple[int, int | bytes]] = []
    pos = 0
    while pos < len(data):
        tag, pos = _varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            out.append((number, value))
        elif wire == 2:
            size, pos = _varint(data, pos)
            if pos + size > len(data):
                raise _Malformed("truncated field")
            out.append((number, data[pos : pos + size]))
            pos += size
        else:
            raise _Malformed(f"unexpected wire type {wire}")
    return out


def _is_zero(value: int | bytes) -> bool:
    if value in (0, b""):
        return True
    if not isinstance(value, bytes):
        return False
    try:
        return all(_is_zero(v) for _, v in _fields(value))
    except _Malformed:
        return False


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(value: int | bytes) -> str:
    if not isinstance(value, bytes):
        raise _Malformed("expected a string")
    return value.decode()


def _entry(value: int | bytes, *, quantity: bool) -> tuple[str, str]:
    if not isinstance(value, bytes):
        raise _Malformed("expected a map entry")
    key, item = "", ""
    for number, part in _fields(value):
        if number == 1:
            key = _text(part)
        elif number == 2 and quantity:
            inner = dict(_fields(part if isinstance(part, bytes) else b""))
            item = _text(inner.get(1, b""))
        elif number == 2:
            item = _text(part)
    return key, item


def _time(value: int | bytes) -> str | None:
    if not isinstance(value, bytes):
        raise _Malformed("expected a timestamp")
    seconds = _signed(int(dict(_fields(value)).get(1, 0)))
    if not seconds:
        return None
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def decode(message: str, data: bytes) -> dict[str, Any]:
    """The JSON object of one message of ``message`` type (zero values dropped, as omitempty)."""
    table = _MESSAGES[message]
    out: dict[str, Any] = {}
    for number, value in _fields(data):
        spec = table.get(number)
        if spec is None:
            if _is_zero(value):  # an unset non-pointer field, as gogo writes every one
                continue
            raise _Unsupported(f"{message} field {number}")
        name, kind, sub, _ = spec
        if kind == "skip":
            continue
        if kind == "str":
            out[name] = _text(value)
        elif kind == "int":
            out[name] = _signed(int(value)) if isinstance(value, int) else _bad(name)
        elif kind == "bool":
            out[name] = bool(value)
        elif kind == "bytes":
            out[name] = value
        elif kind == "time":
            out[name] = _time(value)
        elif kind == "msg":
            out[name] = decode(sub, value if isinstance(value, bytes) else _bad(name))
        elif kind == "rep_msg":
            out.setdefault(name, []).append(
                decode(sub, value if isinstance(value, bytes) else _bad(name))
            )
        elif kind == "rep_str":
            out.setdefault(name, []).append(_text(value))
        else:
            key, item = _entry(value, quantity=kind == "map_qty")
            out.setdefault(name, {})[key] = item
    return {
        k: v
        for k, v in out.items()
        if table[_number(table, k)][3] or v not in ("", 0, False, None, {}, [])
    }


def _number(table: dict[int, Field], name: str) -> int:
    return next(n for n, spec in table.items() if spec[0] == name)


def _bad(name: str) -> Any:
    raise _Malformed(f"unexpected value for {name}")


def unsupported() -> errors.APIStatusError:
    """The 415 of a protobuf body for a kind this server does not decode."""
    return errors.APIStatusError(
        errors.status_body(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: "
            + _ACCEPTED,
        )
    )


def to_json(rt: ResourceType, body: bytes) -> bytes:
    """A protobuf request body as JSON bytes, or the API server's 400/415."""
    if (rt.group, rt.version, rt.kind) not in _KINDS:
        raise unsupported()
    if not body.startswith(MAGIC):
        raise errors.bad_request(
            f"{rt.kind} in version {rt.version!r} cannot be handled as a {rt.kind}: provided "
            "data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
        )
    try:
        envelope = decode("Unknown", body[len(MAGIC) :])
        type_meta = envelope.get("typeMeta", {})
        if (type_meta.get("apiVersion"), type_meta.get("kind")) != (rt.api_version, rt.kind):
            raise errors.bad_request(
                f"the body is a {type_meta.get('kind')!r} of {type_meta.get('apiVersion')!r}: "
                f"send a {rt.kind} of {rt.api_version} to this URL"
            )
        obj = decode(rt.kind, envelope.get("raw", b""))
    except _Unsupported:
        raise unsupported() from None
    except (_Malformed, UnicodeDecodeError) as exc:
        raise errors.bad_request(
            f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: {exc}'
        ) from None
    obj = {"apiVersion": rt.api_version, "kind": rt.kind, **obj}
    obj.pop("status", None)
    return json.dumps(obj).encode()
