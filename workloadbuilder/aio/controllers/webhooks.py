"""``WebhookServer``: admission webhooks over TLS, as controller-runtime's webhook server.

``add_validating_webhook(path, validate)``: ``validate(request)`` gets an
``AdmissionRequest`` and returns an ``ErrorList`` (or ``None``); errors are refused with the
Status an API server relays (422, ``Invalid``, every cause at its field path).
``add_mutating_webhook(path, mutate)``: ``mutate(request)`` returns the object it wants (or
``None`` for no change, or an ``ErrorList`` to refuse); the answer is the JSON Patch from the
object sent to it. Either may be a coroutine function. A callback that raises is refused with
code 500 and the error's text, logged once. A body that is not an AdmissionReview is a 400
(413 past 7 MiB, controller-runtime's limit), never a crash.

TLS only, from ``cert_dir``'s ``tls.crt`` and ``tls.key``; the files are read again when they
change (every ``cert_reload_interval`` seconds, 10 as controller-runtime's certificate
watcher), and a pair that does not load keeps the previous one serving and is logged.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import ssl
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jsonpatch
from aiohttp import web
from prometheus_client import CollectorRegistry

from ...field import ErrorList
from ..metrics import WEBHOOK_IN_FLIGHT, WEBHOOK_LATENCY, WEBHOOK_REQUESTS, register
from .admission import AdmissionRequest, MalformedReview, read_review, review_response
from .servers import split_bind_address

__all__ = ["MAX_REVIEW_BYTES", "Mutate", "Validate", "WebhookServer"]

_log = logging.getLogger("workloadbuilder.aio")

MAX_REVIEW_BYTES = 7 * 1024 * 1024
"""controller-runtime's limit: two objects of at most 3 MiB each and 1 MiB for the rest."""

Validate = Callable[[AdmissionRequest], "ErrorList | Awaitable[ErrorList | None] | None"]
Mutate = Callable[
    [AdmissionRequest],
    "dict[str, Any] | ErrorList | Awaitable[dict[str, Any] | ErrorList | None] | None",
]


