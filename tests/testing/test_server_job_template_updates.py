"""Which changes to a Job's pod template the test server accepts, as kube-apiserver 1.37 does.

Upstream: ``pkg/apis/batch/validation`` (``validatePodTemplateUpdate``) keeps the template
immutable, except that while ``AllowMutableSchedulingDirectives`` holds, the old template takes
the new one's node affinity, node selector, tolerations, labels, annotations and scheduling
gates before the comparison; ``pkg/registry/batch/job/strategy.go`` sets it for a Job that is
suspended (``spec.suspend: true`` before the update) and has never started (no
``status.startTime``). A template is defaulted by ``SetDefaults_PodSpec`` only, not by the
pod-only ``SetDefaults_Pod`` (``pkg/apis/core/v1/defaults.go``).
"""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import bounded, call

from workloadbuilder.testing import FakeAPIServer

JOBS = "/apis/batch/v1/namespaces/default/jobs"
MERGE = "application/merge-patch+json"


def _job(*, suspend: bool) -> dict[str, Any]:
    spec = {"containers": [{"name": "c", "image": "busybox"}], "restartPolicy": "Never"}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j1"},
        "spec": {"suspend": suspend, "template": {"spec": spec}},
    }


def _template_patch(**spec: Any) -> dict[str, Any]:
    return {"spec": {"template": {"spec": spec}}}


DIRECTIVES = [
    _template_patch(nodeSelector={"zone": "a"}),
    _template_patch(tolerations=[{"key": "gpu", "operator": "Exists"}]),
    _template_patch(schedulingGates=[{"name": "example.com/quota"}]),
    _template_patch(
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                    ]
                }
            }
        }
    ),
    {"spec": {"template": {"metadata": {"labels": {"queue": "q1"}, "annotations": {"a": "b"}}}}},
]


@bounded()
@pytest.mark.parametrize("patch", DIRECTIVES)
async def test_a_suspended_job_that_never_started_takes_new_scheduling_directives(
    fake_apiserver: FakeAPIServer, patch: dict[str, Any]
) -> None:
    assert (await call(fake_apiserver, "POST", JOBS, _job(suspend=True))).status == 201
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", patch, content_type=MERGE)
    assert reply.status == 200, reply.json()


@bounded()
@pytest.mark.parametrize("patch", DIRECTIVES[:2])
async def test_a_running_job_keeps_its_scheduling_directives(
    fake_apiserver: FakeAPIServer, patch: dict[str, Any]
) -> None:
    assert (await call(fake_apiserver, "POST", JOBS, _job(suspend=False))).status == 201
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", patch, content_type=MERGE)
    assert reply.status == 422
    assert reply.json()["details"]["causes"][0]["field"] == "spec.template"


@bounded()
async def test_a_suspended_job_still_keeps_the_rest_of_its_template(
    fake_apiserver: FakeAPIServer,
) -> None:
    assert (await call(fake_apiserver, "POST", JOBS, _job(suspend=True))).status == 201
    image = _template_patch(containers=[{"name": "c", "image": "nginx"}])
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", image, content_type=MERGE)
    assert reply.status == 422
    assert reply.json()["message"].endswith(": field is immutable")


@bounded()
async def test_a_suspended_job_that_started_once_keeps_its_directives(
    fake_apiserver: FakeAPIServer,
) -> None:
    assert (await call(fake_apiserver, "POST", JOBS, _job(suspend=True))).status == 201
    started = {"status": {"startTime": "2026-01-02T03:04:05Z"}}
    status = await call(fake_apiserver, "PATCH", f"{JOBS}/j1/status", started, content_type=MERGE)
    assert status.status == 200, status.json()
    patch = DIRECTIVES[0]
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", patch, content_type=MERGE)
    assert reply.status == 422


@bounded()
async def test_unsuspending_and_changing_directives_in_one_write_is_allowed(
    fake_apiserver: FakeAPIServer,
) -> None:
    # The rule reads the *old* Job: it was suspended and never started.
    assert (await call(fake_apiserver, "POST", JOBS, _job(suspend=True))).status == 201
    patch = {"spec": {"suspend": False, "template": {"spec": {"nodeSelector": {"zone": "b"}}}}}
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", patch, content_type=MERGE)
    assert reply.status == 200, reply.json()
    assert reply.json()["spec"]["template"]["spec"]["nodeSelector"] == {"zone": "b"}


