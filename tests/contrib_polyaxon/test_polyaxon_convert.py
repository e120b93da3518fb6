"""A Polyaxon run through Polyaxon's own compiler and converter, then the adapter.

Expected values come from Polyaxon's and Kubeflow's semantics: ``minAvailable`` counts pods of
the whole run (Volcano's ``minMember``) and defaults to every pod; a replica without
``replicas`` starts one pod; the KfJob's ``replicaSpecs`` keys are Polyaxon's converter's
(``Master``, ``Launcher``, ``PS`` ...); Kueue's queue label is ``kueue.x-k8s.io/queue-name``.
Messages of the native API's rules are apimachinery's.
"""

from __future__ import annotations

import copy
from typing import Any

import kubernetes.client as k8s
import pytest
from polyaxon_support import KFJOB_NAME, MPI, PYTORCH, TF, compile_operation, convert

import workloadbuilder as wb
from workloadbuilder.contrib import polyaxon as wbp

QUEUE = "kueue.x-k8s.io/queue-name"
SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"


def sent(kfjob: dict[str, Any]) -> dict[str, Any]:
    """The KfJob as Polyaxon's executor sends it (``BaseExecutor.convert``)."""
    result: dict[str, Any] = k8s.ApiClient().sanitize_for_serialization(kfjob)
    return result


def created(kfjob: dict[str, Any]) -> dict[str, Any]:
    """The KfJob as the API server returns it: with a uid."""
    body = sent(kfjob)
    body["metadata"]["uid"] = "6a1c0f52-7d3e-4f0b-9b8e-2f1d0c9a8b7e"
    return body


def stamped(run: wbp.PolyaxonRun, kfjob: dict[str, Any]) -> list[Any]:
    return list(wbp.builder(run, created(kfjob)).release().objects)


def test_a_pytorch_run_is_one_gang_over_master_and_workers() -> None:
    operation, kfjob = convert(PYTORCH)
    run = wbp.convert(operation)
    assert not run.errors
    names = wbp.link_kfjob(kfjob, run)
    spec = kfjob["pytorchJobSpec"]
    assert "schedulingPolicy" not in spec  # nothing asks Volcano for a second gang
    assert names["Master"] == names["Worker"]
    (group,) = stamped(run, kfjob)
    assert group.metadata.name == names["Master"]
    # minAvailable unset: every pod of the run, 1 master + 3 workers
    assert group.spec.scheduling_policy.gang.min_count == 4
    assert group.spec.priority_class_name == "training-high"
    for role in ("Master", "Worker"):
        template = spec["replicaSpecs"][role]["template"]
        assert isinstance(template, k8s.V1PodTemplateSpec)  # still the client's model
        assert template.spec.scheduling_group.pod_group_name == group.metadata.name
        assert template.metadata.labels[QUEUE] == "research"
        # Polyaxon's own containers stay as its converter made them
        assert [c.name for c in template.spec.containers] == ["pytorch", "polyaxon-sidecar"]
    body = sent(kfjob)["pytorchJobSpec"]["replicaSpecs"]["Worker"]["template"]
    assert body["spec"]["schedulingGroup"] == {"podGroupName": group.metadata.name}


def test_an_mpi_run_is_a_composite_of_launcher_and_workers() -> None:
    operation, kfjob = convert(MPI)
    run = wbp.convert(operation)
    names = wbp.link_kfjob(kfjob, run)
    parent, launcher, worker = stamped(run, kfjob)
    assert parent.kind == "CompositePodGroup"
    assert parent.spec.scheduling_policy.gang.min_group_count == 2  # both gangs, or neither
    assert (launcher.metadata.name, worker.metadata.name) == (names["Launcher"], names["Worker"])
    assert launcher.spec.parent_composite_pod_group_name == parent.metadata.name
    # minAvailable 4 of the run's pods: the launcher's 1 and 3 workers ({{ workers }} = 3)
    assert launcher.spec.scheduling_policy.gang.min_count == 1
    assert worker.spec.scheduling_policy.gang.min_count == 3
    replicas = kfjob["mpiJobSpec"]["replicaSpecs"]
    assert replicas["Worker"]["template"].spec.scheduling_group.pod_group_name == names["Worker"]
    assert kfjob["mpiJobSpec"]["slotsPerWorker"] == 1  # the rest of the KfJob is untouched


