"""Defaults and validation of a core/v1 ``Event`` (``pkg/apis/core/validation/events.go``).

An Event is served as its Go struct serializes: the timestamps that have no ``omitempty``
effect (``firstTimestamp``, ``lastTimestamp``, ``eventTime``) come back ``null``, the two
reporting fields without ``omitempty`` come back ``""`` and ``source`` comes back ``{}``.
Validation is the core/v1 ("legacy") form: an Event without ``eventTime`` names its own
namespace in ``involvedObject``; one with ``eventTime`` names its reporting controller and
instance, its action and its reason.
"""

from __future__ import annotations

from typing import Final

from .common import Errs, Obj, mapping
from .errors import invalid, required
from .formats import qualified_name

__all__ = ["default_event", "validate_event"]

_NULL_TIMES: Final = ("firstTimestamp", "lastTimestamp", "eventTime")
_EMPTY_STRINGS: Final = ("reportingComponent", "reportingInstance")
_NO_MATCH: Final = "does not match event.namespace"
_INSTANCE_LIMIT: Final = 128
_ACTION_LIMIT: Final = 128
_REASON_LIMIT: Final = 128
_NOTE_LIMIT: Final = 1024


def default_event(obj: Obj) -> None:
    """The fields the Go struct always writes, as it writes them when unset (or null)."""
    if obj.get("source") is None:
        obj["source"] = {}
    for key in _NULL_TIMES:
        obj.setdefault(key, None)
    for key in _EMPTY_STRINGS:
        if obj.get(key) is None:
            obj[key] = ""


def _series(obj: Obj) -> Errs:
    series = obj.get("series")
    if not isinstance(series, dict):
        return []
    errs: Errs = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        errs.append(invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errs.append(required("series.lastObservedTime"))
    return errs


def _too_long(path: str, value: object, limit: int) -> Errs:
    if isinstance(value, str) and len(value) > limit:
        return [invalid(path, "", f"can have at most {limit} characters")]
    return []


def _reported(obj: Obj) -> Errs:
    """What an Event with ``eventTime`` must carry (the newer, events.k8s.io-shaped form)."""
    errs: Errs = []
    controller = obj.get("reportingComponent") or ""
    if not controller:
        errs.append(required("reportingComponent"))
    if isinstance(controller, str):
        errs += [invalid("reportingComponent", controller, m) for m in qualified_name(controller)]
    if not obj.get("reportingInstance"):
        errs.append(required("reportingInstance"))
    errs += _too_long("reportingInstance", obj.get("reportingInstance"), _INSTANCE_LIMIT)
    if not obj.get("action"):
        errs.append(required("action"))
    errs += _too_long("action", obj.get("action"), _ACTION_LIMIT)
    if not obj.get("reason"):
        errs.append(required("reason"))
    errs += _too_long("reason", obj.get("reason"), _REASON_LIMIT)
    return errs + _too_long("message", obj.get("message"), _NOTE_LIMIT)


def validate_event(obj: Obj, old: Obj | None) -> Errs:
    """``ValidateEventCreate`` (``old`` is None) or ``ValidateEventUpdate`` for core/v1."""
    errs = _series(obj)
    if old is not None:
        return errs
    namespace = mapping(obj.get("metadata")).get("namespace") or ""
    involved = mapping(obj.get("involvedObject")).get("namespace") or ""
    path = "involvedObject.namespace"
    if not obj.get("eventTime"):
        # without one: the same namespace (none, or "default", for old clients)
        if involved != namespace and (involved or namespace not in ("", "default")):
            errs.append(invalid(path, involved, _NO_MATCH))
        return errs
    if not involved and namespace not in ("default", "kube-system"):
        errs.append(invalid(path, involved, _NO_MATCH))
    return errs + _reported(obj)
