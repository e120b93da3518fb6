"""Upstream parity: the cases of the Go library's ``TestBuilderValidate`` table.

Each case gives the exact rendered errors of the upstream layers alone
(``check_api_server_rules=False``: declarative validation, allow-lists, the Basic + ``all``
rule, the tree check) and, where they differ, of the default options, which also report what
the API server would reject.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest
from core_support import ALL_MODES, ALL_POLICIES, job_owner, rendered

from workloadbuilder import (
    Builder,
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
)
from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadCompositePodGroupBasicSchedulingPolicy,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupAllDisruptionMode,
    WorkloadPodGroupBasicSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
    WorkloadPodGroupSingleDisruptionMode,
)
from workloadbuilder.field import ErrorType, FieldPath
from workloadbuilder.item import (
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)

SCHEDULING = FieldPath("spec", "scheduling")
# Upstream reports an item without a Path at a nil path ("<nil>"), a block of it without path
# elements there too; we report it at its template in the compiled Workload, a block at the
# template's field (docs/builder.md, "Differences from upstream").
NO_PATH = "spec.podGroupTemplates[0]"
BASIC, GANG = SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG
SINGLE, ALL = DisruptionModeOption.SINGLE, DisruptionModeOption.ALL


def gang_data(count: int | None) -> WorkloadPodGroupSchedulingPolicy:
    return WorkloadPodGroupSchedulingPolicy(
        gang=WorkloadPodGroupGangSchedulingPolicy(min_count=count)
    )


def composite_gang_data(count: int | None) -> WorkloadCompositePodGroupSchedulingPolicy:
    return WorkloadCompositePodGroupSchedulingPolicy(
        gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=count)
    )


def gang() -> PolicyInput:
    return PolicyInput(pod_group_data=gang_data(2))


def basic() -> PolicyInput:
    return PolicyInput(
        pod_group_data=WorkloadPodGroupSchedulingPolicy(
            basic=WorkloadPodGroupBasicSchedulingPolicy()
        )
    )


def composite_gang() -> PolicyInput:
    return PolicyInput(composite_pod_group_data=composite_gang_data(2))


def composite_basic() -> PolicyInput:
    return PolicyInput(
        composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
            basic=WorkloadCompositePodGroupBasicSchedulingPolicy()
        )
    )


def single_disruption() -> DisruptionModeInput:
    return DisruptionModeInput(
        pod_group_data=WorkloadPodGroupDisruptionMode(single=WorkloadPodGroupSingleDisruptionMode())
    )


def all_disruption() -> DisruptionModeInput:
    return DisruptionModeInput(
        pod_group_data=WorkloadPodGroupDisruptionMode(all=WorkloadPodGroupAllDisruptionMode())
    )


def with_gang(
    name: str,
    count: int,
    *,
    path: FieldPath | None = None,
    children: tuple[WorkloadItem, ...] = (),
) -> WorkloadItem:
    """Upstream's ``newWorkloadItem(name, withGang(count))``: the block at schedulingPolicy."""
    policy = PolicyInput(path_elements=("schedulingPolicy",), pod_group_data=gang_data(count))
    return WorkloadItem(name, path=path, input=WorkloadInput(policy=policy), children=children)


def composite_root(given: WorkloadInput) -> WorkloadItem:
    """Upstream's ``compositeRoot``: "root" over a valid gang leaf "child", both at SCHEDULING."""
    return WorkloadItem(
        "root",
        path=SCHEDULING,
        input=given,
        children=(with_gang("child", 2, path=SCHEDULING),),
    )


@dataclass(frozen=True)
class Case:
    name: str
    root: WorkloadItem | None
    want: list[str]
    types: list[ErrorType] = field(default_factory=list)
    old_root: WorkloadItem | None = None
    policies: frozenset[SchedulingPolicyOption] = ALL_POLICIES
    modes: frozenset[DisruptionModeOption] = ALL_MODES
    disable_dv: bool = False
    want_with_api_server_rules: list[str] | None = None
    """The errors with the default options, when they differ from upstream's."""


MIN_COUNT_0 = "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"  # noqa: E501

