"""A kopf operator: each TrainingRun reconciled into a Workload and its PodGroup.

On create, resume and every change of ``spec``, the handler calls
``workloadbuilder.aio.reconcile``: the Workload and PodGroup are created once (owned by the
run, so deleting the run deletes them), and the gang's ``minCount`` follows
``spec.minAvailable`` (an elastic resize). Invalid specs are refused with their errors at the
run's own paths; kopf retries them after the user fixes the run. What the handler returns,
the scheduler's verdict on each group included, kopf writes to the run's
``status.reconcile_run``. On delete, the Workload and its groups are deleted children first,
without waiting for the garbage collector.

Run it: kopf run examples/kopf_operator.py --namespace ml (the current kubeconfig's cluster).
"""

from __future__ import annotations

from typing import Any

import kopf
from kubeconfig import connect
from trainingrun import FIELD_MANAGER, GROUP, PLURAL, VERSION, builder_for

from workloadbuilder import aio


def _run(body: kopf.Body) -> dict[str, Any]:
    return {"apiVersion": body["apiVersion"], "kind": body["kind"], **dict(body)}


@kopf.on.resume(GROUP, VERSION, PLURAL)
@kopf.on.create(GROUP, VERSION, PLURAL)
@kopf.on.update(GROUP, VERSION, PLURAL, field="spec")
async def reconcile_run(body: kopf.Body, **_: Any) -> dict[str, Any]:
    """Bring the run's Workload and PodGroup in line; the outcome goes to the run's status."""
    async with await connect() as api_client:
        result = await aio.reconcile(
            api_client, builder_for(_run(body)), field_manager=FIELD_MANAGER
        )
        if result.errors:
            raise kopf.PermanentError("; ".join(str(e) for e in result.errors))
        verdicts = {
            str(o.metadata.name): str((await aio.diagnose(api_client, o)).state)
            for o in result.objects
        }
    return {
        "workload": result.workload.metadata.name if result.workload else None,
        "podGroups": [o.metadata.name for o in result.objects],
        "created": [str(r) for r in result.created],
        "resized": [str(r) for r in result.resized],
        "verdicts": verdicts,  # e.g. {"resnet-...-workers-...": "WaitingForMembers"}
    }


@kopf.on.delete(GROUP, VERSION, PLURAL, optional=True)
async def delete_run(body: kopf.Body, **_: Any) -> None:
    """Delete the run's Workload and its groups, children first (garbage collection would,
    later); ``optional``: no finalizer holds the run if the operator is not running."""
    workload = builder_for(_run(body)).workload()
    async with await connect() as api_client:
        await aio.delete(api_client, workload)
