"""``validate()`` and ``build_workload()`` answer exactly what they answered before they checked
without paths first and shared each item's resolution and the tree check.

The reference is ``_previous_validation``: the previous code, frozen. Over arbitrary valid and
invalid trees, old trees that keep, change, rename or reshape items (ratcheting), items with
and without paths, relocated fields, callbacks that raise or return garbage, and varied
options: the same ``ErrorList`` (fields, types, bad values, details, order) and the same build
outcome (the same Workload JSON and fields set, or the same ``BuildError``), whichever of
``validate()`` and ``build_workload()`` a Builder runs first, and however often.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import _previous_validation as previous
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from test_core_properties import OPTIONS, PERMISSIVE, trees
from test_core_stamp_differential import fields_set

from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    ErrorList,
    FieldPath,
    GangSchedulingPolicy,
    PolicyInput,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConstraints,
    SchedulingPolicy,
    WorkloadItem,
    _formats,
    composite,
    gang,
    leaf,
)
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)

SETTINGS = settings(
    max_examples=bounded(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# -------------------------------------------------------------------- what is compared


def _errors(errors: ErrorList) -> list[tuple[Any, ...]]:
    """Every part of every error, the bad value's type and rendering included."""
    return [
        (e.type, e.field, type(e.bad_value), repr(e.bad_value), e.detail, e.origin, str(e))
        for e in errors
    ]


def _outcome(build: Any) -> Any:
    try:
        workload = build()
    except BuildError as exc:
        return ("error", str(exc), _errors(exc.errors))
    return ("workload", workload.to_dict(), fields_set(workload))


def _assert_same_errors(ours: ErrorList, expected: ErrorList) -> None:
    assert isinstance(ours, ErrorList)
    assert _errors(ours) == _errors(expected)
    assert ours == expected


# ----------------------------------------------------------- callbacks beyond the tree strategy


def _raises(config: SchedulingConfig) -> SchedulingConfig:
    raise ValueError("the controller's defaulting failed")


def _returns_none(config: SchedulingConfig) -> Any:
    return None


def _text_count(config: SchedulingConfig) -> SchedulingConfig:
    return dataclasses.replace(config, policy=SchedulingPolicy(gang=GangSchedulingPolicy("3")))  # type: ignore[arg-type]


def _policy_text(config: SchedulingConfig) -> SchedulingConfig:
    return dataclasses.replace(config, policy="gang")  # type: ignore[arg-type]


def _gang_text(config: SchedulingConfig) -> SchedulingConfig:
    return dataclasses.replace(config, policy=SchedulingPolicy(gang="4"))  # type: ignore[arg-type]


def _topology_ints(config: SchedulingConfig) -> SchedulingConfig:
    return dataclasses.replace(config, constraints=SchedulingConstraints((1,)))  # type: ignore[arg-type]


def _claim_text(config: SchedulingConfig) -> SchedulingConfig:
    return dataclasses.replace(config, resource_claims=("gpu",))  # type: ignore[arg-type]


def _bad_claims(config: SchedulingConfig) -> SchedulingConfig:
    claims = (ResourceClaim("Bad_Claim", "a", "b"), ResourceClaim("Bad_Claim"))
    return dataclasses.replace(config, resource_claims=claims)


def _count(value: int) -> Any:
    def set_count(config: SchedulingConfig) -> SchedulingConfig:
        return dataclasses.replace(
            config, policy=SchedulingPolicy(gang=GangSchedulingPolicy(value))
        )

    return set_count


ODD_CALLBACKS = st.sampled_from(
    [
        _raises,
        _returns_none,
        _text_count,
        _policy_text,
        _gang_text,
        _topology_ints,
        _claim_text,
        _bad_claims,
        _count(0),
        _count(2**31),
    ]
)
ODD_DEFAULTS = st.sampled_from(
    [
        SchedulingConfig(policy="basic"),  # type: ignore[arg-type]
        SchedulingConfig(priority_class_name=7),  # type: ignore[arg-type]
        SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy())),
        SchedulingConfig(constraints=SchedulingConstraints(("Bad Key",))),
    ]
)
# Policy blocks of either kind, with their fields relocated to the controller's own paths.
RELOCATED_POLICIES = st.sampled_from(
    [
        PolicyInput(
            path_elements=("gangPolicy",),
            field_paths={"gang.minCount": FieldPath.parse("spec.minAvailable")},
            pod_group_data=WorkloadPodGroupSchedulingPolicy(
                gang=WorkloadPodGroupGangSchedulingPolicy(min_count=0)
            ),
        ),
        PolicyInput(
            field_paths={
                "": FieldPath.parse("spec.policy"),
                "gang.minGroupCount": FieldPath.parse("spec.groups"),
            },
            composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
                gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=-1)
            ),
        ),
        PolicyInput(path_elements=(), field_paths={"gang": FieldPath.parse("spec.gang")}),
    ]
)


