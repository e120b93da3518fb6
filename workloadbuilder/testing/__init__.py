"""Test support: a local Kubernetes API server and a gang-scheduling simulator."""

from workloadbuilder.testing.server import APIStatusError, FakeAPIServer, Fault, RecordedRequest
from workloadbuilder.testing.simulator import GangSimulator, SimNode

__all__ = [
    "APIStatusError",
    "FakeAPIServer",
    "Fault",
    "GangSimulator",
    "RecordedRequest",
    "SimNode",
]
