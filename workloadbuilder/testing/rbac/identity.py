"""Who makes a request: users, their groups, and service accounts' names, as kube-apiserver
spells them (``k8s.io/apiserver`` ``authentication/user`` and ``authentication/serviceaccount``).
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Final

ANONYMOUS: Final = "system:anonymous"
AUTHENTICATED: Final = "system:authenticated"
UNAUTHENTICATED: Final = "system:unauthenticated"
MASTERS: Final = "system:masters"
"""The privileged group: every escalation check lets its members through."""
SERVICE_ACCOUNTS: Final = "system:serviceaccounts"
SA_PREFIX: Final = "system:serviceaccount:"


@dataclass(frozen=True)
class UserInfo:
    """An authenticated (or anonymous) user: ``name``, ``groups`` in order, ``uid``, ``extra``."""

    name: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())

    @property
    def privileged(self) -> bool:
        """Whether the user is in ``system:masters``."""
        return MASTERS in self.groups

    def to_dict(self) -> dict[str, object]:
        """The ``UserInfo`` of ``authentication.k8s.io/v1`` (a review's ``status.userInfo``)."""
        out: dict[str, object] = {"username": self.name}
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {key: list(values) for key, values in self.extra}
        return out


REQUESTER: ContextVar[UserInfo | None] = ContextVar("workloadbuilder_requester", default=None)
"""The user a request runs as; ``None`` for the server's own calls (the in-process API),
which no authorizer or escalation check ever refuses, as kube-apiserver's loopback client."""


def split_service_account(username: str) -> tuple[str, str] | None:
    """``(namespace, name)`` of ``system:serviceaccount:NS:NAME``, or ``None`` for any other
    user name (also one whose namespace or name is empty or holds another ``:``)."""
    if not username.startswith(SA_PREFIX):
        return None
    parts = username[len(SA_PREFIX) :].split(":")
    if len(parts) != 2 or not all(parts):
        return None
    return parts[0], parts[1]


def service_account_groups(namespace: str) -> tuple[str, ...]:
    """The groups a service account token carries: ``system:serviceaccounts`` and
    ``system:serviceaccounts:NS``."""
    return (SERVICE_ACCOUNTS, f"{SERVICE_ACCOUNTS}:{namespace}")


def token_user(name: str, groups: tuple[str, ...] | list[str] = ()) -> UserInfo:
    """The user a bearer token maps to: a service account also gets its two groups, and every
    authenticated user gets ``system:authenticated`` (each group once, in order)."""
    wanted = list(groups)
    account = split_service_account(name)
    if account is not None:
        wanted += service_account_groups(account[0])
    wanted.append(AUTHENTICATED)
    return UserInfo(name, tuple(dict.fromkeys(wanted)))


ANONYMOUS_USER: Final = UserInfo(ANONYMOUS, (UNAUTHENTICATED,))
