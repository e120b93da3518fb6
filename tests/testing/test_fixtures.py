"""Fixtures for users' tests: deterministic objects from a tree, a Builder or a spec file."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from oracles import assert_schema_valid

import workloadbuilder as wb
from workloadbuilder.spec import load_spec
from workloadbuilder.testing.fixtures import (
    FIXTURE_OWNER,
    fixture_dicts,
    fixture_options,
    fixture_yaml,
)
from workloadbuilder.testing.snapshot import serialize

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "examples" / "specs" / "release.yaml"

TREE = wb.composite(
    "workload-root",
    [wb.leaf("workers", policy=wb.gang(4)), wb.leaf("driver", policy=wb.gang(1))],
    policy=wb.gang(min_group_count=2),
)


def test_a_tree_gives_valid_parents_first_objects() -> None:
    docs = fixture_dicts(TREE)
    assert [d["kind"] for d in docs] == ["Workload", "CompositePodGroup", "PodGroup", "PodGroup"]
    for doc in docs:
        assert_schema_valid(doc)
    root, workers, driver = docs[1:]
    assert workers["spec"]["parentCompositePodGroupName"] == root["metadata"]["name"]
    assert driver["spec"]["parentCompositePodGroupName"] == root["metadata"]["name"]
    owner = docs[0]["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == (
        FIXTURE_OWNER["kind"],
        "workload-root",
        FIXTURE_OWNER["uid"],
    )


def test_fixtures_are_deterministic_across_processes() -> None:
    code = (
        "import workloadbuilder as wb;"
        "from workloadbuilder.testing.fixtures import fixture_yaml;"
        "print(fixture_yaml(wb.leaf('w', policy=wb.gang(4))), end='')"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert runs == {fixture_yaml(wb.leaf("w", policy=wb.gang(4)))}


def test_yaml_is_the_dicts_as_a_stream() -> None:
    assert list(yaml.safe_load_all(fixture_yaml(TREE))) == fixture_dicts(TREE)


def test_a_spec_file_a_loaded_spec_and_its_builder_agree() -> None:
    spec = load_spec(RELEASE)
    expected = [o.to_dict() for o in spec.objects()]
    assert fixture_dicts(RELEASE) == expected
    assert fixture_dicts(str(RELEASE)) == expected
    assert fixture_dicts(spec) == expected
    assert fixture_dicts(spec.builder()) == expected


def test_a_builder_from_a_stored_workload() -> None:
    options = fixture_options(TREE, namespace="ml")
    workload = wb.Builder(TREE, options).build_workload().to_dict()
    docs = fixture_dicts(wb.Builder.from_existing_workload(workload, options))
    assert docs[0] == workload
    assert [d["metadata"]["namespace"] for d in docs] == ["ml"] * 4


def test_an_invalid_tree_is_refused_with_its_errors() -> None:
    with pytest.raises(ValueError, match="minCount: Invalid value: 0: must be greater than or"):
        fixture_dicts(wb.leaf("w", path="spec", policy=wb.gang(0)))


def test_options_go_with_trees_only() -> None:
    with pytest.raises(TypeError, match="a Builder carries its own options"):
        fixture_dicts(wb.Builder(TREE, fixture_options(TREE)), fixture_options(TREE))


def test_the_snapshot_serializer_takes_models_dicts_and_trees() -> None:
    workload = wb.Builder(TREE, fixture_options(TREE)).build_workload()
    assert serialize(workload) == serialize(workload.to_dict()) == workload.to_yaml()
    assert serialize(TREE) == fixture_yaml(TREE)
    with pytest.raises(TypeError, match="holds Kubernetes objects"):
        serialize(42)


USER_TEST = textwrap.dedent(
    """
    import pytest
    import workloadbuilder as wb
    from workloadbuilder.testing.snapshot import WorkloadSnapshotExtension

    MIN = {min_count}

    @pytest.fixture
    def snapshot(snapshot):
        return snapshot.use_extension(WorkloadSnapshotExtension)

    def test_gang(snapshot):
        assert wb.leaf("workers", policy=wb.gang(MIN)) == snapshot
    """
)


def test_syrupy_stores_readable_yaml_and_catches_a_change(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_user=USER_TEST.format(min_count=4))
    created = pytester.runpytest_inprocess("--snapshot-update", "-p", "no:cacheprovider")
    assert created.ret == 0, created.stdout.str()
    (stored,) = (pytester.path / "__snapshots__").rglob("*.yaml")
    assert stored.read_text() == fixture_yaml(wb.leaf("workers", policy=wb.gang(4)))
    assert pytester.runpytest_inprocess("-p", "no:cacheprovider").ret == 0

    pytester.makepyfile(test_user=USER_TEST.format(min_count=3))
    changed = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert changed.ret == 1
    assert "minCount: 4" in changed.stdout.str() and "minCount: 3" in changed.stdout.str()