@st.composite
def odd_trees(draw: st.DrawFn) -> WorkloadItem:
    """A tree of ``trees()`` with some items given odd callbacks, odd default configs or
    relocated policy blocks."""

    def change(item: WorkloadItem) -> WorkloadItem:
        children = tuple(change(c) for c in item.children)
        what = draw(st.sampled_from(["keep", "keep", "keep", "callback", "default", "policy"]))
        if what == "callback":
            item = dataclasses.replace(item, callbacks=(*item.callbacks, draw(ODD_CALLBACKS)))
        elif what == "default":
            item = dataclasses.replace(item, default_config=draw(ODD_DEFAULTS))
        elif what == "policy":
            policy = draw(RELOCATED_POLICIES)
            item = dataclasses.replace(item, input=dataclasses.replace(item.input, policy=policy))
        return dataclasses.replace(item, children=children) if children else item

    return change(draw(trees(sound=draw(st.integers(0, 3)) > 0)))


ROOTS = st.one_of(trees(), trees(sound=True), odd_trees())


@st.composite
def old_versions(draw: st.DrawFn, root: WorkloadItem) -> WorkloadItem | None:
    """An old tree for ``root``: none, an unrelated tree, the same tree, or one whose items
    keep, swap their blocks or config, fail to resolve, rename, lose their children, or gain
    some."""
    kind = draw(st.sampled_from(["changed", "changed", "same", "changed", "unrelated", "none"]))
    if kind == "none":
        return None
    if kind == "unrelated":
        return draw(ROOTS)
    if kind == "same":
        return root
    donors = list(draw(ROOTS).walk())
    leaves = [d for d in donors if not d.is_composite] or [leaf("donor", policy=gang(2))]
    composites = [d for d in donors if d.is_composite] or [
        composite("donor", [leaf("donor-child")], policy=gang(min_group_count=1))
    ]

    def version(item: WorkloadItem, top: bool) -> WorkloadItem:
        children = tuple(version(c, False) for c in item.children)
        what = draw(
            st.sampled_from(
                ["keep", "keep", "input", "config", "broken", "rename", "reshape", "copy"]
            )
        )
        if what == "copy":
            return item  # the very same object
        if what == "broken":  # the old item no longer resolves
            item = dataclasses.replace(item, callbacks=(*item.callbacks, _raises))
        donor = draw(st.sampled_from(composites if item.is_composite else leaves))
        if what == "input":
            item = dataclasses.replace(item, input=donor.input)
        elif what == "config":
            item = dataclasses.replace(
                item, default_config=donor.default_config, callbacks=donor.callbacks
            )
        elif what == "rename" and not top:
            item = dataclasses.replace(item, name=item.name + "-old")
        elif what == "reshape":
            other = draw(st.sampled_from(leaves if item.is_composite else composites))
            return dataclasses.replace(other, name=item.name)
        return dataclasses.replace(item, children=children) if children else item

    return version(root, True)


# -------------------------------------------------------------------------------- the tests


def _check(root: WorkloadItem | None, old: WorkloadItem | None, options: BuildOptions) -> None:
    expected_errors = previous.validate_tree(root, options, old)
    expected_build = _outcome(lambda: previous.build_workload(root, options))

    # The rules on counts that can never be met are ours, after every other layer: they only
    # add errors at the end; switched off, the answers are the previous ones exactly.
    counted = Builder(root, options).validate(old_root=old)
    assert _errors(ErrorList(counted[: len(expected_errors)])) == _errors(expected_errors)
    assert all("can never" in e.detail for e in counted[len(expected_errors) :])
    options = dataclasses.replace(options, check_satisfiable_counts=False)

    # validate() first, then build_workload(), then validate() again, on one Builder.
    builder = Builder(root, options)
    _assert_same_errors(builder.validate(old_root=old), expected_errors)
    assert _outcome(builder.build_workload) == expected_build
    _assert_same_errors(builder.validate(old_root=old), expected_errors)
    _assert_same_errors(builder.validate(), previous.validate_tree(root, options))

    # build_workload() first, then validate().
    builder = Builder(root, options)
    assert _outcome(builder.build_workload) == expected_build
    _assert_same_errors(builder.validate(old_root=old), expected_errors)


