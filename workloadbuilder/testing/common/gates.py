"""Feature gates the test server knows, their 1.37 stage and default, and the named presets.

A preset is a cluster's configuration: the enabled gates and the group/versions turned off
(kube-apiserver's ``--runtime-config``). ``"all"`` serves everything; ``"default-1.37"`` is
a 1.37 cluster started without flags; ``"beta-1.37"`` one that turned its beta features and
the beta API on. The stages and defaults are those of kube-scheduler's and kube-apiserver's
``kube_features.go`` for 1.37 (the ``source`` of each gate).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

__all__ = [
    "DEFAULT_PRESET",
    "FEATURE_GATES",
    "GATES",
    "PRESETS",
    "FeatureGate",
    "Preset",
    "ServerConfig",
    "resolve",
    "resolve_gates",
]

_SCHEDULER_FEATURES: Final = (
    "staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go"
    " (kubernetes/kubernetes @080d02a09a47)"
)
_KUBE_FEATURES: Final = "pkg/features/kube_features.go (kubernetes/kubernetes)"


def _spec(source: str, name: str, version: str, stage: str) -> str:
    return (
        f'{source}: {name}: {{Version: version.MustParse("{version}"), Default: false,'
        f" PreRelease: featuregate.{stage}}}"
    )


@dataclass(frozen=True)
class FeatureGate:
    """One gate: its ``stage`` and ``default`` in 1.37, what it turns on, where that is said."""

    name: str
    stage: str
    default: bool
    turns_on: str
    source: str


GATES: Final[tuple[FeatureGate, ...]] = (
    FeatureGate(
        "GenericWorkload",
        "beta",
        False,
        "Workload and PodGroup (scheduling.k8s.io/v1beta1, v1alpha3), gang scheduling",
        _spec(_SCHEDULER_FEATURES, "GenericWorkload", "1.37", "Beta"),
    ),
    FeatureGate(
        "CompositePodGroup",
        "alpha",
        False,
        "CompositePodGroup (v1alpha3), spec.compositePodGroupTemplates of a Workload, "
        "spec.parentCompositePodGroupName of a PodGroup",
        _spec(_SCHEDULER_FEATURES, "CompositePodGroup", "1.37", "Alpha"),
    ),
    FeatureGate(
        "TopologyAwareWorkloadScheduling",
        "alpha",
        False,
        "spec.schedulingConstraints of PodGroup templates and PodGroups",
        _spec(_SCHEDULER_FEATURES, "TopologyAwareWorkloadScheduling", "1.36", "Alpha")
        + " (its last entry: still alpha in 1.37)",
    ),
    FeatureGate(
        "DRAWorkloadResourceClaims",
        "beta",
        False,
        "spec.resourceClaims of PodGroup templates and PodGroups",
        _spec(_SCHEDULER_FEATURES, "DRAWorkloadResourceClaims", "1.37", "Beta"),
    ),
    FeatureGate(
        "PodGroupPreemptionPolicy",
        "alpha",
        False,
        "spec.preemptionPolicy of PodGroup templates and groups (and its admission default)",
        _spec(_SCHEDULER_FEATURES, "PodGroupPreemptionPolicy", "1.37", "Alpha"),
    ),
    FeatureGate(
        "WorkloadWithJob",
        "alpha",
        False,
        "Job spec.scheduling (dropped on create without it) and the Job controller's "
        "Workload and PodGroup",
        _spec(_KUBE_FEATURES, "WorkloadWithJob", "1.36", "Alpha")
        + " (its last entry: still alpha in 1.37, KEP-5547)",
    ),
)
"""The gates, in the order the documentation lists them."""

FEATURE_GATES: Final[tuple[str, ...]] = tuple(g.name for g in GATES)

BETA_SCHEDULING: Final = "scheduling.k8s.io/v1beta1"
ALPHA_SCHEDULING: Final = "scheduling.k8s.io/v1alpha3"


@dataclass(frozen=True)
class Preset:
    """A named cluster configuration: the gates on, the group/versions off."""

    name: str
    gates: frozenset[str]
    disabled_versions: frozenset[str]
    description: str


PRESETS: Final[Mapping[str, Preset]] = {
    p.name: p
    for p in (
        Preset(
            "all",
            frozenset(FEATURE_GATES),
            frozenset(),
            "every gate on and every API version served, alpha included",
        ),
        Preset(
            "default-1.37",
            frozenset(g.name for g in GATES if g.default),
            frozenset({BETA_SCHEDULING, ALPHA_SCHEDULING}),
            "a 1.37 cluster without flags: every workload gate off, and no beta or alpha API"
            " (beta APIs are off by default), so scheduling.k8s.io serves only v1",
        ),
        Preset(
            "beta-1.37",
            frozenset(g.name for g in GATES if g.stage == "beta"),
            frozenset({ALPHA_SCHEDULING}),
            "a 1.37 cluster with its beta features on (--feature-gates=GenericWorkload=true,"
            f"DRAWorkloadResourceClaims=true --runtime-config={BETA_SCHEDULING}=true):"
            " no alpha gate, no v1alpha3",
        ),
    )
}
"""The presets by name."""

DEFAULT_PRESET: Final = "all"
"""What ``FakeAPIServer()`` serves without a ``preset``."""


@dataclass(frozen=True)
class ServerConfig:
    """The resolved configuration: the enabled gates and the group/versions turned off."""

    gates: frozenset[str]
    disabled_versions: frozenset[str]


def resolve(
    preset: str = DEFAULT_PRESET,
    feature_gates: Mapping[str, bool] | None = None,
    runtime_config: Mapping[str, bool] | None = None,
) -> ServerConfig:
    """``preset``, then ``feature_gates`` (gate name: on) and ``runtime_config``
    (``group/version``: served) over it, as kube-apiserver's flags over its defaults."""
    chosen = PRESETS.get(preset)
    if chosen is None:
        raise ValueError(f"unknown preset {preset!r}: use one of {', '.join(PRESETS)}")
    gates = dict.fromkeys(FEATURE_GATES, False) | dict.fromkeys(chosen.gates, True)
    for name, enabled in (feature_gates or {}).items():
        if name not in gates:
            raise ValueError(
                f"unknown feature gate {name!r}: use one of {', '.join(FEATURE_GATES)}"
            )
        gates[name] = bool(enabled)
    disabled = set(chosen.disabled_versions)
    for group_version, served in (runtime_config or {}).items():
        if not isinstance(group_version, str) or group_version.count("/") > 1:
            raise ValueError(
                f"runtime_config: {group_version!r} is not a group/version"
                " (e.g. scheduling.k8s.io/v1beta1, or v1 for the core group)"
            )
        if served:
            disabled.discard(group_version)
        else:
            disabled.add(group_version)
    return ServerConfig(frozenset(name for name, on in gates.items() if on), frozenset(disabled))


def resolve_gates(
    overrides: Mapping[str, bool] | None, preset: str = DEFAULT_PRESET
) -> frozenset[str]:
    """The enabled gates of ``preset`` with ``overrides`` applied."""
    return resolve(preset, overrides).gates
