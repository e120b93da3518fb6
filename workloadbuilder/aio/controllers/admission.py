"""``AdmissionRequest``: one ``admission.k8s.io/v1`` AdmissionReview's request, read strictly.

kube-apiserver sends a webhook an AdmissionReview whose ``request`` says what is being
admitted (``k8s.io/api/admission/v1``'s ``AdmissionRequest``). ``read_review`` turns the body
into an ``AdmissionRequest`` or a ``MalformedReview`` naming the field that is wrong;
``review_response`` writes the AdmissionReview answered for it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "ADMISSION_REVIEW_VERSION",
    "AdmissionRequest",
    "MalformedReview",
    "read_review",
    "review_response",
]

ADMISSION_REVIEW_VERSION = "admission.k8s.io/v1"
Operation = Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]
_OPERATIONS: frozenset[str] = frozenset(("CREATE", "UPDATE", "DELETE", "CONNECT"))


class MalformedReview(ValueError):
    """The body is not an ``admission.k8s.io/v1`` AdmissionReview with a request to answer."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class AdmissionRequest:
    """What kube-apiserver asks a webhook to admit; objects are the JSON it sent.

    ``kind`` / ``request_kind`` are ``{"group", "version", "kind"}``, ``resource`` /
    ``request_resource`` are ``{"group", "version", "resource"}``; ``object`` is ``None`` on
    DELETE and ``old_object`` on CREATE. ``warn(text)`` adds a warning the client is shown
    (``response.warnings``), allowed or not.
    """

    uid: str
    operation: Operation
    kind: Mapping[str, str]
    resource: Mapping[str, str]
    name: str = ""
    namespace: str = ""
    sub_resource: str = ""
    request_kind: Mapping[str, str] | None = None
    request_resource: Mapping[str, str] | None = None
    request_sub_resource: str = ""
    user_info: Mapping[str, Any] = field(default_factory=dict)
    object: dict[str, Any] | None = None
    old_object: dict[str, Any] | None = None
    dry_run: bool = False
    options: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list, compare=False, repr=False)

    def warn(self, text: str) -> None:
        """Send ``text`` back as a warning (kubectl prints ``Warning: <text>``)."""
        self.warnings.append(text)


def _field(request: Mapping[str, Any], key: str, kind: type, *, required: bool = False) -> Any:
    value = request.get(key)
    if value is None:
        if required:
            raise MalformedReview(f"request.{key} is required")
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise MalformedReview(
            f"request.{key} must be a JSON {_JSON_NAMES[kind]}, not {type(value).__name__}"
        )
    return value


_JSON_NAMES: dict[type, str] = {str: "string", bool: "boolean", dict: "object"}


def _group_version(request: Mapping[str, Any], key: str, last: str, *, required: bool) -> Any:
    value = _field(request, key, dict, required=required)
    if value is None:
        return None
    for part in ("group", "version", last):
        if not isinstance(value.get(part, ""), str):
            raise MalformedReview(f"request.{key}.{part} must be a JSON string")
    return {part: value.get(part, "") for part in ("group", "version", last)}


def read_review(body: bytes) -> AdmissionRequest:
    """The request of an AdmissionReview body; ``MalformedReview`` says what is wrong."""
    try:
        review = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedReview(f"the body is not JSON: {exc}") from None
    if not isinstance(review, dict):
        raise MalformedReview("the body is not a JSON object (an AdmissionReview)")
    api_version, kind = review.get("apiVersion"), review.get("kind")
    if api_version != ADMISSION_REVIEW_VERSION or kind != "AdmissionReview":
        raise MalformedReview(
            f"apiVersion={json.dumps(api_version)}, kind={json.dumps(kind)}: expected an "
            f"AdmissionReview of {ADMISSION_REVIEW_VERSION} (admissionReviewVersions: [v1])"
        )
    request = review.get("request")
    if not isinstance(request, dict):
        raise MalformedReview("the AdmissionReview has no request (a JSON object)")
    uid = _field(request, "uid", str, required=True)
    if not uid:
        raise MalformedReview("request.uid is required")
    operation = _field(request, "operation", str, required=True)
    if operation not in _OPERATIONS:
        raise MalformedReview(
            f"request.operation {json.dumps(operation)} is not one of "
            f"{', '.join(sorted(_OPERATIONS))}"
        )
    return AdmissionRequest(
        uid=uid,
        operation=operation,
        kind=_group_version(request, "kind", "kind", required=True),
        resource=_group_version(request, "resource", "resource", required=True),
        name=_field(request, "name", str) or "",
        namespace=_field(request, "namespace", str) or "",
        sub_resource=_field(request, "subResource", str) or "",
        request_kind=_group_version(request, "requestKind", "kind", required=False),
        request_resource=_group_version(request, "requestResource", "resource", required=False),
        request_sub_resource=_field(request, "requestSubResource", str) or "",
        user_info=_field(request, "userInfo", dict) or {},
        object=_field(request, "object", dict),
        old_object=_field(request, "oldObject", dict),
        dry_run=bool(_field(request, "dryRun", bool)),
        options=_field(request, "options", dict),
    )


def review_response(
    uid: str,
    *,
    allowed: bool,
    status: Mapping[str, Any] | None = None,
    patch: list[dict[str, Any]] | None = None,
    warnings: list[str] | None = None,
) -> dict[str, Any]:
    """The AdmissionReview answering request ``uid`` (status code 200 when none is given)."""
    response: dict[str, Any] = {
        "uid": uid,
        "allowed": allowed,
        "status": dict(status) if status else {"metadata": {}, "code": 200},
    }
    if patch:
        response["patchType"] = "JSONPatch"
        response["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
    if warnings:
        response["warnings"] = list(warnings)
    return {"apiVersion": ADMISSION_REVIEW_VERSION, "kind": "AdmissionReview", "response": response}
