"""One client core: ``aio.Client`` holds the field manager, the retry policy, the discovery cache
and the counters; every helper takes it (or a bare ``ApiClient``) and is one of its methods."""

from __future__ import annotations

import inspect
import weakref
from collections import Counter
from typing import Any

import pytest
from apply_support import FLAVOURS, NS, SCHEDULING, apply_server, client_for, release_objects

from workloadbuilder import aio
from workloadbuilder.aio import preflight as preflight_module
from workloadbuilder.testing import FakeAPIServer

DISCOVERY = ["/apis/scheduling.k8s.io/v1alpha3", "/apis/scheduling.k8s.io/v1beta1"]


def _helpers() -> dict[str, Any]:
    """Every public coroutine of ``aio`` whose first parameter is the client."""
    found = {}
    for name in aio.__all__:
        obj = getattr(aio, name)
        if inspect.iscoroutinefunction(obj):
            first = next(iter(inspect.signature(obj).parameters))
            if first == "api_client":
                found[name] = obj
    return found


def _discovery(server: FakeAPIServer) -> list[str]:
    return sorted(r.path for r in server.requests if r.path in DISCOVERY)


def _managers(server: FakeAPIServer, plural: str, name: str) -> set[str]:
    version = "v1alpha3" if plural == "compositepodgroups" else "v1beta1"
    obj = server.get_object(SCHEDULING, version, plural, NS, name)
    assert obj is not None
    return {entry["manager"] for entry in obj["metadata"].get("managedFields", [])}


def test_every_helper_is_a_client_method_with_the_helpers_own_parameters() -> None:
    helpers = _helpers()
    assert {"apply", "preflight", "reconcile_job", "audit", "read_object"} <= set(helpers)
    client = aio.Client(object(), "ctl")
    for name, helper in helpers.items():
        expected = list(inspect.signature(helper).parameters.values())[1:]
        assert list(inspect.signature(getattr(client, name)).parameters.values()) == expected
        assert aio.Client.__dict__[name].__doc__ == helper.__doc__, name


def test_the_caches_live_on_the_core_not_in_the_module() -> None:
    kept = [
        k for k, v in vars(preflight_module).items() if isinstance(v, weakref.WeakKeyDictionary)
    ]
    assert kept == []


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_a_client_asks_discovery_once_for_all_its_calls_and_counts_the_wire(
    flavour: str,
) -> None:
    objects = release_objects()
    async with apply_server() as server, client_for(server, flavour) as api:
        client = aio.Client(api, "trainer-controller")
        await client.preflight(objects)
        await client.apply(objects)
        once = aio.RetryPolicy(attempts=1)
        await client.apply(objects, retry=once)  # another policy for one call, the same core
        assert _discovery(server) == DISCOVERY
        assert client.requests == len(server.requests)
        assert client.retries == 0
        server.faults.add(
            method="GET", path="/apis/scheduling.k8s.io/v1beta1", status=503, retry_after=0
        )
        other = aio.Client(api, "trainer-controller")  # a client of its own asks again
        await other.preflight(objects)
        assert _discovery(server) == sorted([*DISCOVERY, *DISCOVERY, DISCOVERY[1]])
        # discovery (one retried) and two dry-run creates that find the field gates on
        assert (other.requests, other.retries) == (5, 1)
        assert client.requests + other.requests == len(server.requests)


async def test_a_bare_api_client_keeps_one_core_across_helpers() -> None:
    objects = release_objects()
    async with apply_server() as server:
        async with client_for(server, "kubernetes_asyncio") as api:
            await aio.preflight(api, objects)
            await aio.apply(api, objects, field_manager="ctl")
            retry = aio.RetryPolicy(attempts=2)
            await aio.apply(api, objects, field_manager="ctl", retry=retry)
            assert _discovery(server) == DISCOVERY
        async with client_for(server, "kubernetes_asyncio") as fresh:
            await aio.preflight(fresh, objects)  # another ApiClient: another core
        assert _discovery(server) == sorted(DISCOVERY * 2)


async def test_the_clients_field_manager_writes_unless_a_call_names_another() -> None:
    workload, composite, workers, driver = release_objects()
    async with apply_server() as server, client_for(server, "kubernetes_asyncio") as api:
        client = aio.Client(api, "trainer-controller")
        assert client.field_manager == "trainer-controller"
        await client.apply([workload, composite, workers])
        await client.apply([driver], field_manager="someone-else")
        await client.resize(workers, 3)
        with pytest.raises(ValueError, match="field_manager is required"):
            await aio.apply(api, [driver])  # a bare ApiClient has no field manager of its own
    assert _managers(server, "workloads", workload.metadata.name) == {"trainer-controller"}
    assert _managers(server, "podgroups", driver.metadata.name) == {"someone-else"}
    # resize wrote as the client, not as its default manager ("workloadbuilder")
    assert _managers(server, "podgroups", workers.metadata.name) == {"trainer-controller"}
    resized = [
        r
        for r in server.requests
        if r.method == "PATCH" and r.content_type == "application/strategic-merge-patch+json"
    ]
    assert resized and {r.query.get("fieldManager") for r in resized} == {"trainer-controller"}


