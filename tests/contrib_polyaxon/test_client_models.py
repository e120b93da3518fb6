"""The official client's models of every release a user can have, in and out of the SDK.

The main environment has ``kubernetes==37`` (pydantic models) and ``kubernetes_asyncio``
(OpenAPI-generated models); the Polyaxon environment (``.ci/run``) has ``kubernetes`` 36
(OpenAPI-generated) beside Polyaxon. Each client's own ``sanitize_for_serialization`` (what it
sends to the API server) is the oracle of the JSON the SDK reads and writes back.
"""

from __future__ import annotations

import datetime
import importlib
import os
from collections.abc import AsyncIterator, Callable
from importlib.metadata import version
from importlib.util import find_spec
from typing import Any, ClassVar

import kubernetes.client as k8s
import kubernetes_asyncio.client as k8s_aio
import pytest

import workloadbuilder as wb

OWNER = {"apiVersion": "example.com/v1", "kind": "Trainer", "name": "t", "uid": "u-1"}
ALL = {
    "allowed_policies": frozenset(wb.SchedulingPolicyOption),
    "allowed_disruption_modes": frozenset(wb.DisruptionModeOption),
}
CREATED = datetime.datetime(2026, 9, 20, 10, 0, 0, tzinfo=datetime.UTC)
Sanitize = Callable[[Any], Any]


def kubernetes_major() -> int:
    return int(version("kubernetes").split(".")[0])


def test_the_polyaxon_environment_has_the_clients_polyaxon_pins() -> None:
    """Under ``.ci/run``'s Polyaxon step these tests must meet kubernetes 36's models."""
    if os.environ.get("WORKLOADBUILDER_POLYAXON_ENV"):
        assert kubernetes_major() < 37
        assert not hasattr(k8s.V1Pod, "model_validate")


@pytest.fixture(params=["kubernetes", "kubernetes_asyncio"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Any, Sanitize]]:
    """A client's model package and its own ``sanitize_for_serialization``."""
    if request.param == "kubernetes":
        yield k8s, k8s.ApiClient().sanitize_for_serialization
        return
    api = k8s_aio.ApiClient()
    try:
        yield k8s_aio, api.sanitize_for_serialization
    finally:
        await api.close()


def group() -> wb.PodGroup:
    item = wb.leaf("workers", policy=wb.gang(2))
    builder = wb.Builder(item, wb.BuildOptions(name="wl", namespace="ml", owner=OWNER, **ALL))
    (pod_group,) = wb.instantiate(builder)
    assert isinstance(pod_group, wb.PodGroup)
    return pod_group


def meta(models: Any, **more: Any) -> Any:
    return models.V1ObjectMeta(
        name="p0", namespace="ml", labels={"role": "worker"}, creation_timestamp=CREATED, **more
    )


def pod_spec(models: Any, **more: Any) -> Any:
    container = models.V1Container(
        name="main",
        image="pytorch/pytorch:2",
        env=[models.V1EnvVar(name="RANK", value="0")],
        resources=models.V1ResourceRequirements(requests={"cpu": "1"}),
    )
    return models.V1PodSpec(containers=[container], restart_policy="Never", **more)


def test_a_pod_is_linked_and_stays_its_clients_model(client: tuple[Any, Sanitize]) -> None:
    models, sanitize = client
    pod = models.V1Pod(api_version="v1", kind="Pod", metadata=meta(models), spec=pod_spec(models))
    pod_group = group()
    linked = wb.set_scheduling_group(pod, pod_group)
    assert type(linked) is models.V1Pod
    assert type(linked.spec.containers[0]) is models.V1Container
    expected = sanitize(pod)
    expected["spec"]["schedulingGroup"] = {"podGroupName": pod_group.metadata.name}
    assert sanitize(linked) == expected
    assert sanitize(pod)["spec"].get("schedulingGroup") is None  # the input is not changed


def test_a_pod_template_is_linked_by_group_name(client: tuple[Any, Sanitize]) -> None:
    models, sanitize = client
    template = models.V1PodTemplateSpec(metadata=meta(models), spec=pod_spec(models))
    linked = wb.set_scheduling_group(template, "wl-workers-1")
    assert type(linked) is models.V1PodTemplateSpec
    expected = sanitize(template)
    expected["spec"]["schedulingGroup"] = {"podGroupName": "wl-workers-1"}
    assert sanitize(linked) == expected


def test_a_pod_of_another_group_gets_the_documented_value_error(
    client: tuple[Any, Sanitize],
) -> None:
    models, _ = client
    linked = models.V1PodSchedulingGroup(pod_group_name="other")
    pod = models.V1Pod(metadata=meta(models), spec=pod_spec(models, scheduling_group=linked))
    with pytest.raises(ValueError, match="pod 'p0' already belongs to PodGroup 'other'"):
        wb.set_scheduling_group(pod, group())
    template = models.V1PodTemplateSpec(
        metadata=meta(models), spec=pod_spec(models, scheduling_group=linked)
    )
    with pytest.raises(ValueError, match="already belongs to PodGroup 'other'"):
        wb.set_scheduling_group(template, "wl-workers-1")


