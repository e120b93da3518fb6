"""A plain asyncio operator, no framework: TrainingRuns into a Workload and its PodGroup.

An ``aio.Controller`` watches the TrainingRuns of a namespace through an ``aio.Cache`` and
calls ``workloadbuilder.aio.reconcile`` for each run that appears or changes (and once more
every resync period): the first reconcile creates the Workload and the PodGroup (owned by the
run), later ones keep the gang's ``minCount`` in sync with ``spec.minAvailable`` and change
nothing else. Nothing is polled: the Workloads and PodGroups are read from the same cache, so
a run with nothing to change costs no request at all. A run whose spec is invalid gets its
errors reported (and a ``FailedWorkloadCompilation`` event), nothing is created; it is
reconciled again when it changes. A reconcile that fails (the server refused, say) is retried
with backoff, other runs going on meanwhile.

Usage: python examples/asyncio_reconciler.py [NAMESPACE] [--once]
(the cluster of the current kubeconfig; ``--once``: stop after each run present at the start
was reconciled once)
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Mapping
from contextlib import suppress
from typing import Any

from kubeconfig import connect
from trainingrun import FIELD_MANAGER, GROUP, PLURAL, VERSION, builder_for

from workloadbuilder import aio

TRAINING_RUNS = aio.CustomResource(GROUP, VERSION, PLURAL, "TrainingRun")


async def reconcile_run(api_client: Any, cache: aio.Cache, run: Mapping[str, Any]) -> str:
    """Bring one run's Workload and PodGroup in line; a line saying what was done."""
    name = run["metadata"]["name"]
    result = await aio.reconcile(
        api_client, builder_for(run), field_manager=FIELD_MANAGER, cache=cache
    )
    if result.errors:
        return f"{name}: invalid: {'; '.join(str(e) for e in result.errors)}"
    changed = [
        *(f"created {r}" for r in result.created),
        *(f"resized {r}" for r in result.resized),
    ]
    return f"{name}: {', '.join(changed) or 'up to date'}"


async def main(namespace: str, once: bool) -> None:
    async with (
        await connect() as api_client,
        aio.Cache(api_client, namespace=namespace) as cache,
    ):
        await cache.synced(TRAINING_RUNS, "Workload", "PodGroup")
        waiting = {r["metadata"]["name"] for r in await cache.list(TRAINING_RUNS, namespace)}
        seen_all = asyncio.Event()

        async def reconcile(run: dict[str, Any]) -> None:
            print(await reconcile_run(api_client, cache, run), flush=True)
            waiting.discard(run["metadata"]["name"])
            if not waiting:
                seen_all.set()

        controller = aio.Controller(
            api_client, TRAINING_RUNS, reconcile, namespace=namespace, cache=cache
        )
        if not once:
            await controller.run()  # until interrupted
            return
        if not waiting:
            seen_all.set()
        running = asyncio.create_task(controller.run())
        seen = asyncio.create_task(seen_all.wait())
        await asyncio.wait({running, seen}, return_when=asyncio.FIRST_COMPLETED)
        seen.cancel()
        running.cancel()  # it drains the reconciles in flight
        with suppress(asyncio.CancelledError):
            await running  # raises what stopped it, if it failed


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    with suppress(KeyboardInterrupt):  # Ctrl-C: the reconciles in flight finish first
        asyncio.run(main(args[0] if args else "default", once="--once" in sys.argv))
