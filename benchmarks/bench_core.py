"""Benchmark: validate + build + stamp, against writing the same JSON by hand as plain dicts.

Run: ``python -m benchmarks.bench_core [--repeats N] [--release-number N] [--wide-number N]``

Two workloads:

(a) the release's Workload: composite ``workload-root`` (gang minGroupCount 2, zone topology,
    disruption ``all``) over ``workers`` (gang 4, rack topology) and ``driver`` (gang 1),
    with its 1 CompositePodGroup and 2 PodGroups;
(b) the widest tree ``validate()`` accepts with four levels of shape root composite -> 8
    composites -> 8 composites each -> 8 leaves each (three composite levels above the
    leaves is the deepest the API server accepts; 8 is the per-list cap): 73
    CompositePodGroups and 512 PodGroups.

For each, the SDK path builds the item tree, validates it, compiles the Workload and stamps
every runtime object (``instantiate``), then serializes every object to its JSON dict
(``to_dict()``). The rows a controller lives on come first: it builds the item tree anew from
its object on every reconcile (the first row times that too; the second times a new equal tree
made beforehand, outside the timing). An equal tree found clean before is found by value
(``workloadbuilder/_reuse.py``: ``tree_value``, ``seen_equal``), and with it what that tree
keeps (per value of the options: the verdict, the compiled Workload and what its releases are
made of). The third row validates the same tree object on every call. For the release tree, a
fourth row makes the items and their blocks from the custom resource's JSON (``model_validate``
of each block, new objects each time), as a controller that embeds the v1alpha3 blocks does;
the shorthands instead share one frozen block per value.
The baseline is hand-written functions producing the same JSON dicts (same names, same
fields), with no checking at all; names come from the same naming helper on both sides. The
ratio is SDK / baseline, medians of interleaved samples (``benchmarks/_harness.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks._harness import Case, Row, arguments, measure, print_table
from workloadbuilder import (
    Builder,
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
    WorkloadInput,
    WorkloadItem,
    composite,
    gang,
    generate_pod_group_name,
    instantiate,
    leaf,
)
from workloadbuilder.item import standard_input
from workloadbuilder.mapconfig import COMPOSITE, LEAF, ItemKind

OWNER = {
    "apiVersion": "training.example.com/v1",
    "kind": "TrainJob",
    "name": "resnet",
    "uid": "3f6c1a2e-0d1b-4c55",
    "controller": True,
    "blockOwnerDeletion": True,
}
OPTIONS = BuildOptions(
    name="resnet-wl",
    namespace="ml-training",
    owner=OWNER,
    allowed_policies=frozenset(SchedulingPolicyOption),
    allowed_disruption_modes=frozenset(DisruptionModeOption),
)
ZONE, RACK = "topology.kubernetes.io/zone", "topology.example.com/rack"
WIDTH = 8


# ----------------------------------------------------------------------------- the SDK path


def release_tree() -> WorkloadItem:
    return composite(
        "workload-root",
        [leaf("workers", policy=gang(4), topology=[RACK]), leaf("driver", policy=gang(1))],
        policy=gang(min_group_count=2),
        topology=[ZONE],
        disruption_mode="all",
    )


def wide_tree() -> WorkloadItem:
    return composite(
        "root",
        [
            composite(
                f"g{i}",
                [
                    composite(
                        f"g{i}-{j}",
                        [leaf(f"g{i}-{j}-w{k}", policy=gang(k + 1)) for k in range(WIDTH)],
                        policy=gang(min_group_count=WIDTH),
                    )
                    for j in range(WIDTH)
                ],
                policy=gang(min_group_count=WIDTH),
            )
            for i in range(WIDTH)
        ],
        policy=gang(min_group_count=WIDTH),
    )


# The release tree as a controller's custom resource holds it: the v1alpha3 blocks as JSON.
RELEASE_SPEC: dict[str, Any] = {
    "schedulingPolicy": {"gang": {"minGroupCount": 2}},
    "schedulingConstraints": {"topology": [{"key": ZONE}]},
    "disruptionMode": {"all": {}},
    "roles": {
        "workers": {
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topology": [{"key": RACK}]},
        },
        "driver": {"schedulingPolicy": {"gang": {"minCount": 1}}},
    },
}


def _blocks(kind: ItemKind, spec: dict[str, Any]) -> WorkloadInput:
    """The item's blocks parsed from its JSON (new objects, as each reconcile reads them)."""
    policy, constraints, mode = (
        spec.get("schedulingPolicy"),
        spec.get("schedulingConstraints"),
        spec.get("disruptionMode"),
    )
    return standard_input(
        kind,
        None if policy is None else kind.policy.model_validate(policy),
        None if constraints is None else kind.constraints.model_validate(constraints),
        None if mode is None else kind.mode.model_validate(mode),
    )