def test_a_pod_of_another_namespace_is_refused(client: tuple[Any, Sanitize]) -> None:
    models, _ = client
    elsewhere = models.V1ObjectMeta(name="p0", namespace="elsewhere")
    pod = models.V1Pod(metadata=elsewhere, spec=pod_spec(models))
    with pytest.raises(ValueError, match="namespace 'elsewhere'"):
        wb.set_scheduling_group(pod, group())


def test_an_owner_dict_holding_a_client_object_meta(client: tuple[Any, Sanitize]) -> None:
    """Polyaxon's converter returns its KfJob as a dict whose ``metadata`` is a V1ObjectMeta."""
    models, _ = client
    owner = {
        "apiVersion": "polyaxon.com/v1",
        "kind": "KfJob",
        "metadata": models.V1ObjectMeta(name="plx-operation-1", namespace="ml", uid="u-9"),
    }
    ref = wb.controller_ref(owner)
    assert (ref.api_version, ref.kind, ref.name, ref.uid) == (
        "polyaxon.com/v1",
        "KfJob",
        "plx-operation-1",
        "u-9",
    )
    owner["metadata"] = models.V1ObjectMeta(name="plx-operation-1")
    with pytest.raises(ValueError, match=r"it has no metadata\.uid;"):
        wb.controller_ref(owner)


def test_an_owner_that_is_a_client_model(client: tuple[Any, Sanitize]) -> None:
    models, _ = client
    owner = models.V1Pod(
        api_version="v1", kind="Pod", metadata=models.V1ObjectMeta(name="p", uid="u-2")
    )
    assert wb.controller_ref(owner).uid == "u-2"


def test_group_names_are_the_names_stamped_later() -> None:
    """The names known before any owner exists are those ``instantiate()`` gives the stamped
    groups of a Builder named alike, for leaves and composites at any depth."""
    tree = wb.composite(
        "run",
        [
            wb.leaf("launcher", policy=wb.gang(1)),
            wb.composite("workers", [wb.leaf("rack-a", policy=wb.gang(2))]),
        ],
        policy=wb.gang(min_group_count=2),
    )
    names = wb.group_names(tree, "plx-operation-0123")
    options = wb.BuildOptions(name="plx-operation-0123", namespace="ml", owner=OWNER, **ALL)
    stamped = {
        obj.spec.workload_ref.template_name: obj.metadata.name
        for obj in wb.instantiate(wb.Builder(tree, options))
    }
    assert names == stamped
    assert list(names) == ["run", "launcher", "workers", "rack-a"]
    # upstream's scheme: <workload>-<template>-<hash> (reference section 6)
    assert names["launcher"] == wb.generate_pod_group_name("plx-operation-0123", "launcher")
    custom = wb.group_names(tree, "wl", name=lambda w, t: f"{w}-{t}")
    assert custom["rack-a"] == "wl-rack-a"


def test_group_names_refuses_what_cannot_name_a_group() -> None:
    with pytest.raises(ValueError, match="workload_name must be a non-empty string"):
        wb.group_names(wb.leaf("a"), "")
    with pytest.raises(TypeError, match="root must be a WorkloadItem or a list of them"):
        wb.group_names({"name": "a"}, "wl")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must return the group's name"):
        wb.group_names(wb.leaf("a"), "wl", name=lambda w, t: "")


def test_the_polyaxon_adapter_names_its_extra_when_polyaxon_is_missing() -> None:
    if find_spec("polyaxon") is None:
        hint = (
            r"^workloadbuilder\.contrib\.polyaxon needs the \[polyaxon\] extra:"
            r" pip install 'workloadbuilder\[polyaxon\]' \(polyaxon not installed\)$"
        )
        with pytest.raises(ModuleNotFoundError, match=hint):
            importlib.import_module("workloadbuilder.contrib.polyaxon")
    else:
        module = importlib.import_module("workloadbuilder.contrib.polyaxon")
        assert module.QUEUE_LABEL == "kueue.x-k8s.io/queue-name"


def test_a_client_whose_pod_spec_predates_the_link_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client older than ``spec.schedulingGroup`` (kubernetes_asyncio before 1.34's models)
    would drop the link silently: its V1PodSpec, as such a client's, without the field."""

    class OldPodSpec(k8s_aio.V1PodSpec):  # type: ignore[misc]
        openapi_types: ClassVar[dict[str, str]] = {
            k: v for k, v in k8s_aio.V1PodSpec.openapi_types.items() if k != "scheduling_group"
        }
        attribute_map: ClassVar[dict[str, str]] = {
            k: v for k, v in k8s_aio.V1PodSpec.attribute_map.items() if k != "scheduling_group"
        }

    monkeypatch.setattr(k8s_aio.models, "V1PodSpec", OldPodSpec)
    pod = k8s_aio.V1Pod(metadata=meta(k8s_aio), spec=pod_spec(k8s_aio))
    with pytest.raises(TypeError, match=r"V1Pod cannot hold spec\.schedulingGroup"):
        wb.set_scheduling_group(pod, group())
