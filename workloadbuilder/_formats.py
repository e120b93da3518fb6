"""Kubernetes name and label-key formats, with apimachinery's messages (one per problem)."""

from __future__ import annotations

import re

__all__ = [
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "byte_length",
    "dns_label_errors",
    "dns_subdomain_errors",
    "is_dns_subdomain",
    "label_key_errors",
    "label_value_errors",
]

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253

_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = _LABEL + r"(\." + _LABEL + ")*"
_QUALIFIED = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_RE = re.compile(_LABEL)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN)
_QUALIFIED_RE = re.compile(_QUALIFIED)
_LABEL_KEY_RE = re.compile(f"(?:(?P<prefix>{_SUBDOMAIN})/)?(?P<name>{_QUALIFIED})")


def _regex_message(what: str, examples: tuple[str, ...], regex: str) -> str:
    # apimachinery joins the examples as "'a',  or 'b'" (two spaces), and we keep that text.
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{what} (e.g. {shown}regex used for validation is '{regex}')"


LABEL_MESSAGE = _regex_message(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-',"
    " and must start and end with an alphanumeric character",
    ("my-name", "123-abc"),
    _LABEL,
)
SUBDOMAIN_MESSAGE = _regex_message(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-'"
    " or '.', and must start and end with an alphanumeric character",
    ("example.com",),
    _SUBDOMAIN,
)
_NAME_PART_MESSAGE = _regex_message(
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and"
    " end with an alphanumeric character",
    ("MyName", "my.name", "123-abc"),
    _QUALIFIED,
)
_LABEL_KEY_MESSAGE = (
    _regex_message(
        "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must"
        " start and end with an alphanumeric character",
        ("MyName", "my.name", "123-abc"),
        _QUALIFIED,
    )
    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)


def byte_length(value: str) -> int:
    """The length of ``value`` in UTF-8 bytes, as Go's ``len`` (a lone surrogate counts 3)."""
    return len(value.encode("utf-8", "surrogatepass"))


def dns_label_errors(value: str) -> list[str]:
    """Problems of ``value`` as an RFC 1123 DNS label (a template or claim name)."""
    # A match is ASCII, so its length in characters is its length in bytes.
    if len(value) <= DNS1123_LABEL_MAX_LENGTH and _LABEL_RE.fullmatch(value):
        return []
    errors = []
    if byte_length(value) > DNS1123_LABEL_MAX_LENGTH:
        errors.append(f"must be no more than {DNS1123_LABEL_MAX_LENGTH} bytes")
    if not _LABEL_RE.fullmatch(value):
        errors.append("must not contain dots" if _SUBDOMAIN_RE.fullmatch(value) else LABEL_MESSAGE)
    return errors


def is_dns_subdomain(value: str) -> bool:
    """Whether ``value`` is a valid RFC 1123 DNS subdomain (an object name)."""
    # A match is ASCII, so its length in characters is its length in bytes.
    return _SUBDOMAIN_RE.fullmatch(value) is not None and len(value) <= DNS1123_SUBDOMAIN_MAX_LENGTH


def dns_subdomain_errors(value: str) -> list[str]:
    """Problems of ``value`` as an RFC 1123 DNS subdomain (an object name)."""
    if is_dns_subdomain(value):
        return []
    errors = []
    if byte_length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} bytes")
    if not _SUBDOMAIN_RE.fullmatch(value):
        errors.append(SUBDOMAIN_MESSAGE)
    return errors


def label_key_errors(value: str) -> list[str]:
    """Problems of ``value`` as a label key (an optional DNS-subdomain prefix and a name)."""
    valid = _LABEL_KEY_RE.fullmatch(value)  # both parts ASCII: characters are bytes
    if valid and len(valid["name"]) <= 63 and len(valid["prefix"] or "") <= 253:
        return []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errors: list[str] = []
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors = ["prefix part must be non-empty"]
        else:
            errors = [f"prefix part {e}" for e in dns_subdomain_errors(prefix)]
    else:
        return [_LABEL_KEY_MESSAGE]
    if not name:
        errors.append("name part must be non-empty")
    elif byte_length(name) > 63:
        errors.append("name part must be no more than 63 bytes")
    if not _QUALIFIED_RE.fullmatch(name):
        errors.append(_NAME_PART_MESSAGE)
    return errors


def parse_group_version(value: str) -> tuple[str, str] | None:
    """``(group, version)`` as apimachinery's ``schema.ParseGroupVersion`` reads an apiVersion;
    ``None`` when it fails (more than one ``/``)."""
    if value in ("", "/"):
        return ("", "")
    slashes = value.count("/")
    if slashes == 0:
        return ("", value)
    if slashes == 1:
        group, _, version = value.partition("/")
        return (group, version)
    return None


def path_segment_name_errors(value: str) -> list[str]:
    """apimachinery's ``path.IsValidPathSegmentName``: a name usable as one URL path segment."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


_LABEL_VALUE = f"({_QUALIFIED})?"
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE)
_LABEL_VALUE_MESSAGE = _regex_message(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or"
    " '.', and must start and end with an alphanumeric character",
    ("MyValue", "my_value", "12345"),
    _LABEL_VALUE,
)


def label_value_errors(value: str) -> list[str]:
    """Problems of ``value`` as a label value (apimachinery's ``IsValidLabelValue``)."""
    errors = []
    if byte_length(value) > 63:
        errors.append("must be no more than 63 bytes")
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(_LABEL_VALUE_MESSAGE)
    return errors
