"""The hand-written corpus against both oracles, and the corpus' own completeness."""

from __future__ import annotations

from typing import Any, cast

import pytest
import yaml
from conformance_corpus import DOCUMENTS, corpus_instances
from oracles import (
    all_model_classes,
    assert_conforms,
    assert_schema_valid,
    class_info,
    definition_for_doc,
    definition_schema,
    official_dump,
    official_model_for,
    to_official,
    validate_with_package,
    wire_dump,
)
from strategies import instances_of

from workloadbuilder.api import K8sModel

CORPUS = corpus_instances()
DOCS = list(DOCUMENTS.items())


def _official_cases() -> list[Any]:
    cases = []
    for case_id, obj in CORPUS:
        info = class_info(type(obj))
        definitions = info.definitions
        if info.counterpart is not None:
            definitions = class_info(info.counterpart).definitions
        for definition in definitions:
            if official_model_for(definition) is not None:
                version = definition.split(".")[-2]
                cases.append(pytest.param(obj, definition, id=f"{case_id}@{version}"))
    return cases


@pytest.mark.parametrize("obj", [o for _, o in CORPUS], ids=[i for i, _ in CORPUS])
def test_instance_conforms(obj: K8sModel) -> None:
    assert_conforms(obj)


@pytest.mark.parametrize(("cls", "doc"), [d for _, d in DOCS], ids=[n for n, _ in DOCS])
def test_document_round_trips_exactly(cls: type[K8sModel], doc: dict[str, Any]) -> None:
    obj = cls.model_validate(doc)
    assert obj.to_dict() == doc
    assert yaml.safe_load(obj.to_yaml()) == doc
    assert cls.model_validate(yaml.safe_load(obj.to_yaml())) == obj


@pytest.mark.parametrize(("cls", "doc"), [d for _, d in DOCS], ids=[n for n, _ in DOCS])
def test_document_valid_through_kubernetes_validate(
    cls: type[K8sModel], doc: dict[str, Any]
) -> None:
    if "kind" in doc and doc["kind"] != "Status":
        validate_with_package(doc)  # the package's own entry point, not our cached validator
    else:  # Status and the embedded blocks have no file of their own: their definition
        definitions = (
            class_info(cls).definitions
            or class_info(class_info(cls).counterpart or cls).definitions
        )
        for definition in definitions:
            assert_schema_valid(doc, definition)
    if "kind" in doc:
        assert_schema_valid(doc, definition_for_doc(doc))


@pytest.mark.parametrize(("obj", "definition"), _official_cases())
def test_official_client_emits_the_same_document(obj: K8sModel, definition: str) -> None:
    """The reverse direction: the official client's instance, built with its constructors,
    dumps exactly our document, and our model parses what it sends unchanged."""
    doc = obj.to_dict()
    official = to_official(obj, definition)
    assert official_dump(official) == doc
    # What its ApiClient puts on the wire (timestamps as ``+00:00``, otherwise the same).
    sent = wire_dump(official)
    assert_schema_valid(sent, definition)
    assert type(obj).model_validate(sent).to_dict() == doc
    model = official_model_for(definition)
    assert model is not None
    from_dict = cast(Any, model).from_dict(doc)  # the client's own (lenient) deserialiser
    assert type(obj).model_validate(official_dump(from_dict)).to_dict() == doc


# --------------------------------------------------------------------------- completeness


def test_every_exported_class_has_a_corpus_instance() -> None:
    covered = {type(obj) for _, obj in CORPUS}
    missing = [f"{c.__module__}.{c.__name__}" for c in all_model_classes() if c not in covered]
    assert not missing, f"classes without a corpus instance: {missing}"


def test_every_field_is_set_in_some_corpus_instance() -> None:
    unset: list[str] = []
    for cls in all_model_classes():
        instances = [obj for _, obj in CORPUS if type(obj) is cls]
        for name in cls.model_fields:
            if all(getattr(obj, name) is None for obj in instances):
                unset.append(f"{cls.__name__}.{name}")
    assert not unset, f"fields never set in the corpus: {unset}"


@pytest.mark.parametrize("cls", list(all_model_classes()), ids=lambda c: c.__name__)
def test_every_exported_class_has_a_strategy(cls: type[K8sModel]) -> None:
    assert instances_of(cls) is not None


@pytest.mark.parametrize("cls", list(all_model_classes()), ids=lambda c: c.__name__)
def test_fields_match_the_upstream_definition(cls: type[K8sModel]) -> None:
    info = class_info(cls)
    ours = {f.alias or n for n, f in cls.model_fields.items()}
    required = {f.alias or n for n, f in cls.model_fields.items() if f.is_required()}
    if info.counterpart is not None:
        # A Go-only block: same fields as its API counterpart, with the counts left optional.
        upstream = class_info(info.counterpart).definitions
        for definition in upstream:
            assert ours == set(definition_schema(definition).get("properties", {}))
        assert not required
        return
    assert info.definitions, f"{cls.__name__} has no upstream definition"
    for definition in info.definitions:
        schema = definition_schema(definition)
        assert ours == set(schema.get("properties", {})), definition
        # Our API models default apiVersion/kind/metadata, which upstream also marks optional.
        assert required == set(schema.get("required", [])), definition
