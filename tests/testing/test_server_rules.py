"""The server runs the scheduling rules (defaults, validation, immutability) on every write."""

from __future__ import annotations

from server_helpers import PG_PATH, SCHED, apply, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer

MERGE = "application/merge-patch+json"


@bounded()
async def test_disruption_mode_is_immutable(fake_apiserver: FakeAPIServer) -> None:
    created = (await apply(fake_apiserver, pod_group(), "ctl")).json()
    assert created["spec"]["disruptionMode"] == {"single": {}}  # defaulted
    patch = {"spec": {"disruptionMode": {"single": None, "all": {}}}}
    reply = await call(fake_apiserver, "PATCH", f"{PG_PATH}/pg", patch, content_type=MERGE)
    assert reply.status == 422
    status = reply.json()
    assert status["reason"] == "Invalid"
    assert status["details"]["name"] == "pg"
    assert status["details"]["group"] == SCHED
    assert status["details"]["kind"] == "PodGroup"
    assert [c["field"] for c in status["details"]["causes"]] == ["spec.disruptionMode"]
    assert status["message"].startswith(
        'PodGroup.scheduling.k8s.io "pg" is invalid: spec.disruptionMode: '
    )
    assert "immutable" in status["message"]
    stored = fake_apiserver.get_object(SCHED, "v1beta1", "podgroups", "default", "pg")
    assert stored == created


@bounded()
async def test_min_count_is_mutable(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group(min_count=2), "ctl")
    reply = await apply(fake_apiserver, pod_group(min_count=6), "ctl")
    assert reply.status == 200
    assert reply.json()["spec"]["schedulingPolicy"]["gang"]["minCount"] == 6
    assert "generation" not in reply.json()["metadata"]  # the PodGroup strategy sets none


@bounded()
async def test_invalid_apply_creates_nothing(fake_apiserver: FakeAPIServer) -> None:
    reply = await apply(fake_apiserver, pod_group(min_count=0), "ctl")
    assert reply.status == 422
    assert reply.headers["Content-Type"] == "application/json"
    causes = reply.json()["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.schedulingPolicy.gang.minCount"]
    assert fake_apiserver.list_objects(SCHED, "v1beta1", "podgroups") == []


@bounded()
async def test_several_causes_are_joined_in_brackets(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group(), "ctl")
    reply = await apply(fake_apiserver, pod_group(disruptionMode={"all": {}}), "ctl")
    assert reply.status == 422
    status = reply.json()
    assert len(status["details"]["causes"]) > 1
    joined = ", ".join(f"{c['field']}: {c['message']}" for c in status["details"]["causes"])
    assert status["message"] == f'PodGroup.scheduling.k8s.io "pg" is invalid: [{joined}]'


@bounded()
async def test_workload_templates_cannot_be_added(fake_apiserver: FakeAPIServer) -> None:
    def workload(*names: str) -> dict[str, object]:
        templates = [{"name": n, "schedulingPolicy": {"basic": {}}} for n in names]
        return {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "Workload",
            "metadata": {"name": "wl", "namespace": "default"},
            "spec": {"podGroupTemplates": templates},
        }

    fake_apiserver.apply_object(SCHED, "v1beta1", "workloads", workload("a"), field_manager="ctl")
    path = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads/wl"
    reply = await call(
        fake_apiserver,
        "PATCH",
        path,
        workload("a", "b"),
        content_type="application/apply-patch+yaml",
        params={"fieldManager": "ctl"},
    )
    assert reply.status == 422
    assert reply.json()["details"]["kind"] == "Workload"
