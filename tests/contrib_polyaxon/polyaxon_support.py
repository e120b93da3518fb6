"""Polyaxon's own path from a polyaxonfile to the KfJob: its operation specification, its
resolver (params, agent) and its Kubernetes converter, as its agent runs them."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip(
    "polyaxon", reason="Polyaxon pins kubernetes<37: .ci/run tests it in its own environment"
)

from polyaxon import settings
from polyaxon._compiler import resolver
from polyaxon._connections import V1Connection, V1ConnectionKind
from polyaxon._k8s.executor.base import BaseExecutor
from polyaxon._polyaxonfile import OperationSpecification
from polyaxon._schemas.agent import AgentConfig

NAMESPACE = "research"
RUN_UUID = "f0e1d2c3b4a5968778695a4b3c2d1e0f"
KFJOB_NAME = f"plx-operation-{RUN_UUID}"  # Polyaxon's resource name of the run


def agent() -> None:
    """The agent configuration the resolver reads: its namespace and artifacts store."""
    store = V1Connection(
        name="store",
        kind=V1ConnectionKind.HOST_PATH,
        schema_={"hostPath": "/data", "mountPath": "/data"},
    )
    settings.AGENT_CONFIG = AgentConfig(namespace=NAMESPACE, artifacts_store=store)


def _resolved(content: str) -> tuple[Any, Any]:
    """Polyaxon's resolver's view of the run, and the compiled operation it resolved."""
    agent()
    operation = OperationSpecification.read(content)
    compiled = OperationSpecification.compile_operation(operation)
    found, resolved = resolver.resolve(
        compiled_operation=compiled,
        owner_name="acme",
        project_name="vision",
        project_uuid="vision",
        run_name="train",
        run_path=RUN_UUID,
        run_uuid=RUN_UUID,
        params=operation.params,
    )
    return found, resolved


def compile_operation(content: str, *, resolve: bool = True) -> Any:
    """The V1CompiledOperation of a polyaxonfile (an operation with its component), its params
    resolved as Polyaxon's agent does before converting (unless ``resolve`` is False)."""
    if resolve:
        return _resolved(content)[1]
    return OperationSpecification.compile_operation(OperationSpecification.read(content))


def convert(content: str) -> tuple[Any, dict[str, Any]]:
    """The compiled operation and the KfJob Polyaxon's converter makes of it (a dict holding
    ``kubernetes.client`` models: its ``metadata`` and each replica's pod template)."""
    found, compiled = _resolved(content)
    kfjob = BaseExecutor.get_resource(
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


def polyaxonfile(run: str, *, params: str = "") -> str:
    """An operation whose component runs ``run`` (YAML, indented for ``component.run``)."""
    inputs = "  inputs:\n  - {name: workers, type: int}\n" if params else ""
    return (
        "version: 1.1\nkind: operation\n"
        + (f"params:\n{params}\n" if params else "")
        + "component:\n  version: 1.1\n  kind: component\n  name: train\n"
        + inputs
        + "  run:\n"
        + run
    )


PYTORCH = polyaxonfile(
    """    kind: pytorchjob
    schedulingPolicy: {queue: research, priorityClass: training-high}
    master:
      replicas: 1
      container: {image: pytorch/pytorch:2, resources: {requests: {cpu: "1"}}}
    worker:
      replicas: 3
      container: {image: pytorch/pytorch:2, resources: {requests: {cpu: "1"}}}
"""
)

MPI = polyaxonfile(
    """    kind: mpijob
    slotsPerWorker: 1
    schedulingPolicy: {minAvailable: 4, queue: research, priorityClass: training-high}
    launcher:
      replicas: 1
      container: {image: horovod/horovod, resources: {requests: {cpu: "1"}}}
    worker:
      replicas: "{{ workers }}"
      container: {image: horovod/horovod, resources: {requests: {cpu: "1"}}}
""",
    params="  workers: {value: 3}",
)

TF = polyaxonfile(
    """    kind: tfjob
    schedulingPolicy: {minAvailable: 6}
    chief: {replicas: 1, container: {image: tensorflow/tensorflow}}
    ps: {replicas: 2, container: {image: tensorflow/tensorflow}}
    worker: {replicas: 4, container: {image: tensorflow/tensorflow}}
    evaluator: {container: {image: tensorflow/tensorflow}}
"""
)
