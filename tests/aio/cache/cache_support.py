"""Objects, servers and comparisons for the cache tests."""

from __future__ import annotations

import asyncio
from typing import Any

from waiting import eventually as eventually  # the cache tests import it from here

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

NS = "team-a"
OTHER = "team-b"
SCHEDULING = "scheduling.k8s.io"


def server(**options: Any) -> FakeAPIServer:
    """A test server holding the tests' namespaces."""
    found = FakeAPIServer(**options)
    for name in (NS, OTHER):
        ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        found.create_object("", "v1", "namespaces", ns)
    return found


def pod_group(name: str, namespace: str = NS, min_count: int = 2, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHEDULING}/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace, **meta},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def job(name: str, namespace: str = NS, parallelism: int = 2) -> dict[str, Any]:
    """A gang Job, as the Job controller's tests write one."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "parallelism": parallelism,
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "trainer"}],
                }
            },
        },
    }


def create_groups(srv: FakeAPIServer, count: int, namespace: str = NS) -> list[dict[str, Any]]:
    return [
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group(f"pg-{i:03d}", namespace))
        for i in range(count)
    ]


def versions_listed(
    srv: FakeAPIServer, group: str, version: str, plural: str, namespace: str | None = None
) -> dict[tuple[str, str], str]:
    """``(namespace, name) -> resourceVersion`` of a fresh LIST, read from the server."""
    return {
        (o["metadata"].get("namespace") or "", o["metadata"]["name"]): o["metadata"][
            "resourceVersion"
        ]
        for o in srv.list_objects(group, version, plural, namespace)
    }


async def versions_cached(cache: aio.Cache, kind: aio.CacheKind) -> dict[tuple[str, str], str]:
    return {
        (o["metadata"].get("namespace") or "", o["metadata"]["name"]): o["metadata"][
            "resourceVersion"
        ]
        for o in await cache.list(kind)
    }


async def count(cache: aio.Cache, kind: aio.CacheKind, wanted: int) -> bool:
    """Whether the cache holds ``wanted`` objects of ``kind``."""
    return len(await cache.list(kind)) == wanted


async def held(cache: aio.Cache, kind: aio.CacheKind, namespace: str, name: str) -> bool:
    """Whether the cache holds the object."""
    return await cache.get(kind, namespace, name) is not None


class Recorder:
    """A handler that writes down each call: ``("add"|"update"|"delete", name, rv)``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []

    @staticmethod
    def _id(obj: dict[str, Any]) -> tuple[str, str]:
        meta = obj["metadata"]
        return meta["name"], meta.get("resourceVersion", "")

    def on_add(self, obj: dict[str, Any]) -> None:
        self.calls.append(("add", *self._id(obj)))

    async def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        await asyncio.sleep(0)  # an async handler
        self.calls.append(("update", *self._id(new)))

    def on_delete(self, obj: dict[str, Any]) -> None:
        self.calls.append(("delete", *self._id(obj)))

    def of(self, what: str) -> list[str]:
        return sorted(name for kind, name, _ in self.calls if kind == what)
