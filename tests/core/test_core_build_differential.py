"""``build_workload()`` compiling the tree straight to JSON and validating once gives what
the template-by-template build gave: the same Workload (equal, same JSON, same fields set) or
the same ``BuildError`` message, for any tree and any options.

The reference is the template-by-template build, kept as the error path
(``Builder._compiled_by_templates``), which was the whole build before; ``build_workload()``
returned a fresh copy of it then as now.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from test_core_properties import OPTIONS, PERMISSIVE, trees
from test_core_stamp_differential import fields_set

from workloadbuilder import Builder, BuildError, BuildOptions, WorkloadItem
from workloadbuilder.api.meta_v1 import OwnerReference


def _outcome(build: Any) -> Any:
    try:
        workload = build()
    except BuildError as exc:
        return ("error", str(exc), exc.errors)
    return ("workload", workload, workload.to_dict(), fields_set(workload))


def _previous(root: WorkloadItem | None, options: BuildOptions) -> Any:
    """The previous build_workload(): the same Builder with the one-validation path off."""
    builder = Builder(root, options)
    builder._compiled_in_one_validation = lambda *_: None  # type: ignore[method-assign]
    return _outcome(builder.build_workload)


_ODD_OWNERS = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["batch/v1", "v1", "batch/", "/", "a/b/c", ""]),
        "kind": st.sampled_from(["Job", ""]),
        "name": st.sampled_from(["j", ""]),
        "uid": st.just("u"),
    }
).map(OwnerReference.model_validate)


@pytest.mark.slow
@settings(
    max_examples=bounded(80),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(root=trees(), options=st.one_of(OPTIONS, st.just(PERMISSIVE)), owner=_ODD_OWNERS)
def test_build_equals_the_template_by_template_build(
    root: WorkloadItem, options: BuildOptions, owner: OwnerReference
) -> None:
    for opts in (options, BuildOptions(name="wl", namespace="ns", owner=owner)):
        ours = _outcome(Builder(root, opts).build_workload)
        assert ours == _previous(root, opts)
