"""What an authorizer sees of a request, and the RBAC rule that allows it.

kube-apiserver derives a request's attributes from its method and URL (RequestInfoFactory):
``GET`` of a collection is ``list`` (``watch`` with ``?watch=true``), ``GET`` of an object
``get``, ``POST`` ``create``, ``PUT`` ``update``, ``PATCH`` ``patch`` (server-side apply
included), ``DELETE`` of an object ``delete`` and of a collection ``deletecollection``; a
path outside ``/api/v1/...`` and ``/apis/GROUP/VERSION/...`` resources is a non-resource URL
(discovery, ``/version``), authorized by the lowercased method.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

__all__ = ["RequestAttributes", "Rule"]

_METHOD_VERBS: Mapping[str, str] = {
    "POST": "create",
    "PUT": "update",
    "PATCH": "patch",
}


_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})


@dataclass(frozen=True, order=True)
class Rule:
    """One RBAC ``PolicyRule``: ``verbs`` on ``resources`` (``plural`` or
    ``plural/subresource``) of ``api_groups``, or on ``non_resource_urls``."""

    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The rule as a Role's ``rules`` item."""
        if self.non_resource_urls:
            return {"nonResourceURLs": list(self.non_resource_urls), "verbs": list(self.verbs)}
        return {
            "apiGroups": list(self.api_groups),
            "resources": list(self.resources),
            "verbs": list(self.verbs),
        }

    def __str__(self) -> str:
        """The rule in YAML's flow style: ``{apiGroups: [""], resources: [pods], verbs: [get]}``."""
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in self.to_dict().items()) + "}"


def _flow(values: list[str]) -> str:
    return (
        "[" + ", ".join(v if v.replace("/", "").isalnum() else json.dumps(v) for v in values) + "]"
    )


@dataclass(frozen=True)
class RequestAttributes:
    """The verb, group, resource (with subresource), namespace and name of one request."""

    verb: str
    api_group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    """Set for a non-resource URL (discovery, ``/version``), empty for a resource."""

    @property
    def full_resource(self) -> str:
        """``podgroups/status``, or ``podgroups`` without a subresource."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource

    @property
    def rule(self) -> Rule:
        """The narrowest rule that allows this request (no ``resourceNames``)."""
        if self.path:
            return Rule(non_resource_urls=(self.path,), verbs=(self.verb,))
        return Rule((self.api_group,), (self.full_resource,), (self.verb,))

    @property
    def scope(self) -> str:
        """``in the namespace "ml"`` or ``at the cluster scope``, as the server says it."""
        if self.namespace:
            return f'in the namespace "{self.namespace}"'
        return "at the cluster scope"

    @classmethod
    def of(cls, method: str, path: str, query: Sequence[tuple[str, str]] = ()) -> RequestAttributes:
        """The attributes kube-apiserver derives from ``method`` and ``path`` (and ``?watch``)."""
        method = method.upper()
        parts = [unquote(p) for p in path.split("?", 1)[0].strip("/").split("/") if p]
        if len(parts) >= 2 and parts[0] == "api":
            group, rest = "", parts[2:]
        elif len(parts) >= 3 and parts[0] == "apis":
            group, rest = parts[1], parts[3:]
        else:
            rest = []
        if not rest:
            return cls(method.lower(), path="/" + "/".join(parts))
        watching = False
        if rest[0] == "watch":  # the deprecated /watch/ prefix
            watching, rest = True, rest[1:]
        namespace = ""
        if len(rest) >= 2 and rest[0] == "namespaces":
            namespace = rest[1]
            if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
                rest = rest[2:]  # else the namespace object itself, named as its namespace
        resource = rest[0] if rest else ""
        name = rest[1] if len(rest) > 1 else ""
        subresource = rest[2] if len(rest) > 2 else ""
        watching = watching or any(k == "watch" and v in ("true", "1") for k, v in query)
        if method in ("GET", "HEAD"):
            verb = "watch" if watching else ("get" if name else "list")
        elif method == "DELETE":
            verb = "delete" if name else "deletecollection"
        else:
            verb = _METHOD_VERBS.get(method, method.lower())
        return cls(verb, group, resource, subresource, namespace, name)