CASES = [
    Case(
        "nil tree fails to compile",
        None,
        ["<nil>: Invalid value: null: invalid builder: missing root WorkloadItem"],
        [ErrorType.INVALID],
    ),
    Case("basic allowed", WorkloadItem("job", input=WorkloadInput(policy=basic())), []),
    Case(
        "empty item name is rejected",
        WorkloadItem("", path=SCHEDULING, input=WorkloadInput(policy=basic())),
        ["spec.scheduling: Internal error: workload item name cannot be empty"],
        [ErrorType.INTERNAL],
    ),
    Case(
        "basic forbidden when not allow-listed",
        WorkloadItem("job", input=WorkloadInput(policy=basic())),
        [
            f"{NO_PATH}.schedulingPolicy: Forbidden: basic scheduling policy is not supported"
            " by this controller"
        ],
        [ErrorType.FORBIDDEN],
        policies=frozenset({GANG}),
    ),
    Case(
        "gang allowed",
        WorkloadItem("job", input=WorkloadInput(policy=gang())),
        [],
        policies=frozenset({GANG}),
    ),
    Case(
        "gang forbidden when not allow-listed",
        WorkloadItem("job", input=WorkloadInput(policy=gang())),
        [
            f"{NO_PATH}.schedulingPolicy: Forbidden: gang scheduling policy is not supported"
            " by this controller"
        ],
        [ErrorType.FORBIDDEN],
        policies=frozenset({BASIC}),
    ),
    Case(
        "single disruption allowed",
        WorkloadItem(
            "job", input=WorkloadInput(policy=gang(), disruption_mode=single_disruption())
        ),
        [],
        modes=frozenset({SINGLE}),
    ),
    Case(
        "all disruption forbidden when not allow-listed",
        WorkloadItem("job", input=WorkloadInput(policy=gang(), disruption_mode=all_disruption())),
        [
            f"{NO_PATH}.disruptionMode: Forbidden: the disruptionMode `all` is not supported"
            " by this controller"
        ],
        [ErrorType.FORBIDDEN],
        modes=frozenset({SINGLE}),
    ),
    Case(
        "basic with all disruption is rejected by cross-field rule",
        WorkloadItem("job", input=WorkloadInput(policy=basic(), disruption_mode=all_disruption())),
        [
            f'{NO_PATH}.disruptionMode: Invalid value: "": the disruptionMode `all` is not'
            " supported with the Basic scheduling policy"
        ],
        [ErrorType.INVALID],
    ),
    Case(
        "gang with all disruption is valid",
        WorkloadItem("job", input=WorkloadInput(policy=gang(), disruption_mode=all_disruption())),
        [],
    ),
    Case(
        "gang minCount below minimum fails declarative validation at injected path",
        with_gang("job", 0, path=SCHEDULING),
        [MIN_COUNT_0],
        [ErrorType.INVALID],
    ),
    Case(
        # Upstream: "nil item Path reports building-block errors without a root prefix".
        "an item without a path reports building-block errors below its template",
        with_gang("job", 0),
        [
            f"{NO_PATH}.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater"
            " than or equal to 1"
        ],
        [ErrorType.INVALID],
    ),
    Case(
        "declarative validation is skipped when disabled",
        with_gang("job", 0, path=SCHEDULING),
        [],
        disable_dv=True,
        # The API server's own rule on the compiled template is not declarative validation.
        want_with_api_server_rules=[MIN_COUNT_0],
    ),
    Case(
        "disruptionMode with single and all fails union declarative validation",
        WorkloadItem(
            "job",
            path=SCHEDULING,
            input=WorkloadInput(
                policy=gang(),
                disruption_mode=DisruptionModeInput(
                    path_elements=("disruptionMode",),
                    pod_group_data=WorkloadPodGroupDisruptionMode(
                        single=WorkloadPodGroupSingleDisruptionMode(),
                        all=WorkloadPodGroupAllDisruptionMode(),
                    ),
                ),
            ),
        ),
        [
            'spec.scheduling.disruptionMode: Invalid value: "{single, all}": must specify'
            " exactly one of: `single`, `all`"
        ],
        [ErrorType.INVALID],
    ),
    Case(
        "too many topology constraints fails declarative validation",
        WorkloadItem(
            "job",
            path=SCHEDULING,
            input=WorkloadInput(
                policy=gang(),
                constraints=ConstraintsInput(
                    path_elements=("schedulingConstraints",),
                    pod_group_data=WorkloadPodGroupSchedulingConstraints(
                        topology=[TopologyConstraint(key="zone"), TopologyConstraint(key="rack")]
                    ),
                ),
            ),
        ),
        ["spec.scheduling.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
        [ErrorType.TOO_MANY],
    ),
    Case(
        "resourceClaim with no source fails union declarative validation at indexed path",
        WorkloadItem(
            "job",
            path=SCHEDULING,
            input=WorkloadInput(
                policy=gang(),
                resource_claims=ResourceClaimsInput(
                    path_elements=("resourceClaims",),
                    pod_group_data=(WorkloadPodGroupResourceClaim(name="claim0"),),
                ),
            ),
        ),
        [
            'spec.scheduling.resourceClaims[0]: Invalid value: "": must specify one of:'
            " `resourceClaimName`, `resourceClaimTemplateName`"
        ],
        [ErrorType.INVALID],
    ),
    Case(
        "composite gang allowed",
        composite_root(WorkloadInput(policy=composite_gang())),
        [],
        policies=frozenset({GANG}),
        # with every rule on too: one child template may stamp several child groups, so
        # minGroupCount 2 over it is valid (upstream's want, and no count was declared)
    ),
    Case(
        "composite basic forbidden when not allow-listed",
        composite_root(WorkloadInput(policy=composite_basic())),
        ["spec.scheduling: Forbidden: basic scheduling policy is not supported by this controller"],
        [ErrorType.FORBIDDEN],
        policies=frozenset({GANG}),
    ),
    Case(
        "composite gang minGroupCount below minimum fails declarative validation at injected path",
        composite_root(
            WorkloadInput(
                policy=PolicyInput(
                    path_elements=("schedulingPolicy",),
                    composite_pod_group_data=composite_gang_data(0),
                )
            )
        ),
        [
            "spec.scheduling.schedulingPolicy.gang.minGroupCount: Invalid value: 0: must be"
            " greater than or equal to 1"
        ],
        [ErrorType.INVALID],
    ),
    Case(
        "composite policy with basic and gang fails union declarative validation",
        composite_root(
            WorkloadInput(
                policy=PolicyInput(
                    path_elements=("schedulingPolicy",),
                    composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
                        basic=WorkloadCompositePodGroupBasicSchedulingPolicy(),
                        gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2),
                    ),
                )
            )
        ),
        [
            'spec.scheduling.schedulingPolicy: Invalid value: "{basic, gang}": must specify'
            " exactly one of: `basic`, `gang`"
        ],
        [ErrorType.INVALID],
    ),
    Case(
        "composite policy set with a leaf policy fails the input union",
        composite_root(
            WorkloadInput(
                policy=PolicyInput(
                    path_elements=("schedulingPolicy",),
                    composite_pod_group_data=composite_gang_data(2),
                    pod_group_data=gang_data(2),
                )
            )
        ),
        [
            'spec.scheduling: Internal error: composite workload item "root" sets leaf building'
            " block: policy"
        ],
        [ErrorType.INTERNAL],
    ),
    Case(
        "composite policy set with a leaf disruptionMode fails the input union",
        composite_root(
            WorkloadInput(
                policy=PolicyInput(
                    path_elements=("schedulingPolicy",),
                    composite_pod_group_data=composite_gang_data(2),
                ),
                disruption_mode=single_disruption(),
            )
        ),
        [
            'spec.scheduling: Internal error: composite workload item "root" sets leaf building'
            " block: disruptionMode"
        ],
        [ErrorType.INTERNAL],
    ),
    Case(
        "input union is enforced even when declarative validation is disabled",
        composite_root(
            WorkloadInput(
                policy=PolicyInput(
                    path_elements=("schedulingPolicy",),
                    composite_pod_group_data=composite_gang_data(2),
                    pod_group_data=gang_data(2),
                )
            )
        ),
        [
            'spec.scheduling: Internal error: composite workload item "root" sets leaf building'
            " block: policy"
        ],
        [ErrorType.INTERNAL],
        disable_dv=True,
    ),
    Case(
        "invalid leaf child in a composite tree is validated recursively",
        WorkloadItem(
            "root",
            path=SCHEDULING,
            input=WorkloadInput(policy=composite_basic()),
            children=(with_gang("child", 0, path=SCHEDULING),),
        ),
        [MIN_COUNT_0],
        [ErrorType.INVALID],
    ),
    Case(
        "update with matching root name is accepted",
        WorkloadItem("job", input=WorkloadInput(policy=gang())),
        [],
        old_root=WorkloadItem("job", input=WorkloadInput(policy=gang())),
    ),
    Case(
        "update with mismatched root name is an internal error",
        WorkloadItem("job", path=SCHEDULING, input=WorkloadInput(policy=gang())),
        [
            'spec.scheduling: Internal error: old root name "stale-job" does not match new root'
            ' name "job"'
        ],
        [ErrorType.INTERNAL],
        old_root=WorkloadItem("stale-job", input=WorkloadInput(policy=gang())),
    ),
    Case(
        "update clearing policy skips declarative validation for the new nil policy",
        WorkloadItem("job", input=WorkloadInput()),
        [],
        old_root=WorkloadItem("job", input=WorkloadInput(policy=gang())),
    ),
    Case(
        "update clearing constraints skips declarative validation for the new nil constraints",
        WorkloadItem("job", input=WorkloadInput(policy=gang())),
        [],
        old_root=WorkloadItem(
            "job",
            input=WorkloadInput(
                policy=gang(),
                constraints=ConstraintsInput(
                    pod_group_data=WorkloadPodGroupSchedulingConstraints(
                        topology=[TopologyConstraint(key="zone")]
                    )
                ),
            ),
        ),
    ),
    Case(
        "update clearing disruptionMode skips declarative validation for the new nil mode",
        WorkloadItem("job", input=WorkloadInput(policy=gang())),
        [],
        old_root=WorkloadItem(
            "job", input=WorkloadInput(policy=gang(), disruption_mode=single_disruption())
        ),
    ),
    Case(
        "update of an unchanged child at the same position is ratcheted",
        WorkloadItem("root", children=(with_gang("leaf", 0),)),
        [],
        old_root=WorkloadItem("root", children=(with_gang("leaf", 0),)),
    ),
    Case(
        "update of a child that changed position is validated as an addition",
        WorkloadItem("root", path=SCHEDULING, children=(with_gang("leaf", 0, path=SCHEDULING),)),
        [MIN_COUNT_0],
        [ErrorType.INVALID],
        old_root=WorkloadItem(
            "root", children=(WorkloadItem("mid", children=(with_gang("leaf", 0),)),)
        ),
    ),
]


