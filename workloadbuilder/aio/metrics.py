"""The SDK's Prometheus metrics, under controller-runtime's and client-go's names and labels.

Every part records its own (the transport each request, a work queue its keys, a controller
its reconciles, a leader election its status, a cache its informers), so they count with or
without a ``Manager`` (a webhook server its requests).
Recording is a plain addition on the event loop's thread (no lock, no
allocation: a reconcile pays well under a microsecond a metric); one collector hands every
series to ``prometheus_client`` when a registry is collected. It is registered in
``prometheus_client``'s default registry at import; :func:`register` adds it to another one
(``Manager(registry=...)`` does). Nothing here imports the rest of ``aio``: every room may
record.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, Protocol, TypeVar

from prometheus_client import CollectorRegistry
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import REGISTRY, Collector
from prometheus_client.utils import floatToGoString

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
    "Counter",
    "Gauge",
    "Histogram",
    "TrackedInformer",
    "register",
    "scrape_gauge",
    "track_informer",
]


class CounterChild:
    """One series of a counter: ``inc()`` only goes up."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        if amount < 0:
            raise ValueError(f"a counter only goes up: inc({amount})")
        self.value += amount


class GaugeChild:
    """One series of a gauge: ``set``, ``inc``, ``dec``, or a function read at scrape time."""

    __slots__ = ("read", "value")

    def __init__(self) -> None:
        self.value = 0.0
        self.read: Callable[[], float] | None = None

    def set(self, value: float) -> None:
        self.value = value

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount

    def dec(self, amount: float = 1.0) -> None:
        self.value -= amount

    def set_function(self, read: Callable[[], float]) -> None:
        """Read the value from ``read()`` at each scrape (on the scraping thread)."""
        self.read = read

    def get(self) -> float:
        read = self.read
        return float(read()) if read is not None else self.value


class HistogramChild:
    """One series of a histogram: per-bucket counts and the sum."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.sum += value
        self.counts[bisect_left(self.bounds, value)] += 1


C = TypeVar("C", CounterChild, GaugeChild, HistogramChild)


class _Vec(Generic[C]):
    """A metric with labels: its series by label values, made on first use."""

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str]) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = tuple(labelnames)
        self._children: dict[tuple[str, ...], C] = {}

    def labels(self, *values: str) -> C:
        """The series of these label values (in ``labelnames``' order)."""
        child = self._children.get(values)
        if child is None:
            if len(values) != len(self.labelnames):
                raise ValueError(
                    f"{self.name} takes {len(self.labelnames)} label values"
                    f" ({', '.join(self.labelnames)}), got {len(values)}"
                )
            child = self._children[values] = self._new()
        return child

    def series(self) -> list[tuple[tuple[str, ...], C]]:
        return list(self._children.items())

    def _new(self) -> C:
        raise NotImplementedError

    def family(self) -> Metric:
        raise NotImplementedError


class Counter(_Vec[CounterChild]):
    def _new(self) -> CounterChild:
        return CounterChild()

    def family(self) -> Metric:
        found = CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for values, child in self.series():
            found.add_metric(values, child.value)
        return found


class Gauge(_Vec[GaugeChild]):
    def _new(self) -> GaugeChild:
        return GaugeChild()

    def family(self) -> Metric:
        found = GaugeMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for values, child in self.series():
            found.add_metric(values, child.get())
        return found


class Histogram(_Vec[HistogramChild]):
    def __init__(
        self, name: str, documentation: str, labelnames: Sequence[str], buckets: Sequence[float]
    ) -> None:
        super().__init__(name, documentation, labelnames)
        self.buckets = tuple(sorted(float(b) for b in buckets))
        go_string: Callable[[float], str] = floatToGoString  # the le labels prometheus writes
        self._les = [go_string(b) for b in self.buckets] + ["+Inf"]

    def _new(self) -> HistogramChild:
        return HistogramChild(self.buckets)

    def family(self) -> Metric:
        found = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for values, child in self.series():
            total, cumulative = 0, []
            for le, count in zip(self._les, list(child.counts), strict=True):
                total += count
                cumulative.append((le, float(total)))
            found.add_metric(values, cumulative, child.sum)
        return found


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
)
RECONCILE_ERRORS = Counter(
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
    ["controller"],
)
RECONCILE_TIME = Histogram(
    "controller_runtime_reconcile_time_seconds",
    "Length of time per reconciliation per controller",
    ["controller"],
    (
        *(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7),
        *(0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10),
        *(15, 20, 25, 30, 40, 50, 60),
    ),
)
MAX_CONCURRENT_RECONCILES = Gauge(
    "controller_runtime_max_concurrent_reconciles",
    "Maximum number of concurrent reconciles per controller",
    ["controller"],
)
ACTIVE_WORKERS = Gauge(
    "controller_runtime_active_workers",
    "Number of currently used workers per controller",
    ["controller"],
)

# -- client-go's work queue, as controller-runtime registers it (pkg/internal/metrics) -------

