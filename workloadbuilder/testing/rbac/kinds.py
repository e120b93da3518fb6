"""The resource types an RBAC server serves beyond the others: ``rbac.authorization.k8s.io/v1``
and the review APIs."""

from __future__ import annotations

from typing import Final

from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.rbac.authorizer import RBAC
from workloadbuilder.testing.rbac.reviews import REVIEW_RESOURCES

RBAC_RESOURCES: Final = (
    ResourceType(RBAC, "v1", "ClusterRoleBinding", "clusterrolebindings", namespaced=False),
    ResourceType(RBAC, "v1", "ClusterRole", "clusterroles", namespaced=False),
    ResourceType(RBAC, "v1", "RoleBinding", "rolebindings"),
    ResourceType(RBAC, "v1", "Role", "roles"),
)
SERVED: Final = RBAC_RESOURCES + REVIEW_RESOURCES
"""What ``FakeAPIServer(authorization="RBAC")`` serves in addition to its ``resources``."""
