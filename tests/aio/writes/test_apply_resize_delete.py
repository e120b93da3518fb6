"""resize() of an elastic gang, checked by the gang simulator; delete(), children first."""

from __future__ import annotations

from typing import Any

import pytest
from apply_support import ALLOW_ALL, NS, OWNER, SCHEDULING, apply_server, release_objects

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode


def elastic_builder(min_count: int = 4) -> wb.Builder:
    return wb.Builder(
        wb.leaf("workers", policy=wb.gang(min_count)),
        wb.BuildOptions(
            name="resnet-wl", namespace=NS, owner=wb.controller_ref(OWNER), **ALLOW_ALL
        ),
    )


def big_pod(name: str, group: wb.PodGroup) -> dict[str, Any]:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "containers": [{"name": "main", "image": "t", "resources": {"requests": {"cpu": "5"}}}]
        },
    }
    return wb.set_scheduling_group(pod, group)


async def test_resize_4_to_3_lets_the_4_created_3_fit_group_schedule() -> None:
    builder = elastic_builder(4)
    workload, group = builder.build_workload(), *wb.instantiate(builder)
    assert isinstance(group, wb.PodGroup)
    nodes = [SimNode(f"node-{i}", {"cpu": "8", "memory": "32Gi", "pods": "110"}) for i in range(3)]
    async with apply_server() as server, server.api_client() as api:
        await aio.apply(api, [workload, group], field_manager="trainer")
        for i in range(4):
            server.create_object("", "v1", "pods", big_pod(f"w-{i}", group))
        simulator = GangSimulator(server, nodes)
        first = await simulator.step()
        assert not first.bound and len(first.pending) == 4  # 4 created, only 3 fit

        resized = await aio.resize(api, group, 3, field_manager="trainer")
        assert resized.spec.scheduling_policy.gang.min_count == 3  # type: ignore[union-attr]
        second = await simulator.step()
        assert len(second.bound) == 3

        stored_wl = server.get_object(SCHEDULING, "v1beta1", "workloads", NS, "resnet-wl")
        assert stored_wl is not None
        [template] = stored_wl["spec"]["podGroupTemplates"]
        assert template["schedulingPolicy"] == {"gang": {"minCount": 3}}
        # The Workload's template first, then the PodGroup; nothing else.
        patches = [
            r for r in server.requests if r.method == "PATCH" and "strategic" in r.content_type
        ]
        assert [r.path.split("/")[-2] for r in patches] == ["workloads", "podgroups"]
        assert patches[1].json() == {"spec": {"schedulingPolicy": {"gang": {"minCount": 3}}}}

        before = len(server.requests)
        await aio.resize(api, group.metadata.name or "", 3, namespace=NS)
        assert [r.method for r in server.requests[before:]] == ["GET", "GET"]  # nothing to do


async def test_resize_reaches_a_template_nested_in_a_composite() -> None:
    objects = release_objects()
    workers = next(
        o
        for o in objects
        if isinstance(o, wb.PodGroup) and o.spec.workload_ref.template_name == "workers"  # type: ignore[union-attr]
    )
    async with apply_server() as server, server.api_client() as api:
        await aio.apply(api, objects, field_manager="ctl")
        await aio.resize(api, workers, 2)
        wl = server.get_object(SCHEDULING, "v1beta1", "workloads", NS, objects[0].metadata.name)
    assert wl is not None
    [root] = wl["spec"]["compositePodGroupTemplates"]
    by_name = {t["name"]: t for t in root["podGroupTemplates"]}
    assert by_name["workers"]["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert by_name["driver"]["schedulingPolicy"] == {"gang": {"minCount": 1}}
    assert by_name["workers"]["schedulingConstraints"]  # the rest of the template is kept


@pytest.mark.parametrize(
    ("count", "error", "text"),
    [
        (0, ValueError, "between 1 and 2147483647"),
        (2**31, ValueError, "between 1 and 2147483647"),
        (True, TypeError, "must be an int"),
        ("3", TypeError, "must be an int"),
    ],
)
async def test_resize_refuses_bad_counts_before_any_request(
    fake_apiserver: FakeAPIServer, count: Any, error: type[Exception], text: str
) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(error, match=text):
            await aio.resize(api, "pg", count, namespace=NS)
    assert fake_apiserver.requests == []


async def test_resize_refuses_basic_groups_and_composites(fake_apiserver: FakeAPIServer) -> None:
    basic = wb.PodGroup.model_validate(
        {"metadata": {"name": "b", "namespace": NS}, "spec": {"schedulingPolicy": {"basic": {}}}}
    )
    composite = release_objects()[1]
    async with fake_apiserver.api_client() as api:
        await aio.apply(api, [basic], field_manager="ctl")
        with pytest.raises(ValueError, match="basic policy: resize changes only"):
            await aio.resize(api, basic, 2)
        with pytest.raises(ValueError, match="CompositePodGroup's schedulingPolicy is immutable"):
            await aio.resize(api, composite, 2)
    assert not [
        r for r in fake_apiserver.requests if r.method == "PATCH" and "strategic" in r.content_type
    ]


async def test_delete_a_workload_removes_children_first_and_is_idempotent() -> None:
    objects = release_objects()
    workload = objects[0]
    other = wb.PodGroup.model_validate(
        {
            "metadata": {"name": "unrelated", "namespace": NS},
            "spec": {"schedulingPolicy": {"basic": {}}},
        }
    )
    async with apply_server() as server, server.api_client() as api:
        await aio.apply(api, [*objects, other], field_manager="ctl")
        deleted = await aio.delete(api, workload)
        assert [r.kind for r in deleted] == [
            "PodGroup",
            "PodGroup",
            "CompositePodGroup",
            "Workload",
        ]
        deletes = [r.path.split("/")[-2] for r in server.requests if r.method == "DELETE"]
        assert deletes == ["podgroups", "podgroups", "compositepodgroups", "workloads"]
        assert [
            g["metadata"]["name"]
            for g in server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        ] == ["unrelated"]
        assert server.list_objects(SCHEDULING, "v1beta1", "workloads", NS) == []
        assert await aio.delete(api, workload) == []
        assert await aio.delete(api, objects) == []


async def test_delete_given_objects_goes_in_reverse_apply_order(
    fake_apiserver: FakeAPIServer,
) -> None:
    objects = release_objects()
    async with fake_apiserver.api_client() as api:
        await aio.apply(api, objects, field_manager="ctl")
        deleted = await aio.delete(api, list(reversed(objects[:2])) + objects[2:])
    assert [r.kind for r in deleted] == ["PodGroup", "PodGroup", "CompositePodGroup", "Workload"]
    assert fake_apiserver.list_objects(SCHEDULING, "v1alpha3", "compositepodgroups", NS) == []
