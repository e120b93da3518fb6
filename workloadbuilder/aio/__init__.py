"""Async helpers on kubernetes-asyncio (or the official client's ``kubernetes.aio``).

Put the objects on a cluster and keep them right: ``preflight``, ``apply``, ``resize``,
``delete`` and ``reconcile``; tell what the scheduler is doing with them: ``wait_scheduled``,
``diagnose`` and ``audit``; read them as the server holds them: ``read_object`` and
``list_objects``; read without a request through a ``Cache`` (shared informers); run
controllers: ``Controller`` (a kind's objects reconciled on a work queue, driven by the cache's
watch), ``WorkQueue`` (client-go's work queue) and ``LeaderElection`` (one leader among
replicas, on a Lease), all run together by a ``Manager`` (a shared cache, health probes,
Prometheus metrics, graceful shutdown). Requests go through the caller's configured
``ApiClient``; a ``Client`` keeps one core (field manager, retry policy, discovery cache,
counters) for all of them.
Install with ``pip install 'workloadbuilder[aio]'``.
"""

from .._extras import require

require("aio", "workloadbuilder.aio")  # before the imports that need it (ruff: E402 allowed)

from .access import RequestAttributes, Rule
from .cache.cache import (
    AddHandler,
    Cache,
    CacheIndex,
    CacheKind,
    CacheSyncError,
    CustomResource,
    DeleteHandler,
    Handler,
    IndexFunc,
    UpdateHandler,
)
from .cache.reader import Reader
from .client import Client
from .config.loading import new_client
from .controllers.admission import AdmissionRequest
from .controllers.controller import Controller, Reconcile, Result
from .controllers.leader import LeaderElection, LeaseUnavailableError, LostLeadershipError
from .controllers.manager import Manager, Runnable
from .controllers.probes import Check, HealthCheckError
from .controllers.ratelimit import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    default_rate_limiter,
)
from .controllers.webhook_config import WebhookRule, webhook_configuration
from .controllers.webhooks import WebhookServer
from .controllers.workqueue import Clock, LoopClock, WorkQueue, WorkQueueShutDown
from .errors import (
    APIError,
    ApplyError,
    FieldConflict,
    FieldConflictError,
    ForbiddenError,
    InvalidObjectError,
    KubeconfigError,
    MissingAPI,
    MissingAPIError,
    MissingPermissionsError,
    NoAnswerError,
    ObjectRef,
    ResponseTooLargeError,
    TakenNameError,
    UnreachableError,
)
from .observe.audit import Finding, FindingKind, Severity, audit
from .observe.diagnose import GroupState, Member, MemberProblem, SchedulingEvent, Verdict, diagnose
from .observe.read import SchedulingKind, list_objects, read_object
from .observe.wait import NotScheduledError, wait_scheduled
from .rbac.permissions import VERBS, Permissions, required_rules
from .wire.transport import MAX_RESPONSE_BYTES, RetryPolicy, default_retry
from .writes.apply import DEFAULT_CONCURRENCY, apply
from .writes.delete import DeleteResult, Terminating, delete
from .writes.events import Event
from .writes.preflight import preflight
from .writes.reconcile import ImmutableChange, ReconcileResult, reconcile
from .writes.reconcile_job import JOB_CONTROLLER_UID_LABEL, reconcile_job
from .writes.resize import DEFAULT_FIELD_MANAGER, resize

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_FIELD_MANAGER",
    "JOB_CONTROLLER_UID_LABEL",
    "MAX_RESPONSE_BYTES",
    "VERBS",
    "APIError",
    "AddHandler",
    "AdmissionRequest",
    "ApplyError",
    "BucketRateLimiter",
    "Cache",
    "CacheIndex",
    "CacheKind",
    "CacheSyncError",
    "Check",
    "Client",
    "Clock",
    "Controller",
    "CustomResource",
    "DeleteHandler",
    "DeleteResult",
    "Event",
    "FieldConflict",
    "FieldConflictError",
    "Finding",
    "FindingKind",
    "ForbiddenError",
    "GroupState",
    "Handler",
    "HealthCheckError",
    "ImmutableChange",
    "IndexFunc",
    "InvalidObjectError",
    "ItemExponentialFailureRateLimiter",
    "KubeconfigError",
    "LeaderElection",
    "LeaseUnavailableError",
    "LoopClock",
    "LostLeadershipError",
    "Manager",
    "MaxOfRateLimiter",
    "Member",
    "MemberProblem",
    "MissingAPI",
    "MissingAPIError",
    "MissingPermissionsError",
    "NoAnswerError",
    "NotScheduledError",
    "ObjectRef",
    "Permissions",
    "RateLimiter",
    "Reader",
    "Reconcile",
    "ReconcileResult",
    "RequestAttributes",
    "ResponseTooLargeError",
    "Result",
    "RetryPolicy",
    "Rule",
    "Runnable",
    "SchedulingEvent",
    "SchedulingKind",
    "Severity",
    "TakenNameError",
    "Terminating",
    "UnreachableError",
    "UpdateHandler",
    "Verdict",
    "WebhookRule",
    "WebhookServer",
    "WorkQueue",
    "WorkQueueShutDown",
    "apply",
    "audit",
    "default_rate_limiter",
    "default_retry",
    "delete",
    "diagnose",
    "list_objects",
    "new_client",
    "preflight",
    "read_object",
    "reconcile",
    "reconcile_job",
    "required_rules",
    "resize",
    "wait_scheduled",
    "webhook_configuration",
]
