"""Property tests over arbitrary trees, valid and invalid.

* ``validate()`` never raises, whatever the tree, the old tree and the options;
* ``build_workload()`` either returns objects both oracles accept or raises ``BuildError``;
* a tree ``validate()`` accepts (every policy and mode allowed, an owner, default options)
  always builds, and every PodGroup / CompositePodGroup stamped from it conforms too.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from core_support import ALL_MODES, ALL_POLICIES, job_owner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import assert_conforms
from property_bound import bounded

from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    CompositePodGroup,
    ConstraintsInput,
    DisruptionModeOption,
    ErrorList,
    GangSchedulingPolicy,
    PodGroup,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConstraints,
    SchedulingPolicy,
    SchedulingPolicyOption,
    WorkloadItem,
    basic,
    composite,
    gang,
    instantiate,
    leaf,
)
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadCompositePodGroupAllDisruptionMode,
    WorkloadCompositePodGroupBasicSchedulingPolicy,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadCompositePodGroupSingleDisruptionMode,
    WorkloadPodGroupAllDisruptionMode,
    WorkloadPodGroupBasicSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingPolicy,
    WorkloadPodGroupSingleDisruptionMode,
)

SETTINGS = settings(
    max_examples=bounded(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

GOOD_NAMES = st.sampled_from(["worker", "ps", "driver", "launcher", "evaluator", "w"])
BAD_NAMES = st.sampled_from(["", "a" * 64, "Workers", "ps_0", "-x", "x.y", "worker"])
GOOD_COUNTS = st.integers(min_value=1, max_value=12)
BAD_COUNTS = st.one_of(
    st.none(), st.integers(min_value=-3, max_value=0), st.sampled_from([2**31 - 1, 2**31, 2**40])
)
GOOD_KEYS = st.sampled_from(
    ["topology.kubernetes.io/zone", "topology.example.com/rack", "kubernetes.io/hostname", "zone"]
)
BAD_KEYS = st.sampled_from(["", "a/b/c", "/x", "Example.com/rack", "x" * 64, "-zone"])
GOOD_REFS = st.sampled_from(["shared-gpu", "gpu.example.com"])
BAD_REFS = st.sampled_from(["Bad_Ref", "", "x" * 254])
GOOD_PRIORITIES = st.sampled_from(["", "high"])
BAD_PRIORITIES = st.sampled_from(["low", "Bad_Priority", "x" * 254])
PATHS = st.one_of(
    st.none(),
    st.sampled_from(["spec", "spec.roles[a]", "spec.replicaSpecs[Worker].scheduling"]),
)


@dataclasses.dataclass
class Draw:
    """One tree's drawing state: mostly valid choices when ``sound``, anything otherwise."""

    draw: st.DrawFn
    sound: bool
    priority: str
    budget: int = 24
    serial: int = 0

    def pick(self, good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> Any:
        if self.sound and self.draw(st.integers(min_value=0, max_value=59)):
            return self.draw(good)
        return self.draw(st.one_of(good, bad))

    def name(self) -> str:
        self.serial += 1
        base = self.pick(GOOD_NAMES, BAD_NAMES)
        good = ("worker", "ps", "driver", "launcher", "evaluator", "w")
        return f"{base}-{self.serial}" if self.sound and base in good else base

    def count(self) -> int | None:
        return self.pick(GOOD_COUNTS, BAD_COUNTS)  # type: ignore[no-any-return]

    def keys(self) -> list[str]:
        if self.sound:
            return self.draw(st.lists(GOOD_KEYS, max_size=1)) + self.pick(
                st.just([]), st.lists(BAD_KEYS, max_size=1)
            )
        return self.draw(st.lists(st.one_of(GOOD_KEYS, BAD_KEYS), max_size=2))

    def priority_name(self) -> str:
        return self.pick(st.just(self.priority), BAD_PRIORITIES)  # type: ignore[no-any-return]

    def claims(self) -> list[WorkloadPodGroupResourceClaim]:
        claims = []
        for i in range(self.draw(st.integers(min_value=0, max_value=5 if not self.sound else 2))):
            ref = self.pick(GOOD_REFS, BAD_REFS)
            both = self.pick(st.just(False), st.booleans())
            template = self.draw(st.booleans())
            claims.append(
                WorkloadPodGroupResourceClaim(
                    name=self.pick(st.just(f"claim-{i}"), st.sampled_from(["claim-0", "", "GPU"])),
                    resource_claim_name=ref if both or not template else None,
                    resource_claim_template_name=ref if both or template else None,
                )
            )
        return claims

    def leaf_policy(self) -> Any:
        kind = self.pick(
            st.sampled_from(["none", "basic", "gang", "block"]), st.sampled_from(["both", "empty"])
        )
        if kind == "none":
            return None
        if kind == "basic":
            return basic()
        if kind == "gang":
            return gang(self.count())
        if kind == "block":
            return WorkloadPodGroupSchedulingPolicy(
                gang=WorkloadPodGroupGangSchedulingPolicy(min_count=self.count())
            )
        if kind == "both":
            return WorkloadPodGroupSchedulingPolicy(
                basic=WorkloadPodGroupBasicSchedulingPolicy(),
                gang=WorkloadPodGroupGangSchedulingPolicy(min_count=self.count()),
            )
        return WorkloadPodGroupSchedulingPolicy()

    def composite_policy(self) -> Any:
        kind = self.pick(
            st.sampled_from(["none", "basic", "gang"]), st.sampled_from(["both", "empty"])
        )
        if kind == "none":
            return None
        if kind == "basic":
            return basic()
        if kind == "gang":
            return gang(min_group_count=self.count())
        if kind == "both":
            return WorkloadCompositePodGroupSchedulingPolicy(
                basic=WorkloadCompositePodGroupBasicSchedulingPolicy(),
                gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=self.count()),
            )
        return WorkloadCompositePodGroupSchedulingPolicy()

    def mode(self, policy: Any, *, is_composite: bool) -> Any:
        kind = self.pick(
            st.sampled_from(["none", "single", "all"]), st.sampled_from(["both", "empty"])
        )
        if kind == "all" and self.sound and isinstance(policy, SchedulingPolicy) and policy.basic:
            kind = self.pick(st.just("single"), st.just("all"))  # Basic + all is invalid
        if kind in ("none", "single", "all"):
            return None if kind == "none" else kind
        both = kind == "both"
        if is_composite:
            return WorkloadCompositePodGroupDisruptionMode(
                single=WorkloadCompositePodGroupSingleDisruptionMode() if both else None,
                all=WorkloadCompositePodGroupAllDisruptionMode() if both else None,
            )
        return WorkloadPodGroupDisruptionMode(
            single=WorkloadPodGroupSingleDisruptionMode() if both else None,
            all=WorkloadPodGroupAllDisruptionMode() if both else None,
        )

    def callbacks(self) -> tuple[Any, ...]:
        """Callbacks that return adjusted configs (as a controller's defaulting does)."""
        kind = self.draw(
            st.sampled_from(["none", "none", "count", "priority", "topology", "claims"])
        )
        if kind == "none":
            return ()
        if kind == "count":
            count = self.count()

            def set_count(config: SchedulingConfig) -> SchedulingConfig:
                policy = config.policy
                if policy is not None and policy.gang is not None and policy.gang.min_count is None:
                    return dataclasses.replace(
                        config, policy=SchedulingPolicy(gang=GangSchedulingPolicy(count))
                    )
                return config

            return (set_count,)
        if kind == "priority":
            name = self.priority_name()
            return (lambda config: dataclasses.replace(config, priority_class_name=name),)
        if kind == "topology":
            keys = tuple(self.keys())
            return (
                lambda config: dataclasses.replace(config, constraints=SchedulingConstraints(keys)),
            )
        claims = tuple(
            ResourceClaim(c.name, c.resource_claim_name, c.resource_claim_template_name)
            for c in self.claims()
        )
        return (lambda config: dataclasses.replace(config, resource_claims=claims),)

    def item(self, depth: int = 1) -> WorkloadItem:
        self.budget -= 1
        max_depth, max_children = (4, 8) if self.sound else (6, 10)
        n_children = 0
        if depth < max_depth and self.budget > 0 and self.draw(st.integers(0, 2)):
            n_children = self.draw(
                st.integers(min_value=1, max_value=min(max_children, self.budget))
            )
        children = [self.item(depth + 1) for _ in range(n_children)]
        name, path, priority = self.name(), self.draw(PATHS), self.priority_name()
        callbacks, topology = self.callbacks(), self.keys()
        if children:
            policy = self.composite_policy()
            return composite(
                name,
                children,
                path=path,
                policy=policy,
                disruption_mode=self.mode(policy, is_composite=True),
                topology=topology,
                priority_class_name=priority,
                callbacks=callbacks,
            )
        policy = self.leaf_policy()
        item = leaf(
            name,
            path=path,
            policy=policy,
            disruption_mode=self.mode(policy, is_composite=False),
            topology=topology,
            resource_claims=self.claims(),
            priority_class_name=priority,
            callbacks=callbacks,
        )
        if self.draw(st.booleans()):
            return item
        # A controller whose constraints live elsewhere, with a relocated field.
        return dataclasses.replace(
            item,
            input=dataclasses.replace(
                item.input,
                constraints=ConstraintsInput(
                    path_elements=("placement",),
                    field_paths={"topology": "spec.placement.keys"},
                    pod_group_data=item.input.constraints.pod_group_data,
                ),
            ),
        )


