"""The SDK's Prometheus metrics, under controller-runtime's and client-go's names and labels.

Every part records its own (the transport each request, a work queue its keys, a controller
its reconciles, a leader election its status, a cache its informers), so they count with or
without a ``Manager``. The metrics are registered in ``prometheus_client``'s default registry
at import; :func:`register` adds them to another one (``Manager(registry=...)`` does).
Nothing here imports the rest of ``aio``: every room may record.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

__all__ = [
    "ACTIVE_WORKERS",
    "CACHE_WATCH_RESTARTS",
    "LEADER_STATUS",
    "MAX_CONCURRENT_RECONCILES",
    "RECONCILE_ERRORS",
    "RECONCILE_TIME",
    "RECONCILE_TOTAL",
    "REQUESTS_TOTAL",
    "REQUEST_DURATION",
    "WEBHOOK_IN_FLIGHT",
    "WEBHOOK_LATENCY",
    "WEBHOOK_REQUESTS",
    "WORKQUEUE_ADDS",
    "WORKQUEUE_DEPTH",
    "WORKQUEUE_LONGEST_RUNNING",
    "WORKQUEUE_QUEUE_DURATION",
    "WORKQUEUE_RETRIES",
    "WORKQUEUE_UNFINISHED_WORK",
    "WORKQUEUE_WORK_DURATION",
    "TrackedInformer",
    "register",
    "scrape_gauge",
    "track_informer",
]


def _exponential(start: float, factor: float, count: int) -> tuple[float, ...]:
    """Prometheus' ``ExponentialBuckets(start, factor, count)``."""
    return tuple(start * factor**i for i in range(count))


_NANO_TO_KILO = _exponential(10e-9, 10, 12)
"""client-go's work queue and controller-runtime's webhook buckets: 10ns to 1000s."""

# -- controller-runtime: pkg/internal/controller/metrics ------------------------------------

RECONCILE_TOTAL = Counter(
    "controller_runtime_reconcile_total",
    "Total number of reconciliations per controller",
    ["controller", "result"],
    registry=None,
)
RECONCILE_ERRORS = Counter(
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
    ["controller"],
    registry=None,
)
RECONCILE_TIME = Histogram(
    "controller_runtime_reconcile_time_seconds",
    "Length of time per reconciliation per controller",
    ["controller"],
    buckets=(
        *(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7),
        *(0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10),
        *(15, 20, 25, 30, 40, 50, 60),
    ),
    registry=None,
)
MAX_CONCURRENT_RECONCILES = Gauge(
    "controller_runtime_max_concurrent_reconciles",
    "Maximum number of concurrent reconciles per controller",
    ["controller"],
    registry=None,
)
ACTIVE_WORKERS = Gauge(
    "controller_runtime_active_workers",
    "Number of currently used workers per controller",
    ["controller"],
    registry=None,
)

# -- client-go's work queue, as controller-runtime registers it (pkg/internal/metrics) -------

WORKQUEUE_DEPTH = Gauge(
    "workqueue_depth",
    "Current depth of workqueue by workqueue and priority",
    ["name", "controller", "priority"],
    registry=None,
)
WORKQUEUE_ADDS = Counter(
    "workqueue_adds_total",
    "Total number of adds handled by workqueue",
    ["name", "controller"],
    registry=None,
)
WORKQUEUE_QUEUE_DURATION = Histogram(
    "workqueue_queue_duration_seconds",
    "How long in seconds an item stays in workqueue before being requested",
    ["name", "controller"],
    buckets=_NANO_TO_KILO,
    registry=None,
)
WORKQUEUE_WORK_DURATION = Histogram(
    "workqueue_work_duration_seconds",
    "How long in seconds processing an item from workqueue takes.",
    ["name", "controller"],
    buckets=_NANO_TO_KILO,
    registry=None,
)
WORKQUEUE_UNFINISHED_WORK = Gauge(
    "workqueue_unfinished_work_seconds",
    "How many seconds of work has been done that is in progress and hasn't been observed by"
    " work_duration. Large values indicate stuck threads. One can deduce the number of stuck"
    " threads by observing the rate at which this increases.",
    ["name", "controller"],
    registry=None,
)
WORKQUEUE_LONGEST_RUNNING = Gauge(
    "workqueue_longest_running_processor_seconds",
    "How many seconds has the longest running processor for workqueue been running.",
    ["name", "controller"],
    registry=None,
)
WORKQUEUE_RETRIES = Counter(
    "workqueue_retries_total",
    "Total number of items added to the workqueue with a non-zero delay (rate-limited"
    " requeues, explicit RequeueAfter or AddAfter calls)",
    ["name", "controller"],
    registry=None,
)

# -- client-go's REST client, as controller-runtime adapts it (pkg/metrics) ------------------

