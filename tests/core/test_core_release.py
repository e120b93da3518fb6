"""``Builder.release()``: validate, build and stamp one execution in one call.

The reference is the path the callers took before, written out: ``validate()`` on one Builder,
then ``build_workload()`` and the previous stamping (``previous_instantiate``) on another. The
release gives the same objects (equal, same JSON, same fields set) and the same errors, and
checks and compiles a tree once (counted by a profiler: nothing is replaced).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from core_support import all_allowed, job_owner, rendered
from hypothesis import HealthCheck, given, settings
from profiled import calls
from property_bound import bounded
from test_core_properties import PERMISSIVE, trees
from test_core_stamp_differential import assert_same, previous_instantiate

import workloadbuilder as wb
from workloadbuilder import Builder, BuildError, BuildOptions, Release, composite, gang, leaf
from workloadbuilder.api import K8sModel
from workloadbuilder.roots import validate_roots
from workloadbuilder.spec import LoadedSpec, load_spec
from workloadbuilder.validation import validate_tree

SPECS = sorted((Path(__file__).resolve().parents[2] / "examples" / "specs").glob("*.yaml"))

TREE = composite(
    "root",
    [leaf("workers", path="spec.workers", policy=gang(4)), leaf("driver", path="spec.driver")],
    path="spec",
    policy=gang(min_group_count=2),
)


def previous_objects(spec: LoadedSpec) -> list[K8sModel]:
    """``LoadedSpec.objects()`` as it was: validated on one Builder, built on another."""
    errors = spec.validate()
    assert not errors
    builder = Builder(spec.root, spec.options)
    runtime = previous_instantiate(builder)
    return [builder.build_workload(), *runtime]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_a_spec_releases_what_it_gave_before(path: Path) -> None:
    spec = load_spec(path)
    assert_same(list(spec.objects()), previous_objects(spec))
    release = spec.release()
    assert isinstance(release, Release)
    assert release.ordered == [release.workload, *release.objects]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_a_spec_is_checked_and_compiled_once(path: Path) -> None:
    spec = load_spec(path)
    with calls(Builder.__init__, Builder.validate, Builder._build) as counted:
        spec.objects()
    assert counted == {"Builder.__init__": 1, "Builder.validate": 1, "Builder._build": 1}


@settings(
    max_examples=bounded(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(root=trees(sound=True))
def test_release_is_validate_then_build_then_stamp(root: wb.WorkloadItem) -> None:
    errors = Builder(root, PERMISSIVE).validate()
    builder = Builder(root, PERMISSIVE)
    if errors:
        with pytest.raises(BuildError) as raised:
            builder.release()
        assert rendered(raised.value.errors) == rendered(errors)
        return
    reference = Builder(root, PERMISSIVE)
    expected = [reference.build_workload(), *previous_instantiate(reference)]
    assert_same(builder.release().ordered, expected)


def test_a_tree_is_validated_once_and_not_after_a_clean_validate() -> None:
    builder = Builder(TREE, all_allowed())
    with calls(validate_tree, Builder._build) as counted:
        builder.release()
        builder.release()
    assert counted == {"validate_tree": 1, "Builder._build": 1}
    checked = Builder(TREE, all_allowed())
    assert checked.validate() == []
    with calls(validate_tree) as counted:
        objects = checked.release().objects
    assert counted == {"validate_tree": 0}
    assert [o.to_dict() for o in objects] == [o.to_dict() for o in wb.instantiate(builder)]


def test_a_tree_that_does_not_validate_is_refused_with_validates_errors() -> None:
    options = all_allowed(allowed_policies=frozenset())  # compiles, but no policy is allowed
    builder = Builder(TREE, options)
    with pytest.raises(BuildError, match="the tree does not validate") as raised:
        builder.release()
    assert rendered(raised.value.errors) == rendered(Builder(TREE, options).validate())
    assert [e.field for e in raised.value.errors][:1] == ["spec.schedulingPolicy"]
    # validate=False stamps what build_workload() compiles, as instantiate() does
    unchecked = builder.release(validate=False)
    assert [o.to_dict() for o in unchecked.objects] == [
        o.to_dict() for o in wb.instantiate(Builder(TREE, options))
    ]


def test_an_update_is_checked_against_the_old_tree() -> None:
    old = composite("gang", [leaf("workers", path="spec.workers", policy=gang(4))], path="spec")
    new = composite("root", [leaf("workers", path="spec.workers", policy=gang(4))], path="spec")
    options = all_allowed()
    expected = Builder(new, options).validate(old)
    assert "does not match new root name" in str(expected)  # the root cannot be renamed
    builder = Builder(new, options)
    assert builder.validate() == []  # valid as a new tree: the update is still checked
    with pytest.raises(BuildError) as raised:
        builder.release(old)
    assert rendered(raised.value.errors) == rendered(expected)


def test_the_released_workload_is_a_copy_to_change() -> None:
    builder = Builder(TREE, all_allowed())
    release = builder.release()
    expected = builder.workload().to_dict()
    assert release.workload.to_dict() == expected
    release.workload.metadata.labels = {"changed": "yes"}
    assert builder.workload().to_dict() == expected
    assert builder.release().workload.to_dict() == expected


def test_an_existing_workload_is_stamped_without_validation() -> None:
    options = all_allowed()
    stored = Builder(TREE, options).build_workload().to_dict()
    stored["status"] = {}
    release = Builder.from_existing_workload(stored, BuildOptions(owner=job_owner())).release()
    assert isinstance(release.workload, wb.Workload)
    assert release.workload.to_dict() == wb.Workload.from_server(stored).to_dict()
    assert [o.to_dict() for o in release.objects] == [
        o.to_dict() for o in wb.instantiate(stored, options=BuildOptions(owner=job_owner()))
    ]
    assert [o.kind for o in release.ordered] == [
        "Workload",
        "CompositePodGroup",
        "PodGroup",
        "PodGroup",
    ]


def test_names_come_from_the_callable_and_are_checked() -> None:
    release = Builder(TREE, all_allowed()).release(name=lambda wl, t: f"{wl}-{t}")
    assert [o.metadata.name for o in release.objects] == ["wl-root", "wl-workers", "wl-driver"]
    assert {o.spec.parent_composite_pod_group_name for o in release.objects[1:]} == {"wl-root"}
    with pytest.raises(TypeError, match="it must return the object's name"):
        Builder(TREE, all_allowed()).release(name=lambda wl, t: "")
    with pytest.raises(ValueError, match="the Workload has no name"):
        Builder(TREE, all_allowed(name="")).release()


def test_several_roots_are_validated_once_and_released_together() -> None:
    roots = [leaf("a", path="spec.a", policy=gang(2)), leaf("b", path="spec.b")]
    builder = Builder(roots, all_allowed())
    with calls(validate_roots, Builder._build) as counted:
        release = builder.release()
        builder.release()
    assert counted == {"validate_roots": 1, "Builder._build": 1}
    reference = Builder(roots, all_allowed())
    assert_same(release.ordered, [reference.build_workload(), *previous_instantiate(reference)])
