"""Reads through the user's ``ApiClient``: GET, LIST (every page) and WATCH, with retries.

Requests go through the client the user configured (its host, auth, TLS and proxy), either a
kubernetes-asyncio ``ApiClient`` or the official client's ``kubernetes.aio`` one. Bodies are
read as JSON; nothing is deserialized into the clients' models. Transient failures (429 with
``Retry-After``, 5xx, dropped connections, timeouts) are retried with capped exponential
backoff and jitter; any other error is raised as :class:`APIError` at once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final

import aiohttp
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

__all__ = [
    "COMPOSITE_POD_GROUPS",
    "EVENTS",
    "PODS",
    "POD_GROUPS",
    "WORKLOADS",
    "APIError",
    "Listing",
    "Reader",
    "Resource",
    "WatchEvent",
]

_ATTEMPTS: Final = 6
_MAX_WAIT: Final = 10.0
_ACCEPT: Final = {"Accept": "application/json"}


@dataclass(frozen=True)
class Resource:
    """Where a kind is served: ``group``/``version``/``plural``."""

    group: str
    version: str
    plural: str

    def path(self, namespace: str | None, name: str | None = None) -> str:
        """The URL path of the collection (or of one object, given ``name``)."""
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        where = f"{root}/namespaces/{namespace}" if namespace else root
        return f"{where}/{self.plural}" + (f"/{name}" if name else "")


POD_GROUPS: Final = Resource("scheduling.k8s.io", "v1beta1", "podgroups")
COMPOSITE_POD_GROUPS: Final = Resource("scheduling.k8s.io", "v1alpha3", "compositepodgroups")
WORKLOADS: Final = Resource("scheduling.k8s.io", "v1beta1", "workloads")
PODS: Final = Resource("", "v1", "pods")
EVENTS: Final = Resource("", "v1", "events")


class APIError(RuntimeError):
    """The API server refused a read: its HTTP code, ``Status`` reason and message."""

    def __init__(self, method: str, path: str, code: int, reason: str, message: str) -> None:
        self.code, self.reason, self.message = code, reason, message
        super().__init__(f"{method} {path}: {code} {reason}: {message}")


class _Transient(Exception):
    """A failure worth retrying (429, 5xx, a dropped connection); ``retry_after`` in seconds."""

    def __init__(self, error: APIError | None, retry_after: float | None = None) -> None:
        super().__init__(str(error) if error else "connection failed")
        self.error, self.retry_after = error, retry_after


@dataclass(frozen=True)
class Listing:
    """Every item of a list, and the list's ``resourceVersion`` (to watch from)."""

    items: tuple[dict[str, Any], ...]
    resource_version: str


@dataclass(frozen=True)
class WatchEvent:
    """One watch event: ``ADDED``, ``MODIFIED``, ``DELETED``, ``BOOKMARK`` or ``ERROR``."""

    type: str
    object: dict[str, Any]


def _retry_wait(state: RetryCallState) -> float:
    """``Retry-After`` when the server sent one, else capped exponential backoff with jitter."""
    outcome = state.outcome
    error = outcome.exception() if outcome is not None else None
    if isinstance(error, _Transient) and error.retry_after is not None:
        return min(error.retry_after, _MAX_WAIT)
    return wait_exponential_jitter(initial=0.1, max=_MAX_WAIT, jitter=0.1)(state)


def _retrying() -> AsyncRetrying:
    return AsyncRetrying(
        retry=retry_if_exception(lambda e: isinstance(e, _Transient)),
        wait=_retry_wait,
        stop=stop_after_attempt(_ATTEMPTS),
        reraise=True,
    )


def _status_error(method: str, path: str, code: int, body: bytes) -> APIError:
    try:
        status = json.loads(body)
    except ValueError:
        status = None
    if isinstance(status, Mapping):
        reason, message = str(status.get("reason") or ""), str(status.get("message") or "")
    else:
        reason, message = "", body.decode("utf-8", "replace").strip()
    return APIError(method, path, code, reason, message)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("Retry-After")
    return float(value) if value and value.isascii() and value.isdigit() else None