def test_an_mpi_run_without_composites_is_two_independent_gangs() -> None:
    operation, kfjob = convert(MPI)
    run = wbp.convert(operation, composite=False)
    names = wbp.link_kfjob(kfjob, run)
    objects = stamped(run, kfjob)
    assert [o.kind for o in objects] == ["PodGroup", "PodGroup"]
    assert [o.metadata.name for o in objects] == [names["Launcher"], names["Worker"]]
    assert all(o.spec.parent_composite_pod_group_name is None for o in objects)
    workload = wbp.builder(run, created(kfjob)).build_workload()
    assert workload.spec.composite_pod_group_templates is None


def test_a_tf_run_is_one_gang_over_its_four_roles() -> None:
    operation, kfjob = convert(TF)
    run = wbp.convert(operation)
    names = wbp.link_kfjob(kfjob, run)
    assert sorted(names) == ["Chief", "Evaluator", "PS", "Worker"]
    assert len(set(names.values())) == 1
    (group,) = stamped(run, kfjob)
    assert group.spec.scheduling_policy.gang.min_count == 6
    assert group.spec.priority_class_name is None
    # no queue: no label
    template = kfjob["tfJobSpec"]["replicaSpecs"]["Evaluator"]["template"]
    assert QUEUE not in (template.metadata.labels or {})


def test_the_names_linked_before_the_kfjob_exists_are_the_names_stamped_after() -> None:
    for content in (PYTORCH, MPI, TF):
        operation, kfjob = convert(content)
        run = wbp.convert(operation)
        names = wbp.link_kfjob(kfjob, run)
        groups = {o.metadata.name for o in stamped(run, kfjob) if o.kind == "PodGroup"}
        assert set(names.values()) == groups
        assert all(name.startswith(KFJOB_NAME) for name in names.values())


def test_the_converters_kfjob_is_its_own_controller_ref() -> None:
    _, kfjob = convert(PYTORCH)
    assert isinstance(kfjob["metadata"], k8s.V1ObjectMeta)
    kfjob["metadata"].uid = "u-1"
    ref = wb.controller_ref(kfjob)
    assert (ref.api_version, ref.kind, ref.name, ref.uid) == (
        "polyaxon.com/v1",
        "KfJob",
        KFJOB_NAME,
        "u-1",
    )


def errors_of(content: str, **changes: Any) -> list[str]:
    operation, _ = convert(content)
    policy = operation.run.scheduling_policy
    for key, value in changes.items():
        setattr(policy, key, value)
    return [str(e) for e in wbp.convert(operation).errors]


def test_min_available_is_reported_as_written_at_its_own_path() -> None:
    assert errors_of(MPI, min_available=10) == [
        "run.schedulingPolicy.minAvailable: Invalid value: 10: must be no more than the 4 pods"
        " of the run: the gang can never form"
    ]
    assert errors_of(PYTORCH, min_available=0) == [
        "run.schedulingPolicy.minAvailable: Invalid value: 0: must be greater than or equal to 1"
    ]
    (launcher_only,) = errors_of(MPI, min_available=1)
    assert launcher_only.startswith("run.schedulingPolicy.minAvailable: Invalid value: 1: ")


