"""One scenario per verb of ``aio.required_rules``: the verb driven through each of its paths
(create and update, found and missing, changed and steady) against a test server."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "aio_apply"))

from apply_support import NS, gang_pod_groups, release_builder, release_objects

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

Scenario = Callable[[Any, FakeAPIServer], Awaitable[None]]


def job(name: str = "trainer") -> dict[str, Any]:
    """A gang-scheduled batch/v1 Job of four workers."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "parallelism": 4,
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "trainer"}],
                }
            },
        },
    }


def seed(server: FakeAPIServer) -> None:
    """The objects the read-only verbs look at: the release applied by the administrator."""
    for doc in release_objects():
        group, version = doc.api_version.split("/")
        server.create_object(group, version, f"{doc.kind.lower()}s", doc.to_dict())


async def preflight(api: Any, server: FakeAPIServer) -> None:
    await aio.preflight(api, [job(), *release_objects()])


async def apply(api: Any, server: FakeAPIServer) -> None:
    await aio.apply(api, release_objects(), field_manager="ctl")
    await aio.apply(api, release_objects(release_builder(workers=3)), field_manager="ctl")


async def resize(api: Any, server: FakeAPIServer) -> None:
    seed(server)
    await aio.resize(api, release_objects()[2], 2)


async def reconcile(api: Any, server: FakeAPIServer) -> None:
    await aio.reconcile(api, release_builder(), field_manager="ctl")
    await aio.reconcile(api, release_builder(workers=3), field_manager="ctl")
    await aio.reconcile(api, release_builder(workers=3), field_manager="ctl")


async def reconcile_job(api: Any, server: FakeAPIServer) -> None:
    created = server.create_object("batch", "v1", "jobs", job())
    await aio.reconcile_job(api, created)
    await aio.reconcile_job(api, created)


async def wait_scheduled(api: Any, server: FakeAPIServer) -> None:
    seed(server)
    # no pods: it waits, then says so; the reads are what is measured
    with contextlib.suppress(aio.NotScheduledError):
        await aio.wait_scheduled(api, release_objects()[2], timeout=0.3)


async def diagnose(api: Any, server: FakeAPIServer) -> None:
    seed(server)
    await aio.diagnose(api, release_objects()[2])


async def audit(api: Any, server: FakeAPIServer) -> None:
    seed(server)
    await aio.audit(api, NS)


async def delete(api: Any, server: FakeAPIServer) -> None:
    seed(server)
    await aio.delete(api, release_objects()[0])
    for group in gang_pod_groups(1):
        server.create_object("scheduling.k8s.io", "v1beta1", "podgroups", group.to_dict())
    await aio.delete(api, gang_pod_groups(1))


async def read_object(api: Any, server: FakeAPIServer) -> None:
    seed(server)
    for doc in release_objects():
        await aio.read_object(api, doc.kind, doc.metadata.name, namespace=NS)


async def list_objects(api: Any, server: FakeAPIServer) -> None:
    seed(server)
    for kind in ("Workload", "PodGroup", "CompositePodGroup"):
        await aio.list_objects(api, kind, namespace=NS)


SCENARIOS: dict[str, Scenario] = {
    "preflight": preflight,
    "apply": apply,
    "resize": resize,
    "reconcile": reconcile,
    "reconcile_job": reconcile_job,
    "wait_scheduled": wait_scheduled,
    "diagnose": diagnose,
    "audit": audit,
    "delete": delete,
    "read_object": read_object,
    "list_objects": list_objects,
}
