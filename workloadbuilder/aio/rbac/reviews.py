"""Asking the API server up front what the caller may do: SelfSubjectAccessReviews."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from ..access import RequestAttributes
from ..errors import APIError, MissingPermissionsError
from ..wire.answers import describe
from ..wire.transport import Transport
from .permissions import Permissions

__all__ = ["check_permissions"]

_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


async def _allowed(transport: Transport, wanted: RequestAttributes) -> bool:
    attributes = {
        "verb": wanted.verb,
        "group": wanted.api_group,
        "resource": wanted.resource,
        "subresource": wanted.subresource,
        "namespace": wanted.namespace,
    }
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {k: v for k, v in attributes.items() if v}},
    }
    response = await transport.request("POST", _REVIEWS, body=body)
    status = response.body.get("status") if isinstance(response.body, Mapping) else None
    if not isinstance(status, Mapping) or not isinstance(status.get("allowed"), bool):
        raise APIError(
            f"a SelfSubjectAccessReview for {wanted.verb} {wanted.full_resource}: the server"
            f" answered HTTP {response.status} with {describe(response)}, not a review's status",
            status=response.status,
        )
    return bool(status["allowed"])


async def check_permissions(transport: Transport, permissions: Permissions) -> None:
    """Raise ``MissingPermissionsError`` naming every rule of ``permissions`` the caller lacks
    (one review per verb of each rule, asked concurrently)."""
    wanted: list[RequestAttributes] = []
    for rule in permissions.rules:
        for group in rule.api_groups:
            for resource in rule.resources:
                plural, _, sub = resource.partition("/")
                wanted.extend(
                    RequestAttributes(verb, group, plural, sub, permissions.namespace or "")
                    for verb in rule.verbs
                )
    answers: list[Any] = await asyncio.gather(*(_allowed(transport, w) for w in wanted))
    missing = [w for w, allowed in zip(wanted, answers, strict=True) if not allowed]
    if missing:
        raise MissingPermissionsError(missing, permissions.verbs)
