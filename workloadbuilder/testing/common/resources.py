"""The resource types the test server serves, feature gates, and discovery documents."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workloadbuilder.testing.common.gates import FEATURE_GATES, resolve_gates

__all__ = [
    "BUILT_IN_GROUPS",
    "DEFAULT_RESOURCES",
    "FEATURE_GATES",
    "RBAC_RESOURCES",
    "SCHEDULING",
    "Registry",
    "ResourceType",
    "resolve_gates",
]

SCHEDULING = "scheduling.k8s.io"
COORDINATION = "coordination.k8s.io"
ADMISSION = "admissionregistration.k8s.io"
RBAC = "rbac.authorization.k8s.io"
APIEXTENSIONS = "apiextensions.k8s.io"
BUILT_IN_GROUPS = frozenset({"", "batch", SCHEDULING, COORDINATION, ADMISSION, RBAC, APIEXTENSIONS})
"""The API groups of this server's built-in kinds."""


@dataclass(frozen=True)
class ResourceType:
    """One served resource at one group/version (``group`` is ``""`` for the core group)."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool = True
    status: bool = False
    gates: tuple[str, ...] = ()
    return_deleted_object: bool = False

    @property
    def api_version(self) -> str:
        """``group/version``, or ``version`` alone for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        """``plural.group`` as the API server names a resource in messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def group_version(self) -> str:
        """The discovery key: same as :attr:`api_version`."""
        return self.api_version

    @property
    def built_in(self) -> bool:
        """Whether kube-apiserver serves the group itself (typed objects), as opposed to a
        custom resource's group (unstructured objects that keep their ``kind`` in lists)."""
        return self.group in BUILT_IN_GROUPS


def _sched(version: str, kind: str, plural: str, *gates: str, status: bool) -> ResourceType:
    return ResourceType(
        SCHEDULING, version, kind, plural, status=status, gates=("GenericWorkload", *gates)
    )


RBAC_RESOURCES: tuple[ResourceType, ...] = (
    ResourceType(RBAC, "v1", "ClusterRoleBinding", "clusterrolebindings", namespaced=False),
    ResourceType(RBAC, "v1", "ClusterRole", "clusterroles", namespaced=False),
    ResourceType(RBAC, "v1", "RoleBinding", "rolebindings"),
    ResourceType(RBAC, "v1", "Role", "roles"),
)
"""``rbac.authorization.k8s.io/v1``: served whatever the authorization mode, as by
kube-apiserver (stored, validated and listed; enforced only under RBAC)."""

DEFAULT_RESOURCES: tuple[ResourceType, ...] = (
    ResourceType(SCHEDULING, "v1", "PriorityClass", "priorityclasses", namespaced=False),
    _sched("v1beta1", "Workload", "workloads", status=False),
    _sched("v1beta1", "PodGroup", "podgroups", status=True),
    _sched("v1alpha3", "Workload", "workloads", status=False),
    _sched("v1alpha3", "PodGroup", "podgroups", status=True),
    _sched("v1alpha3", "CompositePodGroup", "compositepodgroups", "CompositePodGroup", status=True),
    ResourceType("batch", "v1", "Job", "jobs", status=True),
    ResourceType("", "v1", "Pod", "pods", status=True, return_deleted_object=True),
    ResourceType(
        "",
        "v1",
        "Namespace",
        "namespaces",
        namespaced=False,
        status=True,
        return_deleted_object=True,
    ),
    ResourceType("", "v1", "Event", "events"),
    ResourceType("", "v1", "Node", "nodes", namespaced=False, status=True),
    ResourceType(COORDINATION, "v1", "Lease", "leases"),
    ResourceType(
        ADMISSION,
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        namespaced=False,
    ),
    ResourceType(
        ADMISSION,
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        namespaced=False,
    ),
    ResourceType(
        APIEXTENSIONS,
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        namespaced=False,
        status=True,
    ),
    *RBAC_RESOURCES,
)


