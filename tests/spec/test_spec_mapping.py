"""The mapping of a spec document to its tree (``workloadbuilder.spec.mapping``), against the
previous mapping, frozen below: that one unpacked each node into ``leaf()`` / ``composite()``
keywords, which packed the blocks back; today's puts the node's blocks into the inputs as they
are. Both must give equal trees (names, paths, default configs, every block and its path
elements, children, replicas), so that validation, the build and every command answer as before:
on every spec file of the repository and on spec documents of the documented shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from test_spec_fuzz import spec_documents

from workloadbuilder import Builder, WorkloadItem, composite, leaf
from workloadbuilder.api.scheduling_v1alpha3 import WorkloadPodGroupSchedulingConstraints
from workloadbuilder.field import FieldPath
from workloadbuilder.spec import LoadedSpec, SpecError, WorkloadSpecFile, load_spec, parse_spec
from workloadbuilder.spec.schema import SpecComposite, SpecLeaf

ROOT = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------- the previous mapping, frozen


def _previous_item(node: SpecLeaf | SpecComposite, path: FieldPath) -> WorkloadItem:
    topology = [t.key for t in (node.scheduling_constraints or _NO_CONSTRAINTS).topology or ()]
    if isinstance(node, SpecComposite):
        return composite(
            node.name,
            [
                _previous_item(c, path.child("children").index(i))
                for i, c in enumerate(node.children)
            ],
            path=path,
            policy=node.scheduling_policy,
            disruption_mode=node.disruption_mode,
            topology=topology,
            priority_class_name=node.priority_class_name,
        )
    return leaf(
        node.name,
        path=path,
        policy=node.scheduling_policy,
        disruption_mode=node.disruption_mode,
        topology=topology,
        resource_claims=node.resource_claims or (),
        priority_class_name=node.priority_class_name,
        replicas=node.replicas,
    )


_NO_CONSTRAINTS = WorkloadPodGroupSchedulingConstraints()


def _previous_root(document: WorkloadSpecFile) -> WorkloadItem | tuple[WorkloadItem, ...]:
    body = document.spec
    if body.root is not None:
        return _previous_item(body.root, FieldPath("spec", "root"))
    return tuple(
        _previous_item(n, FieldPath("spec", "roots").index(i))
        for i, n in enumerate(body.roots or [])
    )


# ------------------------------------------------------------------------------- the checks


def _items(root: WorkloadItem | tuple[WorkloadItem, ...]) -> list[WorkloadItem]:
    roots = root if isinstance(root, tuple) else (root,)
    return [item for r in roots for item in r.walk()]


def _blocks(item: WorkloadItem) -> list[Any]:
    given = item.input
    return [
        (
            type(b).__name__,
            b.path_elements,
            dict(b.field_paths),
            b.pod_group_data,
            type(b.pod_group_data),
        )
        for b in (given.policy, given.constraints, given.disruption_mode, given.resource_claims)
    ] + [
        (b.composite_pod_group_data, type(b.composite_pod_group_data))
        for b in (given.policy, given.constraints, given.disruption_mode)
    ]


def _assert_as_before(spec: LoadedSpec) -> None:
    before = _previous_root(spec.document)
    assert spec.root == before
    assert [_blocks(i) for i in _items(spec.root)] == [_blocks(i) for i in _items(before)]
    assert [(i.path, i.default_config, i.replicas) for i in _items(spec.root)] == [
        (i.path, i.default_config, i.replicas) for i in _items(before)
    ]
    errors = [(e.type, e.field, e.bad_value, e.detail) for e in spec.builder().validate()]
    previous = Builder(before, spec.options).validate()
    assert errors == [(e.type, e.field, e.bad_value, e.detail) for e in previous]


def _spec_files() -> list[Path]:
    found = []
    for path in sorted([*ROOT.glob("examples/**/*.y*ml"), *ROOT.glob("tests/**/*.y*ml")]):
        try:
            documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        if any(isinstance(d, dict) and d.get("kind") == "WorkloadSpec" for d in documents):
            found.append(path)
    return found


SPEC_FILES = _spec_files()


def test_the_repository_has_spec_files_to_compare() -> None:
    assert len(SPEC_FILES) >= 7  # examples/specs/ and examples/invalid/


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_spec_file_maps_to_the_tree_it_did(path: Path) -> None:
    try:
        spec = load_spec(path)
    except SpecError:
        return  # refused before any mapping (the schema, the reader): not this module's
    _assert_as_before(spec)


SETTINGS = settings(
    max_examples=bounded(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)


@SETTINGS
@given(document=spec_documents(), as_roots=st.booleans(), empty=st.sampled_from([None, {}, []]))
def test_any_spec_document_maps_to_the_tree_it_did(
    document: dict[str, Any], as_roots: bool, empty: Any
) -> None:
    body = document["spec"]
    if as_roots:  # several independent roots: the root and, if it has any, its children
        top = body.pop("root")
        body["roots"] = [top, *top.get("children", [])]
    if empty is not None:  # blocks present but empty: unset, as before
        node = body["roots"][0] if as_roots else body["root"]
        node["schedulingConstraints"] = {"topology": empty} if empty == [] else {}
    try:
        spec = parse_spec(document)
    except SpecError:
        return
    _assert_as_before(spec)
