"""preflight(): a cluster without the APIs gets an error naming the feature gate to enable."""

from __future__ import annotations

import pytest
from apply_support import NS, release_objects

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "trainer", "namespace": NS},
    "spec": {
        "parallelism": 2,
        "scheduling": {"schedulingPolicy": {"gang": {}}},
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "main", "image": "trainer"}],
            }
        },
    },
}


@pytest.mark.fake_apiserver(feature_gates={"GenericWorkload": False})
async def test_without_the_scheduling_api_preflight_and_apply_name_generic_workload(
    fake_apiserver: FakeAPIServer,
) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.MissingAPIError) as by_preflight:
            await aio.preflight(api, release_objects())
        with pytest.raises(aio.MissingAPIError) as by_apply:
            await aio.apply(api, release_objects(), field_manager="ctl")
    for caught in (by_preflight, by_apply):
        assert "GenericWorkload" in caught.value.feature_gates
        assert "GenericWorkload" in str(caught.value)
        assert "workloads.scheduling.k8s.io/v1beta1" in str(caught.value)
    assert not [r for r in fake_apiserver.requests if r.method == "PATCH"]


@pytest.mark.fake_apiserver(feature_gates={"CompositePodGroup": False})
async def test_without_composite_groups_names_the_composite_gate(
    fake_apiserver: FakeAPIServer,
) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.MissingAPIError) as caught:
            await aio.preflight(api, release_objects())
    [missing] = caught.value.missing
    assert (missing.group, missing.version, missing.resource) == (
        "scheduling.k8s.io",
        "v1alpha3",
        "compositepodgroups",
    )
    assert missing.feature_gates == ("CompositePodGroup",)


async def test_discovery_is_cached_per_client(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        for _ in range(3):
            await aio.preflight(api, release_objects())
    discovery = [r.path for r in fake_apiserver.requests if r.method == "GET"]
    assert sorted(discovery) == [
        "/apis/scheduling.k8s.io/v1alpha3",
        "/apis/scheduling.k8s.io/v1beta1",
    ]


@pytest.mark.fake_apiserver(feature_gates={"WorkloadWithJob": False})
async def test_a_scheduled_job_needs_workload_with_job(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.MissingAPIError) as caught:
            await aio.preflight(api, [JOB])
    assert "WorkloadWithJob" in caught.value.feature_gates
    assert fake_apiserver.list_objects("batch", "v1", "jobs", NS) == []  # a dry run only


async def test_a_scheduled_job_passes_when_the_gate_is_on(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        await aio.preflight(api, [JOB])
        await aio.preflight(api, [JOB])
    probes = [r for r in fake_apiserver.requests if r.method == "POST"]
    assert [r.query.get("dryRun") for r in probes] == ["All"]
    assert fake_apiserver.list_objects("batch", "v1", "jobs", NS) == []


@pytest.mark.fake_apiserver(preset="default-1.37")
async def test_on_a_default_cluster_each_missing_api_names_its_gate_and_stage(
    fake_apiserver: FakeAPIServer,
) -> None:
    """kube_features.go of 1.37: GenericWorkload beta, CompositePodGroup alpha, both off."""
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.MissingAPIError) as caught:
            await aio.preflight(api, release_objects())
    by_resource = {m.resource: m for m in caught.value.missing}
    assert set(by_resource) == {"workloads", "podgroups", "compositepodgroups"}
    assert by_resource["podgroups"].feature_gates == ("GenericWorkload",)
    assert by_resource["podgroups"].hint.startswith(
        "GenericWorkload is beta in 1.37, off by default"
    )
    assert "CompositePodGroup is alpha in 1.37, off by default" in str(caught.value)
    assert "--runtime-config=scheduling.k8s.io/v1beta1=true" in str(caught.value)


@pytest.mark.fake_apiserver(preset="beta-1.37")
async def test_with_the_beta_on_an_alpha_gate_is_named_alpha(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.MissingAPIError) as composite:
            await aio.preflight(api, release_objects())
        with pytest.raises(aio.MissingAPIError) as job:
            await aio.preflight(api, [JOB])
    [missing] = composite.value.missing
    assert missing.hint.startswith("CompositePodGroup is alpha in 1.37, off by default")
    [missing] = job.value.missing
    assert missing.feature_gates == ("WorkloadWithJob", "GenericWorkload")
    assert missing.hint.startswith(
        "WorkloadWithJob is alpha in 1.37, off by default; "
        "GenericWorkload is beta in 1.37, off by default"
    )


GATED_WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {"name": "trainer-wl", "namespace": NS},
    "spec": {
        "podGroupTemplates": [
            {
                "name": "workers",
                "schedulingPolicy": {"gang": {"minCount": 2}},
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpus"}],
                "preemptionPolicy": "Never",
            }
        ]
    },
}


@pytest.mark.fake_apiserver(preset="beta-1.37", auto_create_namespaces=True)
async def test_with_the_beta_the_alpha_fields_of_a_workload_name_their_gates(
    fake_apiserver: FakeAPIServer,
) -> None:
    """Upstream's Workload validation forbids schedulingConstraints and preemptionPolicy
    without TopologyAwareWorkloadScheduling / PodGroupPreemptionPolicy (alpha in 1.37);
    resourceClaims' DRAWorkloadResourceClaims is beta and on in this preset."""
    async with fake_apiserver.api_client() as api:
        with pytest.raises(aio.MissingAPIError) as caught:
            await aio.preflight(api, [GATED_WORKLOAD])
    assert caught.value.feature_gates == (
        "TopologyAwareWorkloadScheduling",
        "PodGroupPreemptionPolicy",
    )
    hints = [m.hint for m in caught.value.missing]
    assert hints == [
        "TopologyAwareWorkloadScheduling is alpha in 1.37, off by default; the API server"
        " refuses or drops spec.podGroupTemplates[0].schedulingConstraints without it",
        "PodGroupPreemptionPolicy is alpha in 1.37, off by default; the API server"
        " refuses or drops spec.podGroupTemplates[0].preemptionPolicy without it",
    ]
    probes = [r for r in fake_apiserver.requests if r.method == "POST"]
    assert [r.query.get("dryRun") for r in probes] == ["All"]
    assert fake_apiserver.list_objects("scheduling.k8s.io", "v1beta1", "workloads", NS) == []


@pytest.mark.fake_apiserver(auto_create_namespaces=True)
async def test_every_field_gate_on_passes(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        await aio.preflight(api, [GATED_WORKLOAD])
    assert fake_apiserver.list_objects("scheduling.k8s.io", "v1beta1", "workloads", NS) == []