@SETTINGS
@given(data=st.data(), root=ROOTS, options=st.one_of(st.just(PERMISSIVE), OPTIONS))
def test_validate_and_build_answer_what_they_answered(
    data: st.DataObject, root: WorkloadItem, options: BuildOptions
) -> None:
    _check(root, data.draw(old_versions(root)), options)


@SETTINGS
@given(data=st.data(), root=trees(sound=True))
def test_mostly_valid_trees_answer_what_they_answered(
    data: st.DataObject, root: WorkloadItem
) -> None:
    """The trees a controller sends on most reconciles: valid or nearly so."""
    _check(root, data.draw(old_versions(root)), PERMISSIVE)


@pytest.mark.parametrize("options", [PERMISSIVE, BuildOptions()])
def test_without_a_root_the_answers_are_unchanged(options: BuildOptions) -> None:
    _check(None, None, options)
    _check(None, leaf("w", policy=gang(1)), options)


_SUBDOMAIN_LIKE = st.from_regex(r"[a-z0-9]([-a-z0-9.]{0,70}[a-z0-9])?", fullmatch=True)
FORMAT_VALUES = st.one_of(
    st.text(max_size=80),
    st.text(alphabet="aZ09-_./é", max_size=300),
    _SUBDOMAIN_LIKE,
    st.builds("/".join, st.lists(_SUBDOMAIN_LIKE, min_size=1, max_size=3)),
    st.builds(lambda a, n: f"{a}/{'x' * n}", _SUBDOMAIN_LIKE, st.integers(0, 70)),
    st.builds(lambda n: "a" * n, st.integers(60, 260)),
)


@settings(max_examples=bounded(300), deadline=None)
@given(value=FORMAT_VALUES)
def test_name_and_key_formats_answer_what_they_answered(value: str) -> None:
    for name in ("dns_label_errors", "dns_subdomain_errors", "label_key_errors"):
        assert getattr(_formats, name)(value) == getattr(previous, name)(value), name


def _release(
    *, count: int = 0, callbacks: tuple[Any, ...] = (), name: str = "ps_0"
) -> WorkloadItem:
    """A tree with an error in every layer: declarative, resolved, allow-list, tree rules."""
    return composite(
        "root",
        [
            leaf(name, policy=gang(count), topology=["Bad Key"], priority_class_name="low"),
            leaf("w", policy=gang(), callbacks=(_count(count), *callbacks)),
            leaf("relocated", path="spec.roles[r]", policy=gang(count), disruption_mode="all"),
        ],
        policy=gang(min_group_count=2),
        path="spec",
    )


@pytest.mark.parametrize(
    "old",
    [
        None,
        _release(),
        _release(callbacks=(_raises,)),
        _release(callbacks=(_returns_none,)),
        _release(count=3),
        _release(name="Other"),
        leaf("root"),
    ],
)
@pytest.mark.parametrize("options", [PERMISSIVE, BuildOptions(disable_declarative_validation=True)])
def test_updates_ratchet_as_they_did(old: WorkloadItem | None, options: BuildOptions) -> None:
    root = _release()
    _check(root, old, options)
    _check(root, root, options)
    _check(_release(callbacks=(_raises,)), old, options)


def test_each_callback_runs_once_per_item_per_builder() -> None:
    """As docs/builder.md says: validate() and build_workload() share the resolutions; the
    old tree's items are resolved once per validate() call."""
    calls: list[str] = []

    def counted(name: str) -> Any:
        def callback(config: SchedulingConfig) -> SchedulingConfig:
            calls.append(name)
            return config

        return callback

    def tree(prefix: str, count: int) -> WorkloadItem:
        return composite(
            "root",
            [leaf("w", policy=gang(count), callbacks=[counted(prefix + "leaf")])],
            policy=gang(min_group_count=1),
            callbacks=[counted(prefix + "root")],
        )

    builder = Builder(tree("", 0), PERMISSIVE)  # errors: the check without paths, then with
    old = tree("old-", 1)
    assert builder.validate(old_root=old)
    assert sorted(calls) == ["leaf", "old-leaf", "old-root", "root"]
    builder.validate(old_root=old)
    builder.build_workload()
    assert sorted(calls) == ["leaf", "old-leaf", "old-leaf", "old-root", "old-root", "root"]


@pytest.mark.parametrize("callback", [_bad_claims, _claim_text, _count(0)])
def test_a_build_error_names_the_values_as_before(callback: Any) -> None:
    """The template-by-template build's message shows a claim's unset sources as null."""
    _check(leaf("worker", callbacks=[callback]), None, PERMISSIVE)
    _check(composite("root", [leaf("worker", callbacks=[callback])]), None, PERMISSIVE)
