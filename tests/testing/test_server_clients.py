"""The Python Kubernetes clients work unchanged against FakeAPIServer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from server_helpers import SCHED, bounded, pod_group

from workloadbuilder.testing import FakeAPIServer


@bounded(30)
async def test_kubernetes_asyncio(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes_asyncio import client, watch
    from kubernetes_asyncio.client.rest import ApiException

    async with fake_apiserver.api_client() as api:
        co = client.CustomObjectsApi(api)
        args = (SCHED, "v1beta1", "default", "podgroups")
        created = await co.create_namespaced_custom_object(*args, pod_group("a"))
        assert "generation" not in created["metadata"]  # as the PodGroup strategy
        got = await co.get_namespaced_custom_object(*args, "a")
        assert got["metadata"]["uid"] == created["metadata"]["uid"]
        # a 201 apply: CustomObjectsApi would return None, so read the raw response
        resp = await co.patch_namespaced_custom_object(
            *args,
            "b",
            pod_group("b", 3),
            field_manager="ctl",
            force=True,
            _content_type="application/apply-patch+yaml",
            _preload_content=False,
        )
        assert resp.status == 201
        assert (await resp.json())["spec"]["schedulingPolicy"]["gang"]["minCount"] == 3
        again = await co.patch_namespaced_custom_object(
            *args,
            "b",
            pod_group("b", 4),
            field_manager="ctl",
            _content_type="application/apply-patch+yaml",
        )
        assert again["spec"]["schedulingPolicy"]["gang"]["minCount"] == 4
        listed = await co.list_namespaced_custom_object(*args)
        assert [i["metadata"]["name"] for i in listed["items"]] == ["a", "b"]
        events: list[tuple[str, str]] = []
        async with watch.Watch().stream(
            co.list_namespaced_custom_object,
            *args,
            resource_version=listed["metadata"]["resourceVersion"],
            timeout_seconds=5,
        ) as stream:
            await co.delete_namespaced_custom_object(*args, "a")
            async for event in stream:
                events.append((event["type"], event["object"]["metadata"]["name"]))
                if event["type"] == "DELETED":
                    break
        # marked (its podgroup-protection finalizer), released by the protection controller, gone
        assert events == [("MODIFIED", "a"), ("DELETED", "a")]
        with pytest.raises(ApiException) as err:
            await co.get_namespaced_custom_object(*args, "a")
        assert err.value.status == 404
        assert json.loads(err.value.body)["details"]["kind"] == "podgroups"
        core = client.CoreV1Api(api)
        assert [n.metadata.name for n in (await core.list_namespace()).items] == ["default"]


@bounded(30)
async def test_official_client_sync_in_thread(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes import client, config, watch
    from kubernetes.client.exceptions import ApiException

    api = config.new_client_from_config(config_file=str(fake_apiserver.kubeconfig_path))

    def scenario() -> list[tuple[str, int]]:
        sched = client.SchedulingV1beta1Api(api)
        body = client.V1beta1PodGroup.model_validate(pod_group("pg", 2))
        created = sched.create_namespaced_pod_group("default", body, _request_timeout=5)
        assert created.metadata.generation is None
        applied = sched.patch_namespaced_pod_group(
            "pg",
            "default",
            pod_group("pg", 5),
            field_manager="ctl",
            force=True,
            _content_type="application/apply-patch+yaml",
            _request_timeout=5,
        )
        assert applied.spec.scheduling_policy.gang.min_count == 5
        assert {m.manager for m in applied.metadata.managed_fields} == {"ctl", "OpenAPI-Generator"}
        got = sched.read_namespaced_pod_group("pg", "default", _request_timeout=5)
        assert got.spec.disruption_mode.single is not None
        listed = sched.list_namespaced_pod_group("default", _request_timeout=5)
        assert [p.metadata.name for p in listed.items] == ["pg"]
        seen: list[tuple[str, int]] = []
        for event in watch.Watch().stream(
            sched.list_namespaced_pod_group, "default", timeout_seconds=2, _request_timeout=5
        ):
            seen.append((event["type"], event["object"].spec.scheduling_policy.gang.min_count))
        sched.delete_namespaced_pod_group("pg", "default", _request_timeout=5)
        try:
            sched.read_namespaced_pod_group("pg", "default", _request_timeout=5)
        except ApiException as exc:
            assert exc.status == 404
        else:
            raise AssertionError("the PodGroup should be gone")
        return seen

    try:
        seen = await asyncio.to_thread(scenario)
    finally:
        api.close()
    assert seen == [("ADDED", 5)]


@bounded(30)
async def test_official_client_aio(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes.aio import client, config, watch

    api = await config.new_client_from_config(config_file=str(fake_apiserver.kubeconfig_path))
    async with api:
        sched = client.SchedulingV1beta1Api(api)
        first = await sched.create_namespaced_pod_group("default", pod_group("first", 1))
        assert first.metadata.generation is None
        created = await sched.patch_namespaced_pod_group(
            "pg",
            "default",
            pod_group("pg", 2),
            field_manager="ctl",
            _content_type="application/apply-patch+yaml",
        )
        assert created.metadata.resource_version
        got = await sched.read_namespaced_pod_group("pg", "default")
        assert got.metadata.uid == created.metadata.uid
        listed = await sched.list_namespaced_pod_group("default")
        assert [p.metadata.name for p in listed.items] == ["first", "pg"]
        w = watch.Watch()
        stream = w.stream(
            sched.list_namespaced_pod_group,
            "default",
            resource_version=listed.metadata.resource_version,
            timeout_seconds=5,
        )
        await sched.delete_namespaced_pod_group("pg", "default")
        seen = []
        async for event in stream:
            seen.append((event["type"], event["object"].metadata.name))
            if event["type"] == "DELETED":
                break
        w.stop()
        # marked (its podgroup-protection finalizer), released by the protection controller, gone
        assert seen == [("MODIFIED", "pg"), ("DELETED", "pg")]


@bounded(30)
async def test_lightkube(fake_apiserver: FakeAPIServer) -> None:
    from lightkube import AsyncClient, KubeConfig
    from lightkube.core.exceptions import ApiError
    from lightkube.resources.scheduling_v1beta1 import PodGroup

    client = AsyncClient(config=KubeConfig.from_file(str(fake_apiserver.kubeconfig_path)))
    try:
        created = await client.create(PodGroup.from_dict(pod_group("pg", 2)))
        assert created.metadata.generation is None
        applied = await client.apply(
            PodGroup.from_dict(pod_group("pg", 3)), field_manager="ctl", force=True
        )
        assert applied.spec.schedulingPolicy.gang.minCount == 3
        got = await client.get(PodGroup, "pg", namespace="default")
        assert got.metadata.resourceVersion == applied.metadata.resourceVersion
        names = [p.metadata.name async for p in client.list(PodGroup, namespace="default")]
        assert names == ["pg"]
        seen: list[tuple[str, Any]] = []

        async def watch() -> None:
            async for kind, obj in client.watch(
                PodGroup, namespace="default", resource_version=got.metadata.resourceVersion
            ):
                seen.append((kind, obj.metadata.name))
                if kind == "DELETED":
                    return

        task = asyncio.create_task(watch())
        await asyncio.sleep(0.2)
        await client.delete(PodGroup, "pg", namespace="default")
        await asyncio.wait_for(task, 5)
        assert seen == [("MODIFIED", "pg"), ("DELETED", "pg")]  # marked, then gone
        with pytest.raises(ApiError) as err:
            await client.get(PodGroup, "pg", namespace="default")
        assert err.value.status.code == 404
        assert err.value.status.reason == "NotFound"
    finally:
        await client.close()


@bounded(30)
async def test_dynamic_clients(fake_apiserver: FakeAPIServer, tmp_path: Path) -> None:
    from kubernetes import config, dynamic
    from kubernetes_asyncio.dynamic import DynamicClient

    async with fake_apiserver.api_client() as api:
        dc = await DynamicClient(api, cache_file=str(tmp_path / "discovery.json"))
        res = await dc.resources.get(api_version="scheduling.k8s.io/v1beta1", kind="PodGroup")
        applied = await dc.server_side_apply(
            res, pod_group(), name="pg", namespace="default", field_manager="a"
        )
        assert applied.metadata.name == "pg"
        assert [i.metadata.name for i in (await dc.get(res, namespace="default")).items] == ["pg"]

    sync_api = config.new_client_from_config(config_file=str(fake_apiserver.kubeconfig_path))

    def sync_apply() -> int:
        client = dynamic.DynamicClient(sync_api)
        res = client.resources.get(api_version="scheduling.k8s.io/v1beta1", kind="PodGroup")
        obj = client.server_side_apply(
            res,
            pod_group(min_count=3),
            name="pg",
            namespace="default",
            field_manager="b",
            force_conflicts=True,
        )
        return int(obj.spec.schedulingPolicy.gang.minCount)

    try:
        assert await asyncio.to_thread(sync_apply) == 3
    finally:
        sync_api.close()