@st.composite
def trees(draw: st.DrawFn, sound: bool | None = None) -> WorkloadItem:
    """Arbitrary trees up to 6 levels deep with up to 10 children per item, about 24 items;
    ``sound`` trees make mostly valid choices (up to 4 levels, 8 children)."""
    if sound is None:
        sound = draw(st.booleans())
    return Draw(draw, sound, draw(GOOD_PRIORITIES)).item()


OPTIONS = st.builds(
    BuildOptions,
    name=st.sampled_from(["wl", "", "Bad_Name", "a" * 254]),
    namespace=st.just("ns"),
    owner=st.one_of(st.none(), st.just(job_owner())),
    allowed_policies=st.frozensets(st.sampled_from(list(SchedulingPolicyOption))),
    allowed_disruption_modes=st.frozensets(st.sampled_from(list(DisruptionModeOption))),
    disable_declarative_validation=st.booleans(),
    check_api_server_rules=st.booleans(),
)

PERMISSIVE = BuildOptions(
    name="wl",
    namespace="ns",
    owner=job_owner(),
    allowed_policies=ALL_POLICIES,
    allowed_disruption_modes=ALL_MODES,
)


@pytest.mark.slow
@SETTINGS
@given(root=st.one_of(st.none(), trees()), old=st.one_of(st.none(), trees()), options=OPTIONS)
def test_validate_never_raises(
    root: WorkloadItem | None, old: WorkloadItem | None, options: BuildOptions
) -> None:
    errors = Builder(root, options).validate(old_root=old)
    assert isinstance(errors, ErrorList)
    for err in errors:
        assert str(err).startswith(err.field + ": ")
        # The last-resort catch-all never answers a tree that is merely wrong.
        assert "unexpected validation failure" not in err.detail, err


