"""Which field selectors each kind supports, and the API server's error for any other.

Kinds with a registered field-label conversion (core pods, nodes, namespaces, events and
batch jobs) answer ``field label not supported: <label>``; every other kind takes
apimachinery's default, which knows only ``metadata.name`` and ``metadata.namespace``.
"""

from __future__ import annotations

import re

_META = ("metadata.name", "metadata.namespace")
_INVOLVED = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
_EVENT = (
    *(f"involvedObject.{f}" for f in _INVOLVED),
    "reason",
    "reportingComponent",
    "source",
    "type",
    *_META,
)

SUPPORTED: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): (
        *_META,
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.podIPs",
        "status.nominatedNodeName",
    ),
    ("", "Node"): ("metadata.name", "spec.unschedulable"),
    ("", "Namespace"): ("metadata.name", "status.phase"),
    ("", "Event"): _EVENT,
    ("batch", "Job"): (*_META, "status.successful"),
}

_TERM = re.compile(r"^\s*([^!=\s]+)\s*(?:==|!=|=)")


def field_label_error(group: str, kind: str, selector: str | None) -> str | None:
    """The API server's message for the first label of ``selector`` that ``kind`` does not
    support, or ``None`` when every label is supported."""
    if not selector:
        return None
    supported = SUPPORTED.get((group, kind))
    for term in selector.split(","):
        match = _TERM.match(term)
        if match is None:
            continue  # a malformed term is the selector parser's to report
        label = match.group(1)
        if supported is not None and label not in supported:
            return f"field label not supported: {label}"
        if supported is None and label not in _META:
            return (
                f'"{label}" is not a known field selector: only "metadata.name", '
                '"metadata.namespace"'
            )
    return None
