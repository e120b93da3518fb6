"""audit over real HTTP: a namespace seeded with one of each problem, and a clean one built
with the SDK and applied with ``aio.apply``."""

from __future__ import annotations

from typing import Any

from kubernetes.aio.client import ApiClient as OfficialApiClient
from kubernetes.aio.client import Configuration as OfficialConfiguration

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.aio import FindingKind, Severity
from workloadbuilder.testing import FakeAPIServer

from .seed import NS, SCHEDULING, composite, namespace

V1BETA1, V1ALPHA3 = "v1beta1", "v1alpha3"


def create(server: FakeAPIServer, version: str, plural: str, obj: dict[str, Any]) -> None:
    obj.setdefault("metadata", {})["namespace"] = NS
    group = "" if plural == "pods" else "batch" if plural == "jobs" else SCHEDULING
    server.create_object(group, version, plural, obj)


def workload(server: FakeAPIServer, name: str, **spec: Any) -> None:
    create(server, V1BETA1, "workloads", {"metadata": {"name": name}, "spec": spec})


def group(server: FakeAPIServer, name: str, min_count: int = 1, **spec: Any) -> None:
    body = {
        "schedulingPolicy": {"gang": {"minCount": min_count}},
        "workloadRef": {"workloadName": "wl", "templateName": "t"},
        **spec,
    }
    create(server, V1BETA1, "podgroups", {"metadata": {"name": name}, "spec": body})


def member(server: FakeAPIServer, name: str, group_name: str, cpu: str = "1", **extra: Any) -> None:
    meta = {"name": name, **extra.pop("metadata", {})}
    spec = {
        "schedulingGroup": {"podGroupName": group_name},
        "containers": [{"name": "m", "image": "x", "resources": {"requests": {"cpu": cpu}}}],
        **extra,
    }
    create(server, "v1", "pods", {"metadata": meta, "spec": spec})


def seed_problems(server: FakeAPIServer) -> None:
    namespace(server)
    leaf = {"name": "t", "schedulingPolicy": {"gang": {"minCount": 1}}}
    workload(server, "wl", podGroupTemplates=[leaf])
    workload(
        server,
        "cwl",
        compositePodGroupTemplates=[
            {
                "name": "greedy",
                "schedulingPolicy": {"gang": {"minGroupCount": 3}},
                "podGroupTemplates": [{**leaf, "name": "leaf"}],
            }
        ],
    )
    # a pod naming a PodGroup that does not exist
    member(server, "orphan", "nope")
    # fewer members created than minCount
    group(server, "short", 3)
    member(server, "short-0", "short")
    # members with different schedulerName, priority class and preemption policy
    group(server, "mixed", 2)
    priority_class = {"metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"}
    server.create_object(SCHEDULING, "v1", "priorityclasses", priority_class)
    member(server, "mixed-0", "mixed")
    member(
        server,
        "mixed-1",
        "mixed",
        schedulerName="other-scheduler",
        priorityClassName="high",
        preemptionPolicy="Never",
    )
    # members whose resource requests differ (a warning)
    group(server, "uneven", 2)
    member(server, "uneven-0", "uneven", cpu="1")
    member(server, "uneven-1", "uneven", cpu="2")
    # a pod claim that does not match its group's claim
    group(server, "claims", resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "gpu"}])
    member(server, "claims-0", "claims", resourceClaims=[{"name": "gpu", "resourceClaimName": "c"}])
    # a missing Workload (deleted after its group), a missing template, a missing parent
    workload(server, "gone", podGroupTemplates=[leaf])
    group(server, "lost-wl", workloadRef={"workloadName": "gone", "templateName": "t"})
    server.delete_object(SCHEDULING, V1BETA1, "workloads", NS, "gone")
    member(server, "lost-wl-0", "lost-wl")
    group(server, "lost-tpl", workloadRef={"workloadName": "wl", "templateName": "nope"})
    member(server, "lost-tpl-0", "lost-tpl")
    group(server, "lost-parent", parentCompositePodGroupName="no-parent")
    member(server, "lost-parent-0", "lost-parent")
    # a Workload whose controllerRef names a missing object
    workload(
        server,
        "abandoned",
        podGroupTemplates=[leaf],
        controllerRef={"apiGroup": "batch", "kind": "Job", "name": "gone"},
    )
    # a pod grouped twice: a native PodGroup and scheduler-plugins' label
    group(server, "twice")
    member(server, "twice-0", "twice", metadata={"labels": {"scheduling.x-k8s.io/pod-group": "x"}})
    # a composite whose minGroupCount exceeds its number of children
    composite(server, "greedy", 3, workload="cwl")
    group(
        server,
        "greedy-leaf",
        parentCompositePodGroupName="greedy",
        workloadRef={"workloadName": "cwl", "templateName": "leaf"},
    )
    member(server, "greedy-leaf-0", "greedy-leaf")