def _options(case: Case, *, api_server_rules: bool) -> BuildOptions:
    return BuildOptions(
        owner=job_owner(),
        allowed_policies=case.policies,
        allowed_disruption_modes=case.modes,
        disable_declarative_validation=case.disable_dv,
        check_api_server_rules=api_server_rules,
        check_satisfiable_counts=api_server_rules,  # upstream's layers alone, or every rule
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_upstream_layers(case: Case) -> None:
    errors = Builder(case.root, _options(case, api_server_rules=False)).validate(case.old_root)
    assert rendered(errors) == case.want
    assert [e.type for e in errors] == case.types


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_default_options(case: Case) -> None:
    errors = Builder(case.root, _options(case, api_server_rules=True)).validate(case.old_root)
    want = case.want if case.want_with_api_server_rules is None else case.want_with_api_server_rules
    assert rendered(errors) == want


def test_error_fields() -> None:
    """The structured fields behind one rendering: type, field, bad value, detail."""
    [err] = Builder(
        with_gang("job", 0, path=SCHEDULING), _options(CASES[0], api_server_rules=True)
    ).validate()
    assert err.type is ErrorType.INVALID
    assert err.field == "spec.scheduling.schedulingPolicy.gang.minCount"
    assert err.bad_value == 0
    assert err.detail == "must be greater than or equal to 1"


def test_case_table_is_upstreams() -> None:
    """Every upstream case name is ported (31 rows in TestBuilderValidate)."""
    assert len(CASES) == 31
    assert len({c.name for c in CASES}) == len(CASES)


def test_disabled_declarative_validation_keeps_the_tree_check_and_the_server_rules() -> None:
    """With the blocks' own checks off, the tree check and the API server's rules still run."""
    both_modes = DisruptionModeInput(
        path_elements=("disruptionMode",),
        pod_group_data=WorkloadPodGroupDisruptionMode(
            single=WorkloadPodGroupSingleDisruptionMode(), all=WorkloadPodGroupAllDisruptionMode()
        ),
    )
    bad_key = ConstraintsInput(
        path_elements=("schedulingConstraints",),
        pod_group_data=WorkloadPodGroupSchedulingConstraints(topology=[TopologyConstraint(key="")]),
    )
    item = WorkloadItem(
        "job",
        path=SCHEDULING,
        input=WorkloadInput(policy=gang(), disruption_mode=both_modes, constraints=bad_key),
    )
    options = BuildOptions(
        owner=job_owner(),
        allowed_policies=ALL_POLICIES,
        allowed_disruption_modes=ALL_MODES,
        disable_declarative_validation=True,
    )
    assert rendered(Builder(item, options).validate()) == [
        "spec.scheduling.schedulingConstraints.topology[0].key: Required value"
    ]
    upstream_only = dataclasses.replace(options, check_api_server_rules=False)
    assert Builder(item, upstream_only).validate() == []
    twice = WorkloadItem("root", path=SCHEDULING, children=(item, item))
    for opts in (options, upstream_only):
        assert rendered(Builder(twice, opts).validate()) == [
            'spec.scheduling: Internal error: duplicate workload item name "job": template names'
            " must be unique across the Workload"
        ]
