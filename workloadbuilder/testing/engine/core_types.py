"""The Go types of the fields of the core kinds the SDK does not model, for decoding errors.

Go's JSON decoder refuses a value of the wrong JSON type with ``json: cannot unmarshal
<kind> into Go struct field <Struct>.<path> of type <type>``, where ``<Struct>`` is the
innermost struct and ``<path>`` the dotted path from the object's root without list indexes.
This table covers the fields of Pod, Job and PriorityClass that tests commonly set; fields
outside it are not looked into.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloadbuilder.testing.engine.object_types import json_kind

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


@dataclass(frozen=True)
class Struct:
    """A Go struct: its name and the Go types of its fields (a type name, a struct, or a
    one-element list holding the struct of a slice's items)."""

    name: str
    fields: dict[str, Any]

    @property
    def go_type(self) -> str:
        return f"v1.{self.name}"


def _all(go_type: str, *names: str) -> dict[str, str]:
    return dict.fromkeys(names, go_type)


CONTAINER = Struct(
    "Container",
    {
        **_all(
            "string", "name", "image", "workingDir", "restartPolicy", "terminationMessagePath",
            "terminationMessagePolicy", "imagePullPolicy",
        ),
        **_all("bool", "stdin", "stdinOnce", "tty"),
        **_all("[]string", "command", "args"),
    },
)  # fmt: skip
POD_SPEC = Struct(
    "PodSpec",
    {
        **_all(
            "string", "restartPolicy", "dnsPolicy", "serviceAccountName", "serviceAccount",
            "nodeName", "hostname", "subdomain", "schedulerName", "priorityClassName",
            "runtimeClassName", "preemptionPolicy", "hostnameOverride",
        ),
        **_all("int64", "terminationGracePeriodSeconds", "activeDeadlineSeconds"),
        **_all("int32", "priority"),
        **_all(
            "bool", "automountServiceAccountToken", "hostNetwork", "hostPID", "hostIPC",
            "shareProcessNamespace", "enableServiceLinks", "setHostnameAsFQDN", "hostUsers",
        ),
        "nodeSelector": "map[string]string",
        "schedulingGroup": Struct("PodSchedulingGroup", {"podGroupName": "string"}),
        "containers": [CONTAINER],
        "initContainers": [CONTAINER],
    },
)  # fmt: skip
JOB_SPEC = Struct(
    "JobSpec",
    {
        **_all(
            "int32", "parallelism", "completions", "backoffLimit", "backoffLimitPerIndex",
            "maxFailedIndexes", "ttlSecondsAfterFinished",
        ),
        **_all("int64", "activeDeadlineSeconds"),
        **_all("bool", "manualSelector", "suspend"),
        **_all("string", "completionMode", "podReplacementPolicy", "managedBy"),
        "template": Struct("PodTemplateSpec", {"spec": POD_SPEC}),
    },
)  # fmt: skip
KINDS: dict[tuple[str, str], Struct] = {
    ("", "Pod"): Struct("Pod", {"spec": POD_SPEC}),
    ("batch", "Job"): Struct("Job", {"spec": JOB_SPEC}),
    ("scheduling.k8s.io", "PriorityClass"): Struct(
        "PriorityClass",
        {
            "value": "int32",
            "globalDefault": "bool",
            **_all("string", "description", "preemptionPolicy"),
        },
    ),
}


def _fits(go_type: str, value: Any) -> bool:
    if go_type == "string":
        return isinstance(value, str)
    if go_type == "bool":
        return isinstance(value, bool)
    low, high = _INT_RANGES[go_type]
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _shown(go_type: str, value: Any) -> str:
    """How the decoder names ``value``: a number that is a number but does not fit an
    integer type is shown with its text (``number 1.5``)."""
    if go_type in _INT_RANGES and isinstance(value, int | float) and not isinstance(value, bool):
        return f"number {value!r}"
    return json_kind(value)


def _mismatch(shown: str, struct: Struct, path: str, go_type: str) -> str:
    into = f"Go struct field {struct.name}.{path}"
    return f"json: cannot unmarshal {shown} into {into} of type {go_type}"


def _first_error(struct: Struct, value: dict[str, Any], path: str) -> str | None:
    for key, item in value.items():
        go_type = struct.fields.get(key)
        if go_type is None or item is None:  # unknown here, or JSON null (Go's zero value)
            continue
        where = f"{path}.{key}" if path else str(key)
        found = _check(struct, go_type, item, where)
        if found is not None:
            return found
    return None


def _check(struct: Struct, go_type: Any, item: Any, where: str) -> str | None:
    if isinstance(go_type, Struct):
        if not isinstance(item, dict):
            return _mismatch(json_kind(item), struct, where, go_type.go_type)
        return _first_error(go_type, item, where)
    if isinstance(go_type, list):
        element: Struct = go_type[0]
        if not isinstance(item, list):
            return _mismatch(json_kind(item), struct, where, f"[]{element.go_type}")
        for entry in item:
            if entry is None:
                continue
            found = _check(struct, element, entry, where)
            if found is not None:
                return found
        return None
    if go_type == "[]string":
        if not isinstance(item, list):
            return _mismatch(json_kind(item), struct, where, go_type)
        wrong = next((e for e in item if e is not None and not isinstance(e, str)), None)
        return None if wrong is None else _mismatch(json_kind(wrong), struct, where, "string")
    if go_type == "map[string]string":
        if not isinstance(item, dict):
            return _mismatch(json_kind(item), struct, where, go_type)
        wrong = next((v for v in item.values() if v is not None and not isinstance(v, str)), None)
        return None if wrong is None else _mismatch(json_kind(wrong), struct, where, "string")
    if not _fits(go_type, item):
        return _mismatch(_shown(go_type, item), struct, where, go_type)
    return None


def core_type_errors(group: str, kind: str, obj: dict[str, Any]) -> list[str]:
    """The decoder's first wrong-type error in ``obj`` (outside ``metadata``), if any."""
    struct = KINDS.get((group, kind))
    if struct is None:
        return []
    found = _first_error(struct, {k: v for k, v in obj.items() if k != "metadata"}, "")
    return [] if found is None else [found]
