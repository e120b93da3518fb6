"""The ``admission.k8s.io/v1`` ``AdmissionReview`` a webhook receives, and the checks of its
answer (``k8s.io/apiserver`` ``pkg/admission/plugin/webhook/request/admissionreview.go``:
``CreateV1AdmissionReview`` and ``VerifyAdmissionResponse``)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.testing.engine.admission.attributes import CREATE, Attributes
from workloadbuilder.testing.engine.admission.webhooks.client import CallError
from workloadbuilder.testing.engine.admission.webhooks.matching import Invocation

REVIEW_API = "admission.k8s.io/v1"


_SET_BY_STORAGE = ("uid", "creationTimestamp")
"""What storage's ``BeforeCreate`` fills in after the mutating admission."""


def _served(obj: dict[str, Any] | None, api_version: str) -> dict[str, Any] | None:
    return None if obj is None else {**obj, "apiVersion": api_version}


def _as_admitted(attrs: Attributes, api_version: str, *, mutating: bool) -> dict[str, Any] | None:
    """The new object as the phase sees it: a create's mutating phase runs before storage
    sets ``uid``, ``creationTimestamp`` and a name made from ``generateName``; its validating
    phase runs after (``rest.AdmissionToValidateObjectFunc``)."""
    obj = _served(attrs.obj, api_version)
    if obj is None or attrs.operation != CREATE or not mutating:
        return obj
    meta = {k: v for k, v in obj["metadata"].items() if k not in _SET_BY_STORAGE}
    if not attrs.name:
        meta.pop("name", None)
    return {**obj, "metadata": meta}


def request(
    attrs: Attributes, call: Invocation, user: dict[str, Any], *, mutating: bool
) -> tuple[str, dict[str, Any]]:
    """A new request's uid and its ``AdmissionReview`` (``mutating``: for the mutating phase)."""
    uid = str(uuid.uuid4())
    rt, asked = call.rt, attrs.rt
    body: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
        "resource": {"group": rt.group, "version": rt.version, "resource": rt.plural},
    }
    if attrs.subresource:
        body["subResource"] = attrs.subresource
    body["requestKind"] = {"group": asked.group, "version": asked.version, "kind": asked.kind}
    body["requestResource"] = {
        "group": asked.group,
        "version": asked.version,
        "resource": asked.plural,
    }
    if attrs.subresource:
        body["requestSubResource"] = attrs.subresource
    name = attrs.name
    if not mutating and attrs.obj is not None:
        name = name or str(attrs.obj["metadata"].get("name", ""))  # the generated name
    if name:
        body["name"] = name
    if attrs.namespace:
        body["namespace"] = attrs.namespace
    body |= {
        "operation": attrs.operation,
        "userInfo": user,
        "object": _as_admitted(attrs, rt.api_version, mutating=mutating),
        "oldObject": _served(attrs.old, rt.api_version),
        "dryRun": attrs.dry_run,
        "options": attrs.options or None,
    }
    return uid, {"kind": "AdmissionReview", "apiVersion": REVIEW_API, "request": body}


@dataclass
class Answer:
    """A verified ``response``: allowed or not, its ``status``, patch and warnings."""

    allowed: bool
    status: dict[str, Any] | None
    patch: str = ""
    warnings: list[str] = field(default_factory=list)


def verify(uid: str, review: Any, *, mutating: bool) -> Answer:
    """The webhook's answer, or :class:`CallError` with upstream's reason."""
    if not isinstance(review, dict) or not isinstance(review.get("response"), dict):
        raise CallError("received invalid webhook response: webhook response was absent")
    response = review["response"]
    if response.get("uid") != uid:
        raise CallError(
            f'received invalid webhook response: expected response.uid="{uid}", '
            f'got "{response.get("uid", "")}"'
        )
    if (review.get("apiVersion"), review.get("kind")) != (REVIEW_API, "AdmissionReview"):
        got = f"{review.get('apiVersion', '')}, Kind={review.get('kind', '')}"
        raise CallError(
            "received invalid webhook response: expected webhook response of "
            f"{REVIEW_API}, Kind=AdmissionReview, got {got.lstrip('/')}"
        )
    patch, patch_type = response.get("patch") or "", response.get("patchType")
    problem = ""
    if mutating and patch and patch_type is None:
        problem = "webhook returned response.patch but not response.patchType"
    elif mutating and not patch and patch_type is not None:
        problem = "webhook returned response.patchType but not response.patch"
    elif mutating and patch_type is not None and not patch_type:
        problem = f'webhook returned invalid response.patchType of "{patch_type}"'
    elif not mutating and patch:
        problem = "validating webhook may not return response.patch"
    elif not mutating and patch_type is not None:
        problem = "validating webhook may not return response.patchType"
    if problem:
        raise CallError(f"received invalid webhook response: {problem}")
    if mutating and patch and patch_type != "JSONPatch":
        raise CallError(f'unsupported patch type "{patch_type}"')
    status = response.get("status")
    warnings = response.get("warnings")
    return Answer(
        response.get("allowed") is True,
        status if isinstance(status, dict) else None,
        str(patch),
        [str(w) for w in warnings] if isinstance(warnings, list) else [],
    )