@bounded()
@pytest.mark.parametrize(("with_pod_affinity", "status"), [(False, 200), (True, 422)])
async def test_a_suspended_job_may_drop_an_affinity_that_was_only_node_affinity(
    fake_apiserver: FakeAPIServer, with_pod_affinity: bool, status: int
) -> None:
    job = _job(suspend=True)
    affinity = DIRECTIVES[3]["spec"]["template"]["spec"]["affinity"]
    pod_affinity = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}
    job["spec"]["template"]["spec"]["affinity"] = {
        **affinity,
        **(pod_affinity if with_pod_affinity else {}),
    }
    assert (await call(fake_apiserver, "POST", JOBS, job)).status == 201
    dropped = _template_patch(affinity=None)
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", dropped, content_type=MERGE)
    assert reply.status == status, reply.json()


@bounded()
async def test_the_template_is_compared_semantically(fake_apiserver: FakeAPIServer) -> None:
    # apiequality.Semantic.DeepEqual: an empty list equals a missing one, quantities compare by
    # value; so re-sending the template that way is no change.
    job = _job(suspend=False)
    job["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
    assert (await call(fake_apiserver, "POST", JOBS, job)).status == 201
    same = _template_patch(
        tolerations=[],
        containers=[{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1000m"}}}],
    )
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", same, content_type=MERGE)
    assert reply.status == 200, reply.json()


# What a Pod gets and a pod template does not: upstream's ``SetDefaults_Pod``
# (pkg/apis/core/v1/defaults.go) defaults requests from limits, ``enableServiceLinks`` and,
# with ``hostNetwork``, host ports; ``SetDefaults_PodSpec``, which templates get too, does
# none of them.
_POD_SPEC: dict[str, Any] = {
    "hostNetwork": True,
    "restartPolicy": "Never",
    "containers": [
        {
            "name": "c",
            "image": "busybox",
            "ports": [{"containerPort": 8080}],
            "resources": {"limits": {"memory": "1Gi", "cpu": "1"}, "requests": {"memory": "1Mi"}},
        }
    ],
    "initContainers": [
        {"name": "i", "image": "busybox", "resources": {"limits": {"cpu": "2"}}},
    ],
}


@bounded()
async def test_pod_only_defaults_reach_a_pod_and_not_a_template(
    fake_apiserver: FakeAPIServer,
) -> None:
    job = _job(suspend=False)
    job["spec"]["template"]["spec"] = _POD_SPEC
    reply = await call(fake_apiserver, "POST", JOBS, job)
    assert reply.status == 201, reply.json()
    template = reply.json()["spec"]["template"]["spec"]
    assert "enableServiceLinks" not in template
    assert template["containers"][0]["resources"] == _POD_SPEC["containers"][0]["resources"]
    assert template["containers"][0]["ports"] == [{"containerPort": 8080}]
    assert template["initContainers"][0]["resources"] == {"limits": {"cpu": "2"}}
    assert template["dnsPolicy"] == "ClusterFirst"  # SetDefaults_PodSpec: templates too

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": _POD_SPEC}
    reply = await call(fake_apiserver, "POST", "/api/v1/namespaces/default/pods", pod)
    assert reply.status == 201, reply.json()
    spec = reply.json()["spec"]
    assert spec["enableServiceLinks"] is True
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Mi"}
    assert spec["containers"][0]["ports"] == [{"containerPort": 8080, "hostPort": 8080}]
    assert spec["initContainers"][0]["resources"]["requests"] == {"cpu": "2"}


@bounded()
async def test_a_changed_templates_422_renders_the_template_undefaulted_by_pod_rules(
    fake_apiserver: FakeAPIServer,
) -> None:
    # The internal struct of the template: EnableServiceLinks is a *bool left nil, and a
    # container with limits only keeps a nil Requests map.
    job = _job(suspend=False)
    job["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    assert (await call(fake_apiserver, "POST", JOBS, job)).status == 201
    deadline = _template_patch(activeDeadlineSeconds=60)
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", deadline, content_type=MERGE)
    assert reply.status == 422
    message = reply.json()["message"]
    assert '"EnableServiceLinks":null' in message
    assert '"Resources":{"Limits":{"cpu":"1"},"Requests":null,"Claims":null}' in message
