"""A Polyaxon runtime plugin on the real package: a polyaxonfile's Kubeflow run (``mpijob``,
``pytorchjob`` or ``tfjob``) through Polyaxon's compiler and converter, then
``workloadbuilder.contrib.polyaxon``: the KfJob's pod templates linked to their groups before
the KfJob exists, and the Workload and groups owned by the KfJob once it does.

The run's ``schedulingPolicy`` maps field by field: ``minAvailable`` (pods of the whole run)
becomes the gangs' minimum, ``priorityClass`` the groups' priority class, ``queue`` Kueue's
``kueue.x-k8s.io/queue-name`` label on the pod templates; ``minResources`` and
``scheduleTimeoutSeconds`` are refused, at their own paths. Every error is at the
polyaxonfile's path (``component.run.schedulingPolicy.minAvailable``).

Usage: python examples/polyaxon_plugin.py [POLYAXONFILE.yaml] [--independent]. Prints the
KfJob as the plugin creates it, then the Workload and its groups, as a YAML stream; or the
errors, exiting 1. ``--independent``: an mpijob's gangs without a composite (a cluster without
the ``CompositePodGroup`` gate; a plugin asks ``composite_served(api_client)``).
Needs the [polyaxon] extra (Polyaxon pins kubernetes<37): without it, says so and exits 0.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

RUN_UUID = "f0e1d2c3b4a5968778695a4b3c2d1e0f"


def agent() -> None:
    """What Polyaxon's agent is configured with: its namespace and artifacts store."""
    from polyaxon import settings
    from polyaxon._schemas.agent import AgentConfig
    from polyaxon.schemas import V1Connection, V1ConnectionKind

    store = V1Connection(
        name="store",
        kind=V1ConnectionKind.HOST_PATH,
        schema_={"hostPath": "/data", "mountPath": "/data"},
    )
    settings.AGENT_CONFIG = AgentConfig(namespace="research", artifacts_store=store)


def compile_and_convert(content: str) -> tuple[Any, dict[str, Any]]:
    """The compiled operation (params resolved) and the KfJob, as Polyaxon's agent makes them
    (``Executor.make_and_convert``'s steps)."""
    from polyaxon._compiler import resolver
    from polyaxon.k8s import Executor
    from polyaxon.polyaxonfile import OperationSpecification

    agent()
    operation = OperationSpecification.read(content)
    compiled = OperationSpecification.compile_operation(operation)
    found, compiled = resolver.resolve(
        compiled_operation=compiled,
        owner_name="acme",
        project_name="vision",
        project_uuid="vision",
        run_name="horovod-train",
        run_path=RUN_UUID,
        run_uuid=RUN_UUID,
        params=operation.params,
    )
    kfjob = Executor.get_resource(
        namespace=compiled.namespace or found.namespace,
        owner_name=found.owner_name,
        project_name=found.project_name,
        run_name=found.run_name,
        run_path=found.run_path,
        run_uuid=found.run_uuid,
        compiled_operation=compiled,
        connection_by_names=found.connection_by_names,
        artifacts_store=found.artifacts_store,
        secrets=found.secrets,
        config_maps=found.config_maps,
        polyaxon_sidecar=found.polyaxon_sidecar,
        polyaxon_init=found.polyaxon_init,
    )
    return compiled, kfjob


def main(argv: list[str]) -> int:
    try:
        from workloadbuilder.contrib import polyaxon as wbp
    except ModuleNotFoundError as exc:
        if exc.name != "workloadbuilder[polyaxon]":
            raise
        print(f"skipped: {exc}", file=sys.stderr)
        return 0
    import kubernetes.client as k8s

    from workloadbuilder.testing.fixtures import to_yaml

    args = [a for a in argv[1:] if a != "--independent"]
    source = Path(args[0]) if args else Path(__file__).with_name("polyaxon-run.yaml")
    operation, kfjob = compile_and_convert(source.read_text())
    run = wbp.convert(operation, composite="--independent" not in argv, path="component.run")
    if run.errors:
        print("\n".join(str(e) for e in run.errors), file=sys.stderr)
        return 1
    wbp.link_kfjob(kfjob, run)  # before the KfJob exists: the templates name their groups
    api = k8s.ApiClient()
    body: dict[str, Any] = api.sanitize_for_serialization(kfjob)  # type: ignore[no-untyped-call]
    # what the agent sends; the API server's answer to creating it carries its uid
    created = {**body, "metadata": {**body["metadata"], "uid": "6a1c0f52-7d3e-4f0b-9b8e"}}
    release = wbp.builder(run, created).release()
    print(to_yaml([body, *release.ordered]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
