"""The Status bodies of refusals, built as kube-apiserver builds them: ``Forbidden`` from
``responsewriters.forbiddenMessage`` and ``apierrors.NewForbidden``, ``Unauthorized`` from
the authentication filter, and the escalation check's ``ConfirmNoEscalation`` message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.rbac.attributes import Attributes
from workloadbuilder.testing.rbac.identity import UserInfo
from workloadbuilder.testing.rbac.policy import Rule, compact, compact_string, go_quoted_list
from workloadbuilder.testing.rules.errors import go_quote

_SANITIZE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def forbidden(group: str, resource: str, name: str, message: str) -> errors.APIStatusError:
    """``apierrors.NewForbidden``: ``<resource>.<group> "<name>" is forbidden: <message>``
    (no name: ``<resource>.<group> is forbidden``; no resource: ``forbidden: ...``)."""
    qualified = f"{resource}.{group}" if group else resource
    if not resource and not group:
        text = f"forbidden: {message}"
    elif not name:
        text = f"{qualified} is forbidden: {message}"
    else:
        text = f"{qualified} {go_quote(name)} is forbidden: {message}"
    details: dict[str, Any] = {}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    if resource:
        details["kind"] = resource
    return errors.APIStatusError(errors.status_body(403, "Forbidden", text, details))


def forbidden_message(attrs: Attributes) -> str:
    """``User "alice" cannot list resource "nodes" in API group "" at the cluster scope``."""
    user = go_quote(attrs.user.name)
    if not attrs.resource_request:
        return f"User {user} cannot {attrs.verb} path {go_quote(attrs.path)}"
    where = (
        f"in the namespace {go_quote(attrs.namespace)}"
        if attrs.namespace
        else "at the cluster scope"
    )
    return (
        f"User {user} cannot {attrs.verb} resource {go_quote(attrs.combined_resource)} "
        f"in API group {go_quote(attrs.api_group)} {where}"
    )


def refused(attrs: Attributes, reason: str = "") -> errors.APIStatusError:
    """The 403 a refused request gets (``responsewriters.ForbiddenStatusError``)."""
    message = forbidden_message(attrs).translate(_SANITIZE)
    if reason:
        message = f"{message}: {reason}"
    return forbidden(attrs.api_group, attrs.resource, attrs.name, message)


def unauthorized() -> errors.APIStatusError:
    """The 401 for credentials that authenticate no one."""
    return errors.APIStatusError(errors.status_body(401, "Unauthorized", "Unauthorized"))


def escalation(user: UserInfo, missing: Sequence[Rule], resolution: Sequence[str]) -> str:
    """``user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions
    not currently held:`` and the missing rules, compacted, one per line, sorted."""
    lines = sorted({compact_string(rule) for rule in compact(missing)})
    text = (
        f"user {go_quote(user.name)} (groups={go_quoted_list(user.groups)}) is attempting to "
        "grant RBAC permissions not currently held:\n" + "\n".join(lines)
    )
    if resolution:
        joined = resolution[0] if len(resolution) == 1 else "[" + ", ".join(resolution) + "]"
        text += f"; resolution errors: [{joined}]"
    return text
