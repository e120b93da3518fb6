"""After a ``validate()`` that found nothing with every rule on, ``build_workload()`` trusts
the compiled JSON and defers its validation: that is sound only if such a tree's JSON is
always what the models accept. The reference is the same Builder without the trust, which
validates the JSON with pydantic when compiling it (the build before).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from test_core_properties import OPTIONS, PERMISSIVE, trees
from test_core_stamp_differential import fields_set

from workloadbuilder import Builder, BuildError, BuildOptions, WorkloadItem, instantiate, leaf
from workloadbuilder.api.scheduling_v1alpha3 import WorkloadPodGroupResourceClaim


def _outcome(builder: Builder) -> Any:
    try:
        built = builder.build_workload()
    except BuildError as exc:
        return ("error", str(exc))
    own = builder.workload()
    return (
        json.dumps(own.to_dict()),  # first use: the deferred copy of the compiled JSON
        own == built,
        fields_set(own),
        json.dumps(built.to_dict()),
        fields_set(built),
        _objects(builder),
    )


def _objects(builder: Builder) -> Any:
    try:
        objects = instantiate(builder)
    except ValueError as exc:  # a Workload without a name has no runtime objects
        return ("error", str(exc))
    return [(json.dumps(o.to_dict()), fields_set(o)) for o in objects]


def _untrusted(root: WorkloadItem, options: BuildOptions) -> Builder:
    builder = Builder(root, options)
    builder.validate()
    builder._validated = False  # the build before: the compiled JSON validated by pydantic
    return builder


def _check(root: WorkloadItem, options: BuildOptions) -> None:
    builder = Builder(root, options)
    if builder.validate():
        assert not builder._validated
        return
    every_rule = options.check_api_server_rules and not options.disable_declarative_validation
    assert builder._validated == every_rule
    assert _outcome(builder) == _outcome(_untrusted(root, options))


@settings(
    max_examples=bounded(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(root=trees(sound=True))
def test_a_tree_validate_accepts_compiles_to_json_the_models_accept(root: WorkloadItem) -> None:
    # Sound trees: about half pass validate() and take the trusted path.
    _check(root, PERMISSIVE)


@pytest.mark.slow
@settings(
    max_examples=bounded(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(root=trees(), options=st.one_of(OPTIONS, st.just(PERMISSIVE)))
def test_any_tree_and_options_build_as_before(root: WorkloadItem, options: BuildOptions) -> None:
    _check(root, options)


def test_a_workload_without_a_name_builds_as_before_and_has_no_runtime_objects() -> None:
    options = dataclasses.replace(PERMISSIVE, name="")
    builder = Builder(leaf("workers"), options)
    assert not builder.validate()
    assert _objects(builder) == ("error", _objects(_untrusted(leaf("workers"), options))[1])
    assert "no name" in _objects(builder)[1]
    _check(leaf("workers"), options)


def test_nothing_is_trusted_unless_every_rule_ran_and_held() -> None:
    root = leaf("workers", policy=None)
    for options, old_root in [
        (BuildOptions(name="wl", owner=PERMISSIVE.owner, check_api_server_rules=False), None),
        (
            BuildOptions(name="wl", owner=PERMISSIVE.owner, disable_declarative_validation=True),
            None,
        ),
        (PERMISSIVE, root),  # an update: unchanged items are ratcheted, not checked again
    ]:
        builder = Builder(root, options)
        assert not builder.validate(old_root)
        assert not builder._validated
    builder = Builder(root, PERMISSIVE)
    assert not builder.validate()
    assert builder._validated


def test_a_claim_validate_refuses_is_refused_by_the_build_too() -> None:
    # The building block takes both sources; the Workload's claim (a union) does not.
    claim = WorkloadPodGroupResourceClaim(
        name="gpu", resource_claim_name="a", resource_claim_template_name="b"
    )
    root = leaf("workers", resource_claims=[claim])
    builder = Builder(root, PERMISSIVE)
    assert builder.validate()
    assert not builder._validated
    outcome = _outcome(builder)
    assert outcome[0] == "error"
    assert outcome == _outcome(_untrusted(root, PERMISSIVE))