EXPECTED = [
    ("CompositePodGroup", "greedy", FindingKind.MIN_GROUP_COUNT_TOO_HIGH, Severity.ERROR),
    ("Pod", "claims-0", FindingKind.CLAIM_MISMATCH, Severity.ERROR),
    ("Pod", "orphan", FindingKind.MISSING_POD_GROUP, Severity.ERROR),
    ("Pod", "twice-0", FindingKind.GROUPED_TWICE, Severity.ERROR),
    ("PodGroup", "lost-parent", FindingKind.MISSING_PARENT, Severity.ERROR),
    ("PodGroup", "lost-tpl", FindingKind.MISSING_TEMPLATE, Severity.ERROR),
    ("PodGroup", "lost-wl", FindingKind.MISSING_WORKLOAD, Severity.ERROR),
    ("PodGroup", "mixed", FindingKind.INCONSISTENT_MEMBERS, Severity.ERROR),
    ("PodGroup", "mixed", FindingKind.INCONSISTENT_MEMBERS, Severity.ERROR),
    ("PodGroup", "mixed", FindingKind.INCONSISTENT_MEMBERS, Severity.ERROR),
    ("PodGroup", "short", FindingKind.TOO_FEW_MEMBERS, Severity.ERROR),
    ("PodGroup", "uneven", FindingKind.UNEVEN_REQUESTS, Severity.WARNING),
    ("Workload", "abandoned", FindingKind.MISSING_CONTROLLER, Severity.ERROR),
]


async def test_finds_one_of_each_problem() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        seed_problems(server)
        findings = await aio.audit(api, NS)
    got = [(f.object.kind, f.object.name, f.kind, f.severity) for f in findings]
    assert got == EXPECTED
    assert all(f.object.namespace == NS and f.message and f.action for f in findings)
    by_kind = {f.kind: f for f in findings}
    assert "'nope'" in by_kind[FindingKind.MISSING_POD_GROUP].message
    assert "scheduling.x-k8s.io/pod-group" in by_kind[FindingKind.GROUPED_TWICE].message
    assert "'gone'" in by_kind[FindingKind.MISSING_CONTROLLER].message
    mixed = sorted(f.message for f in findings if f.kind is FindingKind.INCONSISTENT_MEMBERS)
    assert [m.split(" (")[0] for m in mixed] == [
        "members differ in spec.preemptionPolicy",
        "members differ in spec.priorityClassName",
        "members differ in spec.schedulerName",
    ]
    assert "'other-scheduler': mixed-1" in mixed[2]


async def test_every_other_group_system_is_recognised() -> None:
    markers = {
        "volcano": ({}, {"scheduling.k8s.io/group-name": "pg"}),
        "volcano-sh": ({}, {"scheduling.volcano.sh/group-name": "pg"}),
        "kai": ({}, {"pod-group-name": "pg"}),
        "kueue": ({"kueue.x-k8s.io/pod-group-name": "pg"}, {}),
        "plugins": ({"scheduling.x-k8s.io/pod-group": "pg"}, {}),
    }
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        workload(server, "wl", podGroupTemplates=[{"name": "t", "schedulingPolicy": {"basic": {}}}])
        group(server, "g", schedulingPolicy={"basic": {}})
        for name, (labels, annotations) in markers.items():
            member(server, name, "g", metadata={"labels": labels, "annotations": annotations})
        findings = await aio.audit(api, NS)
    assert sorted(f.object.name for f in findings) == sorted(markers)
    assert {f.kind for f in findings} == {FindingKind.GROUPED_TWICE}


JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "trainer", "namespace": NS},
    "spec": {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": "x"}]}
        }
    },
}


async def test_a_clean_namespace_has_no_findings() -> None:
    async with FakeAPIServer() as server, server.api_client() as api:
        namespace(server)
        stored_job = server.create_object("batch", "v1", "jobs", JOB)
        root = wb.composite(
            "root",
            [
                wb.leaf(
                    "workers",
                    policy=wb.gang(2),
                    resource_claims=[wb.ResourceClaim("gpu", resource_claim_template_name="gpu")],
                ),
                wb.leaf("driver", policy=wb.gang(1)),
            ],
            policy=wb.gang(min_group_count=2),
        )
        options = wb.BuildOptions(
            name="trainer-wl",
            namespace=NS,
            owner=wb.controller_ref(stored_job),
            allowed_policies=frozenset(wb.SchedulingPolicyOption),
            allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
        )
        builder = wb.Builder(root, options)
        objects = [builder.build_workload(), *wb.instantiate(builder)]
        await aio.apply(api, objects, field_manager="trainer")
        groups = {
            o.spec.workload_ref.template_name: o
            for o in objects
            if isinstance(o, wb.PodGroup) and o.spec.workload_ref is not None
        }
        for i, (template, cpu) in enumerate([("workers", "2"), ("workers", "2"), ("driver", "1")]):
            spec: dict[str, Any] = {
                "containers": [{"name": "m", "image": "x", "resources": {"requests": {"cpu": cpu}}}]
            }
            if template == "workers":
                spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]
            pod = {"metadata": {"name": f"{template}-{i}", "namespace": NS}, "spec": spec}
            server.create_object("", "v1", "pods", wb.set_scheduling_group(pod, groups[template]))
        assert await aio.audit(api, NS) == []
        async with OfficialApiClient(OfficialConfiguration(host=server.url)) as official:
            assert await aio.audit(official, NS) == []


async def test_an_empty_namespace_and_unserved_kinds() -> None:
    async with FakeAPIServer(feature_gates={"CompositePodGroup": False}) as server:
        namespace(server)
        async with server.api_client() as api:
            assert await aio.audit(api, NS) == []
