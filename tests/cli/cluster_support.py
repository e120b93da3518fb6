"""Running the cluster commands against the test API server over real HTTP.

The command runs in a worker thread (its own event loop) with ``KUBECONFIG`` pointing at a
``FakeAPIServer`` served by the test's loop; the gang simulator schedules in between.
"""

from __future__ import annotations

import asyncio
from typing import Any

from cli_paths import SPECS
from typer.testing import CliRunner, Result

import workloadbuilder as wb
from workloadbuilder.cli import app
from workloadbuilder.spec import load_spec
from workloadbuilder.testing import FakeAPIServer

NS = "ml-training"
TRAINING = SPECS / "training.yaml"
SPEC = load_spec(TRAINING)
WORKLOAD = SPEC.options.name
(GROUP,) = (o for o in SPEC.objects() if isinstance(o, wb.PodGroup))
GROUP_NAME = GROUP.metadata.name or ""


async def cli(server: FakeAPIServer, *args: str) -> Result:
    """The command's result, run against ``server`` as the current kubeconfig's cluster."""
    env = {"KUBECONFIG": str(server.kubeconfig_path)}
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)


def create_namespace(server: FakeAPIServer) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
    server.create_object("", "v1", "namespaces", namespace)


def add_workers(server: FakeAPIServer, names: range) -> None:
    """Pods ``worker-<i>`` of the training gang, one cpu each."""
    for i in names:
        pod: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"worker-{i}", "namespace": NS},
            "spec": {
                "containers": [
                    {"name": "main", "image": "pause", "resources": {"requests": {"cpu": "1"}}}
                ]
            },
        }
        server.create_object("", "v1", "pods", wb.set_scheduling_group(pod, GROUP))
