"""Core and batch objects as the API server defaults and validates them, and the deletion
lifecycle of PodGroups, namespaces and foreground cascades, over real HTTP.

Expected values come from ``real-apiserver-observed.md`` (a v1.36.2
kube-apiserver: the PodGroup protection finalizer, ``status: {}``, no PodGroup generation, the
Terminating namespace and its 403, a Pod's generation 1) and from upstream's sources:
kubernetes/kubernetes ``pkg/registry/scheduling/podgroup/strategy.go`` and the CompositePodGroup
strategy (status reset to empty, no generation set), ``pkg/apis/core/v1/defaults.go``,
``pkg/apis/batch/v1/defaults.go`` and the Job strategy (generated selector and labels),
``pkg/apis/batch/validation`` (restart policy), and the garbage collector's documented
foreground deletion (``deletionTimestamp`` plus the ``foregroundDeletion`` finalizer, the owner
removed after its dependents).
"""

from __future__ import annotations

from typing import Any

from server_helpers import PG_PATH, SCHED, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
NAMESPACES = "/api/v1/namespaces"
PROTECTION = "scheduling.k8s.io/podgroup-protection"


def pod(name: str = "p", group: str | None = None, **meta: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "trainer:1.0"}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta}, "spec": spec}


def job(name: str = "j", **spec: Any) -> dict[str, Any]:
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "t"}]}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": template, **spec},
    }


# -- core and batch objects -------------------------------------------------------------------


@bounded()
async def test_a_pod_is_created_pending_with_its_spec_defaults(
    fake_apiserver: FakeAPIServer,
) -> None:
    body = pod()
    body["spec"]["containers"].append({"name": "latest", "image": "busybox"})
    created = (await call(fake_apiserver, "POST", PODS, body)).json()
    assert created["status"]["phase"] == "Pending"
    assert created["metadata"]["generation"] == 1
    spec = created["spec"]
    assert {k: spec[k] for k in ("restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy",
                                 "schedulerName", "enableServiceLinks", "securityContext")} == {
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "schedulerName": "default-scheduler",
        "enableServiceLinks": True,
        "securityContext": {},
    }  # fmt: skip
    tagged, untagged = spec["containers"]
    assert tagged["terminationMessagePath"] == "/dev/termination-log"
    assert tagged["terminationMessagePolicy"] == "File"
    assert (tagged["imagePullPolicy"], untagged["imagePullPolicy"]) == ("IfNotPresent", "Always")


@bounded()
async def test_a_pod_without_containers_or_images_is_invalid(fake_apiserver: FakeAPIServer) -> None:
    empty = await call(fake_apiserver, "POST", PODS, {"metadata": {"name": "e"}, "spec": {}})
    assert empty.status == 422
    assert [(c["reason"], c["field"]) for c in empty.json()["details"]["causes"]] == [
        ("FieldValueRequired", "spec.containers")
    ]
    imageless = {"metadata": {"name": "i"}, "spec": {"containers": [{"name": "c"}]}}
    reply = await call(fake_apiserver, "POST", PODS, imageless)
    assert reply.status == 422
    assert reply.json()["message"] == 'Pod "i" is invalid: spec.containers[0].image: Required value'


@bounded()
async def test_a_namespace_is_created_active_with_its_finalizer_and_name_label(
    fake_apiserver: FakeAPIServer,
) -> None:
    reply = await call(fake_apiserver, "POST", NAMESPACES, {"metadata": {"name": "ml"}})
    assert reply.status == 201
    ns = reply.json()
    assert ns["spec"] == {"finalizers": ["kubernetes"]}
    assert ns["status"] == {"phase": "Active"}
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "ml"}
    bad = await call(fake_apiserver, "POST", NAMESPACES, {"metadata": {"name": "a.b"}})
    assert bad.status == 422
    assert [c["field"] for c in bad.json()["details"]["causes"]] == ["metadata.name"]


