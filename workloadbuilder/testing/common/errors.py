"""Kubernetes ``Status`` failure bodies and the exception that carries them."""

from __future__ import annotations

from typing import Any

from workloadbuilder.testing.common.resources import ResourceType


class APIStatusError(Exception):
    """A request failed the way a Kubernetes API server fails it: ``status`` is the Status body."""

    def __init__(self, status: dict[str, Any]) -> None:
        super().__init__(f"{status['code']} {status.get('reason', '')}: {status['message']}")
        self.status = status

    @property
    def code(self) -> int:
        """The HTTP status code."""
        return int(self.status["code"])

    @property
    def reason(self) -> str:
        """The machine-readable reason, e.g. ``Conflict`` or ``Invalid``."""
        return str(self.status.get("reason", ""))


def status_body(
    code: int, reason: str, message: str, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A ``metav1.Status`` failure body."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


def _error(
    code: int, reason: str, message: str, details: dict[str, Any] | None = None
) -> APIStatusError:
    return APIStatusError(status_body(code, reason, message, details))


def _object_details(rt: ResourceType, name: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name}
    if rt.group:
        details["group"] = rt.group
    details["kind"] = rt.plural
    return details


def path_not_found() -> APIStatusError:
    """A path that the server does not serve."""
    return _error(404, "NotFound", "the server could not find the requested resource", {})


def not_found(rt: ResourceType, name: str) -> APIStatusError:
    """A missing object."""
    return _error(404, "NotFound", f'{rt.qualified} "{name}" not found', _object_details(rt, name))


def namespace_terminating(rt: ResourceType, name: str, namespace: str) -> APIStatusError:
    """Create in a namespace that is being deleted (403, cause ``NamespaceTerminating``)."""
    details = _object_details(rt, name)
    details["causes"] = [
        {
            "reason": "NamespaceTerminating",
            "message": f"namespace {namespace} is being terminated",
            "field": "metadata.namespace",
        }
    ]
    return _error(
        403,
        "Forbidden",
        f'{rt.qualified} "{name}" is forbidden: unable to create new content in namespace'
        f" {namespace} because it is being terminated",
        details,
    )


def already_exists(rt: ResourceType, name: str) -> APIStatusError:
    """Create of an object that exists."""
    return _error(
        409, "AlreadyExists", f'{rt.qualified} "{name}" already exists', _object_details(rt, name)
    )


def modified(rt: ResourceType, name: str) -> APIStatusError:
    """A stale ``resourceVersion`` (optimistic concurrency)."""
    message = (
        f'Operation cannot be fulfilled on {rt.qualified} "{name}": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    return _error(409, "Conflict", message, _object_details(rt, name))


def uid_mismatch(given: str, live: str) -> APIStatusError:
    """A ``metadata.uid`` precondition that does not hold (the object is missing or another)."""
    return _error(
        409,
        "Conflict",
        f"Precondition failed: UID in precondition: {given}, UID in object meta: {live}",
    )


def delete_precondition_failed(rt: ResourceType, name: str, text: str) -> APIStatusError:
    """409 for a DeleteOptions precondition that does not hold: ``rest.BeforeDelete`` words it
    with the kind (not the resource), in the message and in ``details.kind``."""
    qualified = f"{rt.kind}.{rt.group}" if rt.group else rt.kind
    details: dict[str, Any] = {"name": name}
    if rt.group:
        details["group"] = rt.group
    details["kind"] = rt.kind
    message = f'Operation cannot be fulfilled on {qualified} "{name}": {text}'
    return _error(409, "Conflict", message, details)


def too_large_resource_version(wanted: int, current: int) -> APIStatusError:
    """504 for a list at a resourceVersion the server has not reached (``storage``'s
    ``NewTooLargeResourceVersionError``: a Timeout, cause ``ResourceVersionTooLarge``)."""
    details = {
        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
        "retryAfterSeconds": 1,
    }
    message = f"Timeout: Too large resource version: {wanted}, current: {current}"
    return _error(504, "Timeout", message, details)


def too_large(limit: int) -> APIStatusError:
    """413 for a request body over the API server's limit."""
    return _error(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


def conflict(message: str, causes: list[dict[str, str]]) -> APIStatusError:
    """A server-side apply conflict."""
    return _error(409, "Conflict", message, {"causes": causes})


def bad_request(message: str) -> APIStatusError:
    """A malformed request."""
    return _error(400, "BadRequest", message)


def invalid(kind: str, group: str, name: str, causes: list[dict[str, str]]) -> APIStatusError:
    """A 422 ``Invalid`` Status naming every cause, as the API server words it."""
    qualified = f"{kind}.{group}" if group else kind
    # field.ErrorList.ToAggregate: each distinct error once, several in brackets
    items = list(
        dict.fromkeys(
            f"{c['field']}: {c['message']}" if c.get("field") else c["message"] for c in causes
        )
    )
    joined = items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"
    details: dict[str, Any] = {"name": name} if name else {}  # omitempty, as StatusDetails
    if group:
        details["group"] = group
    details["kind"] = kind
    details["causes"] = causes
    return _error(422, "Invalid", f'{qualified} "{name}" is invalid: {joined}', details)


def invalid_patch_options(field: str, reason: str, message: str) -> APIStatusError:
    """422 for bad ``PatchOptions`` (the query parameters of a PATCH)."""
    return invalid(
        "PatchOptions", "meta.k8s.io", "", [{"reason": reason, "message": message, "field": field}]
    )


def unsupported_media_type(content_type: str, supported: list[str]) -> APIStatusError:
    """415 for a PATCH content type the server does not accept."""
    return _error(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types include: "
        f"{', '.join(supported)}",
    )


def method_not_allowed(method: str) -> APIStatusError:
    """405 for a verb the resource does not support."""
    return _error(
        405,
        "MethodNotAllowed",
        f"the server does not allow this method on the requested resource ({method})",
    )


def expired(requested: int, oldest: int) -> APIStatusError:
    """410 for a watch from a resourceVersion older than the retained history."""
    return _error(410, "Expired", f"too old resource version: {requested} ({oldest})")


def internal(message: str) -> APIStatusError:
    """500 as the API server reports an internal error."""
    return _error(
        500,
        "InternalError",
        f"Internal error occurred: {message}",
        {"causes": [{"message": message}]},
    )


def unavailable(message: str) -> APIStatusError:
    """503 Service Unavailable."""
    return _error(503, "ServiceUnavailable", message)
