"""Async helpers on kubernetes-asyncio (or the official client's ``kubernetes.aio``).

Put the objects on a cluster and keep them right: ``preflight``, ``apply``, ``resize``,
``delete`` and ``reconcile``. Requests go through the caller's configured ``ApiClient``.
Install with ``pip install 'workloadbuilder[aio]'``.
"""

from ._transport import RetryPolicy
from .apply import DEFAULT_CONCURRENCY, apply
from .client import Client
from .config import new_client
from .delete import delete
from .errors import (
    APIError,
    ApplyError,
    FieldConflict,
    FieldConflictError,
    InvalidObjectError,
    MissingAPI,
    MissingAPIError,
    ObjectRef,
)
from .events import Event
from .preflight import preflight
from .reconcile import ReconcileResult, reconcile
from .reconcile_job import JOB_CONTROLLER_UID_LABEL, reconcile_job
from .resize import DEFAULT_FIELD_MANAGER, resize

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_FIELD_MANAGER",
    "JOB_CONTROLLER_UID_LABEL",
    "APIError",
    "ApplyError",
    "Client",
    "Event",
    "FieldConflict",
    "FieldConflictError",
    "InvalidObjectError",
    "MissingAPI",
    "MissingAPIError",
    "ObjectRef",
    "ReconcileResult",
    "RetryPolicy",
    "apply",
    "delete",
    "new_client",
    "preflight",
    "reconcile",
    "reconcile_job",
    "resize",
]