WORKQUEUE_DEPTH = Gauge(
    "workqueue_depth",
    "Current depth of workqueue by workqueue and priority",
    ["name", "controller", "priority"],
)
WORKQUEUE_ADDS = Counter(
    "workqueue_adds_total",
    "Total number of adds handled by workqueue",
    ["name", "controller"],
)
WORKQUEUE_QUEUE_DURATION = Histogram(
    "workqueue_queue_duration_seconds",
    "How long in seconds an item stays in workqueue before being requested",
    ["name", "controller"],
    _NANO_TO_KILO,
)
WORKQUEUE_WORK_DURATION = Histogram(
    "workqueue_work_duration_seconds",
    "How long in seconds processing an item from workqueue takes.",
    ["name", "controller"],
    _NANO_TO_KILO,
)
WORKQUEUE_UNFINISHED_WORK = Gauge(
    "workqueue_unfinished_work_seconds",
    "How many seconds of work has been done that is in progress and hasn't been observed by"
    " work_duration. Large values indicate stuck threads. One can deduce the number of stuck"
    " threads by observing the rate at which this increases.",
    ["name", "controller"],
)
WORKQUEUE_LONGEST_RUNNING = Gauge(
    "workqueue_longest_running_processor_seconds",
    "How many seconds has the longest running processor for workqueue been running.",
    ["name", "controller"],
)
WORKQUEUE_RETRIES = Counter(
    "workqueue_retries_total",
    "Total number of items added to the workqueue with a non-zero delay (rate-limited"
    " requeues, explicit RequeueAfter or AddAfter calls)",
    ["name", "controller"],
)

# -- client-go's REST client, as controller-runtime adapts it (pkg/metrics) ------------------

REQUESTS_TOTAL = Counter(
    "rest_client_requests_total",
    "Number of HTTP requests, partitioned by status code, method, and host.",
    ["code", "method", "host"],
)
REQUEST_DURATION = Histogram(
    "rest_client_request_duration_seconds",
    "Request latency in seconds. Broken down by verb and host.",
    ["verb", "host"],
    (0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0),
)

# -- client-go's leader election (pkg/metrics/leaderelection.go) -----------------------------

LEADER_STATUS = Gauge(
    "leader_election_master_status",
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup,"
    " 1 indicates master. 'name' is the string used to identify the lease. Please make sure"
    " to group by name.",
    ["name"],
)

# -- the cache's own ----------------------------------------------------------------------

CACHE_WATCH_RESTARTS = Counter(
    "workloadbuilder_cache_watch_restarts_total",
    "Watches of a cached kind that ended and were opened again (resumed or after a new list).",
    ["kind"],
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


def track_informer(informer: TrackedInformer, running: bool) -> None:
    """Count ``informer`` in the cache metrics while it runs (``running``), no longer once it
    stopped."""
    if running:
        _INFORMERS.add(informer)
    else:
        _INFORMERS.discard(informer)


class _CacheCollector:
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


# -- controller-runtime: pkg/webhook/internal/metrics (label webhook: the path) -------------

WEBHOOK_REQUESTS = Counter(
    "controller_runtime_webhook_requests_total",
    "Total number of admission requests by HTTP status code.",
    ["webhook", "code"],
)
WEBHOOK_LATENCY = Histogram(
    "controller_runtime_webhook_latency_seconds",
    "Histogram of the latency of processing admission requests",
    ["webhook"],
    _NANO_TO_KILO,
)
WEBHOOK_IN_FLIGHT = Gauge(
    "controller_runtime_webhook_requests_in_flight",
    "Current number of admission requests being served.",
    ["webhook"],
)


_METRICS: tuple[Counter | Gauge | Histogram, ...] = (
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
    CACHE_WATCH_RESTARTS,
    WEBHOOK_REQUESTS,
    WEBHOOK_LATENCY,
    WEBHOOK_IN_FLIGHT,
)


class _SDKCollector(Collector):
    """Every SDK metric, as ``prometheus_client`` metric families, read at collect time."""

    def collect(self) -> Iterator[Metric]:
        for metric in _METRICS:
            yield metric.family()
        yield from _CacheCollector().collect()

    def describe(self) -> Iterator[Metric]:
        return iter(())


_COLLECTOR = _SDKCollector()
_REGISTERED: weakref.WeakSet[CollectorRegistry] = weakref.WeakSet()


def register(registry: CollectorRegistry) -> CollectorRegistry:
    """Add the SDK's metrics to ``registry`` (once; the default registry has them already)."""
    if registry not in _REGISTERED:
        registry.register(_COLLECTOR)
        _REGISTERED.add(registry)
    return registry


register(REGISTRY)


def scrape_gauge(gauge: Gauge, labels: tuple[str, ...], read: Callable[[], float]) -> None:
    """Let ``gauge`` (its child of ``labels``) read its value at scrape time from ``read``."""
    gauge.labels(*labels).set_function(read)