def test_every_option_is_reported_at_its_own_path() -> None:
    found = errors_of(
        PYTORCH,
        priority_class="Training",
        queue="not a queue",
        min_resources=8,
        schedule_timeout_seconds=60,
    )
    assert [line.split(": ")[0] for line in found] == [
        "run.schedulingPolicy.minResources",
        "run.schedulingPolicy.scheduleTimeoutSeconds",
        "run.schedulingPolicy.queue",
        "run.schedulingPolicy.priorityClass",
    ]
    assert all("Forbidden: no native equivalent" in line for line in found[:2])
    # apimachinery's IsValidLabelValue, as kubernetes' own validation tests expect it
    assert found[2] == (
        'run.schedulingPolicy.queue: Invalid value: "not a queue": a valid label must be an'
        " empty string or consist of alphanumeric characters, '-', '_' or '.', and must start"
        " and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345',"
        " regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    )
    assert f'Invalid value: "Training": {SUBDOMAIN}' in found[3]
    # an error elsewhere does not hide an invalid minAvailable, nor the reverse
    both = errors_of(MPI, min_available=10, priority_class="Training")
    assert [line.split(": ")[0] for line in both] == [
        "run.schedulingPolicy.minAvailable",
        "run.schedulingPolicy.priorityClass",
    ]


def test_an_unresolved_param_is_reported_at_the_replicas_path() -> None:
    operation = compile_operation(MPI, resolve=False)
    assert operation.run.worker.replicas == "{{ workers }}"
    (error,) = wbp.convert(operation, path="component.run").errors
    assert str(error) == (
        'component.run.worker.replicas: Invalid value: "{{ workers }}": must be resolved to an'
        " integer: compile the operation with its params first"
    )


def test_a_run_in_error_links_and_builds_nothing() -> None:
    operation, kfjob = convert(PYTORCH)
    operation.run.scheduling_policy.min_available = 9
    run = wbp.convert(operation)
    before = copy.deepcopy(sent(kfjob))
    with pytest.raises(wb.BuildError, match="minAvailable"):
        wbp.link_kfjob(kfjob, run)
    with pytest.raises(wb.BuildError):
        wbp.builder(run, created(kfjob))
    assert sent(kfjob) == before


def test_a_kfjob_of_another_run_is_refused() -> None:
    operation, _ = convert(PYTORCH)
    _, other = convert(TF)
    with pytest.raises(ValueError, match=r"kfjob has no pytorchJobSpec\.replicaSpecs"):
        wbp.link_kfjob(other, wbp.convert(operation))
    with pytest.raises(TypeError, match="must be a V1CompiledOperation"):
        wbp.convert({"run": {}})


def test_a_kfjob_as_json_is_linked_as_json() -> None:
    """A plugin that holds the KfJob as JSON (as sent, or read back) links it the same way."""
    operation, kfjob = convert(PYTORCH)
    body = sent(kfjob)
    run = wbp.convert(operation)
    names = wbp.link_kfjob(body, run)
    assert names == wbp.link_kfjob(kfjob, run)  # the same names, models or JSON
    assert "schedulingPolicy" not in body["pytorchJobSpec"]
    for role, replica in body["pytorchJobSpec"]["replicaSpecs"].items():
        template = replica["template"]
        assert template["spec"]["schedulingGroup"] == {"podGroupName": names[role]}
        assert template["metadata"]["labels"][QUEUE] == "research"
        assert template["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "polyaxon"
    again = copy.deepcopy(body)
    assert wbp.link_kfjob(again, run) == names and again == body  # linking twice changes nothing


def test_a_template_already_in_another_group_leaves_the_kfjob_as_it_was() -> None:
    operation, kfjob = convert(PYTORCH)
    body = sent(kfjob)
    body["pytorchJobSpec"]["replicaSpecs"]["Worker"]["template"]["spec"]["schedulingGroup"] = {
        "podGroupName": "elsewhere"
    }
    before = copy.deepcopy(body)
    with pytest.raises(ValueError, match="already belongs to PodGroup 'elsewhere'"):
        wbp.link_kfjob(body, wbp.convert(operation))
    assert body == before