@bounded()
async def test_a_job_gets_its_defaults_selector_and_labels(fake_apiserver: FakeAPIServer) -> None:
    created = (await call(fake_apiserver, "POST", JOBS, job())).json()
    uid = created["metadata"]["uid"]
    spec = created["spec"]
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"]) == (1, 1, 6)
    assert (spec["completionMode"], spec["suspend"]) == ("NonIndexed", False)
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    labels = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "j",
        "controller-uid": uid,
        "job-name": "j",
    }
    assert spec["template"]["metadata"]["labels"] == labels
    assert created["metadata"]["labels"] == labels
    assert created["metadata"]["generation"] == 1
    assert created["status"] == {}
    wide = (await call(fake_apiserver, "POST", JOBS, job("w", parallelism=4))).json()
    assert wide["spec"]["parallelism"] == 4 and "completions" not in wide["spec"]


@bounded()
async def test_a_job_whose_pods_would_restart_always_is_invalid(
    fake_apiserver: FakeAPIServer,
) -> None:
    body = job()
    del body["spec"]["template"]["spec"]["restartPolicy"]
    reply = await call(fake_apiserver, "POST", JOBS, body)
    assert reply.status == 422
    # real-apiserver-observed.md, "Jobs": defaulting made it Always, batch validation words
    # that as Required
    assert reply.json()["message"] == (
        'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Required value:'
        ' valid values: "OnFailure", "Never"'
    )
    assert reply.json()["details"]["causes"][0]["reason"] == "FieldValueRequired"


@bounded()
async def test_a_gang_larger_than_the_jobs_parallelism_is_invalid(
    fake_apiserver: FakeAPIServer,
) -> None:
    """KEP-5547 / PR #140188: an explicit minCount above spec.parallelism is rejected."""
    body = job(parallelism=2, scheduling={"schedulingPolicy": {"gang": {"minCount": 3}}})
    reply = await call(fake_apiserver, "POST", JOBS, body)
    assert reply.status == 422
    assert reply.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 3: must be less than or equal to 2"
            " (the value specified for spec.parallelism)",
            "field": "spec.scheduling.schedulingPolicy.gang.minCount",
        }
    ]
    body["spec"]["parallelism"] = 3
    assert (await call(fake_apiserver, "POST", JOBS, body)).status == 201


# -- fresh scheduling objects and the PodGroup lifecycle ---------------------------------------


@bounded()
async def test_a_fresh_pod_group_is_protected_has_empty_status_and_no_generation(
    fake_apiserver: FakeAPIServer,
) -> None:
    created = (await call(fake_apiserver, "POST", PG_PATH, pod_group())).json()
    assert created["status"] == {}
    assert "generation" not in created["metadata"]
    assert created["metadata"]["finalizers"] == [PROTECTION]
    fields = str(created["metadata"]["managedFields"])
    assert "finalizers" not in fields  # added by admission, after the field manager
    composite = {
        "apiVersion": f"{SCHED}/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": {"name": "cpg"},
        "spec": {
            "workloadRef": {"workloadName": "w", "templateName": "t"},
            "schedulingPolicy": {"basic": {}},
        },
    }
    path = "/apis/scheduling.k8s.io/v1alpha3/namespaces/default/compositepodgroups"
    cpg = (await call(fake_apiserver, "POST", path, composite)).json()
    assert cpg["status"] == {} and "generation" not in cpg["metadata"]


