"""Who a request comes from, and whether it may proceed: bearer tokens, impersonation and the
RBAC authorizer, in kube-apiserver's filter order (``k8s.io/apiserver``
``pkg/endpoints/filters``: authentication, impersonation, authorization).

An unknown bearer token is a 401 ``Unauthorized``; a request without one is
``system:anonymous`` (group ``system:unauthenticated``). ``Impersonate-User`` /
``Impersonate-Group`` / ``Impersonate-Uid`` / ``Impersonate-Extra-*`` headers switch the user
when the requester may ``impersonate`` each of them. A refused request is a 403 whose message
names the verb, resource and scope as the API server's.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from urllib.parse import unquote

from aiohttp import web
from multidict import CIMultiDictProxy

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.rbac.attributes import Attributes, request_attributes
from workloadbuilder.testing.rbac.authorizer import RBACAuthorizer
from workloadbuilder.testing.rbac.identity import (
    ANONYMOUS,
    ANONYMOUS_USER,
    AUTHENTICATED,
    REQUESTER,
    UNAUTHENTICATED,
    UserInfo,
    service_account_groups,
    split_service_account,
    token_user,
)
from workloadbuilder.testing.rbac.messages import refused, unauthorized

_USER = "Impersonate-User"
_GROUP = "Impersonate-Group"
_UID = "Impersonate-Uid"
_EXTRA = "impersonate-extra-"
_AUTHENTICATION = "authentication.k8s.io"


class Tokens:
    """Bearer tokens and the users they stand for (one token per user and groups)."""

    def __init__(self) -> None:
        self._users: dict[str, UserInfo] = {}
        self._issued: dict[tuple[str, tuple[str, ...]], str] = {}

    def issue(self, user: str, groups: Sequence[str] = ()) -> str:
        """A token for ``user`` in ``groups`` (plus what :func:`token_user` adds)."""
        if not user:
            raise ValueError("a token needs a user name: pass e.g. 'alice'")
        key = (user, tuple(groups))
        if key not in self._issued:
            token = secrets.token_urlsafe(24)
            self._issued[key] = token
            self._users[token] = token_user(user, tuple(groups))
        return self._issued[key]

    def user(self, token: str) -> UserInfo | None:
        """The user of ``token``, or ``None``."""
        return self._users.get(token)


def _bearer(headers: Mapping[str, str]) -> str | None:
    """The bearer token, ``None`` without one (an empty one counts as none)."""
    parts = headers.get("Authorization", "").split()
    if len(parts) < 2 or parts[0].lower() != "bearer":
        return None
    return parts[1] or None


def _reference(kind: str, name: str, namespace: str = "", field: str = "") -> str:
    """Go's ``%v`` of a ``v1.ObjectReference``."""
    api = "authentication.k8s.io/v1" if kind in ("UserExtra", "UID") else ""
    return "{" + " ".join([kind, namespace, name, "", api, "", field]) + "}"


class Gate:
    """Authenticates, impersonates and authorizes each request; sets ``REQUESTER``."""

    def __init__(self, tokens: Tokens, authorizer: RBACAuthorizer) -> None:
        self.tokens = tokens
        self.authorizer = authorizer

    def __call__(self, request: web.BaseRequest) -> None:
        REQUESTER.set(None)
        user = self.authenticate(request.headers)
        user = self.impersonate(user, request.headers)
        attrs = request_attributes(user, request.method, request.path, request.query)
        decision = self.authorizer.authorize(attrs)
        if not decision.allowed:
            raise refused(attrs, decision.reason)
        REQUESTER.set(user)

    def authenticate(self, headers: Mapping[str, str]) -> UserInfo:
        """The user a request's credentials name (401 for a token no one holds)."""
        token = _bearer(headers)
        if token is None:
            return ANONYMOUS_USER
        user = self.tokens.user(token)
        if user is None:
            raise unauthorized()
        return user

    def _may_act_as(self, requester: UserInfo, resource: str, name: str, **where: str) -> None:
        """403 unless ``requester`` may ``impersonate`` ``resource`` ``name`` (``where``:
        ``api_group``, ``namespace``, ``subresource``)."""
        attrs = Attributes(requester, "impersonate", True, resource=resource, name=name, **where)
        decision = self.authorizer.authorize(attrs)
        if not decision.allowed:
            raise refused(attrs, decision.reason)

    def impersonate(self, requester: UserInfo, headers: CIMultiDictProxy[str]) -> UserInfo:
        """The impersonated user, when the headers ask for one the requester may act as."""
        name = headers.get(_USER, "")
        groups_asked = headers.getall(_GROUP, [])
        uid = headers.get(_UID, "")
        extras = [
            (unquote(key[len(_EXTRA) :].lower()), value)
            for key in {k.lower() for k in headers if k.lower().startswith(_EXTRA)}
            for value in headers.getall(key, [])
        ]
        if not name:
            if groups_asked or extras or uid:
                asked = [_reference("Group", g) for g in groups_asked]
                asked += [_reference("UserExtra", v, field=k) for k, v in extras]
                asked += [_reference("UID", uid)] if uid else []
                raise errors.bad_request(
                    f"requested [{' '.join(asked)}] without impersonating a user"
                )
            return requester
        groups: list[str] = []
        account = split_service_account(name)

        if account is not None:
            self._may_act_as(requester, "serviceaccounts", account[1], namespace=account[0])
            if not groups_asked:
                groups += service_account_groups(account[0])
        else:
            self._may_act_as(requester, "users", name)
        for group in groups_asked:
            self._may_act_as(requester, "groups", group)
            groups.append(group)
        extra: dict[str, list[str]] = {}
        for key, value in extras:
            self._may_act_as(
                requester, "userextras", value, api_group=_AUTHENTICATION, subresource=key
            )
            extra.setdefault(key, []).append(value)
        if uid:
            self._may_act_as(requester, "uids", uid, api_group=_AUTHENTICATION)
        if name != ANONYMOUS:
            if AUTHENTICATED not in groups and UNAUTHENTICATED not in groups:
                groups.append(AUTHENTICATED)
        elif UNAUTHENTICATED not in groups:
            groups.append(UNAUTHENTICATED)
        return UserInfo(name, tuple(groups), uid, tuple((k, tuple(v)) for k, v in extra.items()))