class Reader:
    """GET, LIST and WATCH over one ``ApiClient`` (kubernetes-asyncio or ``kubernetes.aio``)."""

    def __init__(self, api_client: Any) -> None:
        self._api = api_client
        self._official = hasattr(api_client, "param_serialize")

    @asynccontextmanager
    async def _open(
        self, path: str, query: Mapping[str, str], timeout: aiohttp.ClientTimeout
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """Send a GET and yield the raw response, released afterwards."""
        params = list(query.items())
        if self._official:
            method, url, headers, _, _ = await self._api.param_serialize(
                "GET",
                path,
                query_params=params,
                header_params=dict(_ACCEPT),
                auth_settings=["BearerToken"],
            )
            reply = await self._api.call_api(
                method, url, header_params=headers, _request_timeout=timeout
            )
            response: aiohttp.ClientResponse = reply.response
        else:
            response = await self._api.call_api(
                path,
                "GET",
                query_params=params,
                header_params=dict(_ACCEPT),
                auth_settings=["BearerToken"],
                _preload_content=False,
                _request_timeout=timeout,
            )
        try:
            yield response
        finally:
            response.release()

    async def _get_json(self, path: str, query: Mapping[str, str]) -> dict[str, Any] | None:
        """One GET answered with JSON; ``None`` on 404; transient failures raise _Transient."""
        try:
            async with self._open(path, query, aiohttp.ClientTimeout(total=60)) as response:
                body = await response.read()
                if response.status == 404:
                    return None
                if response.status >= 400:
                    error = _status_error("GET", path, response.status, body)
                    if response.status == 429 or response.status >= 500:
                        raise _Transient(error, _retry_after(response.headers))
                    raise error
                result: dict[str, Any] = json.loads(body)
                return result
        except (TimeoutError, aiohttp.ClientConnectionError) as exc:
            raise _Transient(None) from exc

    async def _read(self, path: str, query: Mapping[str, str]) -> dict[str, Any] | None:
        try:
            async for attempt in _retrying():
                with attempt:
                    return await self._get_json(path, query)
        except _Transient as exc:
            if exc.error is not None:
                raise exc.error from None
            raise ConnectionError(
                f"GET {path}: the API server could not be reached after {_ATTEMPTS} attempts"
            ) from exc.__cause__
        raise AssertionError("unreachable: tenacity re-raises the last failure")

    async def get(
        self, resource: Resource, namespace: str | None, name: str
    ) -> dict[str, Any] | None:
        """The object, or ``None`` when it does not exist."""
        return await self._read(resource.path(namespace, name), {})

    async def list(
        self, resource: Resource, namespace: str | None, *, field_selector: str | None = None
    ) -> Listing:
        """Every item (all pages), or none when the resource is not served (404)."""
        items: list[dict[str, Any]] = []
        query = {"limit": "500", **({"fieldSelector": field_selector} if field_selector else {})}
        path = resource.path(namespace)
        while True:
            page = await self._read(path, query)
            if page is None:
                return Listing((), "")
            items += page.get("items") or []
            meta = page.get("metadata") or {}
            token = meta.get("continue")
            if not token:
                return Listing(tuple(items), str(meta.get("resourceVersion") or ""))
            query = {**query, "continue": token}

    async def watch(
        self,
        resource: Resource,
        namespace: str | None,
        *,
        resource_version: str,
        timeout_seconds: int,
        field_selector: str | None = None,
    ) -> AsyncGenerator[WatchEvent, None]:
        """Stream events after ``resource_version`` until the server ends the watch.

        A 410 arrives as an ``ERROR`` event (as the API server sends it); a connection that
        drops ends the stream early. The caller decides whether to resume or relist.
        """
        query = {
            "watch": "true",
            "resourceVersion": resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(max(1, timeout_seconds)),
            **({"fieldSelector": field_selector} if field_selector else {}),
        }
        path = resource.path(namespace)
        timeout = aiohttp.ClientTimeout(total=timeout_seconds + 30, sock_connect=30)
        try:
            async with self._open(path, query, timeout) as response:
                if response.status >= 400:
                    error = _status_error("GET", path, response.status, await response.read())
                    yield WatchEvent(
                        "ERROR",
                        {"code": error.code, "reason": error.reason, "message": error.message},
                    )
                    return
                while line := await response.content.readline():
                    if line.strip():
                        event = json.loads(line)
                        yield WatchEvent(str(event.get("type")), dict(event.get("object") or {}))
        except (TimeoutError, aiohttp.ClientConnectionError, aiohttp.ClientPayloadError):
            return