@bounded()
async def test_a_pod_group_named_by_a_pod_waits_for_the_pod(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", PG_PATH, pod_group())
    await call(fake_apiserver, "POST", PODS, pod("member", group="pg"))
    reply = await call(fake_apiserver, "DELETE", f"{PG_PATH}/pg")
    assert reply.status == 200
    marked = reply.json()["metadata"]
    assert marked["deletionTimestamp"].endswith("Z")
    assert marked["deletionGracePeriodSeconds"] == 0
    assert marked["finalizers"] == [PROTECTION]
    assert (await call(fake_apiserver, "GET", f"{PG_PATH}/pg")).status == 200
    await call(fake_apiserver, "DELETE", f"{PODS}/member")
    assert (await call(fake_apiserver, "GET", f"{PG_PATH}/pg")).status == 404


# -- namespace deletion --------------------------------------------------------------------------


@bounded()
async def test_a_namespace_terminates_then_goes_once_empty(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", NAMESPACES, {"metadata": {"name": "del-me"}})
    held = pod("held", finalizers=["example.com/hold"])
    pods = "/api/v1/namespaces/del-me/pods"
    await call(fake_apiserver, "POST", pods, held)
    await call(fake_apiserver, "POST", pods, pod("free"))
    reply = await call(fake_apiserver, "DELETE", f"{NAMESPACES}/del-me")
    assert reply.status == 200
    ns = reply.json()
    assert ns["status"]["phase"] == "Terminating"
    assert ns["spec"]["finalizers"] == ["kubernetes"]
    assert ns["metadata"]["deletionTimestamp"].endswith("Z")
    assert (await call(fake_apiserver, "GET", f"{pods}/free")).status == 404
    refused = await call(fake_apiserver, "POST", pods, pod("cm2"))
    assert refused.status == 403
    assert refused.json()["message"] == (
        'pods "cm2" is forbidden: unable to create new content in namespace del-me because it'
        " is being terminated"
    )
    assert refused.json()["details"]["causes"] == [
        {
            "reason": "NamespaceTerminating",
            "message": "namespace del-me is being terminated",
            "field": "metadata.namespace",
        }
    ]
    labelled = await call(
        fake_apiserver,
        "PATCH",
        f"{pods}/held",
        {"metadata": {"labels": {"a": "b"}}},
        content_type="application/merge-patch+json",
    )
    assert labelled.status == 200  # existing objects can still be changed
    again = await call(fake_apiserver, "DELETE", f"{NAMESPACES}/del-me")
    assert again.status == 200 and again.json()["status"]["phase"] == "Terminating"
    assert (await call(fake_apiserver, "GET", f"{NAMESPACES}/del-me")).status == 200
    await call(
        fake_apiserver,
        "PATCH",
        f"{pods}/held",
        {"metadata": {"finalizers": None}},
        content_type="application/merge-patch+json",
    )
    assert (await call(fake_apiserver, "GET", f"{NAMESPACES}/del-me")).status == 404


# -- foreground deletion ---------------------------------------------------------------------------


@bounded()
async def test_foreground_deletion_removes_the_owner_after_its_dependents(
    fake_apiserver: FakeAPIServer,
) -> None:
    owner = (await call(fake_apiserver, "POST", JOBS, job("owner"))).json()
    ref = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    dependent = pod("dep", ownerReferences=[ref], finalizers=["example.com/hold"])
    await call(fake_apiserver, "POST", PODS, dependent)
    reply = await call(
        fake_apiserver, "DELETE", f"{JOBS}/owner", params={"propagationPolicy": "Foreground"}
    )
    assert reply.status == 200
    marked = reply.json()["metadata"]
    assert marked["deletionTimestamp"].endswith("Z")
    assert marked["finalizers"] == ["foregroundDeletion"]
    still = await call(fake_apiserver, "GET", f"{JOBS}/owner")
    assert still.status == 200 and still.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    dep = (await call(fake_apiserver, "GET", f"{PODS}/dep")).json()
    assert dep["metadata"]["deletionTimestamp"]  # the collector deletes the dependent first
    await call(
        fake_apiserver,
        "PATCH",
        f"{PODS}/dep",
        {"metadata": {"finalizers": None}},
        content_type="application/merge-patch+json",
    )
    assert (await call(fake_apiserver, "GET", f"{PODS}/dep")).status == 404
    assert (await call(fake_apiserver, "GET", f"{JOBS}/owner")).status == 404
