"""A plain asyncio reconciler, no framework: TrainingRuns into a Workload and its PodGroup.

Every ``--interval`` seconds it lists the TrainingRuns of a namespace and calls
``workloadbuilder.aio.reconcile`` for each: the first pass creates the Workload and the
PodGroup (owned by the run), later passes keep the gang's ``minCount`` in sync with
``spec.minAvailable`` and change nothing else. A run whose spec is invalid gets its errors
reported (and a ``FailedWorkloadCompilation`` event), nothing is created.

Usage: python examples/asyncio_reconciler.py [NAMESPACE] [--once]
(the cluster of the current kubeconfig)
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from kubeconfig import connect
from kubernetes_asyncio.client import CustomObjectsApi
from trainingrun import FIELD_MANAGER, GROUP, PLURAL, VERSION, builder_for

from workloadbuilder import aio


async def reconcile_namespace(api_client: Any, namespace: str) -> list[str]:
    """One pass over the namespace's TrainingRuns; a line per run saying what was done."""
    listed = await CustomObjectsApi(api_client).list_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL
    )
    lines = []
    for run in listed.get("items") or []:
        name = run["metadata"]["name"]
        result = await aio.reconcile(api_client, builder_for(run), field_manager=FIELD_MANAGER)
        if result.errors:
            lines.append(f"{name}: invalid: {'; '.join(str(e) for e in result.errors)}")
            continue
        changed = [
            *(f"created {r}" for r in result.created),
            *(f"resized {r}" for r in result.resized),
        ]
        lines.append(f"{name}: {', '.join(changed) or 'up to date'}")
    return lines


async def main(namespace: str, once: bool, interval: float = 5.0) -> None:
    async with await connect() as api_client:
        while True:
            for line in await reconcile_namespace(api_client, namespace):
                print(line, flush=True)
            if once:
                return
            await asyncio.sleep(interval)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    asyncio.run(main(args[0] if args else "default", once="--once" in sys.argv))
