"""The RBAC permissions each verb of ``workloadbuilder.aio`` needs, as data.

Each entry lists what the verb sends, as the API server's authorizer sees it (see
``access.RequestAttributes``): the list and watch of every kind it reads, the server-side
apply (``patch``, and ``create`` for an object that does not exist yet), the status
subresources, the Events it records. Discovery (``/api``, ``/apis/...``) is left out: the
bootstrap ClusterRole ``system:discovery`` grants it to every authenticated user.
``tests/aio/rbac`` proves, on the test server's RBAC authorizer, that each verb's Role is
enough and that taking away any one rule makes the verb fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ..access import Rule

__all__ = ["VERBS", "Permissions", "required_rules"]

_S = "scheduling.k8s.io"
_READ = ("list",)
_WATCH = ("list", "watch")
_APPLY = ("create", "patch")

# (apiGroup, resource) -> verbs, per verb of the SDK.
_Needs = Mapping[tuple[str, str], tuple[str, ...]]

_SNAPSHOT: _Needs = {
    ("", "events"): _READ,
    ("", "pods"): _READ,
    (_S, "compositepodgroups"): _READ,
    (_S, "podgroups"): _READ,
    (_S, "workloads"): _READ,
}
_CACHE_RESOURCES: Mapping[str, tuple[str, str]] = {
    "Event": ("", "events"),
    "Pod": ("", "pods"),
    "Job": ("batch", "jobs"),
    "CompositePodGroup": (_S, "compositepodgroups"),
    "PodGroup": (_S, "podgroups"),
    "Workload": (_S, "workloads"),
}
"""What each kind an ``aio.Cache`` can hold is read from."""
_CACHED_KINDS: _Needs = dict.fromkeys(_CACHE_RESOURCES.values(), _WATCH)

_TABLE: Mapping[str, _Needs] = {
    # discovery; a dry-run create of a scheduled Job (WorkloadWithJob) and of a Workload or
    # PodGroup that sets a gated field (its feature gate)
    "preflight": {
        ("batch", "jobs"): ("create",),
        (_S, "podgroups"): ("create",),
        (_S, "workloads"): ("create",),
    },
    "apply": {
        (_S, "compositepodgroups"): _APPLY,
        (_S, "podgroups"): _APPLY,
        (_S, "workloads"): _APPLY,
    },
    "resize": {(_S, "podgroups"): ("get", "patch"), (_S, "workloads"): ("get", "patch")},
    # the Workload by name (the namespace's list when it is not the owner's), the groups by
    # name; creates, the template and minCount patches, adoptions; events on the owner
    "reconcile": {
        ("", "events"): ("create",),
        (_S, "compositepodgroups"): ("create", "get", "patch"),
        (_S, "podgroups"): ("create", "get", "patch"),
        (_S, "workloads"): ("create", "get", "list", "patch"),
    },
    # the Job's Workload and PodGroup by name (the lists when either is missing), its pods
    # by label; creates, the minCount patches; events on the Job
    "reconcile_job": {
        ("", "events"): ("create",),
        ("", "pods"): _READ,
        (_S, "podgroups"): ("create", "get", "list", "patch"),
        (_S, "workloads"): ("create", "get", "list", "patch"),
    },
    "wait_scheduled": {**_SNAPSHOT, (_S, "podgroups"): _WATCH, (_S, "compositepodgroups"): _WATCH},
    "diagnose": _SNAPSHOT,
    # and ``get`` of each Workload's controller (batch/jobs here; see ``controllers``)
    "audit": {**_SNAPSHOT, ("batch", "jobs"): ("get",)},
    "delete": {
        ("", "pods"): _READ,
        (_S, "compositepodgroups"): ("delete", "list"),
        (_S, "podgroups"): ("delete", "list"),
        (_S, "workloads"): ("delete",),
    },
    "read_object": {
        (_S, "compositepodgroups"): ("get",),
        (_S, "podgroups"): ("get",),
        (_S, "workloads"): ("get",),
    },
    "list_objects": {
        (_S, "compositepodgroups"): _READ,
        (_S, "podgroups"): _READ,
        (_S, "workloads"): _READ,
    },
    "cache": _CACHED_KINDS,
    "leader_election": {("coordination.k8s.io", "leases"): ("create", "get", "update")},
}

VERBS: Final[tuple[str, ...]] = tuple(sorted(_TABLE))
"""The verbs ``required_rules`` knows (``reconcile-job`` is read as ``reconcile_job``)."""


@dataclass(frozen=True)
class Permissions:
    """The rules a set of verbs needs in ``namespace`` (``None``: in every namespace, so a
    ClusterRole)."""

    verbs: tuple[str, ...]
    rules: tuple[Rule, ...]
    namespace: str | None

    def manifests(
        self, service_account: str, *, name: str = "workloadbuilder", sa_namespace: str = ""
    ) -> list[dict[str, Any]]:
        """The Role and its RoleBinding to ``service_account`` (a ClusterRole and a
        ClusterRoleBinding without a namespace), ready for ``kubectl apply -f -``."""
        account_ns = sa_namespace or self.namespace or "default"
        subject = {"kind": "ServiceAccount", "name": service_account, "namespace": account_ns}
        cluster = self.namespace is None
        role_kind = "ClusterRole" if cluster else "Role"
        meta: dict[str, Any] = {"name": name}
        if not cluster:
            meta["namespace"] = self.namespace
        role = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": role_kind,
            "metadata": dict(meta),
            "rules": [rule.to_dict() for rule in self.rules],
        }
        binding = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": f"{role_kind}Binding",
            "metadata": dict(meta),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": name},
            "subjects": [subject],
        }
        return [role, binding]

    def without(self, index: int) -> Permissions:
        """These permissions less rule ``index``."""
        return Permissions(self.verbs, self.rules[:index] + self.rules[index + 1 :], self.namespace)


class NamedResource(Protocol):
    """A custom resource as its CRD names it (``aio.CustomResource``): its group and plural."""

    @property
    def group(self) -> str: ...

    @property
    def plural(self) -> str: ...


def _cache_resource(kind: str | NamedResource) -> tuple[str, str] | None:
    """``(apiGroup, resource)`` of a kind a cache holds: one of ``CacheKind``, a custom
    resource, or its CRD's name ``<plural>.<group>``; ``None`` for anything else."""
    if not isinstance(kind, str):
        return (kind.group, kind.plural) if kind.group and kind.plural else None
    if kind in _CACHE_RESOURCES:
        return _CACHE_RESOURCES[kind]
    plural, dot, group = kind.partition(".")
    return (group, plural) if dot and plural and group and plural.islower() else None


