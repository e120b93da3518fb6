"""``to_yaml()`` uses PyYAML's C emitter where it exists: the bytes are the pure emitter's.

The oracle is ``yaml.safe_dump`` itself (PyYAML's pure-Python ``SafeDumper``), on any JSON
document and on every kind of model; and the C emitter on its own agrees with it on every
document ``to_yaml()`` gives it.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from strategies import instances_of

from workloadbuilder.api import K8sModel, batch_v1, scheduling_v1alpha3, scheduling_v1beta1
from workloadbuilder.api.sdk import same_in_both_emitters, yaml_document

pytestmark = pytest.mark.skipif(not hasattr(yaml, "CSafeDumper"), reason="PyYAML without libyaml")

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(),
    st.text(alphabet=" \t\n:#-'\"&*!|>%@`{}[],?yYnNoO~01.eE+"),
    st.sampled_from(["", "yes", "no", "on", "off", "null", "~", "1e3", "0x1F", "012", ".inf"]),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=bounded(150))
@given(st.dictionaries(st.text(max_size=12), _json, max_size=6))
def test_any_json_document_has_the_pure_emitters_bytes(doc: dict[str, object]) -> None:
    assert yaml_document(doc) == yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


@settings(max_examples=bounded(150))
@given(_json)
def test_any_json_value_as_a_document_has_the_pure_emitters_bytes(doc: object) -> None:
    # a lone scalar included: the C emitter leaves out the "..." that ends it
    assert yaml_document(doc) == yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


@pytest.mark.parametrize("doc", ["abc", 5, None, True])
def test_a_lone_scalar_is_written_by_the_pure_emitter(doc: object) -> None:
    assert not same_in_both_emitters(doc)
    assert yaml_document(doc).endswith("\n...\n")


_printable = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=300)
_printable_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _printable),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(_printable.filter(bool), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=bounded(150))
@given(st.dictionaries(_printable.filter(bool), _printable_json, max_size=6))
def test_the_c_emitter_alone_writes_printable_documents_as_the_pure_one(
    doc: dict[str, object],
) -> None:
    assert same_in_both_emitters(doc)
    c = yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False)
    assert c == yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


@pytest.mark.parametrize("doc", [{"": None}, {"\r": 1}, {"a": "\x1f" + "\u0100" * 60}])
def test_documents_the_emitters_disagree_on_take_the_pure_emitter(doc: dict[str, object]) -> None:
    c = yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False)
    pure = yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    assert c != pure  # the reason for the guard, as PyYAML 6 behaves
    assert not same_in_both_emitters(doc)
    assert yaml_document(doc) == pure


_MODELS: list[type[K8sModel]] = [
    scheduling_v1beta1.Workload,
    scheduling_v1beta1.PodGroup,
    scheduling_v1alpha3.CompositePodGroup,
    batch_v1.JobSchedulingConfiguration,
]


@pytest.mark.parametrize("model", _MODELS, ids=lambda m: m.__name__)
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_to_yaml_of_every_kind_is_safe_dump_of_its_dict(
    model: type[K8sModel], data: st.DataObject
) -> None:
    obj = data.draw(instances_of(model))
    expected = yaml.safe_dump(obj.to_dict(), sort_keys=False, default_flow_style=False)
    assert obj.to_yaml() == expected
