"""``apply``: server-side apply in dependency order, concurrent within a level, bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import APIError, ApplyError, ObjectRef
from ..wire.answers import checked_object
from ..wire.resources import (
    COMPOSITE_POD_GROUPS,
    WORKLOADS,
    SchedulingObject,
    as_document,
    parse,
    ref_of,
    resource_of,
)
from ..wire.transport import APPLY_PATCH, JSON, RetryPolicy, Transport, transport_for
from .ownership import already_exists
from .preflight import check

__all__ = ["DEFAULT_CONCURRENCY", "apply", "apply_documents", "levels"]

DEFAULT_CONCURRENCY = 16
"""Requests in flight at once within one level of ``apply()``."""

# Fields the API server owns: never part of an apply configuration.
_SERVER_METADATA = (
    "managedFields",
    "resourceVersion",
    "uid",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
)


def apply_configuration(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` without what the server owns (status, managedFields, resourceVersion, ...)."""
    config = {k: v for k, v in doc.items() if k != "status"}
    meta = {k: v for k, v in (doc.get("metadata") or {}).items() if k not in _SERVER_METADATA}
    config["metadata"] = meta
    return config


def levels(docs: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """Indexes of ``docs`` by apply order: Workloads; composite groups, parents first; the rest.

    A composite group is one level below the composite group its
    ``spec.parentCompositePodGroupName`` names (when that parent is among ``docs``).
    """
    composites: dict[tuple[str, str], int] = {}
    for i, doc in enumerate(docs):
        if resource_of(doc) is COMPOSITE_POD_GROUPS:
            meta = doc.get("metadata") or {}
            composites[(str(meta.get("namespace") or ""), str(meta.get("name") or ""))] = i

    def depth(i: int) -> int:
        seen: set[int] = set()
        d = 0
        while True:
            seen.add(i)
            doc = docs[i]
            ns = str((doc.get("metadata") or {}).get("namespace") or "")
            parent = (doc.get("spec") or {}).get("parentCompositePodGroupName")
            j = composites.get((ns, str(parent))) if parent else None
            if j is None or j in seen:
                return d
            d, i = d + 1, j

    ordered: dict[int, list[int]] = {}
    for i, doc in enumerate(docs):
        resource = resource_of(doc)
        if resource is WORKLOADS:
            level = 0
        elif resource is COMPOSITE_POD_GROUPS:
            level = 1 + depth(i)
        else:
            level = 10_000  # after every composite level
        ordered.setdefault(level, []).append(i)
    return [ordered[k] for k in sorted(ordered)]


def _query(field_manager: str, force: bool, dry_run: bool) -> list[tuple[str, str]]:
    query = [("fieldManager", field_manager), ("fieldValidation", "Strict")]
    if force:
        query.append(("force", "true"))
    if dry_run:
        query.append(("dryRun", "All"))
    return query


async def apply_documents(
    transport: Transport,
    docs: Sequence[dict[str, Any]],
    *,
    field_manager: str,
    force: bool = False,
    dry_run: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    create_only: bool = False,
) -> list[dict[str, Any]]:
    """``apply`` on an existing transport, with documents; returns the server's documents.

    ``create_only``: create each object (POST) instead of applying it, so that an object that
    exists already, whoever made it, is never changed: its 409 ``AlreadyExists`` is a failure
    of the ``ApplyError``, and every object returned was created by this call (201).
    """
    return await _apply(
        transport, docs, field_manager, force, dry_run, concurrency, False, create_only
    )


async def create_document(
    transport: Transport, doc: dict[str, Any], field_manager: str
) -> dict[str, Any] | APIError:
    """Create ``doc`` (never apply over an existing object): the server's object, or the
    ``AlreadyExists`` answer when the name is taken; any other failure raises ``ApplyError``."""
    try:
        [stored] = await apply_documents(
            transport, [doc], field_manager=field_manager, create_only=True
        )
    except ApplyError as exc:
        [failure] = exc.failures.values()
        if already_exists(failure):
            return failure
        raise
    return stored


async def _apply(
    transport: Transport,
    docs: Sequence[dict[str, Any]],
    field_manager: str,
    force: bool,
    dry_run: bool,
    concurrency: int,
    as_models: bool,
    create_only: bool = False,
) -> list[Any]:
    """Apply (or, with ``create_only``, create) level by level; each answer is checked (it
    must be the object sent, and with ``as_models`` parse as its model) before the next level
    is sent."""
    if create_only and force:
        raise ValueError("create_only never changes an existing object: it cannot force")
    if not field_manager:
        raise ValueError("field_manager is required: name your controller (e.g. 'my-operator')")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    configs = [apply_configuration(d) for d in docs]
    refs = [ref_of(d) for d in configs]
    for ref in refs:
        if not ref.name or not ref.namespace:
            raise ValueError(f"{ref.kind} needs metadata.name and metadata.namespace to be applied")
    query = _query(field_manager, force, dry_run)
    results: list[Any] = [None] * len(configs)
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        resource = resource_of(configs[i])
        ns, name = refs[i].namespace, refs[i].name
        async with gate:
            response = await transport.request(
                "POST" if create_only else "PATCH",
                resource.path(ns) if create_only else resource.path(ns, name),
                query=query,
                body=configs[i],
                content_type=JSON if create_only else APPLY_PATCH,
                target=refs[i],
            )
        answer = checked_object(response, resource, refs[i], "applying")
        results[i] = parse(resource, answer) if as_models else answer

    done: list[int] = []
    plan = levels(configs)
    for n, level in enumerate(plan):
        outcomes = await asyncio.gather(*(one(i) for i in level), return_exceptions=True)
        failures: dict[ObjectRef, APIError] = {}
        for i, outcome in zip(level, outcomes, strict=True):
            if isinstance(outcome, APIError):
                failures[refs[i]] = outcome
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                done.append(i)
        if failures:
            later = [i for rest in plan[n + 1 :] for i in rest]
            not_applied = [refs[i] for i in level if refs[i] in failures]
            raise ApplyError(
                [refs[i] for i in sorted(done)],
                not_applied + [refs[i] for i in later],
                failures,
            )
    return results


async def apply(
    api_client: Any,
    objects: Iterable[SchedulingObject | Mapping[str, Any]],
    *,
    field_manager: str | None = None,
    force: bool = False,
    dry_run: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    retry: RetryPolicy | None = None,
) -> list[SchedulingObject]:
    """Server-side apply ``objects`` (Workloads, PodGroups, CompositePodGroups) in order.

    Workloads first, then composite groups parents first, then PodGroups; each level runs
    concurrently, at most ``concurrency`` requests at once. ``preflight`` runs first (cached per
    client). Returns the server's objects as SDK models, in the order given. Re-applying
    unchanged objects changes nothing on the server.

    Failures that are safe to retry are retried (``retry``); any other raises ``ApplyError``,
    which lists the objects applied and not applied and maps each failed one to its
    ``APIError`` (``InvalidObjectError`` with the server's causes as an ``ErrorList``,
    ``FieldConflictError`` naming the other manager and fields). Calling ``apply`` again with
    the same objects completes the set. ``force=True`` takes over fields other managers own;
    ``dry_run=True`` asks the server to validate without persisting. ``field_manager`` is
    required unless ``api_client`` is an ``aio.Client`` (then it defaults to the client's).
    """
    docs = [as_document(o) for o in objects]
    transport = transport_for(api_client, retry)
    manager = transport.resolve_field_manager(field_manager)
    await check(transport, docs)
    return await _apply(transport, docs, manager, force, dry_run, concurrency, True)
