"""apply(): the release's composite Workload and its runtime objects, through both clients."""

from __future__ import annotations

import pytest
from apply_support import FLAVOURS, NS, OWNER, SCHEDULING, apply_server, client_for, release_objects

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_release_applied_then_reapplied_without_change(flavour: str) -> None:
    objects = release_objects()
    async with apply_server() as server, client_for(server, flavour) as api:
        applied = await aio.apply(api, objects, field_manager="trainer-controller")
        assert [type(o) for o in applied] == [type(o) for o in objects]
        assert [o.metadata.name for o in applied] == [o.metadata.name for o in objects]
        assert all(o.metadata.uid for o in applied)  # the server's objects, not ours

        # Dependency order on the wire: Workload, then the composite root, then the leaves.
        patches = [r for r in server.requests if r.method == "PATCH"]
        kinds = [r.path.split("/")[-2] for r in patches]
        assert kinds == ["workloads", "compositepodgroups", "podgroups", "podgroups"]
        assert all(r.content_type == "application/apply-patch+yaml" for r in patches)
        assert all(r.query["fieldManager"] == "trainer-controller" for r in patches)
        assert all("force" not in r.query for r in patches)

        rv = server.resource_version
        again = await aio.apply(api, objects, field_manager="trainer-controller")
        assert server.resource_version == rv  # nothing persisted
        assert [o.metadata.resource_version for o in again] == [
            o.metadata.resource_version for o in applied
        ]

        root = objects[1].metadata.name
        workload = server.get_object(
            SCHEDULING, "v1beta1", "workloads", NS, objects[0].metadata.name
        )
        groups = server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        composites = server.list_objects(SCHEDULING, "v1alpha3", "compositepodgroups", NS)
    assert workload is not None
    assert workload["spec"]["controllerRef"] == {
        "apiGroup": "training.example.com",
        "kind": "TrainJob",
        "name": "resnet",
    }
    owner_ref = {
        "apiVersion": OWNER["apiVersion"],
        "kind": OWNER["kind"],
        "name": "resnet",
        "uid": OWNER["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    for obj in [workload, *groups, *composites]:
        assert obj["metadata"]["ownerReferences"] == [owner_ref]
        assert [m["manager"] for m in obj["metadata"]["managedFields"]] == ["trainer-controller"]
        # Workloads, PodGroups and CompositePodGroups keep no generation (1.37's strategies)
        assert "generation" not in obj["metadata"]
    assert [c["metadata"]["name"] for c in composites] == [root]
    assert "parentCompositePodGroupName" not in composites[0]["spec"]
    assert sorted(g["spec"]["parentCompositePodGroupName"] for g in groups) == [root, root]
    assert {g["spec"]["workloadRef"]["templateName"] for g in groups} == {"workers", "driver"}


async def test_returns_sdk_models_of_what_the_server_holds(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        applied = await aio.apply(api, release_objects(), field_manager="ctl")
    pod_group = next(o for o in applied if isinstance(o, wb.PodGroup))
    stored = fake_apiserver.get_object(
        SCHEDULING, "v1beta1", "podgroups", NS, pod_group.metadata.name or ""
    )
    assert stored is not None
    assert pod_group.to_dict() == wb.PodGroup.from_server(stored).to_dict()


async def test_dry_run_persists_nothing(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        applied = await aio.apply(api, release_objects(), field_manager="ctl", dry_run=True)
    assert len(applied) == 4
    assert fake_apiserver.list_objects(SCHEDULING, "v1beta1", "podgroups", NS) == []
    assert all(
        r.query.get("dryRun") == "All" for r in fake_apiserver.requests if r.method == "PATCH"
    )


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_errors_and_retries_read_the_same_through_both_clients(flavour: str) -> None:
    bad = release_objects()[2].to_dict()
    bad["spec"]["schedulingPolicy"]["gang"]["minCount"] = -1
    async with apply_server() as server, client_for(server, flavour) as api:
        client = aio.Client(api, "trainer-controller")
        assert repr(client) == "Client(field_manager='trainer-controller')"
        server.faults.add(method="PATCH", status=429, retry_after=0)
        with pytest.raises(aio.ApplyError) as caught:
            await client.apply([bad])
        [error] = caught.value.failures.values()
        assert isinstance(error, aio.InvalidObjectError)
        assert [e.field for e in error.errors] == ["spec.schedulingPolicy.gang.minCount"]
        assert [r.method for r in server.requests if r.method == "PATCH"] == ["PATCH", "PATCH"]
