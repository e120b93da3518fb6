"""Media types: what a request may send, and which representation its ``Accept`` asks for.

The API server routes resource requests through go-restful, which refuses a body type a
route does not consume (``415: Unsupported Media Type``) and an ``Accept`` it cannot produce
(``406: Not Acceptable`` followed by the representations it has); the API server's service
error handler turns either into a JSON ``Status`` (``NewGenericServerResponse``: reason
``UnsupportedMediaType`` / ``NotAcceptable``, that text as the message, empty details).
Inside an accepted type, parameters choose the shape: ``as=Table`` (what ``kubectl get``
asks for), ``as=PartialObjectMetadata[List]``, ``as=APIGroupDiscoveryList`` (aggregated
discovery).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from workloadbuilder.testing.common import errors

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)
PRODUCES = (JSON, YAML, PROTOBUF)
"""What a resource route advertises (the 406 text lists these)."""

_TEXT = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class MediaType:
    """One entry of an ``Accept`` header: ``type/subtype`` and its parameters."""

    mime: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def shape(self) -> str:
        """The ``as=`` parameter (empty for the plain object)."""
        return self.params.get("as", "")


def parse_accept(header: str) -> list[MediaType]:
    """The entries of an ``Accept`` header, in the client's order (``q=0`` dropped)."""
    out: list[MediaType] = []
    for chunk in header.split(","):
        mime, _, rest = chunk.strip().partition(";")
        if not mime:
            continue
        params: dict[str, str] = {}
        for item in rest.split(";"):
            key, sep, value = item.strip().partition("=")
            if sep:
                params[key.strip()] = value.strip().strip('"')
        if params.get("q") in ("0", "0.0", "0.00", "0.000"):
            continue
        params.pop("q", None)
        out.append(MediaType(mime.strip().lower(), params))
    return out


def plain(status: int, text: str, headers: dict[str, str] | None = None) -> web.Response:
    """A ``text/plain`` answer, as Go's HTTP stack writes its own errors."""
    return web.Response(
        status=status,
        body=text.encode(),
        headers={"Content-Type": _TEXT, "X-Content-Type-Options": "nosniff", **(headers or {})},
    )


_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))
_LINE_ESCAPES = (("\u2028", "\\u2028"), ("\u2029", "\\u2029"))
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_PRETTY_AGENTS = ("curl", "Wget", "Mozilla/5.0")


def _go_text(text: str) -> bytes:
    """Go's encoding/json escapes: HTML characters and line separators as ``\\u`` escapes,
    other characters as UTF-8 (a lone surrogate, which Go's decoder never keeps, as U+FFFD)."""
    for escapes in (_HTML_ESCAPES, _LINE_ESCAPES):
        for char, escaped in escapes:
            if char in text:
                text = text.replace(char, escaped)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode()


def encode_json(body: Any) -> bytes:
    """``body`` as the API server's JSON serializer writes it (``json.Encoder``): compact,
    Go's escapes, a final newline."""
    return _go_text(json.dumps(body, separators=(",", ":"), ensure_ascii=False)) + b"\n"


def encode_pretty(body: Any) -> bytes:
    """``json.MarshalIndent(body, "", "  ")``: what the serializer writes when asked to pretty
    print (no final newline)."""
    return _go_text(json.dumps(body, indent=2, ensure_ascii=False))


def wants_pretty(request: web.BaseRequest) -> bool:
    """The apiserver's ``isPrettyPrint``: ``?pretty=`` as a boolean, else a curl, Wget or
    browser User-Agent."""
    value = request.query.get("pretty")
    if value:
        return value in ("1", "t", "T", "true", "TRUE", "True")
    return request.headers.get("User-Agent", "").startswith(_PRETTY_AGENTS)


def _service_error(code: int, reason: str, message: str) -> web.Response:
    """go-restful's refusal as the API server's ``serviceErrorHandler`` answers it."""
    body = errors.status_body(code, reason, message, {})
    return web.Response(status=code, body=encode_json(body), headers={"Content-Type": JSON})


def not_acceptable(produces: tuple[str, ...] = PRODUCES) -> web.Response:
    """go-restful's 406 for an ``Accept`` no route produces."""
    text = "406: Not Acceptable\n\nAvailable representations: " + ", ".join(produces)
    return _service_error(406, "NotAcceptable", text)


def unsupported_media_type() -> web.Response:
    """go-restful's 415 for a body type the route does not consume."""
    return _service_error(415, "UnsupportedMediaType", "415: Unsupported Media Type")


def _matches(accepted: MediaType, offered: str) -> bool:
    if accepted.mime in ("*/*", offered):
        return True
    major, _, minor = accepted.mime.partition("/")
    return minor == "*" and offered.startswith(major + "/")


def acceptable(entries: list[MediaType], produces: tuple[str, ...] = PRODUCES) -> bool:
    """Whether go-restful lets the request through: no ``Accept``, or one entry it produces."""
    return not entries or any(_matches(e, p) for e in entries for p in produces)


def refuse_request(method: str, content_type: str, body: bytes, accept: str) -> web.Response | None:
    """go-restful's 415 or 406, sent before the API server looks at a resource request.

    Only PATCH routes restrict the body type there; POST and PUT consume anything, and
    :func:`check_body_type` refuses the rest as the API server's decoder does.
    """
    if method == "PATCH" and body:
        mime = content_type.partition(";")[0].strip().lower() or "application/octet-stream"
        if mime not in PATCH_TYPES:
            return unsupported_media_type()
    if not acceptable(parse_accept(accept)):
        return not_acceptable()
    return None


def check_body_type(method: str, content_type: str) -> None:
    """The decoder's 415 for a POST or PUT body it cannot read (no type means JSON)."""
    mime = content_type.partition(";")[0].strip().lower()
    if method in ("POST", "PUT") and mime and mime not in PRODUCES:
        raise errors.APIStatusError(
            errors.status_body(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types "
                "include: " + ", ".join(PRODUCES),
            )
        )


OBJECT_SHAPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "": ("", ()),
    "Table": ("meta.k8s.io", ("v1", "v1beta1")),
    "PartialObjectMetadata": ("meta.k8s.io", ("v1", "v1beta1")),
    "PartialObjectMetadataList": ("meta.k8s.io", ("v1", "v1beta1")),
}
"""The ``as=`` shapes of a resource request, with the group and versions each is served at."""

DISCOVERY_SHAPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "": ("", ()),
    "APIGroupDiscoveryList": ("apidiscovery.k8s.io", ("v2", "v2beta1")),
}
"""The ``as=`` shapes of ``/api`` and ``/apis``."""


def output(entries: list[MediaType], shapes: dict[str, tuple[str, tuple[str, ...]]]) -> MediaType:
    """The representation to answer with: the first entry this server can write.

    Protobuf is not written: a client that also accepts JSON (kubectl, client-go) gets JSON,
    and so does one that accepts only protobuf.
    """
    for entry in entries:
        if entry.mime in ("*/*", "application/*"):
            return MediaType(JSON)
        if entry.mime not in (JSON, YAML) or entry.shape not in shapes:
            continue
        group, versions = shapes[entry.shape]
        if not entry.shape or (
            entry.params.get("g") == group and entry.params.get("v") in versions
        ):
            return entry
    return MediaType(JSON)
