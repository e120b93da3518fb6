"""The webhook server's metrics, with controller-runtime's names, labels and buckets.

``controller_runtime_webhook_requests_total{webhook, code}`` (the HTTP status answered; 200
and 500 exist from the start), ``controller_runtime_webhook_latency_seconds{webhook}`` and
``controller_runtime_webhook_requests_in_flight{webhook}``; ``webhook`` is the path
(``pkg/webhook/internal/metrics``). Each registry holds one set, however many servers use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

__all__ = ["WebhookMetrics", "webhook_metrics"]

# prometheus.ExponentialBuckets(10e-9, 10, 12): 10 ns to 1000 s.
_LATENCY_BUCKETS = tuple(1e-8 * 10**i for i in range(12))


@dataclass(frozen=True, slots=True)
class WebhookMetrics:
    """The three series of one registry."""

    requests: Counter
    latency: Histogram
    in_flight_requests: Gauge

    def prepare(self, path: str) -> None:
        """Make the series of ``path`` exist before its first request."""
        for code in ("200", "500"):
            self.requests.labels(webhook=path, code=code)
        self.in_flight_requests.labels(webhook=path)

    def in_flight(self, path: str, change: int) -> None:
        self.in_flight_requests.labels(webhook=path).inc(change)

    def observe(self, path: str, code: int, seconds: float) -> None:
        self.requests.labels(webhook=path, code=str(code)).inc()
        self.latency.labels(webhook=path).observe(seconds)


_BY_REGISTRY: dict[Any, WebhookMetrics] = {}


def webhook_metrics(registry: CollectorRegistry | None = None) -> WebhookMetrics:
    """The webhook series of ``registry`` (prometheus-client's default one if ``None``)."""
    registry = REGISTRY if registry is None else registry
    found = _BY_REGISTRY.get(registry)
    if found is None:
        found = _BY_REGISTRY[registry] = WebhookMetrics(
            requests=Counter(
                "controller_runtime_webhook_requests_total",
                "Total number of admission requests by HTTP status code.",
                ["webhook", "code"],
                registry=registry,
            ),
            latency=Histogram(
                "controller_runtime_webhook_latency_seconds",
                "Histogram of the latency of processing admission requests",
                ["webhook"],
                buckets=_LATENCY_BUCKETS,
                registry=registry,
            ),
            in_flight_requests=Gauge(
                "controller_runtime_webhook_requests_in_flight",
                "Current number of admission requests being served.",
                ["webhook"],
                registry=registry,
            ),
        )
    return found
