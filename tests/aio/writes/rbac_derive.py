"""The RBAC rules a list of recorded requests needs, mapped as kube-apiserver's
RequestInfoFactory and the RBAC docs say, independently of the SDK's own mapping (for the Role
of docs/apply.md and each verb's rules in ``tests/aio/rbac``)."""

from __future__ import annotations

from typing import Any

from workloadbuilder.testing.server import RecordedRequest

APPLY = "application/apply-patch+yaml"


def verbs_of(request: RecordedRequest) -> tuple[str, str, set[str]] | None:
    """(apiGroup, resource, verbs) of a request, as the authorizer sees it; ``None`` for
    discovery (allowed to every authenticated user by ``system:discovery``)."""
    parts = request.path.strip("/").split("/")
    if parts[0] == "api":
        group, rest = "", parts[2:]
    else:
        group, rest = parts[1], parts[3:]
    if len(rest) < 3 or rest[0] != "namespaces":
        return None
    resource = "/".join([rest[2], *rest[4:5]])  # plural, or plural/subresource
    named = len(rest) >= 4
    method = request.method
    if method == "GET":
        verbs = {"get"} if named else {"watch" if request.query.get("watch") else "list"}
    elif method == "POST":
        verbs = {"create"}
    elif method == "PUT":
        verbs = {"update"}
    elif method == "PATCH":
        # An apply that creates the object is authorized as create too (api-concepts docs).
        verbs = {"patch", "create"} if request.content_type == APPLY else {"patch"}
    elif method == "DELETE":
        verbs = {"delete"} if named else {"deletecollection"}
    else:
        raise AssertionError(f"unexpected method {method}")
    return group, resource, verbs


def derived_rules(requests: list[RecordedRequest]) -> list[dict[str, Any]]:
    """One rule per (apiGroup, resource), sorted, verbs sorted: the Role's ``rules``."""
    needed: dict[tuple[str, str], set[str]] = {}
    for request in requests:
        found = verbs_of(request)
        if found is not None:
            group, resource, verbs = found
            needed.setdefault((group, resource), set()).update(verbs)
    return [
        {"apiGroups": [group], "resources": [resource], "verbs": sorted(verbs)}
        for (group, resource), verbs in sorted(needed.items())
    ]
