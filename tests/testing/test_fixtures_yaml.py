"""Fixtures' YAML goes through the SDK's one YAML writer (``api.sdk.yaml_stream``) with the
bytes of the writer it used before, ``yaml.safe_dump_all`` (PyYAML's pure-Python emitter, the
oracle), on every example spec and on any stream of JSON documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from property_bound import bounded

import workloadbuilder as wb
from workloadbuilder.api.sdk import yaml_stream
from workloadbuilder.testing.fixtures import fixture_dicts, fixture_yaml, to_yaml

SPECS = sorted((Path(__file__).resolve().parents[2] / "examples" / "specs").glob("*.yaml"))


def previous_writer(docs: list[Any]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False)


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_a_spec_fixture_has_the_previous_bytes(path: Path) -> None:
    assert fixture_yaml(path) == previous_writer(fixture_dicts(path))


def test_a_tree_fixture_and_models_have_the_previous_bytes() -> None:
    tree = wb.composite("run", [wb.leaf("workers", policy=wb.gang(2)), wb.leaf("driver")])
    docs = fixture_dicts(tree)
    assert fixture_yaml(tree) == previous_writer(docs)
    models = [wb.Workload.model_validate(docs[0]), wb.PodGroup.model_validate(docs[-1])]
    assert to_yaml(models) == previous_writer([docs[0], docs[-1]])


@pytest.mark.parametrize(
    "docs",
    [[], [None], ["text"], [1.5, {"a": 1}], [{"a": 1}, "b"], [{"": 1}], [{"k": "caf\u00e9"}]],
)
def test_streams_the_emitters_write_differently_take_the_pure_emitter(docs: list[Any]) -> None:
    assert yaml_stream(docs) == previous_writer(docs)


_printable = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(),
    _printable,
    st.text(max_size=12),
    st.sampled_from(["", "yes", "~", "a\n\n", "x\n", " lead", "trail ", "---", "..."]),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_printable | st.text(max_size=6), inner)
    ),
    max_leaves=16,
)


@settings(max_examples=bounded(300), deadline=None)
@given(st.lists(_json, max_size=4))
def test_any_stream_of_json_documents_has_the_previous_bytes(docs: list[Any]) -> None:
    assert yaml_stream(docs) == previous_writer(docs)
    assert to_yaml(docs) == previous_writer(docs)
