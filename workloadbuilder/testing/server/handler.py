"""The HTTP face of the test server: routing, verbs, watch streams and injected faults."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from multidict import CIMultiDict, MultiMapping

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import Registry, ResourceType
from workloadbuilder.testing.engine import decoding, object_types
from workloadbuilder.testing.engine.binding import bind
from workloadbuilder.testing.engine.verbs import Engine, Result, WriteOptions
from workloadbuilder.testing.rules.errors import go_quote, invalid, not_supported
from workloadbuilder.testing.rules.field_labels import field_label_error
from workloadbuilder.testing.server import discovery, negotiation, paging, protobuf, views
from workloadbuilder.testing.server.faults import Fault, Faults, RecordedRequest
from workloadbuilder.testing.server.job_deletion import delete_orphaning, orphans_by_default
from workloadbuilder.testing.server.nonresource import NonResource
from workloadbuilder.testing.store.selectors import field_selector, label_selector
from workloadbuilder.testing.store.store import Event, Watcher

_log = logging.getLogger(__name__)
_JSON = {"Content-Type": "application/json"}
_LIVENESS = 1.0  # seconds between checks that a watching client is still connected
_TOO_LARGE_WAIT = 3.0  # seconds a list waits for a resourceVersion the store has not reached
_TRUE = frozenset({"1", "t", "T", "true", "TRUE", "True"})
_FALSE = frozenset({"0", "f", "F", "false", "FALSE", "False"})
MAX_REQUEST_BODY = 3 * 1024 * 1024
"""The API server's request body limit (``--max-request-body-bytes`` defaults to 3 MiB)."""
_DRAIN_LIMIT = 64 * 1024 * 1024
_GO_INT = re.compile(r"^[+-]?[0-9]+$")
_GO_UINT = re.compile(r"^[0-9]+$")
_PROPAGATION = ["Foreground", "Background", "Orphan", "nil"]
VERSION_INFO = {
    "major": "1",
    "minor": "37",
    "emulationMajor": "1",
    "emulationMinor": "37",
    "minCompatibilityMajor": "1",
    "minCompatibilityMinor": "36",
    "gitVersion": "v1.37.0",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2026-08-01T00:00:00Z",
    "goVersion": "go1.25.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}


@dataclass(frozen=True)
class Target:
    """What a resource URL addresses."""

    rt: ResourceType
    namespace: str | None
    name: str | None
    subresource: str


def _json(code: int, body: Any, warnings: list[str] | None = None) -> web.Response:
    headers = CIMultiDict(_JSON)
    for text in warnings or ():
        headers.add("Warning", f"299 - {json.dumps(text)}")
    return web.Response(status=code, body=negotiation.encode_json(body), headers=headers)


def _error(exc: errors.APIStatusError) -> web.Response:
    return _json(exc.code, exc.status)


def _bool(query: MultiMapping[str], name: str) -> bool:
    value = query.get(name)
    if value is None or value == "":
        return False
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise errors.bad_request(f"invalid boolean value {value!r} for {name}: use true or false")


def _dry_run(values: list[str]) -> bool:
    for value in values:
        if value != "All":
            raise errors.bad_request(
                f'Invalid dryRun value "{value}": the only supported value is "All"'
            )
    return bool(values)


def _int_param(query: MultiMapping[str], name: str) -> int | None:
    """An integer query parameter parsed as Go's ``strconv.ParseInt`` (ASCII digits only)."""
    text = query.get(name)
    if text is None:
        return None
    if not _GO_INT.match(text):
        raise errors.bad_request(f"strconv.ParseInt: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise errors.bad_request(f"strconv.ParseInt: parsing {go_quote(text)}: value out of range")
    return value


def _resource_version(rt: ResourceType, text: str) -> int | None:
    """A watch's ``resourceVersion``: ``None`` for none or 0, else an unsigned integer (422)."""
    if text in ("", "0"):
        return None
    if not _GO_UINT.match(text) or int(text) >= 2**64:
        problem = "invalid syntax" if not _GO_UINT.match(text) else "value out of range"
        detail = f"strconv.ParseUint: parsing {go_quote(text)}: {problem}"
        cause = invalid("resourceVersion", text, detail).to_cause()
        raise errors.invalid(rt.plural, rt.group, "", [cause])
    return int(text)


async def _read_body(request: web.BaseRequest) -> bytes:
    """The body, or 413 past :data:`MAX_REQUEST_BODY` (the rest is read and dropped)."""
    data = bytearray()
    too_large = (request.content_length or 0) > MAX_REQUEST_BODY
    seen = 0
    while chunk := await request.content.read(65536):
        seen += len(chunk)
        if not too_large:
            data += chunk
            too_large = len(data) > MAX_REQUEST_BODY
        if seen > _DRAIN_LIMIT:
            break
    if too_large:
        raise errors.too_large(MAX_REQUEST_BODY)
    return bytes(data)


class HTTPHandler:
    """Serves one :class:`Engine` over HTTP."""

    def __init__(
        self,
        engine: Engine,
        faults: Faults,
        requests: list[RecordedRequest],
        address: Callable[[], str],
        bookmark_interval: float,
        gate: Callable[[web.BaseRequest], None] | None = None,
    ) -> None:
        self.engine = engine
        self.gate = gate
        """Authenticates and authorizes each request (raising its 401 or 403); None: all pass."""
        self.registry: Registry = engine.registry
        self.faults = faults
        self.requests = requests
        self.address = address
        self.bookmark_interval = bookmark_interval
        self.nonresource = NonResource(self.registry)

    async def __call__(self, request: web.BaseRequest) -> web.StreamResponse:
        early: errors.APIStatusError | None = None
        try:
            body = await _read_body(request)
        except errors.APIStatusError as exc:
            body, early = b"", exc
        self.requests.append(
            RecordedRequest(
                method=request.method,
                path=request.path,
                query=dict(request.query),
                content_type=request.headers.get("Content-Type", ""),
                body=body,
                user_agent=request.headers.get("User-Agent", ""),
                headers=dict(request.headers),
            )
        )
        if early is not None:
            return _error(early)
        fault = self.faults.take(request.method, request.path)
        try:
            if fault is not None:
                response = await self._fault(fault, request)
                if response is not None:
                    return response
            return _prettied(request, await self._serve(request, body))
        except errors.APIStatusError as exc:
            return _prettied(request, _error(exc))
        except Exception as exc:  # a bug in the server: log it, answer as the API server would
            _log.exception("FakeAPIServer failed on %s %s", request.method, request.path)
            return _error(errors.internal(f"{type(exc).__name__}: {exc}"))

    async def _fault(self, fault: Fault, request: web.BaseRequest) -> web.StreamResponse | None:
        if fault.kind == "delay":
            await asyncio.sleep(fault.seconds)
            if request.transport is None or request.transport.is_closing():
                # The client gave up meanwhile: as the API server's cancelled request context,
                # the request is abandoned, never served late.
                raise asyncio.CancelledError
            return None
        if fault.kind == "drop":
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError
        if fault.kind == "conflict":
            try:
                target = self._target(request.path)
            except _PageNotFound:
                target = {}
            if isinstance(target, Target) and target.name:
                raise errors.modified(target.rt, target.name)
            raise errors.APIStatusError(
                errors.status_body(409, "Conflict", fault.message or "injected conflict")
            )
        if fault.status == 429:
            return web.Response(
                status=429,
                text="Too many requests, please try again later.\n",
                headers={
                    "Content-Type": "text/plain; charset=utf-8",
                    "X-Content-Type-Options": "nosniff",
                    "Retry-After": str(fault.retry_after),
                },
            )
        if fault.status == 500:
            raise errors.internal(fault.message or "injected fault")
        if fault.status == 503:
            raise errors.unavailable(
                fault.message or "the server is currently unable to handle the request"
            )
        reason = web.Response(status=fault.status).reason or "Failure"
        raise errors.APIStatusError(
            errors.status_body(
                fault.status, reason.replace(" ", ""), fault.message or "injected fault"
            )
        )

    # -- routing ---------------------------------------------------------------------------

    def _target(self, path: str) -> Target | dict[str, Any]:
        """The resource a path addresses, or the discovery document it names."""
        parts = [p for p in path.split("/") if p]
        if not parts:
            return {"paths": ["/api", "/api/v1", "/apis", "/version"]}
        if parts == ["version"]:
            return VERSION_INFO
        if parts[0] == "api":
            if len(parts) == 1:
                return self.registry.api_versions(self.address())
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis":
            if len(parts) == 1:
                return self.registry.api_group_list()
            if not self.registry.group_versions(parts[1]):
                raise _PageNotFound
            if len(parts) == 2:
                return self.registry.api_group(parts[1]) or _not_served()
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            raise _PageNotFound
        if not rest:
            return discovery.resource_list(self.registry, group, version) or _not_served()
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            nested = self.registry.get(group, version, rest[2])
            if nested is not None and nested.namespaced:
                namespace, rest = rest[1], rest[2:]
        rt = self.registry.get(group, version, rest[0])
        if rt is None or len(rest) > 3:
            raise errors.path_not_found()
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else ""
        binding = sub == "binding" and (rt.group, rt.plural) == ("", "pods")
        if (sub and not binding and (sub != "status" or not rt.status)) or (
            rt.namespaced and name and namespace is None
        ):
            raise errors.path_not_found()
        return Target(rt, namespace, name, sub)

    async def _serve(self, request: web.BaseRequest, body: bytes) -> web.StreamResponse:
        if self.gate is not None:
            self.gate(request)
        answer = self.nonresource.answer(request)
        if answer is not None:
            return answer
        try:
            target = self._target(request.path)
        except _PageNotFound:
            return negotiation.plain(404, "404 page not found\n")
        accept = request.headers.get("Accept", "")
        if not isinstance(target, Target):
            if request.method != "GET":
                raise errors.method_not_allowed(request.method)
            return self.nonresource.discovery(request.path, accept, target)
        content_type = request.headers.get("Content-Type", "")
        refused = negotiation.refuse_request(request.method, content_type, body, accept)
        if refused is not None:
            return refused
        negotiation.check_body_type(request.method, content_type)
        if content_type.startswith(negotiation.PROTOBUF):
            body = protobuf.to_json(target.rt, body)
        query = request.query
        method = request.method
        media = views.chosen(accept)
        if method == "GET":
            if target.name is None:
                if _bool(query, "watch"):
                    return await self._watch(request, target)
                await self._wait_for_resource_version(query)
                listing = self.engine.listing(
                    target.rt,
                    target.namespace,
                    query.get("labelSelector"),
                    query.get("fieldSelector"),
                )
                limit = _int_param(query, "limit")
                page = paging.page(listing, limit, query.get("continue"), target.namespace)
                if query.get("labelSelector") or query.get("fieldSelector"):
                    page["metadata"].pop("remainingItemCount", None)  # as etcd3's store
                return views.respond(media, 200, views.shape(media, query, target.rt, page))
            obj = self.engine.get(target.rt, target.namespace, target.name)
            return views.respond(media, 200, views.shape(media, query, target.rt, obj))
        if method == "DELETE":
            if target.name is None:
                return self._delete_collection(target, query, body)
            return _reply(self._delete(target, query, body))
        opts = self._options(request)
        if target.subresource == "binding":
            if method != "POST" or target.name is None:
                raise errors.method_not_allowed(method)
            return _reply(
                bind(self.engine, target.rt, target.namespace, target.name, body, opts.dry_run)
            )
        if method == "POST" and target.name is None:
            return _reply(self.engine.create(target.rt, target.namespace, body, opts))
        if method == "PUT" and target.name is not None:
            return _reply(
                self.engine.replace(
                    target.rt, target.namespace, target.name, body, opts, target.subresource
                )
            )
        if method == "PATCH" and target.name is not None:
            content_type = request.headers.get("Content-Type", "")
            return _reply(
                self.engine.patch(
                    target.rt,
                    target.namespace,
                    target.name,
                    body,
                    content_type,
                    opts,
                    target.subresource,
                )
            )
        raise errors.method_not_allowed(method)

    async def _wait_for_resource_version(self, query: MultiMapping[str]) -> None:
        """A list at a resourceVersion the store has not reached waits for it as the watch
        cache does, then is a 504 (observed after about 3 s)."""
        text = query.get("resourceVersion") or ""
        if query.get("continue") or not _GO_UINT.match(text):
            return
        wanted = int(text)
        deadline = time.monotonic() + _TOO_LARGE_WAIT
        while wanted > self.engine.store.rv:
            if time.monotonic() >= deadline:
                raise errors.too_large_resource_version(wanted, self.engine.store.rv)
            await asyncio.sleep(0.05)

    def _options(self, request: web.BaseRequest) -> WriteOptions:
        query = request.query
        validation = query.get("fieldValidation", "Warn") or "Warn"
        if validation not in ("Ignore", "Warn", "Strict"):
            raise errors.bad_request(
                f'invalid fieldValidation value "{validation}": use Ignore, Warn or Strict'
            )
        agent = request.headers.get("User-Agent", "")
        return WriteOptions(
            field_manager=query.get("fieldManager") or None,
            default_manager=agent.split("/")[0][:128] or "unknown",
            dry_run=_dry_run(query.getall("dryRun", [])),
            force=_bool(query, "force"),
            field_validation=validation,
        )

    def _delete(self, target: Target, query: MultiMapping[str], body: bytes) -> Result:
        options = _delete_options(query, body)
        policy = options.get("propagationPolicy")
        if policy is None and options.get("orphanDependents") is True:
            policy = "Orphan"
        assert target.name is not None
        dry = bool(options.get("dryRun"))
        preconditions = options.get("preconditions")
        if (
            policy is None
            and options.get("orphanDependents") is None
            and orphans_by_default(target.rt)
        ):
            return delete_orphaning(
                self.engine, target.rt, target.namespace, target.name, dry, preconditions
            )
        return self.engine.delete(
            target.rt,
            target.namespace,
            target.name,
            policy,
            dry,
            preconditions=preconditions,
            grace_period=options.get("gracePeriodSeconds"),
        )

    def _delete_collection(
        self, target: Target, query: MultiMapping[str], body: bytes
    ) -> web.Response:
        listing = self.engine.listing(
            target.rt, target.namespace, query.get("labelSelector"), query.get("fieldSelector")
        )
        for item in listing["items"]:
            meta = item["metadata"]
            named = Target(target.rt, meta.get("namespace"), meta["name"], "")
            self._delete(named, query, body)
        return _json(200, views.bare_items(target.rt, listing))

    # -- watch -----------------------------------------------------------------------------

    async def _watch(self, request: web.BaseRequest, target: Target) -> web.StreamResponse:
        query = request.query
        rt = target.rt
        try:
            labels, fields = (
                label_selector(query.get("labelSelector")),
                field_selector(query.get("fieldSelector")),
            )
        except ValueError as exc:
            raise errors.bad_request(str(exc)) from None
        unsupported = field_label_error(rt.group, rt.kind, query.get("fieldSelector"))
        if unsupported is not None:
            raise errors.bad_request(unsupported)
        since = _resource_version(rt, query.get("resourceVersion") or "")
        seconds = _int_param(query, "timeoutSeconds")
        timeout = float(seconds) if seconds is not None and seconds > 0 else None
        bookmarks = _bool(query, "allowWatchBookmarks")
        # resourceVersion=0 ends its initial events with the bookmark even without
        # sendInitialEvents (observed)
        initial_end = bookmarks and (
            _bool(query, "sendInitialEvents") or query.get("resourceVersion") == "0"
        )
        watcher = Watcher(
            (rt.group, rt.plural), target.namespace, lambda o: labels(o) and fields(o)
        )
        initial: list[Event] = []
        expired: errors.APIStatusError | None = None
        try:
            if since is None:
                listing = self.engine.listing(
                    rt, target.namespace, query.get("labelSelector"), query.get("fieldSelector")
                )
                initial = [
                    Event(int(o["metadata"]["resourceVersion"]), "ADDED", watcher.resource, o)
                    for o in listing["items"]
                ]
                self.engine.store.subscribe(watcher, None)
            else:
                initial = self.engine.store.subscribe(watcher, since)
        except errors.APIStatusError as exc:
            expired = exc
        shaper = views.watch_shaper(views.chosen(request.headers.get("Accept", "")), query, rt)
        response = web.StreamResponse(status=200, headers=_JSON)
        response.enable_chunked_encoding()
        try:
            await response.prepare(request)
            if expired is not None:
                await _send(response, "ERROR", expired.status)
                return response
            for event in initial:
                await _send(response, event.type, shaper(self.engine.as_served(rt, event.obj)))
            if initial_end:
                await self._bookmark(response, rt, initial_end=True)
            await self._stream(request, response, watcher, rt, timeout, bookmarks, shaper)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.engine.store.unsubscribe(watcher)
        return response

    async def _stream(
        self,
        request: web.BaseRequest,
        response: web.StreamResponse,
        watcher: Watcher,
        rt: ResourceType,
        timeout: float | None,
        bookmarks: bool,
        shaper: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        next_bookmark = time.monotonic() + self.bookmark_interval
        while request.transport is not None and not request.transport.is_closing():
            now = time.monotonic()
            wait = min(next_bookmark - now, _LIVENESS) if bookmarks else _LIVENESS
            if deadline is not None:
                remaining = deadline - now
                if remaining <= 0:
                    return
                wait = min(wait, remaining)
            try:
                event = await asyncio.wait_for(watcher.queue.get(), wait)
            except TimeoutError:
                if bookmarks and time.monotonic() >= next_bookmark:
                    await self._bookmark(response, rt)
                    next_bookmark = time.monotonic() + self.bookmark_interval
                continue
            if event is None:
                return
            await _send(response, event.type, self.engine.as_served(rt, event.obj))

    async def _bookmark(
        self, response: web.StreamResponse, rt: ResourceType, initial_end: bool = False
    ) -> None:
        meta: dict[str, Any] = {"resourceVersion": str(self.engine.store.rv)}
        if initial_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        await _send(
            response, "BOOKMARK", {"kind": rt.kind, "apiVersion": rt.api_version, "metadata": meta}
        )


async def _send(response: web.StreamResponse, kind: str, obj: dict[str, Any]) -> None:
    await response.write(negotiation.encode_json({"type": kind, "object": obj}))


class _PageNotFound(Exception):
    """A path outside every API: Go's mux answers a plain-text ``404 page not found``."""


def _not_served() -> dict[str, Any]:
    raise errors.path_not_found()


def _delete_options(query: MultiMapping[str], body: bytes) -> dict[str, Any]:
    """DeleteOptions from the body or, without one, the query; checked as the API server does."""
    if body.strip():
        try:
            options = decoding.decode(body, yaml_ok=True)
        except decoding.DecodeError as exc:
            raise errors.bad_request(
                f"couldn't get version/kind; json parse error: {exc}"
            ) from None
        if not isinstance(options, dict):
            raise errors.bad_request("decoded object cannot be converted to DeleteOptions")
        try:
            object_types.check_struct(options, object_types.DELETE_OPTIONS, "DeleteOptions", "")
        except object_types.TypeMismatch as exc:
            raise errors.bad_request(str(exc)) from None
    else:
        options = {
            key: query[key] for key in ("propagationPolicy", "orphanDependents") if key in query
        }
        if "orphanDependents" in options:
            options["orphanDependents"] = _bool(query, "orphanDependents")
        if "gracePeriodSeconds" in query:
            options["gracePeriodSeconds"] = _int_param(query, "gracePeriodSeconds")
        options["dryRun"] = query.getall("dryRun", [])
    causes = []
    policy = options.get("propagationPolicy")
    if options.get("orphanDependents") is not None and policy is not None:
        detail = "orphanDependents and deletionPropagation cannot be both set"
        causes.append(invalid("propagationPolicy", policy, detail).to_cause())
    if policy is not None and policy not in _PROPAGATION[:3]:
        causes.append(not_supported("propagationPolicy", policy, _PROPAGATION).to_cause())
    dry_run = options.get("dryRun") or []
    if any(v != "All" for v in dry_run):
        causes.append(not_supported("dryRun", dry_run, ["All"]).to_cause())
    if causes:
        raise errors.invalid("DeleteOptions", "meta.k8s.io", "", causes)
    return options


def _prettied(request: web.BaseRequest, response: web.StreamResponse) -> web.StreamResponse:
    """A JSON answer pretty-printed when the client asks for it (observed for curl: 2-space
    indent, errors too; OpenAPI documents are served as they are)."""
    if (
        not isinstance(response, web.Response)
        or response.headers.get("Content-Type") != negotiation.JSON
        or not isinstance(response.body, bytes)
        or request.path.startswith("/openapi")
        or not negotiation.wants_pretty(request)
    ):
        return response
    response.body = negotiation.encode_pretty(json.loads(response.body))
    return response


def _reply(result: Result) -> web.Response:
    return _json(result.code, result.body, result.warnings)