async def test_helpers_called_on_a_client_send_what_they_send_on_its_api_client() -> None:
    """The same calls, once through a bare ``ApiClient`` and once through a ``Client``, put
    the same requests on the wire and leave the same objects."""
    objects = release_objects()
    workers = objects[2]

    async def calls(target: Any, manager: dict[str, str]) -> None:
        await aio.preflight(target, objects)
        await aio.apply(target, objects, **manager)
        await aio.resize(target, workers, 3, **manager)
        await aio.diagnose(target, workers)
        await aio.audit(target, NS)
        await aio.delete(target, objects[0])

    seen = []
    for through_client in (False, True):
        async with apply_server() as server, client_for(server, "kubernetes_asyncio") as api:
            if through_client:
                await calls(aio.Client(api, "ctl"), {})
            else:
                await calls(api, {"field_manager": "ctl"})
            wire = Counter(
                (r.method, r.path, tuple(sorted(r.query.items())), r.content_type)
                for r in server.requests
            )
            left = sorted(
                (o["kind"], o["metadata"]["name"])
                for plural in ("workloads", "podgroups")
                for o in server.list_objects(SCHEDULING, "v1beta1", plural, NS)
            )
            seen.append((wire, left))
    assert seen[0] == seen[1]
    assert (
        seen[0][0][
            (
                "DELETE",
                f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NS}/workloads/"
                f"{objects[0].metadata.name}",
                (),
                "application/json",
            )
        ]
        == 1
    )


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_read_object_and_list_objects_give_what_the_server_holds(flavour: str) -> None:
    objects = release_objects()
    workload = objects[0]
    async with apply_server() as server, client_for(server, flavour) as api:
        client = aio.Client(api, "ctl")
        await client.apply(objects)
        read = await client.read_object("Workload", workload.metadata.name, namespace=NS)
        stored = server.get_object(SCHEDULING, "v1beta1", "workloads", NS, workload.metadata.name)
        assert read is not None and stored is not None
        assert (read["metadata"]["uid"], read["spec"]) == (
            stored["metadata"]["uid"],
            stored["spec"],
        )
        assert await aio.read_object(api, "PodGroup", "nothing-here", namespace=NS) is None
        listed = await aio.list_objects(api, "PodGroup", namespace=NS)
        held = server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        assert sorted(o["metadata"]["name"] for o in listed) == sorted(
            o["metadata"]["name"] for o in held
        )
        assert {(o["apiVersion"], o["kind"]) for o in listed} == {
            ("scheduling.k8s.io/v1beta1", "PodGroup")
        }
        sent = len(server.requests)
        with pytest.raises(ValueError, match="expected one of: Workload, PodGroup"):
            await aio.list_objects(api, "Pod", namespace=NS)  # type: ignore[arg-type]
        assert len(server.requests) == sent


@pytest.mark.fake_apiserver(feature_gates={"CompositePodGroup": False})
async def test_a_kind_not_served_lists_as_a_404(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.APIError) as caught:
            await aio.list_objects(api, "CompositePodGroup", namespace=NS)
        assert caught.value.status == 404
        assert await aio.read_object(api, "CompositePodGroup", "any", namespace=NS) is None


async def test_what_was_not_served_is_asked_again_what_was_is_not() -> None:
    objects = release_objects()
    async with apply_server() as server, client_for(server, "kubernetes_asyncio") as api:
        client = aio.Client(api, "ctl")
        server.faults.add(method="GET", path=DISCOVERY[0], status=404)
        with pytest.raises(aio.MissingAPIError):
            await client.preflight(objects)  # v1alpha3 "not served" this time
        await client.preflight(objects)  # asked again: the cluster may have been reconfigured
        await client.preflight(objects)  # now both are known: nothing is sent
    assert _discovery(server) == sorted([DISCOVERY[0], DISCOVERY[0], DISCOVERY[1]])


@pytest.mark.fake_apiserver(feature_gates={"WorkloadWithJob": False})
async def test_a_job_gate_found_off_is_probed_again(fake_apiserver: FakeAPIServer) -> None:
    pod = {"restartPolicy": "Never", "containers": [{"name": "main", "image": "trainer"}]}
    gang = {"schedulingPolicy": {"gang": {}}}
    spec = {"parallelism": 2, "scheduling": gang, "template": {"spec": pod}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "t", "namespace": NS}}
    job["spec"] = spec
    async with fake_apiserver.api_client() as api:
        client = aio.Client(api, "ctl")
        for _ in range(2):
            with pytest.raises(aio.MissingAPIError, match="WorkloadWithJob"):
                await client.preflight([job])
    probes = [r for r in fake_apiserver.requests if r.method == "POST"]
    assert [r.query.get("dryRun") for r in probes] == ["All", "All"]


async def test_a_client_without_a_policy_uses_the_one_current_at_each_call() -> None:
    objects = release_objects()
    async with apply_server() as server, client_for(server, "kubernetes_asyncio") as api:
        client = aio.Client(api, "ctl")
        await client.preflight(objects)
        server.faults.add(method="PATCH", status=503, retry_after=0, times=100)
        policy = aio.RetryPolicy(attempts=2, initial_wait=0, jitter=0)
        with aio.default_retry(policy), pytest.raises(aio.ApplyError) as caught:
            await client.apply(objects[:1])
        [error] = caught.value.failures.values()
        assert "after 2 attempts" in error.message
        assert [r.method for r in server.requests].count("PATCH") == 2
        assert client.retries == 1


async def test_a_clients_field_manager_and_policy_can_be_changed_not_emptied() -> None:
    with pytest.raises(ValueError, match="field_manager is required"):
        aio.Client(object(), "")
    objects = release_objects()
    async with apply_server() as server, client_for(server, "kubernetes_asyncio") as api:
        client = aio.Client(api, "first")
        client.field_manager = "second"
        client.retry = aio.RetryPolicy(attempts=1)
        with pytest.raises(ValueError, match="field_manager is required"):
            client.field_manager = ""
        await client.apply(objects[:1])
        server.faults.add(method="PATCH", status=503, retry_after=0)
        with pytest.raises(aio.ApplyError, match="after 1 attempts"):
            await client.apply(objects[:1])
    assert (client.field_manager, client.retries) == ("second", 0)
    assert _managers(server, "workloads", objects[0].metadata.name) == {"second"}
