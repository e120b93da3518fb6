"""The whole path a controller takes: SDK objects, server-side apply over real HTTP, the gang
scheduler's verdict. The server's rules are its own, so acceptance here is an independent
check that what the SDK emits is what a 1.37 API server accepts."""

from __future__ import annotations

from typing import Any

from kubernetes_asyncio import client

import workloadbuilder as wb
from workloadbuilder.testing import FakeAPIServer, GangSimulator

APPLY = "application/apply-patch+yaml"
NS = "ml-training"
PLURALS = {
    "Workload": "workloads",
    "PodGroup": "podgroups",
    "CompositePodGroup": "compositepodgroups",
}


async def apply(api: client.ApiClient, obj: wb.api.K8sModel) -> dict[str, Any]:
    """Server-side apply one SDK object; returns what the server stored."""
    body = obj.to_dict()
    group, version = body["apiVersion"].split("/")
    resp = await client.CustomObjectsApi(api).patch_namespaced_custom_object(
        group,
        version,
        NS,
        PLURALS[body["kind"]],
        body["metadata"]["name"],
        body,
        field_manager="trainer-controller",
        force=True,
        _content_type=APPLY,
        _preload_content=False,
    )
    stored: dict[str, Any] = await resp.json()
    return stored


def pod(name: str, group: wb.PodGroup) -> dict[str, Any]:
    member = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "containers": [
                {"name": "main", "image": "trainer", "resources": {"requests": {"cpu": "1"}}}
            ]
        },
    }
    return wb.set_scheduling_group(member, group)


OWNER = {
    "apiVersion": "training.example.com/v1",
    "kind": "TrainJob",
    "metadata": {"name": "resnet", "namespace": NS, "uid": "3f6c1a2e-0d1b-4c55"},
}
ALLOW_ALL = {
    "allowed_policies": frozenset(wb.SchedulingPolicyOption),
    "allowed_disruption_modes": frozenset(wb.DisruptionModeOption),
}


async def test_release_workload_is_accepted_and_gang_scheduled_as_a_whole() -> None:
    root = wb.composite(
        "workload-root",
        [
            wb.leaf("workers", policy=wb.gang(4), topology=["topology.example.com/rack"]),
            wb.leaf("driver", policy=wb.gang(1)),
        ],
        policy=wb.gang(min_group_count=2),
        topology=["topology.kubernetes.io/zone"],
        disruption_mode="all",
    )
    builder = wb.Builder(
        root,
        wb.BuildOptions(
            name=wb.generate_workload_name("resnet", OWNER["metadata"]["uid"]),
            namespace=NS,
            owner=wb.controller_ref(OWNER),
            **ALLOW_ALL,
        ),
    )
    assert not builder.validate()
    objects = [builder.build_workload(), *wb.instantiate(builder)]

    async with FakeAPIServer() as server:
        async with server.api_client() as api:
            await client.CoreV1Api(api).create_namespace({"metadata": {"name": NS}})
            stored = [await apply(api, obj) for obj in objects]
            groups = {o.metadata.name: o for o in objects if isinstance(o, wb.PodGroup)}
            core = client.CoreV1Api(api)
            for group_name, group in groups.items():
                size = group.spec.scheduling_policy.gang.min_count  # type: ignore[union-attr]
                for i in range(size):
                    await core.create_namespaced_pod(NS, pod(f"{group_name}-{i}", group))
        assert [s["kind"] for s in stored] == [o.kind for o in objects]

        simulator = GangSimulator(server)
        await simulator.step()

        pods = server.list_objects("", "v1", "pods", NS)
        assert len(pods) == 5
        assert all(p["spec"].get("nodeName") for p in pods)
        zone_of = {n.name: n.labels["topology.kubernetes.io/zone"] for n in simulator.nodes}
        assert len({zone_of[p["spec"]["nodeName"]] for p in pods}) == 1  # the root's zone
        root_group = server.list_objects("scheduling.k8s.io", "v1alpha3", "compositepodgroups", NS)[
            0
        ]
        condition = root_group["status"]["conditions"][0]
        assert (condition["type"], condition["status"]) == (
            "CompositePodGroupInitiallyScheduled",
            "True",
        )


async def test_job_objects_are_accepted_and_the_gang_waits_for_its_members() -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "trainer", "namespace": NS, "uid": "6b1f-77"},
        "spec": {
            "parallelism": 4,
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {"spec": {"containers": [{"name": "main", "image": "trainer"}]}},
        },
    }
    builder = wb.job_builder(job)
    assert not builder.validate()
    async with FakeAPIServer() as server:
        async with server.api_client() as api:
            await client.CoreV1Api(api).create_namespace({"metadata": {"name": NS}})
            workload = await apply(api, builder.build_workload())
            group = wb.job_pod_group(builder, workload_uid=workload["metadata"]["uid"])
            stored = await apply(api, group)
            assert stored["spec"]["schedulingPolicy"] == {"gang": {"minCount": 4}}
            core = client.CoreV1Api(api)
            for i in range(3):
                await core.create_namespaced_pod(NS, pod(f"trainer-{i}", group))
            simulator = GangSimulator(server)
            await simulator.step()
            assert not any(
                p["spec"].get("nodeName") for p in server.list_objects("", "v1", "pods", NS)
            )
            await core.create_namespaced_pod(NS, pod("trainer-3", group))
            await simulator.step()
        assert all(p["spec"].get("nodeName") for p in server.list_objects("", "v1", "pods", NS))
