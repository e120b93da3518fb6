"""The client core: requests through the user's configured ``ApiClient``, with the SDK's retry
policy and timeouts, what discovery learned of the cluster, and counters. What is retried, and
how long to wait, is ``retry``'s rule; ``RetryPolicy`` and ``default_retry`` are re-exported.

Both kubernetes-asyncio's ``ApiClient`` and the official client's ``kubernetes.aio``
``ApiClient`` are accepted: their auth (tokens, exec plugins, client certificates), TLS and
proxy settings are used as configured. Responses are read raw (``_preload_content=False``), so
a 201 is never lost and every error body is parsed here.
"""

from __future__ import annotations

import errno
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urlencode, urlsplit, urlunsplit

import aiohttp
import yarl
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from ..errors import (
    APIError,
    ObjectRef,
    ResponseTooLargeError,
    UnreachableError,
    error_from_status,
    excerpt,
)
from ..metrics import REQUEST_DURATION, REQUESTS_TOTAL
from .retry import (
    Retryable,
    RetryPolicy,
    WaitRetryAfter,
    default_retry,
    retry_after,
    retryable_connection_error,
    retryable_status,
)

__all__ = [
    "MAX_RESPONSE_BYTES",
    "Counters",
    "Discovery",
    "Response",
    "RetryPolicy",
    "Transport",
    "default_retry",
    "read_body",
    "transport_for",
]

_log = logging.getLogger("workloadbuilder.aio")
_T = TypeVar("_T")

JSON = "application/json"
APPLY_PATCH = "application/apply-patch+yaml"
MERGE_PATCH = "application/merge-patch+json"

MAX_RESPONSE_BYTES = 64 << 20
"""The largest response body read (64 MiB, after decompression): over twenty times
kube-apiserver's 3 MiB limit on a request body, so any object and any page of a list
(``limit=500``) of scheduling objects fits; a larger answer is a ``ResponseTooLargeError``."""


class Response(NamedTuple):
    """A successful answer: HTTP status, headers, the decoded JSON body (``None`` if empty or
    not JSON) and the body's text."""

    status: int
    headers: Mapping[str, str]
    body: Any
    text: str = ""


def _gave_up(
    method: str,
    path: str,
    attempts: int,
    last: Retryable,
    answered: Retryable | None,
    target: ObjectRef | None,
) -> APIError:
    """The error once retries are spent: the last answer's status, reason and ``Status`` (as
    client-go returns the last ``StatusError``), ``status`` 0 only if no answer ever came."""
    said = last.description
    if answered is not None and answered is not last:
        said += f"; the last answer was {answered.description}"
    error = APIError(
        f"{method} {path} still failing after {attempts} attempts: {said}", target=target
    )
    if answered is not None:
        error.status = answered.status
        error.reason = str(answered.status_body.get("reason") or "")
        error.status_body = answered.status_body
    return error


def _safe_host(host: str) -> str:
    """The server URL without any user-info (never print credentials)."""
    parts = urlsplit(host)
    if parts.username is None and parts.password is None:
        return host
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _unreachable(exc: aiohttp.ClientConnectorError, method: str, path: str) -> UnreachableError:
    """No connection could be made, in kubectl's words where it has them."""
    where = f"{exc.host}:{exc.port}"
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        said = f"Unable to connect to the server: the host name {exc.host!r} does not resolve"
    elif exc.os_error.errno == errno.ECONNREFUSED:
        said = (
            f"The connection to the server {where} was refused - did you specify the right"
            " host or port?"
        )
    else:
        why = exc.os_error.strerror or type(exc.os_error).__name__
        said = f"Unable to connect to the server {where}: {why}"
    return UnreachableError(f"{said} ({method} {path})")


