"""The errors of ``workloadbuilder.aio``: what the API server answered, as Python exceptions.

Every message says what failed and what to do; none carries a credential (messages are built
from the server's ``Status`` and the object's kind and name only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..field import OMIT_VALUE, ErrorList, ErrorType, FieldError
from .access import RequestAttributes, Rule

__all__ = [
    "APIError",
    "ApplyError",
    "FieldConflict",
    "FieldConflictError",
    "ForbiddenError",
    "InvalidObjectError",
    "KubeconfigError",
    "MissingAPI",
    "MissingAPIError",
    "MissingPermissionsError",
    "NoAnswerError",
    "ObjectRef",
    "ResponseTooLargeError",
    "TakenNameError",
    "UnreachableError",
]


@dataclass(frozen=True, order=True)
class ObjectRef:
    """Which object: ``kind``, ``namespace`` and ``name`` (and its group/version)."""

    kind: str
    namespace: str
    name: str
    api_version: str = field(default="", compare=False)

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


class APIError(Exception):
    """The API server refused a request (or could not be reached) and retrying will not help.

    ``status`` is the HTTP code (0 when no answer came), ``reason`` the ``Status`` reason
    (``Invalid``, ``Conflict``, ``NotFound``, ...), ``status_body`` the ``Status`` itself.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        reason: str = "",
        status_body: Mapping[str, Any] | None = None,
        target: ObjectRef | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.reason = reason
        self.status_body: dict[str, Any] = dict(status_body or {})
        self.target = target

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status}, reason={self.reason!r}, {self.message!r})"
        )


_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_REFUSED = re.compile(
    rf"User {_QUOTED} cannot (\S+) (?:resource {_QUOTED} in API group {_QUOTED}"
    rf"(?: in the namespace {_QUOTED}| at the cluster scope)|path {_QUOTED})"
)