def release_tree_from_spec() -> WorkloadItem:
    """``release_tree()`` as a controller makes it from ``RELEASE_SPEC`` on every reconcile."""
    roles = [
        WorkloadItem(name, input=_blocks(LEAF, role))
        for name, role in RELEASE_SPEC["roles"].items()
    ]
    return WorkloadItem("workload-root", input=_blocks(COMPOSITE, RELEASE_SPEC), children=roles)


def sdk(make_tree: Callable[[], WorkloadItem]) -> list[Any]:
    builder = Builder(make_tree(), OPTIONS)
    errors = builder.validate()
    if errors:
        raise AssertionError(str(errors))
    return [builder.build_workload(), *instantiate(builder)]


def sdk_to_dict(make_tree: Callable[[], WorkloadItem]) -> list[dict[str, Any]]:
    return [obj.to_dict() for obj in sdk(make_tree)]


# ------------------------------------------------------------------------ the dict baseline


def _meta(name: str) -> dict[str, Any]:
    return {"name": name, "namespace": "ml-training", "ownerReferences": [dict(OWNER)]}


def _workload(templates: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": _meta("resnet-wl"),
        "spec": {
            "controllerRef": {
                "apiGroup": "training.example.com",
                "kind": "TrainJob",
                "name": "resnet",
            },
            **templates,
        },
    }


def _group(kind: str, template: dict[str, Any], parent: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "workloadRef": {"workloadName": "resnet-wl", "templateName": template["name"]}
    }
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    for key in ("schedulingPolicy", "schedulingConstraints", "disruptionMode"):
        if key in template:
            spec[key] = template[key]
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha3"
        if kind == "CompositePodGroup"
        else "scheduling.k8s.io/v1beta1",
        "kind": kind,
        "metadata": _meta(generate_pod_group_name("resnet-wl", template["name"])),
        "spec": spec,
    }


def _stamp(template: dict[str, Any], parent: str | None) -> list[dict[str, Any]]:
    group = _group("CompositePodGroup", template, parent)
    own = group["metadata"]["name"]
    out = [group]
    for child in template.get("podGroupTemplates", ()):
        out.append(_group("PodGroup", child, own))
    for child in template.get("compositePodGroupTemplates", ()):
        out.extend(_stamp(child, own))
    return out


def release_dicts() -> list[dict[str, Any]]:
    root = {
        "name": "workload-root",
        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
        "schedulingConstraints": {"topology": [{"key": ZONE}]},
        "disruptionMode": {"all": {}},
        "podGroupTemplates": [
            {
                "name": "workers",
                "schedulingPolicy": {"gang": {"minCount": 4}},
                "schedulingConstraints": {"topology": [{"key": RACK}]},
            },
            {"name": "driver", "schedulingPolicy": {"gang": {"minCount": 1}}},
        ],
    }
    return [_workload({"compositePodGroupTemplates": [root]}), *_stamp(root, None)]


def wide_dicts() -> list[dict[str, Any]]:
    def gang_of(count: int) -> dict[str, Any]:
        return {"gang": {"minGroupCount": count}}

    root = {
        "name": "root",
        "schedulingPolicy": gang_of(WIDTH),
        "compositePodGroupTemplates": [
            {
                "name": f"g{i}",
                "schedulingPolicy": gang_of(WIDTH),
                "compositePodGroupTemplates": [
                    {
                        "name": f"g{i}-{j}",
                        "schedulingPolicy": gang_of(WIDTH),
                        "podGroupTemplates": [
                            {
                                "name": f"g{i}-{j}-w{k}",
                                "schedulingPolicy": {"gang": {"minCount": k + 1}},
                            }
                            for k in range(WIDTH)
                        ],
                    }
                    for j in range(WIDTH)
                ],
            }
            for i in range(WIDTH)
        ],
    }
    return [_workload({"compositePodGroupTemplates": [root]}), *_stamp(root, None)]


