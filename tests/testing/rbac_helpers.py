"""Shared helpers of the RBAC tests: requests as a user, and the RBAC objects they make."""

from __future__ import annotations

import itertools
from typing import Any

from server_helpers import Reply, call

from workloadbuilder.testing import FakeAPIServer

RBAC = "rbac.authorization.k8s.io"
RBAC_PATH = f"/apis/{RBAC}/v1"
_COUNT = itertools.count()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def as_user(
    server: FakeAPIServer,
    user: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    groups: tuple[str, ...] = (),
    **kwargs: Any,
) -> Reply:
    """One request with the token of ``user`` (in ``groups``)."""
    headers = {**bearer(server.token_for(user, groups)), **kwargs.pop("headers", {})}
    return await call(server, method, path, body, headers=headers, **kwargs)


def rule(groups: list[str], resources: list[str], verbs: list[str], **more: Any) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs, **more}


def role(name: str, namespace: str | None, *rules: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A Role (or, without a namespace, a ClusterRole)."""
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    kind = "Role" if namespace else "ClusterRole"
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": kind,
        "metadata": meta,
        "rules": list(rules),
        **extra,
    }


def user_subject(name: str) -> dict[str, Any]:
    return {"kind": "User", "name": name, "apiGroup": RBAC}


def binding(
    name: str, namespace: str | None, role_kind: str, role_name: str, *subjects: dict[str, Any]
) -> dict[str, Any]:
    """A RoleBinding (or, without a namespace, a ClusterRoleBinding)."""
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "RoleBinding" if namespace else "ClusterRoleBinding",
        "metadata": meta,
        "roleRef": {"apiGroup": RBAC, "kind": role_kind, "name": role_name},
        "subjects": list(subjects),
    }


def grant(server: FakeAPIServer, user: str, namespace: str | None, *rules: dict[str, Any]) -> None:
    """Give ``user`` ``rules`` in ``namespace`` (or cluster-wide) through the server's own API."""
    name = f"{user.replace(':', '-')}-{next(_COUNT)}"
    plural = "roles" if namespace else "clusterroles"
    server.create_object(RBAC, "v1", plural, role(name, namespace, *rules))
    kind = "Role" if namespace else "ClusterRole"
    subject = user_subject(user)
    bindings = "rolebindings" if namespace else "clusterrolebindings"
    server.create_object(RBAC, "v1", bindings, binding(name, namespace, kind, name, subject))


def namespace(server: FakeAPIServer, name: str) -> None:
    server.create_object(
        "",
        "v1",
        "namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
    )
