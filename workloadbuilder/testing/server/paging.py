"""Chunked lists: ``limit`` and ``continue`` as the API server's etcd3 store pages them.

The continue token is what the store writes: base64url without padding of
``{"v":"meta.k8s.io/v1","rv":<list resourceVersion>,"start":"<key after the prefix>\\u0000"}``,
the key being ``/<name>`` in one namespace (or for a cluster-scoped kind) and
``/<namespace>/<name>`` across namespaces. Every page of one list answers with the
resourceVersion of its first page (observed).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from workloadbuilder.testing.common import errors

_VERSION = "meta.k8s.io/v1"


def _key(item: dict[str, Any]) -> tuple[str, str]:
    meta = item["metadata"]
    return (meta.get("namespace") or "", meta["name"])


def _encode(rv: int, item: dict[str, Any], across_namespaces: bool) -> str:
    namespace, name = _key(item)
    start = f"/{namespace}/{name}" if across_namespaces and namespace else f"/{name}"
    token = json.dumps({"v": _VERSION, "rv": rv, "start": start + "\0"}, separators=(",", ":"))
    return base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")


def _decode(token: str, namespace: str | None) -> tuple[int, tuple[str, str]]:
    """The resourceVersion and the last key a token names; 400 if it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        decoded = json.loads(raw)
    except (binascii.Error, ValueError):
        decoded = None
    if (
        not isinstance(decoded, dict)
        or decoded.get("v") != _VERSION
        or not isinstance(decoded.get("rv"), int)
        or not isinstance(decoded.get("start"), str)
        or not decoded["start"].startswith("/")
    ):
        raise errors.bad_request(
            "continue key is not valid: pass the metadata.continue of the previous page"
        )
    parts = decoded["start"].rstrip("\0").split("/")[1:]
    after = (parts[0], parts[1]) if len(parts) == 2 else (namespace or "", parts[-1])
    return int(decoded["rv"]), after


def page(
    listing: dict[str, Any], limit: int | None, token: str | None, namespace: str | None
) -> dict[str, Any]:
    """One chunk of ``listing`` (its items sorted by namespace and name), for a list in
    ``namespace`` (``None``: all namespaces, or a cluster-scoped kind)."""
    items: list[dict[str, Any]] = listing["items"]
    meta = dict(listing["metadata"])
    rv = int(meta.get("resourceVersion") or 0)
    if token:
        rv, after = _decode(token, namespace)
        items = [i for i in items if _key(i) > after]
        meta["resourceVersion"] = str(rv)
    size = limit if limit is not None and limit > 0 else len(items)
    chunk, rest = items[:size], items[size:]
    if rest:
        meta["continue"] = _encode(rv, chunk[-1], namespace is None)
        meta["remainingItemCount"] = len(rest)
    return {**listing, "metadata": meta, "items": chunk}