def _cache_needs(kinds: Iterable[str | NamedResource] | None) -> _Needs:
    if kinds is None:
        return _CACHED_KINDS
    chosen = tuple(kinds)
    found = [_cache_resource(k) for k in chosen]
    unknown = [str(k) for k, r in zip(chosen, found, strict=True) if r is None]
    if unknown or not chosen:
        raise ValueError(
            f"cache kinds {unknown or '(none)'}: a cache holds {', '.join(_CACHE_RESOURCES)},"
            " or a custom resource (aio.CustomResource, or its CRD's name <plural>.<group>,"
            " e.g. trainingjobs.example.com)"
        )
    return {r: _WATCH for r in found if r is not None}


def _canonical(verb: str) -> tuple[str, ...]:
    key = verb.strip().replace("-", "_")
    if key not in _TABLE:
        raise ValueError(f"unknown verb {verb!r}: known are {', '.join(VERBS)}")
    return (key,)


def required_rules(
    *verbs: str,
    namespace: str | None,
    controllers: Iterable[tuple[str, str]] = (),
    cache_kinds: Iterable[str | NamedResource] | None = None,
) -> Permissions:
    """The RBAC rules that ``verbs`` (``"apply"``, ``"reconcile_job"``, ``"cache"``, ...) need.

    One rule per API group and resource, its verbs sorted; ``namespace=None`` means the
    verbs run across namespaces (a ClusterRole). ``controllers`` adds ``get`` on the
    ``(apiGroup, resource)`` of the controllers ``audit`` reads through Workloads'
    ``controllerRef`` (``batch/jobs`` is always included). ``cache_kinds`` narrows ``cache``
    to the kinds the cache follows (``aio.Cache(kinds=...)``, and those a helper given it
    starts: ``delete`` starts ``"Pod"``), an ``aio.CustomResource`` (or its CRD's name,
    ``trainingjobs.example.com``) read from its group and plural; by default, every kind
    ``CacheKind`` names.
    """
    if not verbs:
        raise ValueError(f"name at least one verb: {', '.join(VERBS)}")
    names = tuple(dict.fromkeys(k for verb in verbs for k in _canonical(verb)))
    needed: dict[tuple[str, str], set[str]] = {}
    for name in names:
        table = _TABLE[name] if name != "cache" else _cache_needs(cache_kinds)
        for key, granted in table.items():
            needed.setdefault(key, set()).update(granted)
    if "audit" in names:
        for group, resource in controllers:
            needed.setdefault((group, resource), set()).add("get")
    rules = tuple(
        Rule((group,), (resource,), tuple(sorted(granted)))
        for (group, resource), granted in sorted(needed.items())
    )
    return Permissions(names, rules, namespace)
