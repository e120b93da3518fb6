"""The HTTP side of the test API server: routing, wire encoding, faults, and ``FakeAPIServer``."""

from workloadbuilder.testing.common.errors import APIStatusError
from workloadbuilder.testing.common.gates import GATES, PRESETS, FeatureGate, Preset
from workloadbuilder.testing.common.resources import DEFAULT_RESOURCES, FEATURE_GATES, ResourceType
from workloadbuilder.testing.server.fake_apiserver import FakeAPIServer
from workloadbuilder.testing.server.faults import Fault, Faults, RecordedRequest

__all__ = [
    "DEFAULT_RESOURCES",
    "FEATURE_GATES",
    "GATES",
    "PRESETS",
    "APIStatusError",
    "FakeAPIServer",
    "Fault",
    "Faults",
    "FeatureGate",
    "Preset",
    "RecordedRequest",
    "ResourceType",
]
