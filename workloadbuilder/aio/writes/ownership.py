"""Whose an object is: its controller reference, taking an orphan, a name another has taken."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...api.meta_v1 import OwnerReference
from ..errors import APIError
from ..wire.resources import Resource, ref_of
from ..wire.transport import MERGE_PATCH, Transport

__all__ = ["adopt_orphan", "already_exists", "controlled_by", "controller_of"]


def controller_of(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``metav1.GetControllerOf``: the first owner reference marked ``controller: true``."""
    refs = (doc.get("metadata") or {}).get("ownerReferences") or ()
    return next((r for r in refs if isinstance(r, Mapping) and r.get("controller") is True), None)


def controlled_by(doc: Mapping[str, Any], uid: str) -> bool:
    """``metav1.IsControlledBy``: the object's controller reference names ``uid``."""
    controller = controller_of(doc)
    return controller is not None and controller.get("uid") == uid


def already_exists(error: APIError) -> bool:
    """A create refused because the name is taken (409 ``AlreadyExists``)."""
    return error.status == 409 and error.reason == "AlreadyExists"


async def adopt_orphan(
    transport: Transport,
    resource: Resource,
    doc: Mapping[str, Any],
    owner: OwnerReference,
    field_manager: str,
) -> dict[str, Any] | None:
    """Make ``owner`` the controller of an object that has none, as client-go's
    ``ControllerRefManager`` adopts: the owner references as they were plus the owner's, on
    the condition that the object is the one read (its ``uid`` and ``resourceVersion``).

    Returns the adopted object, or ``None`` when it changed or went away meanwhile (read it
    again before deciding).
    """
    meta = doc.get("metadata") or {}
    refs = [dict(r) for r in meta.get("ownerReferences") or () if isinstance(r, Mapping)]
    mine = {**owner.to_dict(), "controller": True, "blockOwnerDeletion": True}
    patch = {
        "metadata": {
            "ownerReferences": [*refs, mine],
            "uid": meta.get("uid"),
            "resourceVersion": meta.get("resourceVersion"),
        }
    }
    ref = ref_of(doc)
    try:
        response = await transport.request(
            "PATCH",
            resource.path(ref.namespace, ref.name),
            query=[("fieldManager", field_manager)],
            body=patch,
            content_type=MERGE_PATCH,
            target=ref,
        )
    except APIError as exc:
        if exc.status in (404, 409):
            return None
        raise
    return dict(response.body) if isinstance(response.body, Mapping) else None
