"""``read_object`` and ``list_objects``: the scheduling objects as the API server holds them."""

from __future__ import annotations

from typing import Any, Literal, get_args

from ..wire.queries import get_document, list_documents
from ..wire.resources import COMPOSITE_POD_GROUPS, POD_GROUPS, WORKLOADS, Resource
from ..wire.transport import RetryPolicy, transport_for

__all__ = ["SchedulingKind", "list_objects", "read_object"]

SchedulingKind = Literal["Workload", "PodGroup", "CompositePodGroup"]
"""The kinds read here: Workload and PodGroup (v1beta1), CompositePodGroup (v1alpha3)."""

_RESOURCES: dict[str, Resource] = {r.kind: r for r in (WORKLOADS, POD_GROUPS, COMPOSITE_POD_GROUPS)}


def _resource(kind: str) -> Resource:
    resource = _RESOURCES.get(kind)
    if resource is None:
        raise ValueError(
            f"cannot read kind {kind!r}; expected one of: {', '.join(get_args(SchedulingKind))}"
        )
    return resource


async def read_object(
    api_client: Any,
    kind: SchedulingKind,
    name: str,
    *,
    namespace: str,
    retry: RetryPolicy | None = None,
) -> dict[str, Any] | None:
    """The JSON of ``kind`` ``name`` in ``namespace``, or ``None`` when it does not exist.

    Sent as every helper's requests are (retries, timeout, no redirects); an answer that is not
    that object is an ``APIError``. A cluster that does not serve the kind's API answers 404
    too, so that also reads as ``None``: ``preflight`` tells the two apart.
    """
    return await get_document(transport_for(api_client, retry), _resource(kind), namespace, name)


async def list_objects(
    api_client: Any,
    kind: SchedulingKind,
    *,
    namespace: str,
    retry: RetryPolicy | None = None,
) -> list[dict[str, Any]]:
    """Every ``kind`` object in ``namespace``, each with its ``apiVersion`` and ``kind``; read
    in pages with ``limit``/``continue``.

    An answer that is not a list is an ``APIError``; so is a kind the cluster does not serve
    (status 404).
    """
    return await list_documents(transport_for(api_client, retry), _resource(kind), namespace)