class Registry:
    """The served resources, looked up by ``(group, version, plural)``."""

    def __init__(
        self,
        resources: Iterable[ResourceType],
        gates: frozenset[str],
        group_versions: Iterable[str] | None = None,
        disabled_versions: Iterable[str] = (),
    ) -> None:
        wanted = set(group_versions) if group_versions is not None else None
        disabled = frozenset(disabled_versions)
        self.gates = gates
        self.revision = 0
        """Counts the changes made by :meth:`add` and :meth:`remove` (caches key on it)."""
        self._by_path: dict[tuple[str, str, str], ResourceType] = {}
        self._by_kind: dict[tuple[str, str, str], ResourceType] = {}
        for rt in resources:
            if wanted is not None and rt.api_version not in wanted:
                continue
            if rt.api_version in disabled:
                continue
            if not all(g in gates for g in rt.gates):
                continue
            self._by_path[(rt.group, rt.version, rt.plural)] = rt
            self._by_kind[(rt.group, rt.version, rt.kind)] = rt

    def add(self, rt: ResourceType) -> None:
        """Serve ``rt`` from now on (a custom resource whose definition is established)."""
        self._by_path[(rt.group, rt.version, rt.plural)] = rt
        self._by_kind[(rt.group, rt.version, rt.kind)] = rt
        self.revision += 1

    def remove(self, rt: ResourceType) -> None:
        """Stop serving ``rt``."""
        self._by_path.pop((rt.group, rt.version, rt.plural), None)
        self._by_kind.pop((rt.group, rt.version, rt.kind), None)
        self.revision += 1

    def get(self, group: str, version: str, plural: str) -> ResourceType | None:
        """The resource served at ``group/version/plural``, or ``None``."""
        return self._by_path.get((group, version, plural))

    def require(self, group: str, version: str, plural: str) -> ResourceType:
        """Like :meth:`get`, but raise a ``LookupError`` that says what is served."""
        rt = self.get(group, version, plural)
        if rt is None:
            served = ", ".join(
                sorted(f"{r.api_version}/{r.plural}" for r in self._by_path.values())
            )
            raise LookupError(
                f"{group or 'core'}/{version}/{plural} is not served by this FakeAPIServer "
                "(check its preset, feature_gates, runtime_config and group_versions);"
                f" served: {served}"
            )
        return rt

    def by_kind(self, group: str, version: str, kind: str) -> ResourceType | None:
        """The resource of ``kind`` at ``group/version``, or ``None``."""
        return self._by_kind.get((group, version, kind))

    def all(self) -> list[ResourceType]:
        """Every served resource."""
        return list(self._by_path.values())

    def group_versions(self, group: str) -> list[str]:
        """Served versions of ``group``, in declaration order."""
        out: list[str] = []
        for rt in self._by_path.values():
            if rt.group == group and rt.version not in out:
                out.append(rt.version)
        return out

    # -- discovery documents ---------------------------------------------------------------

    def api_versions(self, address: str) -> dict[str, Any]:
        """``GET /api``."""
        return {
            "kind": "APIVersions",
            "versions": self.group_versions(""),
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}],
        }

    def _group(self, group: str) -> dict[str, Any]:
        versions = [
            {"groupVersion": f"{group}/{v}", "version": v} for v in self.group_versions(group)
        ]
        return {"name": group, "versions": versions, "preferredVersion": versions[0]}

    def api_group_list(self) -> dict[str, Any]:
        """``GET /apis``."""
        groups: list[str] = []
        for rt in self._by_path.values():
            if rt.group and rt.group not in groups:
                groups.append(rt.group)
        return {
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": [self._group(g) for g in groups],
        }

    def api_group(self, group: str) -> dict[str, Any] | None:
        """``GET /apis/<group>``, or ``None`` if the group is not served."""
        if not self.group_versions(group):
            return None
        return {"kind": "APIGroup", "apiVersion": "v1", **self._group(group)}
