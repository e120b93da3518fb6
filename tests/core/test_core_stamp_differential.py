"""Stamping from each template's JSON serialised once gives what stamping gave before.

The reference below is the previous stamping, written out: every object from its template's
``to_dict()``, the owner's ``to_dict()``, validated, then the parent assigned (as
``instantiate()`` did). Same objects (equal, same JSON, same fields set), same errors.
"""

from __future__ import annotations

from typing import Any

from core_support import job_owner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from test_core_properties import PERMISSIVE, trees

from workloadbuilder import (
    Builder,
    BuildError,
    CompositePodGroup,
    PodGroup,
    WorkloadItem,
    composite,
    gang,
    generate_pod_group_name,
    instantiate,
    leaf,
)
from workloadbuilder._gorender import go_quote
from workloadbuilder._stampjson import COMPOSITE_SPEC_FIELDS, POD_GROUP_SPEC_FIELDS
from workloadbuilder.api import K8sModel
from workloadbuilder.api.scheduling_v1beta1 import CompositePodGroupTemplate, PodGroupTemplate

_UNSET = object()


def _templates(builder: Builder) -> tuple[dict[str, Any], dict[str, Any]]:
    leaves: dict[str, PodGroupTemplate] = {}
    composites: dict[str, CompositePodGroupTemplate] = {}
    spec = builder.workload().spec
    for t in spec.pod_group_templates or ():
        leaves[t.name] = t
    stack = list(spec.composite_pod_group_templates or ())
    order = []
    while stack:
        c = stack.pop(0)
        order.append(c)
        stack[:0] = c.composite_pod_group_templates or []
    for c in order:
        composites[c.name] = c
    for c in order:
        for t in c.pod_group_templates or ():
            leaves[t.name] = t
    return leaves, composites


def previous_stamp(
    builder: Builder, name: str, template_name: str, *, leaf: bool, parent: Any = _UNSET
) -> K8sModel:
    workload = builder.workload()
    leaves, composites = _templates(builder)
    templates = leaves if leaf else composites
    template = templates.get(template_name)
    if template is None:
        what = "podGroupTemplate" if leaf else "compositePodGroupTemplate"
        raise BuildError(
            f"{what} {go_quote(template_name)} not found in workload"
            f" {go_quote(workload.metadata.name or '')} (have [{' '.join(templates)}])"
        )
    source = template.to_dict()
    spec = {"workloadRef": {"workloadName": workload.metadata.name, "templateName": template.name}}
    fields = POD_GROUP_SPEC_FIELDS if leaf else COMPOSITE_SPEC_FIELDS  # what upstream copies
    spec.update((key, source[key]) for key in fields if key in source)
    metadata: dict[str, Any] = {"name": name, "namespace": workload.metadata.namespace}
    if builder.options.owner is not None:
        metadata["ownerReferences"] = [builder.options.owner.to_dict()]
    model = PodGroup if leaf else CompositePodGroup
    obj: Any = model.model_validate({"metadata": metadata, "spec": spec})
    if parent is not _UNSET:
        obj.spec.parent_composite_pod_group_name = parent
    return obj  # type: ignore[no-any-return]


def previous_instantiate(builder: Builder) -> list[K8sModel]:
    workload = builder.workload()
    wl = workload.metadata.name or ""
    out = [
        previous_stamp(builder, generate_pod_group_name(wl, t.name), t.name, leaf=True)
        for t in workload.spec.pod_group_templates or ()
    ]

    def walk(template: CompositePodGroupTemplate, parent: str | None) -> None:
        own = generate_pod_group_name(wl, template.name)
        out.append(previous_stamp(builder, own, template.name, leaf=False, parent=parent))
        for t in template.pod_group_templates or ():
            name = generate_pod_group_name(wl, t.name)
            out.append(previous_stamp(builder, name, t.name, leaf=True, parent=own))
        for child in template.composite_pod_group_templates or ():
            walk(child, own)

    for root in workload.spec.composite_pod_group_templates or ():
        walk(root, None)
    return out


def fields_set(model: Any) -> Any:
    if isinstance(model, K8sModel):
        return (
            type(model).__name__,
            sorted(model.model_fields_set),
            {k: fields_set(getattr(model, k)) for k in sorted(model.model_fields_set)},
        )
    if isinstance(model, list):
        return [fields_set(v) for v in model]
    return None


def assert_same(ours: list[K8sModel], previous: list[K8sModel]) -> None:
    assert [type(o) for o in ours] == [type(p) for p in previous]
    assert ours == previous
    assert [o.to_dict() for o in ours] == [p.to_dict() for p in previous]
    assert [fields_set(o) for o in ours] == [fields_set(p) for p in previous]


@settings(
    max_examples=bounded(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(root=trees(sound=True), names=st.lists(st.text(max_size=8), max_size=3))
def test_stamping_equals_the_previous_stamping(root: WorkloadItem, names: list[str]) -> None:
    builder = Builder(root, PERMISSIVE)
    if builder.validate():
        return
    builder.build_workload()
    reference = Builder(root, PERMISSIVE)
    reference.build_workload()
    assert_same(instantiate(builder), previous_instantiate(reference))
    leaves, composites = _templates(reference)
    for name in names:  # stamping by name, known or not, again and again
        for template_name in [*leaves, *composites, name]:
            for is_leaf in (True, False):
                outcomes = []
                for b in (builder, reference):
                    stamp = b.new_pod_group if is_leaf else b.new_composite_pod_group
                    try:
                        outcomes.append(
                            stamp(name or "x", template_name)
                            if b is builder
                            else previous_stamp(b, name or "x", template_name, leaf=is_leaf)
                        )
                    except BuildError as exc:
                        outcomes.append(str(exc))
                if isinstance(outcomes[0], str):
                    assert outcomes[0] == outcomes[1]
                else:
                    assert_same([outcomes[0]], [outcomes[1]])


def test_a_changed_stamped_object_changes_nothing_else() -> None:
    builder = Builder(
        composite(
            "root", [leaf("w", policy=gang(2), topology=["zone"])], policy=gang(min_group_count=1)
        ),
        PERMISSIVE,
    )
    builder.build_workload()
    first = builder.new_pod_group("a", "w")
    assert first.spec.scheduling_constraints is not None
    first.spec.scheduling_constraints.topology.append(first.spec.scheduling_constraints.topology[0])
    first.metadata.owner_references[0].name = "changed"  # type: ignore[index]
    second = builder.new_pod_group("b", "w")
    assert second.to_dict()["spec"]["schedulingConstraints"] == {"topology": [{"key": "zone"}]}
    assert second.metadata.owner_references == [job_owner()]