class _Certificates:
    """The serving pair of ``cert_dir``, read again when either file changes."""

    def __init__(self, cert_dir: Path) -> None:
        self.cert, self.key = cert_dir / "tls.crt", cert_dir / "tls.key"
        self._failure = ""
        self.listener = self._load()
        self.active = self.listener
        self._seen = self._stamp()
        # The listener keeps its first context; each handshake is moved to the pair read last.
        self.listener.sni_callback = self._select

    def _stamp(self) -> tuple[object, ...]:
        stamps: list[object] = []
        for path in (self.cert, self.key):
            try:
                st = path.stat()
            except OSError as exc:
                stamps.append(type(exc).__name__)
            else:
                stamps.append((st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(stamps)

    def _load(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert, self.key)
        return context

    def _select(self, sslobj: ssl.SSLObject, _name: str | None, _ctx: ssl.SSLContext) -> None:
        if sslobj.context is not self.active:
            sslobj.context = self.active

    def reload_if_changed(self) -> None:
        """Load the pair again if either file changed; keep the loaded one if it fails."""
        stamp = self._stamp()
        if stamp == self._seen:
            return
        self._seen = stamp
        try:
            context = self._load()
        except (OSError, ssl.SSLError, ValueError) as exc:
            failure = f"{type(exc).__name__}: {exc}"
            if failure != self._failure:
                self._failure = failure
                _log.error(
                    "webhook certificate %s / %s does not load (%s); the certificate loaded "
                    "before keeps serving",
                    self.cert,
                    self.key,
                    failure,
                )
            return
        self._failure = ""
        self.active = context
        _log.info("webhook certificate reloaded from %s", self.cert)


class WebhookServer:
    """Admission webhooks at ``https://<bind_address>/<path>`` (``start()``, ``stop()``)."""

    def __init__(
        self,
        bind_address: str,
        cert_dir: str | os.PathLike[str],
        *,
        registry: CollectorRegistry | None = None,
        cert_reload_interval: float = 10.0,
        shutdown_timeout: float = 30.0,
    ) -> None:
        self._host, self._port = split_bind_address(bind_address)
        self._cert_dir = Path(cert_dir)
        if registry is not None:
            register(registry)  # the SDK's metrics, these among them
        self._reload_interval = cert_reload_interval
        self._shutdown_timeout = shutdown_timeout
        self._app = web.Application(client_max_size=MAX_REVIEW_BYTES + 1)
        self._paths: set[str] = set()
        self._runner: web.AppRunner | None = None
        self._reloader: asyncio.Task[None] | None = None
        self.url: str | None = None
        self.serving = False

    def add_validating_webhook(self, path: str, validate: Validate) -> None:
        """Serve ``validate`` at ``path``: its ``ErrorList`` refuses the object (422)."""
        self._add(path, self._validating(validate))

    def add_mutating_webhook(self, path: str, mutate: Mutate) -> None:
        """Serve ``mutate`` at ``path``: the object it returns is answered as a JSON Patch."""
        self._add(path, self._mutating(mutate))

    def _add(
        self, path: str, answer: Callable[[AdmissionRequest], Awaitable[dict[str, Any]]]
    ) -> None:
        if not path.startswith("/") or path in self._paths:
            raise ValueError(f"webhook path {path!r} must start with '/' and be new")
        if self._runner is not None:
            raise RuntimeError("add webhooks before the server starts")
        self._paths.add(path)
        for code in ("200", "500"):  # as InstrumentedHook: these exist before a request
            WEBHOOK_REQUESTS.labels(path, code)
        WEBHOOK_IN_FLIGHT.labels(path)
        self._app.router.add_post(path, self._handler(path, answer))

    async def start(self) -> None:
        """Load the certificate, bind and serve; ``url`` then says where."""
        certificates = _Certificates(self._cert_dir)
        self._runner = web.AppRunner(
            self._app,
            access_log=None,
            shutdown_timeout=self._shutdown_timeout,
            lingering_time=1.0,  # an oversized body refused is not read for long
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port, ssl_context=certificates.listener)
        await site.start()
        server = site._server  # the bound socket says which port 0 became
        sockets = getattr(server, "sockets", None) or ()
        port = sockets[0].getsockname()[1] if sockets else self._port
        host = f"[{self._host}]" if ":" in self._host else self._host
        self.url = f"https://{host}:{port}"
        self._reloader = asyncio.create_task(self._reload(certificates))
        self.serving = True

    async def _reload(self, certificates: _Certificates) -> None:
        while True:
            await asyncio.sleep(self._reload_interval)
            await asyncio.to_thread(certificates.reload_if_changed)

    async def stop(self) -> None:
        """Stop accepting; requests in flight finish (within ``shutdown_timeout``)."""
        self.serving = False
        if self._reloader is not None:
            self._reloader.cancel()
            self._reloader = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _handler(
        self, path: str, answer: Callable[[AdmissionRequest], Awaitable[dict[str, Any]]]
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        in_flight, latency = WEBHOOK_IN_FLIGHT.labels(path), WEBHOOK_LATENCY.labels(path)

        async def handle(http: web.Request) -> web.Response:
            started = time.perf_counter()
            in_flight.inc()
            try:
                response = await _respond(http, answer)
            finally:
                in_flight.dec()
            WEBHOOK_REQUESTS.labels(path, str(response.status)).inc()
            latency.observe(time.perf_counter() - started)
            return response

        return handle

    def _validating(
        self, validate: Validate
    ) -> Callable[[AdmissionRequest], Awaitable[dict[str, Any]]]:
        async def answer(request: AdmissionRequest) -> dict[str, Any]:
            result = await _call(validate, request)
            if result is None or isinstance(result, ErrorList):
                return _verdict(request, result)
            return _failed(request, TypeError(f"validate returned {type(result).__name__}"))

        return answer

    def _mutating(self, mutate: Mutate) -> Callable[[AdmissionRequest], Awaitable[dict[str, Any]]]:
        async def answer(request: AdmissionRequest) -> dict[str, Any]:
            result = await _call(mutate, request)
            if result is None or isinstance(result, ErrorList):
                return _verdict(request, result)
            if not isinstance(result, dict) or request.object is None:
                what = "no object to change" if request.object is None else "not a JSON object"
                return _failed(
                    request, TypeError(f"mutate returned {type(result).__name__}: {what}")
                )
            patch = jsonpatch.make_patch(request.object, result).patch
            return review_response(
                request.uid, allowed=True, patch=patch, warnings=request.warnings
            )

        return answer


class _Raised(Exception):
    """The callback raised: carries what it raised."""


async def _call(callback: Callable[[AdmissionRequest], Any], request: AdmissionRequest) -> Any:
    try:
        result = callback(request)
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:  # a user's callback: refused with its text, never a crash
        raise _Raised() from exc
    return result


def _verdict(request: AdmissionRequest, errors: ErrorList | None) -> dict[str, Any]:
    if not errors:
        return review_response(request.uid, allowed=True, warnings=request.warnings)
    status = errors.to_status(
        kind=request.kind.get("kind", ""), group=request.kind.get("group", ""), name=request.name
    )
    # kube-apiserver prefixes the message with `admission webhook "<name>" denied the
    # request: `; the field errors alone follow it, as kubectl then prints them.
    status["message"] = str(errors)
    return review_response(request.uid, allowed=False, status=status, warnings=request.warnings)


def _failed(request: AdmissionRequest, exc: BaseException) -> dict[str, Any]:
    message = f"{type(exc).__name__}: {exc}"
    _log.error("admission webhook for %s %r failed: %s", request.operation, request.name, message)
    status = {"metadata": {}, "message": message, "code": 500}
    return review_response(request.uid, allowed=False, status=status)


async def _read_body(http: web.Request) -> bytes:
    too_large = MalformedReview(
        f"request entity is too large; limit is {MAX_REVIEW_BYTES} bytes", status=413
    )
    if (http.content_length or 0) > MAX_REVIEW_BYTES:
        raise too_large
    body = bytearray()
    async for chunk in http.content.iter_any():
        body += chunk
        if len(body) > MAX_REVIEW_BYTES:
            raise too_large
    if not body:
        raise MalformedReview("request body is empty")
    return bytes(body)


async def _respond(
    http: web.Request, answer: Callable[[AdmissionRequest], Awaitable[dict[str, Any]]]
) -> web.Response:
    try:
        body = await _read_body(http)
        if http.content_type != "application/json":
            raise MalformedReview(f"contentType={http.content_type}, expected application/json")
        request = read_review(body)
    except MalformedReview as exc:
        _log.warning("admission webhook %s: bad request: %s", http.path, exc)
        status = {"metadata": {}, "message": str(exc), "code": exc.status}
        refusal = web.json_response(
            review_response("", allowed=False, status=status), status=exc.status
        )
        refusal.force_close()  # what was not read of the body is not read
        return refusal
    try:
        review = await answer(request)
    except _Raised as raised:
        review = _failed(request, raised.__cause__ or raised)
    return web.json_response(review)
