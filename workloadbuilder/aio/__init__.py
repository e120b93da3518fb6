"""Async helpers on kubernetes-asyncio (or the official client's ``kubernetes.aio``).

Put the objects on a cluster and keep them right: ``preflight``, ``apply``, ``resize``,
``delete`` and ``reconcile``; tell what the scheduler is doing with them: ``wait_scheduled``,
``diagnose`` and ``audit``; read them as the server holds them: ``read_object`` and
``list_objects``. Requests go through the caller's configured ``ApiClient``; a ``Client``
keeps one core (field manager, retry policy, discovery cache, counters) for all of them. A
``Cache`` (shared informers) lets every helper read without a request.
Install with ``pip install 'workloadbuilder[aio]'``.
"""

from .._extras import require

require("aio", "workloadbuilder.aio")  # before the imports that need it (ruff: E402 allowed)

from ._transport import RetryPolicy, default_retry
from .apply import DEFAULT_CONCURRENCY, apply
from .audit import Finding, FindingKind, Severity, audit
from .cache import (
    AddHandler,
    Cache,
    CacheIndex,
    CacheKind,
    CacheSyncError,
    DeleteHandler,
    IndexFunc,
    UpdateHandler,
)
from .client import Client
from .config import new_client
from .delete import DeleteResult, Terminating, delete
from .diagnose import GroupState, Member, MemberProblem, SchedulingEvent, Verdict, diagnose
from .errors import (
    APIError,
    ApplyError,
    FieldConflict,
    FieldConflictError,
    InvalidObjectError,
    KubeconfigError,
    MissingAPI,
    MissingAPIError,
    ObjectRef,
)
from .events import Event
from .preflight import preflight
from .read import SchedulingKind, list_objects, read_object
from .reconcile import ImmutableChange, ReconcileResult, reconcile
from .reconcile_job import JOB_CONTROLLER_UID_LABEL, reconcile_job
from .resize import DEFAULT_FIELD_MANAGER, resize
from .wait import NotScheduledError, wait_scheduled

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_FIELD_MANAGER",
    "JOB_CONTROLLER_UID_LABEL",
    "APIError",
    "AddHandler",
    "ApplyError",
    "Cache",
    "CacheIndex",
    "CacheKind",
    "CacheSyncError",
    "Client",
    "DeleteHandler",
    "DeleteResult",
    "Event",
    "FieldConflict",
    "FieldConflictError",
    "Finding",
    "FindingKind",
    "GroupState",
    "ImmutableChange",
    "IndexFunc",
    "InvalidObjectError",
    "KubeconfigError",
    "Member",
    "MemberProblem",
    "MissingAPI",
    "MissingAPIError",
    "NotScheduledError",
    "ObjectRef",
    "ReconcileResult",
    "RetryPolicy",
    "SchedulingEvent",
    "SchedulingKind",
    "Severity",
    "Terminating",
    "UpdateHandler",
    "Verdict",
    "apply",
    "audit",
    "default_retry",
    "delete",
    "diagnose",
    "list_objects",
    "new_client",
    "preflight",
    "read_object",
    "reconcile",
    "reconcile_job",
    "resize",
    "wait_scheduled",
]
