"""Deterministic fixtures for controllers' tests: the objects of a tree, a Builder or a spec file.

``fixture_dicts(source)`` gives the Workload and every runtime object of one execution, parents
first, as Kubernetes JSON dicts; ``fixture_yaml(source)`` the same as one YAML stream. The same
input always gives the same bytes (names are upstream's deterministic hashes), so a unit test can
pin what a controller must produce, by hand or with the syrupy extension of
:mod:`workloadbuilder.testing.snapshot`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from workloadbuilder.api.sdk import K8sModel, yaml_stream
from workloadbuilder.builder import Builder, controller_ref
from workloadbuilder.item import WorkloadItem
from workloadbuilder.naming import generate_workload_name
from workloadbuilder.options import BuildOptions, DisruptionModeOption, SchedulingPolicyOption
from workloadbuilder.spec import LoadedSpec, load_spec

__all__ = ["FIXTURE_OWNER", "Source", "fixture_dicts", "fixture_options", "fixture_yaml", "to_yaml"]

FIXTURE_OWNER: Mapping[str, str] = {
    "apiVersion": "example.com/v1",
    "kind": "Fixture",
    "uid": "00000000-0000-4000-8000-000000000000",
}
"""The owner of a tree's fixture when no options are given (named after the root)."""

Source = WorkloadItem | Builder | LoadedSpec | str | Path
"""A tree (with options, or the fixture defaults), a Builder, a loaded spec, or a spec file."""


def fixture_options(root: WorkloadItem, namespace: str = "default") -> BuildOptions:
    """Options for a tree's fixture: owned by :data:`FIXTURE_OWNER` named after the root,
    every policy and disruption mode allowed, the Workload named as the Job controller does."""
    owner = {
        "apiVersion": FIXTURE_OWNER["apiVersion"],
        "kind": FIXTURE_OWNER["kind"],
        "metadata": {"name": root.name, "uid": FIXTURE_OWNER["uid"]},
    }
    return BuildOptions(
        name=generate_workload_name(root.name, FIXTURE_OWNER["uid"]),
        namespace=namespace,
        owner=controller_ref(owner),
        allowed_policies=frozenset(SchedulingPolicyOption),
        allowed_disruption_modes=frozenset(DisruptionModeOption),
    )


def _builder(source: Source, options: BuildOptions | None) -> Builder:
    if isinstance(source, Builder):
        if options is not None:
            raise TypeError("a Builder carries its own options: pass options only with a tree")
        return source
    if isinstance(source, WorkloadItem):
        return Builder(source, options or fixture_options(source))
    if options is not None:
        raise TypeError("a spec carries its own options: pass options only with a tree")
    spec = source if isinstance(source, LoadedSpec) else load_spec(source)
    return spec.builder()


def fixture_dicts(source: Source, options: BuildOptions | None = None) -> list[dict[str, Any]]:
    """The Workload and every runtime object of one execution, parents first, as dicts.

    Raises ``ValueError`` (the errors, apimachinery-style) when the source does not validate:
    a fixture is always an object the API server accepts.
    """
    builder = _builder(source, options)
    if builder.root is not None:  # a Builder from a stored Workload has nothing to validate
        errors = builder.validate()
        if errors:
            raise ValueError(f"the fixture's tree does not validate:\n{errors}")
    return [o.to_dict() for o in builder.release(validate=False).ordered]


def to_yaml(documents: Iterable[Any]) -> str:
    """Objects (our models or their dicts) as one YAML stream, keys in API order."""
    docs = [d.to_dict() if isinstance(d, K8sModel) else d for d in documents]
    return yaml_stream(docs)


def fixture_yaml(source: Source, options: BuildOptions | None = None) -> str:
    """:func:`fixture_dicts` as one YAML stream."""
    return to_yaml(fixture_dicts(source, options))
