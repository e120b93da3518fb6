"""A complete TrainingJob operator on ``aio.Manager``: a controller, admission webhooks,
metrics, health probes and leader election, as a Go operator on controller-runtime runs.

- The controller reconciles each TrainingJob into its Workload and PodGroup
  (``aio.reconcile``), reading through the manager's shared cache; only the replica holding
  the Lease runs it.
- The validating webhook refuses a bad TrainingJob at admission with the SDK's
  ``validate()`` at the resource's own paths; the mutating one defaults ``spec.minWorkers``.
- ``/metrics`` (port 8080) serves controller-runtime's and client-go's metrics, ``/healthz``
  and ``/readyz`` (port 8081) the probes; the webhooks listen on 9443 with ``tls.crt`` /
  ``tls.key`` from ``--cert-dir`` (a cert-manager Secret mounted there in ``deploy.yaml``).
- SIGTERM stops it as the Deployment expects: not ready at once, reconciles drained, the
  Lease released.

Usage: python examples/trainingjob_operator/operator.py --namespace ml --cert-dir DIR
[--metrics-bind-address 0.0.0.0:8080] [--health-probe-bind-address 0.0.0.0:8081]
[--webhook-bind-address 0.0.0.0:9443] [--identity NAME]
(the cluster of the current kubeconfig, or the pod's ServiceAccount)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # trainingjob.py beside it

from trainingjob import FIELD_MANAGER, TRAINING_JOBS, builder_for, default, validate

from workloadbuilder import aio

LEASE = "trainingjob-operator"
VALIDATE_PATH = "/validate-trainingjob"
DEFAULT_PATH = "/default-trainingjob"
_log = logging.getLogger("trainingjob-operator")


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--cert-dir", required=True, help="the directory of tls.crt, tls.key")
    parser.add_argument("--metrics-bind-address", default="0.0.0.0:8080")
    parser.add_argument("--health-probe-bind-address", default="0.0.0.0:8081")
    parser.add_argument("--webhook-bind-address", default="0.0.0.0:9443")
    parser.add_argument("--identity", default=os.environ.get("POD_NAME") or socket.gethostname())
    return parser.parse_args(argv)


async def reconcile_training_job(api_client: Any, cache: aio.Cache, job: dict[str, Any]) -> None:
    """One TrainingJob: its Workload and PodGroup created once, the gang kept in step."""
    result = await aio.reconcile(
        api_client, builder_for(job), field_manager=FIELD_MANAGER, cache=cache
    )
    name = job["metadata"]["name"]
    if result.errors:  # refused at admission; here only if the webhook was not called
        _log.warning("%s: invalid: %s", name, "; ".join(map(str, result.errors)))
    for ref in (*result.created, *result.resized):
        _log.info("%s: %s %s", name, "created" if ref in result.created else "resized", ref)


def manager_for(api_client: Any, args: argparse.Namespace) -> aio.Manager:
    """The operator: one manager, one controller, two webhooks."""
    election = aio.LeaderElection(api_client, LEASE, args.namespace, identity=args.identity)
    manager = aio.Manager(
        api_client,
        namespace=args.namespace,
        leader_election=election,
        metrics_bind_address=args.metrics_bind_address,
        health_probe_bind_address=args.health_probe_bind_address,
        webhook_bind_address=args.webhook_bind_address,
        webhook_cert_dir=args.cert_dir,
    )
    manager.add_validating_webhook(VALIDATE_PATH, validate)
    manager.add_mutating_webhook(DEFAULT_PATH, default)

    async def reconcile(job: dict[str, Any]) -> None:
        await reconcile_training_job(api_client, manager.cache, job)

    manager.add_controller(TRAINING_JOBS, reconcile, name="trainingjob", workers=4)
    return manager


async def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    async with await aio.new_client() as api_client:
        manager = manager_for(api_client, args)
        await manager.run_until_signal()


if __name__ == "__main__":
    asyncio.run(main())