@SETTINGS
@given(root=trees(), options=OPTIONS)
def test_build_returns_valid_objects_or_raises_build_error(
    root: WorkloadItem, options: BuildOptions
) -> None:
    builder = Builder(root, options)
    try:
        workload = builder.build_workload()  # checked by both oracles (conftest)
    except BuildError:
        return
    assert workload.metadata.owner_references == [options.owner]


@pytest.mark.slow
@SETTINGS
@given(root=trees())
def test_accepted_trees_build_and_stamp_valid_objects(root: WorkloadItem) -> None:
    builder = Builder(root, PERMISSIVE)
    if builder.validate():
        return
    workload = builder.build_workload()
    assert_conforms(workload)
    objects = instantiate(builder)
    assert len(objects) == sum(1 for _ in root.walk())
    for obj in objects:
        assert isinstance(obj, PodGroup | CompositePodGroup)
        assert_conforms(obj)


def test_sound_trees_are_mostly_accepted() -> None:
    """The generator reaches valid trees, so the property above is not vacuous."""
    outcomes: list[bool] = []

    @settings(max_examples=40, deadline=None, database=None, derandomize=True)
    @given(root=trees(sound=True))
    def record(root: WorkloadItem) -> None:
        outcomes.append(not Builder(root, PERMISSIVE).validate())

    record()
    assert sum(outcomes) >= len(outcomes) // 4, f"{sum(outcomes)} of {len(outcomes)} accepted"
