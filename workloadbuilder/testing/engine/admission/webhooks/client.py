"""The HTTP client that calls admission webhooks: POST over TLS, to loopback addresses only.

A webhook's ``clientConfig.url`` is called as is; a ``service`` reference
(``https://<name>.<namespace>.svc:<port><path>``) is sent to the loopback address the server's
``webhook_services`` option maps it to, verifying the certificate for the service's DNS name
as kube-apiserver does. ``caBundle`` (PEM, base64 in JSON) is the trust; without it, the
system's. The request carries ``?timeout=<n>s`` and is cut after ``timeoutSeconds``.

Any host that is not loopback (``127.0.0.0/8``, ``::1``, ``localhost``) is never contacted:
the call fails as an unreachable webhook does, and the webhook's ``failurePolicy`` decides.

The verbs are synchronous, so each call runs on its own event loop in a worker thread while
the server waits: a webhook served from the test server's own event loop cannot answer (run
it in another thread or process).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import ipaddress
import json
import ssl
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

_HOSTNAME_MISMATCH = 62
"""OpenSSL's ``X509_V_ERR_HOSTNAME_MISMATCH``."""


class CallError(Exception):
    """The webhook could not be called or answered nonsense (kube-apiserver's
    ``ErrCallingWebhook``): ``str()`` is the reason after ``failed calling webhook "x": ``."""


@dataclass(frozen=True)
class Target:
    """Where a webhook is called: the URL kube-apiserver names, the address connected to and
    the name its certificate must carry."""

    url: str
    connect: str
    server_name: str


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback IP address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def target(client_config: Mapping[str, Any], services: Mapping[str, str]) -> Target:
    """The :class:`Target` of a webhook's ``clientConfig``."""
    url = client_config.get("url")
    if isinstance(url, str):
        host = urlsplit(url).hostname or ""
        return Target(url, url, host)
    service = client_config.get("service") or {}
    name, namespace = service.get("name", ""), service.get("namespace", "")
    port, path = service.get("port", 443), service.get("path") or ""
    host = f"{name}.{namespace}.svc"
    official = f"https://{host}:{port}{path}"
    mapped = services.get(f"{namespace}/{name}:{port}") or services.get(f"{namespace}/{name}")
    if mapped is None:
        raise CallError(
            f'failed to call webhook: Post "{official}": service {namespace}/{name} is not '
            "mapped to a loopback address (FakeAPIServer(webhook_services=...))"
        )
    return Target(official, f"https://{mapped}{path}", host)


def _ssl_context(ca_bundle: Any) -> ssl.SSLContext:
    if not ca_bundle:
        return ssl.create_default_context()
    try:
        pem = base64.b64decode(str(ca_bundle), validate=True).decode()
        return ssl.create_default_context(cadata=pem)
    except (binascii.Error, UnicodeDecodeError, ssl.SSLError, ValueError) as exc:
        raise CallError(
            f"could not get REST client: unable to load root certificates: {exc}"
        ) from None


def _reason(exc: BaseException, where: Target) -> str:
    """Go's wording of a transport failure, as far as the kinds of failure map."""
    if isinstance(exc, asyncio.TimeoutError):
        return "context deadline exceeded"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        if getattr(exc.certificate_error, "verify_code", None) == _HOSTNAME_MISMATCH:
            return (
                "tls: failed to verify certificate: x509: certificate is not valid for "
                f"{where.server_name}"
            )
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    if isinstance(exc, aiohttp.ClientConnectorError):
        host = f"{exc.host}:{exc.port}"
        return f"dial tcp {host}: connect: connection refused"
    return str(exc) or type(exc).__name__


async def _post(where: Target, context: ssl.SSLContext, body: bytes, timeout: int) -> Any:
    url = f"{where.connect}?timeout={timeout}s"
    shown = f"{where.url}?timeout={timeout}s"
    try:
        async with (
            asyncio.timeout(timeout),
            aiohttp.ClientSession() as session,
            session.post(
                url,
                data=body,
                ssl=context,
                server_hostname=where.server_name,
                headers={"Content-Type": "application/json", "Accept": "application/json"},
            ) as response,
        ):
            text = await response.read()
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        raise CallError(f'failed to call webhook: Post "{shown}": {_reason(exc, where)}') from None
    if not 200 <= response.status < 300:
        raise CallError(
            f'failed to call webhook: an error on the server ("{text.decode(errors="replace")}") '
            "has prevented the request from succeeding"
        )
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CallError(f"received invalid webhook response: {exc}") from None


def post(
    client_config: Mapping[str, Any], services: Mapping[str, str], body: bytes, timeout: int
) -> Any:
    """POST ``body`` to the webhook; its decoded JSON answer, else :class:`CallError`."""
    where = target(client_config, services)
    host = urlsplit(where.connect).hostname or ""
    if not is_loopback(host):
        raise CallError(
            f'failed to call webhook: Post "{where.url}?timeout={timeout}s": the test server '
            f"calls only loopback addresses (127.0.0.0/8, ::1, localhost), not {host}"
        )
    context = _ssl_context(client_config.get("caBundle"))
    with ThreadPoolExecutor(1, thread_name_prefix="admission-webhook") as pool:
        return pool.submit(asyncio.run, _post(where, context, body, timeout)).result()