async def read_body(
    resp: aiohttp.ClientResponse, method: str, path: str, limit: int = MAX_RESPONSE_BYTES
) -> bytes:
    """The response's body, at most ``limit`` bytes; ``ResponseTooLargeError`` beyond."""
    declared = resp.content_length
    if declared is not None and declared > limit:
        raise _too_large(resp, method, path, f"Content-Length {declared} bytes", declared, limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise _too_large(resp, method, path, f"{size} bytes received so far", size, limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(
    resp: aiohttp.ClientResponse, method: str, path: str, said: str, size: int, limit: int
) -> ResponseTooLargeError:
    return ResponseTooLargeError(
        f"{method} {path}: the answer (HTTP {resp.status}) is larger than the {limit} byte"
        f" limit on a response body ({said}); nothing of it was used",
        size=size,
        limit=limit,
        status=resp.status,
    )


@dataclass
class Discovery:
    """What ``preflight`` learned of one cluster: the resource names served per group/version
    (a group/version answered 404 is not kept: the cluster may be reconfigured), and whether
    ``Job.spec.scheduling`` survives a create (only a yes is kept, for the same reason)."""

    served: dict[str, frozenset[str]] = field(default_factory=dict)
    job_scheduling: bool = False


@dataclass
class Counters:
    """What went on the wire: requests sent (each try counts) and retries."""

    requests: int = 0
    retries: int = 0


_ATTACHED = "_workloadbuilder_transport"
"""The attribute under which a bare ``ApiClient`` keeps the core made at its first use."""


class Transport:
    """The client core: sends requests through an ``ApiClient``; owns the retry policy (and
    with it each request's timeout), the discovery cache and the counters.

    ``retry`` ``None`` means the policy current at each request (``default_retry``'s, else the
    defaults). ``field_manager`` is who writes when a helper is given none (``None``: the
    helper's own default). ``counters`` count what went on the wire.
    """

    def __init__(
        self,
        api_client: Any,
        retry: RetryPolicy | None = None,
        *,
        field_manager: str | None = None,
    ) -> None:
        self.api_client = api_client
        self.field_manager = field_manager
        self.discovery = Discovery()
        self.counters = Counters()
        self._retry = retry
        self._official = hasattr(api_client, "param_serialize")
        self._metric_host = ("", "")  # (the configured URL, its host:port) for the metrics

    def __repr__(self) -> str:
        return f"Transport(host={self.host!r})"

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy requests use now."""
        return self._retry or RetryPolicy.current()

    @property
    def own_retry(self) -> RetryPolicy | None:
        """The policy this core was given (``None``: the current one at each request)."""
        return self._retry

    @own_retry.setter
    def own_retry(self, value: RetryPolicy | None) -> None:
        self._retry = value

    def with_retry(self, retry: RetryPolicy) -> Transport:
        """The same core (client, discovery cache, counters) under another retry policy."""
        view = Transport(self.api_client, retry, field_manager=self.field_manager)
        view.discovery, view.counters = self.discovery, self.counters
        return view

    def resolve_field_manager(self, given: str | None, default: str | None = None) -> str:
        """The field manager of a write: ``given``, else the core's, else ``default``;
        ``ValueError`` when none is known."""
        manager = given or self.field_manager or default
        if not manager:
            raise ValueError(
                "field_manager is required: name your controller (e.g. 'my-operator'), or"
                " call through aio.Client(api_client, field_manager)"
            )
        return manager

    @property
    def host(self) -> str:
        """The API server's URL, without credentials."""
        config = getattr(self.api_client, "configuration", None)
        return _safe_host(str(getattr(config, "host", "") or ""))

    def metric_host(self) -> str:
        """The API server's ``host:port``, as client-go's metrics label it."""
        config = getattr(self.api_client, "configuration", None)
        url = str(getattr(config, "host", "") or "")
        if url != self._metric_host[0]:
            parts = urlsplit(url)
            where = parts.hostname or ""
            self._metric_host = (url, f"{where}:{parts.port}" if parts.port else where)
        return self._metric_host[1]

    def _observe(self, method: str, code: str, started: float) -> None:
        """One request sent (each try counts): ``rest_client_requests_total`` and
        ``rest_client_request_duration_seconds``."""
        host = self.metric_host()
        REQUESTS_TOTAL.labels(code, method, host).inc()
        REQUEST_DURATION.labels(method, host).observe(time.perf_counter() - started)

    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Sequence[tuple[str, str]] = (),
        body: Any = None,
        content_type: str = JSON,
        target: ObjectRef | None = None,
    ) -> Response:
        """Send one request, retrying what is safe; raise ``APIError`` for any other failure."""
        try:  # the common case, without building a retry loop
            return await self._once(method, path, query, body, content_type, target)
        except Retryable as exc:
            failure: Retryable | None = exc
            answered = exc if exc.status else None
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.retry.attempts),
            wait=WaitRetryAfter(self.retry),
            retry=retry_if_exception_type(Retryable),
            before_sleep=lambda state: self._before_sleep(method, path, state),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    if failure is not None:  # attempt 1 is the one above: wait, then retry
                        first, failure = failure, None
                        raise first
                    try:
                        return await self._once(method, path, query, body, content_type, target)
                    except Retryable as exc:
                        answered = exc if exc.status else answered
                        raise
        except Retryable as exc:
            raise _gave_up(method, path, self.retry.attempts, exc, answered, target) from None
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    def _before_sleep(self, method: str, path: str, state: RetryCallState) -> None:
        self.counters.retries += 1
        exc = state.outcome.exception() if state.outcome else None
        _log.info(
            "retrying %s %s after %s (attempt %d of %d, waiting %.2fs)",
            method,
            path,
            exc.description if isinstance(exc, Retryable) else type(exc).__name__,
            state.attempt_number + 1,
            self.retry.attempts,
            state.upcoming_sleep,
        )

    async def _once(
        self,
        method: str,
        path: str,
        query: Sequence[tuple[str, str]],
        body: Any,
        content_type: str,
        target: ObjectRef | None,
    ) -> Response:
        self.counters.requests += 1
        headers = {"Content-Type": content_type, "Accept": JSON}
        timeout = self.retry.request_timeout
        started = time.perf_counter()
        try:
            async with self._open(method, path, list(query), headers, body, timeout) as resp:
                raw = await read_body(resp, method, path)
                status, resp_headers = resp.status, resp.headers
        except ResponseTooLargeError as exc:
            self._observe(method, str(exc.status), started)
            exc.target = target
            raise
        except Exception as exc:
            self._observe(method, "<error>", started)
            if isinstance(exc, aiohttp.ClientConnectorError) and not isinstance(
                exc, aiohttp.ClientSSLError
            ):
                if not self.retry.retry_unreachable:
                    raise _unreachable(exc, method, path) from None
                raise Retryable(f"{type(exc).__name__} talking to {self.host}") from None
            if retryable_connection_error(exc):
                raise Retryable(f"{type(exc).__name__} talking to {self.host}") from None
            if isinstance(exc, aiohttp.ClientError):
                raise APIError(
                    f"{method} {path} to {self.host} failed: {type(exc).__name__}: {exc}",
                    target=target,
                ) from None
            raise
        self._observe(method, str(status), started)
        _log.debug("%s %s -> %d", method, path, status)
        text = raw.decode("utf-8", errors="replace")
        parsed: Any = None
        if text:
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
        if 200 <= status < 300:
            return Response(status, resp_headers, parsed, text)
        found = parsed if isinstance(parsed, dict) else {}
        if retryable_status(status):
            reason = found.get("message") or excerpt(text) or "no message"
            raise Retryable(
                f"HTTP {status} ({reason})",
                retry_after(resp_headers),
                status=status,
                status_body=found,
            )
        raise error_from_status(status, found, text, target)

    @asynccontextmanager
    async def stream(
        self, path: str, *, query: Sequence[tuple[str, str]] = (), timeout: float | None = None
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """A GET whose body is read as it arrives (a watch), not retried; any status.

        ``timeout`` bounds the whole response (``None``: unbounded). The response is released
        on exit.
        """
        self.counters.requests += 1
        headers = {"Accept": JSON}
        started = time.perf_counter()
        answered = False
        try:
            async with self._open("GET", path, list(query), headers, None, timeout) as resp:
                answered = True
                self._observe("GET", str(resp.status), started)
                yield resp
        except BaseException:
            if not answered:
                self._observe("GET", "<error>", started)
            raise

    @asynccontextmanager
    async def _open(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]],
        headers: dict[str, str],
        body: Any,
        timeout: float | None,
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """Send through the ``ApiClient`` (either flavour); the raw aiohttp response.

        A redirect is never taken as the answer: kubernetes-asyncio's requests do not follow
        one, and an answer the official client's session reached through a redirect to another
        host or port is refused (aiohttp dropped the credential on the way).
        """
        client = self.api_client
        limit = aiohttp.ClientTimeout(total=timeout)
        if self._official:
            m, url, hdrs, data, _ = await self._credentials(
                method,
                path,
                client.param_serialize(
                    method=method,
                    resource_path=path,
                    query_params=query,
                    header_params=headers,
                    body=body,
                    auth_settings=["BearerToken"],
                ),
            )
            rest = await client.call_api(
                m, url, header_params=hdrs, body=data, _request_timeout=limit
            )
            resp: aiohttp.ClientResponse = rest.response
        else:
            # kubernetes-asyncio: what call_api does (default headers, cookie, auth, which may
            # refresh an exec/OIDC token) and what its REST client adds (proxy, TLS server
            # name), sent with redirects off, minus re-serialising a body that is JSON already.
            all_headers = {**client.default_headers, **headers}
            if client.cookie:
                all_headers["Cookie"] = client.cookie
            await self._credentials(
                method, path, client.update_params_for_auth(all_headers, query, ["BearerToken"])
            )
            rest_client = client.rest_client
            options: dict[str, Any] = {"headers": all_headers, "timeout": limit}
            if rest_client.proxy:
                options["proxy"] = rest_client.proxy
            if rest_client.proxy_headers:
                options["proxy_headers"] = rest_client.proxy_headers
            if rest_client.server_hostname:
                options["server_hostname"] = rest_client.server_hostname
            if body is not None:
                options["data"] = json.dumps(body)
            url = client.configuration.host + path + (f"?{urlencode(query)}" if query else "")
            resp = await rest_client.pool_manager.request(
                method, url, allow_redirects=False, **options
            )
        try:
            self._refuse_redirect(method, path, resp)
            yield resp
        finally:
            resp.release()

    async def _credentials(self, method: str, path: str, step: Awaitable[_T]) -> _T:
        """``step`` (the client's auth hook, which may run a plugin or refresh a token); its
        failure as an ``APIError`` that quotes nothing of it (it may hold a credential)."""
        try:
            return await step
        except Exception as exc:
            raise APIError(
                f"{method} {path}: the client could not set the request's credentials"
                f" ({type(exc).__name__}); check the kubeconfig's user"
            ) from None

    def _refuse_redirect(self, method: str, path: str, resp: aiohttp.ClientResponse) -> None:
        home = yarl.URL(self.host).origin()
        hops = [*resp.history, resp]
        if resp.history and all(h.url.origin() == home for h in hops):
            return  # the official client's session followed it within the same server
        first = next((h for h in hops if 300 <= h.status < 400), None)
        if first is None:
            return
        location = yarl.URL(first.headers.get("Location", ""))
        where = f" to {location.host}:{location.port}" if location.host else ""
        raise APIError(
            f"{method} {path}: {self.host} answered HTTP {first.status} redirecting{where};"
            " redirects are not followed for API requests (an answer from another server is"
            " not the cluster's, and the credential is not sent there)",
            status=first.status,
            reason=first.reason or "",
        )


def transport_for(client: Any, retry: RetryPolicy | None = None) -> Transport:
    """The core a helper sends through.

    An ``aio.Client`` brings its own. A bare ``ApiClient`` gets one made at its first use and
    attached to it, so what discovery learned lasts as long as that ``ApiClient`` (an object
    that takes no attribute gets a new core per call). ``retry`` replaces the core's policy for
    this call only; a core without a policy takes the one current now (``default_retry``'s,
    else the defaults) for the whole call. The caches and counters stay shared.
    """
    core = client if isinstance(client, Transport) else getattr(client, "transport", None)
    if not isinstance(core, Transport):
        core = getattr(client, _ATTACHED, None)
    if not isinstance(core, Transport):
        core = Transport(client)
        with suppress(AttributeError, TypeError):  # no attribute can be added: this call's only
            setattr(client, _ATTACHED, core)
    policy = retry or core.own_retry or RetryPolicy.current()
    return core if policy is core.own_retry else core.with_retry(policy)
