"""String formats of apimachinery: DNS labels and subdomains, qualified names, path segments."""

from __future__ import annotations

import re
from typing import Final

_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT: Final = _LABEL_FMT + r"(\." + _LABEL_FMT + ")*"
_QNAME_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_REASON_FMT: Final = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"

_LABEL_RE: Final = re.compile(_LABEL_FMT)
_SUBDOMAIN_RE: Final = re.compile(_SUBDOMAIN_FMT)
_QNAME_RE: Final = re.compile(_QNAME_FMT)
_REASON_RE: Final = re.compile(_REASON_FMT)

LABEL_MAX: Final = 63
SUBDOMAIN_MAX: Final = 253
_QNAME_MAX: Final = 63


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """Describe a regex mismatch with examples, worded (and spaced) exactly as apimachinery."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    """The length-limit message."""
    return f"must be no more than {length} bytes"


LABEL_MSG: Final = regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character",
    _LABEL_FMT,
    "my-name",
    "123-abc",
)
SUBDOMAIN_MSG: Final = regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character",
    _SUBDOMAIN_FMT,
    "example.com",
)
_QNAME_MSG: Final = regex_error(
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character",
    _QNAME_FMT,
    "MyName",
    "my.name",
    "123-abc",
)
_LABEL_VALUE_FMT: Final = "(" + _QNAME_FMT + ")?"
_LABEL_VALUE_MSG: Final = regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character",
    _LABEL_VALUE_FMT,
    "MyValue",
    "my_value",
    "12345",
)
REASON_MSG: Final = regex_error(
    "a condition reason must start with alphabetic character, optionally followed by a string "
    "of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
    _REASON_FMT,
    "my_name",
    "MY_NAME",
    "MyName",
    "ReasonA,ReasonB",
    "ReasonA:ReasonB",
)


def dns_label(value: str) -> list[str]:
    """Problems of ``value`` as an RFC 1123 label (a k8s short name)."""
    errs = []
    if len(value.encode()) > LABEL_MAX:
        errs.append(max_len_error(LABEL_MAX))
    if not _LABEL_RE.fullmatch(value):
        errs.append("must not contain dots" if _SUBDOMAIN_RE.fullmatch(value) else LABEL_MSG)
    return errs


def dns_subdomain(value: str) -> list[str]:
    """Problems of ``value`` as an RFC 1123 subdomain (a k8s long name)."""
    errs = []
    if len(value.encode()) > SUBDOMAIN_MAX:
        errs.append(max_len_error(SUBDOMAIN_MAX))
    if not _SUBDOMAIN_RE.fullmatch(value):
        errs.append(SUBDOMAIN_MSG)
    return errs


def qualified_name(value: str) -> list[str]:
    """Problems of ``value`` as a qualified name (label keys, condition types)."""
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a qualified name "
            + _QNAME_MSG
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    errs: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in dns_subdomain(prefix))
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > _QNAME_MAX:
        errs.append("name part " + max_len_error(_QNAME_MAX))
    if not _QNAME_RE.fullmatch(name):
        errs.append("name part " + _QNAME_MSG)
    return errs


def path_segment_name(value: str) -> list[str]:
    """Problems of ``value`` as a name usable as one URL path segment."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def condition_reason(value: str) -> list[str]:
    """Problems of ``value`` as a condition reason (length is checked by the caller)."""
    return [] if _REASON_RE.fullmatch(value) else [REASON_MSG]


def label_value(value: str) -> list[str]:
    """Errors of a label value (empty, or a qualified-name part of at most 63 bytes)."""
    errs = []
    if len(value.encode()) > _QNAME_MAX:
        errs.append(max_len_error(_QNAME_MAX))
    if not re.fullmatch(_LABEL_VALUE_FMT, value):
        errs.append(_LABEL_VALUE_MSG)
    return errs
