"""Generated objects against both oracles, in both directions, and the strategies' own promises."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import (
    all_model_classes,
    assert_conforms,
    assert_schema_valid,
    class_info,
    official_dump,
    official_model_for,
    to_official,
    wire_dump,
)
from property_bound import bounded
from strategies import (
    MAX_PRIORITY,
    MAX_RESOURCE_CLAIMS,
    MAX_TEMPLATES,
    MAX_TREE_DEPTH,
    building_blocks,
    composite_pod_groups,
    dns_labels,
    dns_subdomains,
    instances_of,
    job_scheduling_configurations,
    label_keys,
    pod_groups,
    workloads,
)

from workloadbuilder.api import K8sModel, scheduling_v1beta1

MAIN = settings(
    max_examples=bounded(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
PER_CLASS = settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)

MAIN_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "pod-group-v1beta1": pod_groups(),
    "pod-group-v1alpha3": pod_groups(version="v1alpha3"),
    "composite-pod-group": composite_pod_groups(),
    "workload-v1beta1": workloads(),
    "workload-v1alpha3": workloads(version="v1alpha3"),
    "job-scheduling": job_scheduling_configurations(),
    "building-block": building_blocks(),
}


def _check_both_directions(obj: K8sModel) -> None:
    assert_conforms(obj)
    doc = obj.to_dict()
    assert yaml.safe_load(obj.to_yaml()) == doc
    info = class_info(type(obj))
    for definition in info.definitions or class_info(info.counterpart or type(obj)).definitions:
        if official_model_for(definition) is None:
            continue
        official = to_official(obj, definition)
        assert official_dump(official) == doc
        sent = wire_dump(official)
        assert_schema_valid(sent, definition)
        assert type(obj).model_validate(sent).to_dict() == doc


@pytest.mark.parametrize("name", list(MAIN_STRATEGIES))
def test_generated_objects_conform_both_ways(name: str) -> None:
    @MAIN
    @given(MAIN_STRATEGIES[name])
    def check(obj: K8sModel) -> None:
        _check_both_directions(obj)

    check()


@pytest.mark.slow
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(workloads(max_templates=MAX_TEMPLATES, max_children=3))
def test_generated_wide_workloads_conform_both_ways(workload: scheduling_v1beta1.Workload) -> None:
    _check_both_directions(workload)


@pytest.mark.parametrize("cls", list(all_model_classes()), ids=lambda c: c.__name__)
def test_generated_instances_of_every_class_conform(cls: type[K8sModel]) -> None:
    @PER_CLASS
    @given(instances_of(cls))
    def check(obj: K8sModel) -> None:
        assert type(obj) is cls
        _check_both_directions(obj)

    check()


# --------------------------------------------------------------------------- the strategies

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")


@settings(max_examples=bounded(100), deadline=None, database=None)
@given(dns_labels(), dns_subdomains(), label_keys())
def test_name_strategies_respect_the_formats(label: str, subdomain: str, key: str) -> None:
    assert DNS_LABEL.match(label) and len(label) <= 63
    assert DNS_SUBDOMAIN.match(subdomain) and len(subdomain) <= 253
    prefix, _, name = key.rpartition("/")
    assert LABEL_NAME.match(name) and len(name) <= 63
    assert not prefix or (DNS_SUBDOMAIN.match(prefix) and len(prefix) <= 253)


def _templates(spec: Any, depth: int = 1) -> Iterator[tuple[int, Any, bool]]:
    for template in spec.pod_group_templates or ():
        yield depth, template, False
    for template in spec.composite_pod_group_templates or ():
        yield depth, template, True
        yield from _templates(template, depth + 1)


def _lists(spec: Any) -> Iterator[list[Any]]:
    for name in ("pod_group_templates", "composite_pod_group_templates"):
        yield getattr(spec, name) or []
    for template in spec.composite_pod_group_templates or ():
        yield from _lists(template)


@MAIN
@given(st.one_of(workloads(), workloads(max_templates=MAX_TEMPLATES, max_children=3)))
def test_workload_strategy_respects_the_api_servers_tree_rules(
    workload: scheduling_v1beta1.Workload,
) -> None:
    spec = workload.spec
    assert (spec.pod_group_templates is None) != (spec.composite_pod_group_templates is None)
    templates = list(_templates(spec))
    assert all(len(items) <= MAX_TEMPLATES for items in _lists(spec))
    assert max(depth for depth, _, _ in templates) <= MAX_TREE_DEPTH
    assert all(depth < MAX_TREE_DEPTH for depth, _, composite in templates if composite)
    names = [t.name for _, t, _ in templates]
    assert len(names) == len(set(names)) and all(DNS_LABEL.match(n) for n in names)
    assert len({(t.priority_class_name, t.priority) for _, t, _ in templates}) == 1
    for _, template, composite in templates:
        assert len((template.scheduling_constraints or _NoTopology).topology or ()) <= 1
        if template.priority is not None:
            assert template.priority <= MAX_PRIORITY
        if composite:
            assert template.pod_group_templates or template.composite_pod_group_templates
            if template.scheduling_policy.gang is not None:
                assert template.scheduling_policy.gang.min_group_count >= 1
        else:
            claims = [c.name for c in template.resource_claims or ()]
            assert len(claims) <= MAX_RESOURCE_CLAIMS and len(claims) == len(set(claims))
            if template.scheduling_policy.gang is not None:
                assert template.scheduling_policy.gang.min_count >= 1


class _NoTopology:
    topology = None


@MAIN
@given(pod_groups())
def test_pod_group_strategy_respects_the_api_servers_rules(
    pod_group: scheduling_v1beta1.PodGroup,
) -> None:
    spec = pod_group.spec
    claims = [c.name for c in spec.resource_claims or ()]
    assert len(claims) <= MAX_RESOURCE_CLAIMS and len(claims) == len(set(claims))
    for claim in spec.resource_claims or ():
        assert (claim.resource_claim_name is None) != (claim.resource_claim_template_name is None)
    statuses = pod_group.status.resource_claim_statuses if pod_group.status else None
    assert {s.name for s in statuses or ()} <= set(claims)
    if spec.parent_composite_pod_group_name is not None:
        assert spec.workload_ref is not None
    if spec.scheduling_policy.gang is not None:
        assert spec.scheduling_policy.gang.min_count >= 1