# ------------------------------------------------------------------------------- measuring


def _same_json(left: list[dict[str, Any]], right: list[dict[str, Any]]) -> bool:
    key = lambda d: (d["kind"], d["metadata"]["name"])  # noqa: E731
    return sorted(left, key=key) == sorted(right, key=key)


def _phases(make_tree: Callable[[], WorkloadItem], repeats: int, number: int) -> str:
    """Where the SDK's time goes: the items, validate(), build_workload() alone, both on one
    Builder (as a reconcile runs them: they share the tree check and the resolutions, and a
    validated tree's build trusts its JSON), stamping, to_dict() of every object."""
    tree = make_tree()

    def validated() -> Builder:
        builder = Builder(tree, OPTIONS)
        builder.validate()
        return builder

    def built() -> Builder:
        builder = validated()
        builder.build_workload()
        return builder

    ready = built()
    objects = [ready.build_workload(), *instantiate(ready)]
    times = measure(
        [
            Case("items", make_tree, number),
            Case("validate", validated, number),
            Case("build", lambda: Builder(tree, OPTIONS).build_workload(), number),
            Case("validate+build", built, number),
            Case("stamp", lambda: instantiate(ready), number),
            Case("to_dict", lambda: [o.to_dict() for o in objects], number),
        ],
        repeats=repeats,
    )
    return ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in times.items())


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], release_number=200, wide_number=3)
    cases = [
        ("release Workload (1 composite + 2 leaves)", release_tree, release_dicts, "release"),
        ("widest 4-level tree (73 composites, 512 leaves)", wide_tree, wide_dicts, "wide"),
    ]
    rows, notes = [], []
    for label, make_tree, make_dicts, key in cases:
        number = getattr(args, f"{key}_number")
        objects = sdk_to_dict(make_tree)
        assert _same_json(objects, make_dicts()), f"{label}: the SDK and the dicts differ"
        assert len(objects) == len(make_dicts())
        tree = make_tree()
        # New equal trees made beforehand, one per call: nothing found earlier is kept with
        # their items (WorkloadItem.derived()), as when a controller rebuilds its tree.
        fresh = iter([make_tree() for _ in range(args.repeats * number + 1)])
        times = measure(
            [
                Case("dicts", make_dicts, number),
                Case("sdk", lambda t=tree: sdk_to_dict(lambda: t), number),  # type: ignore[misc]
                Case("sdk+new", lambda f=fresh: sdk_to_dict(lambda: next(f)), number),  # type: ignore[misc]
                Case("sdk+items", lambda m=make_tree: sdk_to_dict(m), number),  # type: ignore[misc]
            ],
            repeats=args.repeats,
        )
        rows.append(
            Row(
                f"{label}: validate + build + stamp + to_dict(), the item tree built each time",
                "hand-written dicts",
                times["dicts"],
                times["sdk+items"],
                target=3,
            )
        )
        rows.append(
            Row(
                f"{label}: validate + build + stamp + to_dict(), a new equal tree each time"
                " (made beforehand)",
                "hand-written dicts",
                times["dicts"],
                times["sdk+new"],
                target=3,
            )
        )
        rows.append(
            Row(
                f"{label}: validate + build + stamp + to_dict(), the same tree object again",
                "hand-written dicts",
                times["dicts"],
                times["sdk"],
                target=3,
            )
        )
        if key == "release":
            parsed = measure(
                [
                    Case("dicts", make_dicts, number),
                    Case("sdk+parsed", lambda: sdk_to_dict(release_tree_from_spec), number),
                ],
                repeats=args.repeats,
            )
            rows.append(
                Row(
                    f"{label}: the same, the items and blocks made from the resource's JSON"
                    " each time",
                    "hand-written dicts",
                    parsed["dicts"],
                    parsed["sdk+parsed"],
                )
            )
        notes.append(f"{key} SDK phases: {_phases(make_tree, args.repeats, number)}")
    print_table(
        "validate + build + stamp + to_dict(), per reconcile",
        rows,
        note="\n".join(notes),
    )


if __name__ == "__main__":
    main()