class ForbiddenError(APIError):
    """The server refused the request (403 ``Forbidden``).

    When the server's message is an authorizer's refusal (kube-apiserver's wording: ``User
    "alice" cannot patch resource "podgroups/status" in API group ...``), ``user`` is who the
    server took the caller for, ``refused`` the verb, API group, resource, namespace (or
    non-resource path) it refused, and ``rule`` the RBAC rule to add to the caller's Role (a
    ClusterRole for a cluster-scoped request); the message ends with that advice. Any other 403
    (a quota, a namespace being deleted, an admission webhook) keeps the server's message alone,
    with ``refused`` and ``rule`` ``None``: no permission would help.
    """

    def __init__(
        self, message: str, *, user: str, refused: RequestAttributes | None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.user = user
        self.refused = refused

    @property
    def rule(self) -> Rule | None:
        """The rule that grants what was refused (``None`` when no permission was refused)."""
        return self.refused.rule if self.refused else None

    @classmethod
    def build(cls, server_message: str, **kwargs: Any) -> ForbiddenError:
        """The error for a 403 whose ``Status`` message is ``server_message``."""
        found = _REFUSED.search(server_message)
        if not found:
            return cls(server_message, user="", refused=None, **kwargs)
        who, verb, resource, group, namespace, path = (
            _unquote(g) if g is not None else "" for g in found.groups()
        )
        if found.group(6) is not None:
            refused = RequestAttributes(verb, path=path)
        else:
            plural, _, sub = resource.partition("/")
            refused = RequestAttributes(verb, group, plural, sub, namespace)
        holder = f'a Role in namespace "{namespace}"' if namespace else "a ClusterRole"
        advice = f"add the rule {refused.rule} to {holder} bound to {_subject(who)}"
        return cls(f"{server_message}; {advice}", user=who, refused=refused, **kwargs)


def _subject(user: str) -> str:
    """How a binding names ``user``: ``system:serviceaccount:ml:op`` is ``ServiceAccount ml/op``."""
    prefix = "system:serviceaccount:"
    if user.startswith(prefix) and user.count(":") == 3:
        namespace, _, name = user[len(prefix) :].partition(":")
        return f"ServiceAccount {namespace}/{name}"
    return f'User "{user}"'


class MissingPermissionsError(Exception):
    """``preflight(..., permissions=...)`` found permissions the caller lacks.

    ``missing`` lists each refused request as the authorizer would see it; ``rules`` merges
    them into the RBAC rules to add (one per API group and resource).
    """

    def __init__(self, missing: Sequence[RequestAttributes], verbs: Sequence[str]) -> None:
        self.missing = tuple(missing)
        merged: dict[tuple[str, str], list[str]] = {}
        for m in self.missing:
            merged.setdefault((m.api_group, m.full_resource), []).append(m.verb)
        self.rules = tuple(
            Rule((group,), (resource,), tuple(sorted(set(verbs_))))
            for (group, resource), verbs_ in sorted(merged.items())
        )
        where = self.missing[0].scope if self.missing else ""
        listed = "; ".join(str(r) for r in self.rules)
        super().__init__(
            f"the caller may not do all that {', '.join(verbs)} needs {where}: add the rules"
            f" {listed} (workloadbuilder rbac {' '.join(verbs)} prints the whole Role)"
        )


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


class UnreachableError(APIError):
    """No connection to the API server could be made: it refused the connection, its host name
    does not resolve, or no route leads to it (``status`` 0).

    Not retried by default, as client-go does not: the server's address or the network is
    wrong, and a controller's own requeue with backoff is the place to try again (or set
    ``RetryPolicy(retry_unreachable=True)``).
    """


class NoAnswerError(APIError, TimeoutError):
    """The API server did not answer within the call's timeout, so nothing is known of the
    object (``status`` 0). Also a ``TimeoutError``."""


class ResponseTooLargeError(APIError):
    """An answer larger than the limit on a response body (``limit``, in bytes); ``size`` is
    its ``Content-Length``, or the bytes received when it stopped. Nothing of it was used."""

    def __init__(self, message: str, *, size: int, limit: int, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.size = size
        self.limit = limit


class TakenNameError(APIError):
    """An object the owner needs exists under its name and the owner does not control it
    (409 ``AlreadyExists`` on create), so reconciling cannot go on.

    ``target`` is the object, ``controller`` who controls it (``"Job other (uid ...)"``, or
    ``None`` when nothing does), ``result`` what the reconcile found and did before it stopped.
    Delete or rename the object (or, for an object without a controller, adopt it), then
    reconcile again: as the Job controller returns the error so that its sync is retried.
    """

    def __init__(
        self, message: str, *, controller: str | None, result: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.controller = controller
        self.result = result


class KubeconfigError(ValueError):
    """No usable configuration: a kubeconfig that is missing, unreadable or incomplete, an exec
    credential plugin that failed or hung, or no configuration at all.

    The message names the file, the context and the entry or key at fault, never a value of
    the kubeconfig's users (tokens, passwords, keys) nor an exec plugin's output.
    """


class InvalidObjectError(APIError):
    """A 4xx the server gives for a malformed object (422 ``Invalid``, 400 ``BadRequest``).

    ``errors`` holds the server's causes as an ``ErrorList`` (each at its field path).
    Fix the object: the same request would fail again, so it is never retried.
    """

    def __init__(self, message: str, errors: ErrorList, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.errors = errors


@dataclass(frozen=True)
class FieldConflict:
    """One field another manager owns with a different value (a ``FieldManagerConflict``)."""

    manager: str
    field: str
    message: str


class FieldConflictError(APIError):
    """A server-side apply changed fields another field manager owns (409 ``Conflict``).

    ``conflicts`` lists each field and its manager; ``managers`` the managers involved. Apply
    with ``force=True`` to take the fields over, or stop setting them.
    """

    def __init__(self, message: str, conflicts: Sequence[FieldConflict], **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.conflicts = tuple(conflicts)

    @property
    def managers(self) -> tuple[str, ...]:
        """The other managers, in order of first appearance."""
        return tuple(dict.fromkeys(c.manager for c in self.conflicts))

    @property
    def fields(self) -> tuple[str, ...]:
        """The conflicting fields (``.spec.schedulingPolicy.gang.minCount``)."""
        return tuple(c.field for c in self.conflicts)


@dataclass(frozen=True)
class MissingAPI:
    """A group/version/resource the server does not serve, and what would serve it."""

    group: str
    version: str
    resource: str
    feature_gates: tuple[str, ...]
    hint: str = ""

    def __str__(self) -> str:
        gv = f"{self.group}/{self.version}" if self.group else self.version
        text = f"{self.resource}.{gv}" if self.resource else gv
        if self.feature_gates:
            text += f" (enable the feature gate(s) {', '.join(self.feature_gates)}"
            text += f"; {self.hint})" if self.hint else ")"
        return text


class MissingAPIError(Exception):
    """The cluster does not serve what the objects need (``preflight``).

    ``missing`` names each group/version/resource and the feature gates that turn it on.
    """

    def __init__(self, missing: Sequence[MissingAPI]) -> None:
        self.missing = tuple(missing)
        listed = "; ".join(str(m) for m in self.missing)
        super().__init__(f"the cluster does not serve {listed}")

    @property
    def feature_gates(self) -> tuple[str, ...]:
        """Every gate to enable, in order of first appearance."""
        return tuple(dict.fromkeys(g for m in self.missing for g in m.feature_gates))


class ApplyError(Exception):
    """``apply()`` stopped part-way: some objects are on the server, some are not.

    ``applied`` and ``not_applied`` list them (``ObjectRef``), ``failures`` maps each object
    that failed to its ``APIError``. Fix the cause and call ``apply()`` again with the same
    objects: it completes the set (applying is idempotent).
    """

    def __init__(
        self,
        applied: Sequence[ObjectRef],
        not_applied: Sequence[ObjectRef],
        failures: Mapping[ObjectRef, APIError],
    ) -> None:
        self.applied = tuple(applied)
        self.not_applied = tuple(not_applied)
        self.failures = dict(failures)
        failed = "; ".join(f"{ref}: {err.message}" for ref, err in self.failures.items())
        pending = ", ".join(str(r) for r in self.not_applied)
        super().__init__(
            f"applied {len(self.applied)} of {len(self.applied) + len(self.not_applied)} objects;"
            f" failed: {failed}; not applied: {pending or 'none'}."
            " Fix the cause and call apply() again with the same objects to complete the set"
        )

    @property
    def errors(self) -> ErrorList:
        """Every server cause of the invalid objects, as one ``ErrorList``."""
        out = ErrorList()
        for err in self.failures.values():
            if isinstance(err, InvalidObjectError):
                out += err.errors
        return out

    @property
    def conflicts(self) -> tuple[FieldConflict, ...]:
        """Every field conflict with another manager."""
        return tuple(
            c
            for err in self.failures.values()
            if isinstance(err, FieldConflictError)
            for c in err.conflicts
        )


def excerpt(text: str, limit: int = 200) -> str:
    """The start of a body that is not a ``Status``, on one line, printable, at most ``limit``."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text[: limit * 2]).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _error_type(reason: str) -> ErrorType:
    try:
        return ErrorType(reason)
    except ValueError:
        return ErrorType.INVALID


def _causes(status: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    details = status.get("details")
    causes = details.get("causes") if isinstance(details, Mapping) else None
    return [c for c in causes if isinstance(c, Mapping)] if isinstance(causes, list) else []


def error_from_status(
    code: int, status: Mapping[str, Any], text: str, target: ObjectRef | None
) -> APIError:
    """The exception for a non-retryable answer: ``status`` is the parsed ``Status`` (or ``{}``)."""
    reason = str(status.get("reason") or "")
    message = str(status.get("message") or excerpt(text) or f"HTTP {code}")
    kwargs: dict[str, Any] = {
        "status": code,
        "reason": reason,
        "status_body": status,
        "target": target,
    }
    causes = _causes(status)
    if code == 409 and any(c.get("reason") == "FieldManagerConflict" for c in causes):
        conflicts = [
            FieldConflict(
                _manager_of(str(c.get("message", ""))),
                str(c.get("field", "")),
                str(c.get("message", "")),
            )
            for c in causes
            if c.get("reason") == "FieldManagerConflict"
        ]
        names = ", ".join(dict.fromkeys(c.manager for c in conflicts))
        fields = ", ".join(c.field for c in conflicts)
        return FieldConflictError(
            f"{message} (fields {fields} are owned by {names}: pass force=True to take them"
            " over, or stop setting them)",
            conflicts,
            **kwargs,
        )
    if code == 403:
        return ForbiddenError.build(message, **kwargs)
    if code in (400, 422):
        errors = ErrorList(_field_error(c) for c in causes)
        return InvalidObjectError(message, errors, **kwargs)
    return APIError(message, **kwargs)


def _field_error(cause: Mapping[str, Any]) -> FieldError:
    """A server ``StatusCause`` as a ``FieldError`` that renders exactly as the server's cause."""
    kind = _error_type(str(cause.get("reason", "")))
    body = str(cause.get("message", ""))
    prefix = f"{kind.description}: "
    detail = body[len(prefix) :] if body.startswith(prefix) else body
    if body == kind.description:
        detail = ""
    return FieldError(kind, str(cause.get("field", "")), OMIT_VALUE, detail)


def _manager_of(message: str) -> str:
    """``conflict with "bar" using v1 at ...`` -> ``bar``."""
    start = message.find('"')
    end = message.find('"', start + 1)
    return message[start + 1 : end] if 0 <= start < end else ""
