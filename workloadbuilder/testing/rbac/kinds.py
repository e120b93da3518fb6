"""The resource types an RBAC server serves beyond the others: ``rbac.authorization.k8s.io/v1``
and the review APIs."""

from __future__ import annotations

from typing import Final

from workloadbuilder.testing.common.resources import RBAC_RESOURCES
from workloadbuilder.testing.rbac.reviews import REVIEW_RESOURCES

SERVED: Final = RBAC_RESOURCES + REVIEW_RESOURCES
"""What ``FakeAPIServer(authorization="RBAC")`` serves in addition to its ``resources``."""
