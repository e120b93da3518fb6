"""Objects and clients for the aio tests: the release's composite Workload, both client flavours."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import workloadbuilder as wb
from workloadbuilder.testing import FakeAPIServer

NS = "ml-training"
OWNER: dict[str, Any] = {
    "apiVersion": "training.example.com/v1",
    "kind": "TrainJob",
    "metadata": {"name": "resnet", "namespace": NS, "uid": "3f6c1a2e-0d1b-4c55"},
}
ALLOW_ALL: dict[str, Any] = {
    "allowed_policies": frozenset(wb.SchedulingPolicyOption),
    "allowed_disruption_modes": frozenset(wb.DisruptionModeOption),
}
SCHEDULING = "scheduling.k8s.io"


def release_builder(owner: dict[str, Any] = OWNER, workers: int = 4) -> wb.Builder:
    """The release's composite Workload: a root gang of two leaves (workers, driver)."""
    root = wb.composite(
        "workload-root",
        [
            wb.leaf("workers", policy=wb.gang(workers), topology=["topology.example.com/rack"]),
            wb.leaf("driver", policy=wb.gang(1)),
        ],
        policy=wb.gang(min_group_count=2),
        topology=["topology.kubernetes.io/zone"],
        disruption_mode="all",
    )
    meta = owner["metadata"]
    return wb.Builder(
        root,
        wb.BuildOptions(
            name=wb.generate_workload_name(meta["name"], meta["uid"]),
            namespace=meta["namespace"],
            owner=wb.controller_ref(owner),
            **ALLOW_ALL,
        ),
    )


def release_objects(builder: wb.Builder | None = None) -> list[Any]:
    builder = builder or release_builder()
    return [builder.build_workload(), *wb.instantiate(builder)]


def gang_pod_groups(count: int, namespace: str = NS) -> list[wb.PodGroup]:
    """``count`` standalone gang PodGroups (``pg-0000`` ...), as plain SDK models."""
    return [
        wb.PodGroup.model_validate(
            {
                "metadata": {"name": f"pg-{i:04d}", "namespace": namespace},
                "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
            }
        )
        for i in range(count)
    ]


@asynccontextmanager
async def client_for(server: FakeAPIServer, flavour: str) -> AsyncIterator[Any]:
    """A configured ApiClient of ``flavour`` (``kubernetes_asyncio`` or ``kubernetes.aio``),
    loaded from the server's kubeconfig as a user would load it."""
    if flavour == "kubernetes_asyncio":
        from kubernetes_asyncio import config

        api = await config.new_client_from_config(config_file=str(server.kubeconfig_path))
    else:
        from kubernetes.aio import config as official_config

        api = await official_config.new_client_from_config(config_file=str(server.kubeconfig_path))
    try:
        yield api
    finally:
        await api.close()


FLAVOURS = ("kubernetes_asyncio", "kubernetes.aio")
NAMESPACES = (NS, "ml")


def with_namespaces(server: FakeAPIServer) -> FakeAPIServer:
    """``server`` holding the tests' namespaces (a create elsewhere is a 404, as on a cluster)."""
    for name in NAMESPACES:
        if server.get_object("", "v1", "namespaces", "", name) is None:
            ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            server.create_object("", "v1", "namespaces", ns)
    return server


def apply_server(**options: Any) -> FakeAPIServer:
    """A ``FakeAPIServer(**options)`` with the tests' namespaces."""
    return with_namespaces(FakeAPIServer(**options))
