"""Elastic training: a 4-worker gang applied to the cluster, then resized to 3 workers.

A worker is lost for good; instead of waiting forever for a fourth, the controller lowers
the gang's ``minCount`` with ``workloadbuilder.aio.resize``, which changes the Workload's
template first (so groups stamped meanwhile get the new count) and then the PodGroup
(1.37 made ``minCount`` mutable; nothing else of a PodGroup is).

Usage: python examples/elastic_resize.py [NAMESPACE] (the cluster of the current kubeconfig)
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from kubeconfig import connect

import workloadbuilder as wb
from workloadbuilder import aio

OWNER: dict[str, Any] = {
    "apiVersion": "kubeflow.org/v1",
    "kind": "PyTorchJob",
    "metadata": {"name": "elastic-resnet", "uid": "1d2c3b4a-5e6f-4a70-8b9c-0d1e2f3a4b5c"},
}


def builder(namespace: str) -> wb.Builder:
    return wb.Builder(
        wb.leaf("workers", path="spec.elasticPolicy", policy=wb.gang(4)),
        wb.BuildOptions(
            name=wb.generate_workload_name("elastic-resnet", OWNER["metadata"]["uid"]),
            namespace=namespace,
            owner=wb.controller_ref(OWNER),
            allowed_policies=frozenset({wb.SchedulingPolicyOption.GANG}),
            allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
        ),
    )


def min_count(group: wb.PodGroup) -> int | None:
    gang = group.spec.scheduling_policy.gang
    return gang.min_count if gang else None


async def main(namespace: str) -> None:
    b = builder(namespace)
    objects = [b.build_workload(), *wb.instantiate(b)]
    async with await connect() as api_client:
        applied = await aio.apply(api_client, objects, field_manager="elastic-example")
        group = applied[-1]
        assert isinstance(group, wb.PodGroup)
        print(f"applied {group.metadata.name}: minCount {min_count(group)}")
        resized = await aio.resize(api_client, group, 3, field_manager="elastic-example")
        print(f"resized {resized.metadata.name}: minCount {min_count(resized)}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "default"))
