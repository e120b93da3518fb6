"""A request's authorization attributes, derived from its method, path and query as
kube-apiserver's ``RequestInfoFactory`` derives them (``k8s.io/apiserver``
``pkg/endpoints/request/requestinfo.go``): verb from the method (``GET`` on a collection is
``list``, or ``watch`` with ``watch=true``; ``DELETE`` of a collection is ``deletecollection``),
namespace, resource, subresource and name from the path; a list or watch whose field selector
pins ``metadata.name`` names that object.

The SDK has its own model of these attributes (``workloadbuilder.aio``, to name the rule a
refused request lacks). The test server keeps this one on purpose: it stands in for the API
server the SDK is tested against, so it shares none of the SDK's code (an import contract in
``pyproject.toml`` keeps ``testing.rbac`` and ``testing.rules`` from importing
``workloadbuilder.aio`` and ``workloadbuilder._gorender``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from workloadbuilder.testing.rbac.identity import UserInfo

_API_PREFIXES = frozenset({"api", "apis"})
_SPECIAL_VERBS = frozenset({"proxy", "redirect", "watch"})
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
_METHOD_VERBS = {
    "POST": "create",
    "GET": "get",
    "HEAD": "get",
    "PUT": "update",
    "PATCH": "patch",
    "DELETE": "delete",
}


@dataclass(frozen=True)
class Attributes:
    """What the authorizer decides on (``authorizer.AttributesRecord``)."""

    user: UserInfo
    verb: str
    resource_request: bool
    path: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""

    @property
    def combined_resource(self) -> str:
        """``resource/subresource``, or the resource alone."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


def _watch(query: Mapping[str, str]) -> bool:
    value = query.get("watch")
    return value is not None and value.lower() not in ("false", "0")


def _named_by_selector(selector: str | None) -> str:
    """The name a field selector requires exactly (its first ``metadata.name=x`` or ``==``
    term), or ``""``; a selector that does not parse (a term without an operator) and a name
    that is not a path segment name none."""
    name: str | None = None
    for term in (selector or "").split(","):
        for operator in ("!=", "==", "="):
            key, sep, value = term.partition(operator)
            if sep:
                break
        else:
            return ""  # fields.ParseSelector refuses the whole selector
        if name is None and operator != "!=" and key.strip() == "metadata.name":
            name = value.strip()
    if not name or name in (".", "..") or "/" in name or "%" in name:
        return ""
    return name


def request_attributes(
    user: UserInfo, method: str, path: str, query: Mapping[str, str]
) -> Attributes:
    """The attributes of ``method path?query`` made by ``user``."""
    parts = [p for p in path.strip("/").split("/") if p] if path.strip("/") else []
    plain = Attributes(user, method.lower(), False, path=path)
    if len(parts) < 3 or parts[0] not in _API_PREFIXES:
        return plain
    rest = parts[1:]
    group = ""
    if parts[0] == "apis":
        if len(rest) < 3:
            return plain
        group, rest = rest[0], rest[1:]
    version, rest = rest[0], rest[1:]
    special = rest[0] in _SPECIAL_VERBS
    if special:
        if len(rest) < 2:
            return plain
        verb, rest = rest[0], rest[1:]
    else:
        verb = _METHOD_VERBS.get(method.upper(), "")
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) >= 2 else ""
    subresource = rest[2] if len(rest) >= 3 and verb != "proxy" else ""
    if not name and verb == "get":
        verb = "watch" if _watch(query) else "list"
        name = _named_by_selector(query.get("fieldSelector"))
    if not name and verb == "delete":
        verb = "deletecollection"
    return Attributes(
        user,
        verb,
        True,
        path=path,
        api_group=group,
        api_version=version,
        namespace=namespace,
        resource=resource,
        subresource=subresource,
        name=name,
    )
