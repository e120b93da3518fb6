"""Deterministic names for the runtime objects, identical to the upstream controllers' names.

``generate_workload_name`` and ``generate_pod_group_name`` give byte for byte the names the
Kubernetes Job controller (and the Go ``workloadbuilder`` naming helpers) give, whenever those
names are valid DNS subdomains. For the few inputs where upstream would produce an invalid name
they produce a valid one instead; ``docs/naming.md`` says exactly when.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from ._formats import DNS1123_SUBDOMAIN_MAX_LENGTH, is_dns_subdomain

__all__ = [
    "generate_pod_group_name",
    "generate_workload_name",
]


# The alphabet of apimachinery's rand.String / rand.SafeEncodeString (no vowels).
_ALPHANUMS: Final = "bcdfghjklmnpqrstvwxz2456789"

_FNV32_OFFSET: Final = 0x811C9DC5
_FNV32_PRIME: Final = 0x01000193

# Kubernetes' DeepHashObject prints its argument with go-spew's "%#v"; for a types.UID (a
# named string type) that is the type in parentheses followed by the raw string.
_UID_PREFIX: Final = b"(types.UID)"

_INVALID_CHARS_RE: Final = re.compile(r"[^a-z0-9.-]")


def _fnv32a(*chunks: bytes, start: int = _FNV32_OFFSET) -> int:
    """FNV-1a over ``chunks``, continuing from the state ``start``."""
    h = start
    for chunk in chunks:
        for byte in chunk:
            h = ((h ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return h


@functools.lru_cache(maxsize=256)
def _prefix_state(prefix: bytes) -> int:
    """The hash state after ``prefix``: every name of one Workload shares it."""
    return _fnv32a(prefix)


class _SafeEncoding(dict[int, str]):
    """``str.translate`` table of rand.SafeEncodeString: code point -> alphabet letter."""

    def __missing__(self, code: int) -> str:
        letter = self[code] = _ALPHANUMS[code % len(_ALPHANUMS)]
        return letter


_SAFE_ENCODING: Final = _SafeEncoding()


def _safe_encode(text: str) -> str:
    return text.translate(_SAFE_ENCODING)


def _hash_suffix(prefix: bytes, rest: bytes) -> str:
    """The name suffix: rand.SafeEncodeString of the decimal FNV-1a hash of prefix + rest."""
    return _safe_encode(str(_fnv32a(rest, start=_prefix_state(prefix))))


def _is_dns1123_subdomain(name: str) -> bool:
    return is_dns_subdomain(name)


def _sanitize(part: str) -> str:
    """``part`` made into a valid DNS subdomain (possibly empty): lowercased, other characters
    replaced by ``-``, and every dot-separated label trimmed of ``-`` at both ends."""
    cleaned = _INVALID_CHARS_RE.sub("-", part.lower())
    # Lowercasing a few non-ASCII characters yields ASCII letters; the rest became '-'.
    labels = (label.strip("-") for label in cleaned.split("."))
    return ".".join(label for label in labels if label)


def _cut(part: str, length: int) -> str:
    """The first ``length`` characters of a sanitized part, without a trailing ``-`` or ``.``."""
    return part[:length].rstrip("-.")


def _utf8(text: str) -> bytes:
    """``text`` as the API server holds it: UTF-8, a lone surrogate (which no JSON decoder
    keeps) replaced by U+FFFD as Go's decoder does."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


def _require(value: str, what: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{what} must not be empty")


def generate_workload_name(owner_name: str, owner_uid: str) -> str:
    """The Workload name the upstream controllers give an owner: ``<owner name>-<hash>``.

    The hash is derived from the owner's UID only (so a re-created owner with the same name gets
    a new Workload); the owner name is truncated so that the result has at most 253 characters.
    The result is always a valid DNS subdomain. Raises ``ValueError`` for an empty name or UID.
    """
    _require(owner_name, "owner_name")
    _require(owner_uid, "owner_uid")
    suffix = _hash_suffix(_UID_PREFIX, _utf8(owner_uid))
    max_prefix = DNS1123_SUBDOMAIN_MAX_LENGTH - len(suffix) - 1
    if owner_name.isascii():
        name = f"{owner_name[:max_prefix]}-{suffix}"
        if _is_dns1123_subdomain(name):
            return name
    prefix = _cut(_sanitize(owner_name), max_prefix)
    return f"{prefix}-{suffix}" if prefix else suffix


def _split(workload: str, template: str, available: int) -> tuple[int, int]:
    """How many characters of each part upstream keeps when both do not fit."""
    if len(workload) + len(template) <= available:
        return len(workload), len(template)
    half = available // 2
    if len(workload) <= half:
        return len(workload), available - len(workload)
    if len(template) <= half:
        return available - len(template), len(template)
    return available - half, half


def generate_pod_group_name(workload_name: str, template_name: str) -> str:
    """The PodGroup name the upstream controllers give a template's group:
    ``<workload>-<template>-<hash>``.

    The hash covers both names; when they do not fit in 253 characters together, the longer
    name(s) are truncated, each keeping at least half of the room. The result is always a valid
    DNS subdomain. Raises ``ValueError`` for an empty workload or template name.
    """
    _require(workload_name, "workload_name")
    _require(template_name, "template_name")
    suffix = _hash_suffix(_utf8(workload_name), _utf8(template_name))
    available = DNS1123_SUBDOMAIN_MAX_LENGTH - len(suffix) - 2
    if workload_name.isascii() and template_name.isascii():
        wl_len, tpl_len = _split(workload_name, template_name, available)
        name = f"{workload_name[:wl_len]}-{template_name[:tpl_len]}-{suffix}"
        if _is_dns1123_subdomain(name):
            return name
    wl, tpl = _sanitize(workload_name), _sanitize(template_name)
    if not wl or not tpl:
        only = _cut(wl or tpl, DNS1123_SUBDOMAIN_MAX_LENGTH - len(suffix) - 1)
        return f"{only}-{suffix}" if only else suffix
    wl_len, tpl_len = _split(wl, tpl, available)
    return f"{_cut(wl, wl_len)}-{_cut(tpl, tpl_len)}-{suffix}"