REQUESTS_TOTAL = Counter(
    "rest_client_requests_total",
    "Number of HTTP requests, partitioned by status code, method, and host.",
    ["code", "method", "host"],
    registry=None,
)
REQUEST_DURATION = Histogram(
    "rest_client_request_duration_seconds",
    "Request latency in seconds. Broken down by verb and host.",
    ["verb", "host"],
    buckets=(0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0),
    registry=None,
)

# -- client-go's leader election (pkg/metrics/leaderelection.go) -----------------------------

LEADER_STATUS = Gauge(
    "leader_election_master_status",
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup,"
    " 1 indicates master. 'name' is the string used to identify the lease. Please make sure"
    " to group by name.",
    ["name"],
    registry=None,
)

# -- controller-runtime's admission webhooks (pkg/webhook/internal/metrics) ------------------

WEBHOOK_LATENCY = Histogram(
    "controller_runtime_webhook_latency_seconds",
    "Histogram of the latency of processing admission requests",
    ["webhook"],
    buckets=_NANO_TO_KILO,
    registry=None,
)
WEBHOOK_REQUESTS = Counter(
    "controller_runtime_webhook_requests_total",
    "Total number of admission requests by HTTP status code.",
    ["webhook", "code"],
    registry=None,
)
WEBHOOK_IN_FLIGHT = Gauge(
    "controller_runtime_webhook_requests_in_flight",
    "Current number of admission requests being served.",
    ["webhook"],
    registry=None,
)

# -- the cache's own ----------------------------------------------------------------------

CACHE_WATCH_RESTARTS = Counter(
    "workloadbuilder_cache_watch_restarts_total",
    "Watches of a cached kind that ended and were opened again (resumed or after a new list).",
    ["kind"],
    registry=None,
)


class TrackedInformer(Protocol):
    """What the cache collector reads of an informer: its kind, how many objects it holds,
    and when (``time.time()``) it last listed the kind in full (0: not yet)."""

    @property
    def kind(self) -> str: ...

    def __len__(self) -> int: ...

    @property
    def listed_at(self) -> float: ...


_INFORMERS: weakref.WeakSet[TrackedInformer] = weakref.WeakSet()


def track_informer(informer: TrackedInformer) -> None:
    """Count ``informer`` in the cache metrics for as long as it lives."""
    _INFORMERS.add(informer)


class _CacheCollector(Collector):
    """Objects per kind and the last full list per kind, read at scrape time (the informers
    pay nothing between scrapes)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        objects = GaugeMetricFamily(
            "workloadbuilder_cache_objects",
            "Objects held by the informers of a cached kind.",
            labels=["kind"],
        )
        listed = GaugeMetricFamily(
            "workloadbuilder_cache_last_resync_timestamp_seconds",
            "When a cached kind was last listed in full (Unix time): its informer's start,"
            " or a new list after the watch could not resume.",
            labels=["kind"],
        )
        counts: dict[str, int] = {}
        latest: dict[str, float] = {}
        for informer in list(_INFORMERS):
            kind = informer.kind
            counts[kind] = counts.get(kind, 0) + len(informer)
            if informer.listed_at:
                latest[kind] = max(latest.get(kind, 0.0), informer.listed_at)
        for kind in sorted(counts):
            objects.add_metric([kind], counts[kind])
        for kind in sorted(latest):
            listed.add_metric([kind], latest[kind])
        yield objects
        yield listed

    def describe(self) -> Iterator[GaugeMetricFamily]:
        return iter(())


_COLLECTORS: tuple[Collector, ...] = (
    RECONCILE_TOTAL,
    RECONCILE_ERRORS,
    RECONCILE_TIME,
    MAX_CONCURRENT_RECONCILES,
    ACTIVE_WORKERS,
    WORKQUEUE_DEPTH,
    WORKQUEUE_ADDS,
    WORKQUEUE_QUEUE_DURATION,
    WORKQUEUE_WORK_DURATION,
    WORKQUEUE_UNFINISHED_WORK,
    WORKQUEUE_LONGEST_RUNNING,
    WORKQUEUE_RETRIES,
    REQUESTS_TOTAL,
    REQUEST_DURATION,
    LEADER_STATUS,
    WEBHOOK_LATENCY,
    WEBHOOK_REQUESTS,
    WEBHOOK_IN_FLIGHT,
    CACHE_WATCH_RESTARTS,
    _CacheCollector(),
)
_REGISTERED: weakref.WeakSet[CollectorRegistry] = weakref.WeakSet()


def register(registry: CollectorRegistry) -> CollectorRegistry:
    """Add the SDK's metrics to ``registry`` (once; the default registry has them already)."""
    if registry not in _REGISTERED:
        for collector in _COLLECTORS:
            registry.register(collector)
        _REGISTERED.add(registry)
    return registry


register(REGISTRY)


def scrape_gauge(gauge: Gauge, labels: tuple[str, ...], read: Callable[[], float]) -> None:
    """Let ``gauge`` (its child of ``labels``) read its value at scrape time from ``read``."""
    gauge.labels(*labels).set_function(read)
