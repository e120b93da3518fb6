"""What a Pod update may change, over HTTP: one test per rule of ``ValidatePodUpdate``.

Expected messages are upstream's (kubernetes 1.36.3 ``pkg/apis/core/validation/validation.go``:
``updatablePodSpecFields``, ``ValidateContainerUpdates``, ``validateOnlyAddedTolerations``,
``validateOnlyDeletedSchedulingGates``, ``validateNodeSelectorMutation``,
``ValidatePodSpecificAnnotationUpdates``) and the observed record
(``real-apiserver-observed.md``: a changed ``schedulingGroup`` is a 422 with the generic
message plus a diff). Upstream's text after the newline is a go-cmp diff, whose form go-cmp
leaves unspecified; the test server writes one ``spec.<path>: <old> -> <new>`` line per changed
field there (docs/testing.md), and that is what these tests check after the newline.
"""

from __future__ import annotations

from typing import Any

from server_helpers import APPLY, bounded, call

from workloadbuilder.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
GENERIC = (
    "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)\n"
)


def pod(name: str = "p1", **spec: Any) -> dict[str, Any]:
    body = {"containers": [{"name": "c", "image": "busybox"}], **spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


async def created(server: FakeAPIServer, obj: dict[str, Any]) -> dict[str, Any]:
    reply = await call(server, "POST", PODS, obj)
    assert reply.status == 201, reply.text
    body: dict[str, Any] = reply.json()
    return body


async def patched(
    server: FakeAPIServer, patch: Any, content_type: str = MERGE, name: str = "p1"
) -> tuple[int, Any]:
    reply = await call(server, "PATCH", f"{PODS}/{name}", patch, content_type=content_type)
    return reply.status, reply.json()


def refusal(body: Any) -> tuple[str, list[tuple[str, str]]]:
    """The message after the pod's name and the (reason, field) of each cause."""
    assert body["code"] == 422 and body["reason"] == "Invalid"
    prefix = f'Pod "{body["details"]["name"]}" is invalid: '
    assert body["message"].startswith(prefix)
    causes = [(c["reason"], c["field"]) for c in body["details"]["causes"]]
    return body["message"][len(prefix) :], causes


@bounded()
async def test_an_image_may_change(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod())
    image = {"spec": {"containers": [{"name": "c", "image": "busybox:1.37"}]}}
    status, body = await patched(fake_apiserver, image, STRATEGIC)
    assert status == 200
    assert body["spec"]["containers"][0]["image"] == "busybox:1.37"
    assert body["metadata"]["generation"] == 2


@bounded()
async def test_an_image_needs_no_surrounding_spaces(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod())
    image = {"spec": {"containers": [{"name": "c", "image": " busybox"}]}}
    status, body = await patched(fake_apiserver, image, STRATEGIC)
    assert status == 422
    # validatePodMetadataAndSpec and ValidateContainerUpdates both find it: two causes, one
    # message (field.ErrorList.ToAggregate writes each distinct error once).
    detail = (
        'spec.containers[0].image: Invalid value: " busybox": must not have leading or '
        "trailing whitespace"
    )
    assert refusal(body) == (detail, [("FieldValueInvalid", "spec.containers[0].image")] * 2)


@bounded()
async def test_active_deadline_may_be_set_and_lowered_only(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod())
    assert (await patched(fake_apiserver, {"spec": {"activeDeadlineSeconds": 60}}))[0] == 200
    assert (await patched(fake_apiserver, {"spec": {"activeDeadlineSeconds": 30}}))[0] == 200
    status, body = await patched(fake_apiserver, {"spec": {"activeDeadlineSeconds": 90}})
    assert (status, refusal(body)) == (
        422,
        (
            "spec.activeDeadlineSeconds: Invalid value: 90: must be less than or equal to "
            "previous value",
            [("FieldValueInvalid", "spec.activeDeadlineSeconds")],
        ),
    )
    status, body = await patched(fake_apiserver, {"spec": {"activeDeadlineSeconds": None}})
    assert refusal(body) == (
        "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive "
        "integer to nil value",
        [("FieldValueInvalid", "spec.activeDeadlineSeconds")],
    )


@bounded()
async def test_tolerations_may_be_added_not_removed(fake_apiserver: FakeAPIServer) -> None:
    gpu = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}
    evict = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}
    await created(fake_apiserver, pod(tolerations=[gpu]))
    added = {"spec": {"tolerations": [gpu, {**evict, "tolerationSeconds": 300}]}}
    status, body = await patched(fake_apiserver, added)
    assert status == 200 and len(body["spec"]["tolerations"]) == 2
    # an existing toleration may change its tolerationSeconds
    shorter = {"spec": {"tolerations": [gpu, {**evict, "tolerationSeconds": 60}]}}
    assert (await patched(fake_apiserver, shorter))[0] == 200
    status, body = await patched(fake_apiserver, {"spec": {"tolerations": [gpu]}})
    assert (status, refusal(body)) == (
        422,
        (
            "spec.tolerations: Forbidden: existing toleration can not be modified except its "
            "tolerationSeconds",
            [("FieldValueForbidden", "spec.tolerations")],
        ),
    )


@bounded()
async def test_a_scheduling_group_may_not_change(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod(schedulingGroup={"podGroupName": "train-a"}))
    moved = {"spec": {"schedulingGroup": {"podGroupName": "train-b"}}}
    status, body = await patched(fake_apiserver, moved)
    # observed: the generic message plus a diff, and no other error (1.37's core/v1 types mark
    # schedulingGroup immutable only in its documentation, so no declarative error joins it)
    assert (status, refusal(body)) == (
        422,
        (
            GENERIC + 'spec.schedulingGroup.podGroupName: "train-a" -> "train-b"',
            [("FieldValueForbidden", "spec")],
        ),
    )
    status, body = await patched(fake_apiserver, {"spec": {"schedulingGroup": None}})
    assert refusal(body)[0] == GENERIC + 'spec.schedulingGroup: {"podGroupName":"train-a"} -> null'


@bounded()
async def test_a_scheduling_group_may_not_change_by_apply_or_put(
    fake_apiserver: FakeAPIServer,
) -> None:
    manifest = pod(schedulingGroup={"podGroupName": "train-a"})
    params = {"fieldManager": "launcher", "force": "true"}
    reply = await call(
        fake_apiserver, "PATCH", f"{PODS}/p1", manifest, content_type=APPLY, params=params
    )
    assert reply.status == 201
    # the same manifest again changes nothing: the admission-set priority stays
    reply = await call(
        fake_apiserver, "PATCH", f"{PODS}/p1", manifest, content_type=APPLY, params=params
    )
    assert reply.status == 200
    moved = pod(schedulingGroup={"podGroupName": "train-b"})
    reply = await call(
        fake_apiserver, "PATCH", f"{PODS}/p1", moved, content_type=APPLY, params=params
    )
    assert refusal(reply.json()) == (
        GENERIC + 'spec.schedulingGroup.podGroupName: "train-a" -> "train-b"',
        [("FieldValueForbidden", "spec")],
    )
    live = (await call(fake_apiserver, "GET", f"{PODS}/p1")).json()
    put = {
        **moved,
        "metadata": {"name": "p1", "resourceVersion": live["metadata"]["resourceVersion"]},
    }
    reply = await call(fake_apiserver, "PUT", f"{PODS}/p1", put)
    assert reply.status == 422
    assert refusal(reply.json())[0].endswith('"train-a" -> "train-b"')


@bounded()
async def test_a_put_of_the_created_manifest_is_no_change(fake_apiserver: FakeAPIServer) -> None:
    live = await created(fake_apiserver, pod())
    assert live["spec"]["priority"] == 0  # Priority admission, observed
    # Priority admission on update keeps what it set on create when the update leaves it out
    put = {
        **pod(),
        "metadata": {"name": "p1", "resourceVersion": live["metadata"]["resourceVersion"]},
    }
    reply = await call(fake_apiserver, "PUT", f"{PODS}/p1", put)
    assert reply.status == 200, reply.text
    assert reply.json()["spec"]["priority"] == 0
    assert reply.json()["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]


@bounded()
async def test_resources_may_not_change(fake_apiserver: FakeAPIServer) -> None:
    obj = pod()
    obj["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1", "memory": "1Gi"}}
    await created(fake_apiserver, obj)
    more = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "2"}}}]}}
    status, body = await patched(fake_apiserver, more, STRATEGIC)
    assert (status, refusal(body)) == (
        422,
        (
            GENERIC + 'spec.containers[0].resources.limits[cpu]: "1" -> "2"',
            [("FieldValueForbidden", "spec")],
        ),
    )
    # quantities compare by value (Semantic.DeepEqual): 1000m is 1 CPU, 1024Mi is 1Gi
    same = {"cpu": "1000m", "memory": "1024Mi"}
    same_patch = {"spec": {"containers": [{"name": "c", "resources": {"limits": same}}]}}
    assert (await patched(fake_apiserver, same_patch, STRATEGIC))[0] == 200
    grace = {"spec": {"terminationGracePeriodSeconds": 5}}
    status, body = await patched(fake_apiserver, grace)
    assert refusal(body)[0] == GENERIC + "spec.terminationGracePeriodSeconds: 30 -> 5"


@bounded()
async def test_labels_and_annotations_may_change(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod(schedulingGroup={"podGroupName": "train-a"}))
    meta = {"metadata": {"labels": {"role": "worker"}, "annotations": {"note": "x"}}}
    status, body = await patched(fake_apiserver, meta)
    assert status == 200
    assert body["metadata"]["labels"] == {"role": "worker"}
    assert body["metadata"]["annotations"] == {"note": "x"}
    assert body["metadata"]["generation"] == 1
    status, body = await patched(fake_apiserver, {"metadata": {"labels": None}}, STRATEGIC)
    assert status == 200 and "labels" not in body["metadata"]


@bounded()
async def test_the_mirror_pod_annotation_may_not_be_added(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod())
    mirror = {"metadata": {"annotations": {"kubernetes.io/config.mirror": "x"}}}
    status, body = await patched(fake_apiserver, mirror)
    at = "metadata.annotations[kubernetes.io/config.mirror]"
    unbound = f'{at}: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set'
    added = f"{at}: Forbidden: may not add mirror pod annotation"
    # validatePodMetadataAndSpec checks the annotations, ValidatePodSpecificAnnotationUpdates
    # forbids the addition and checks them again: three causes, two distinct messages
    assert (status, refusal(body)) == (
        422,
        (
            f"[{unbound}, {added}]",
            [("FieldValueInvalid", at), ("FieldValueForbidden", at), ("FieldValueInvalid", at)],
        ),
    )


@bounded()
async def test_scheduling_gates_may_only_be_removed(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod(schedulingGates=[{"name": "a"}, {"name": "b"}]))
    status, body = await patched(
        fake_apiserver, {"spec": {"schedulingGates": [{"name": "b"}, {"name": "c"}]}}
    )
    assert (status, refusal(body)) == (
        422,
        (
            "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new "
            "scheduling gate 'c'",
            [("FieldValueForbidden", "spec.schedulingGates[1].name")],
        ),
    )
    assert (await patched(fake_apiserver, {"spec": {"schedulingGates": [{"name": "b"}]}}))[0] == 200


@bounded()
async def test_a_gated_pod_may_add_to_its_node_selector(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod(schedulingGates=[{"name": "a"}], nodeSelector={"zone": "a"}))
    more = {"spec": {"nodeSelector": {"zone": "a", "disk": "ssd"}}}
    assert (await patched(fake_apiserver, more))[0] == 200
    status, body = await patched(fake_apiserver, {"spec": {"nodeSelector": {"zone": "b"}}})
    assert (status, refusal(body)) == (
        422,
        (
            'spec.nodeSelector: Invalid value: {"disk":"ssd","zone":"b"}: only additions to '
            "spec.nodeSelector are allowed (no mutations or deletions)",
            [("FieldValueInvalid", "spec.nodeSelector")],
        ),
    )
    # once the gates are gone the selector is as frozen as the rest of the spec
    assert (await patched(fake_apiserver, {"spec": {"schedulingGates": None}}))[0] == 200
    status, body = await patched(fake_apiserver, {"spec": {"nodeSelector": {"rack": "r1"}}})
    assert refusal(body)[0] == GENERIC + 'spec.nodeSelector[rack]: null -> "r1"'


@bounded()
async def test_adding_a_container_is_the_only_error(fake_apiserver: FakeAPIServer) -> None:
    await created(fake_apiserver, pod(schedulingGroup={"podGroupName": "train-a"}))
    both = {
        "spec": {
            "containers": [{"name": "c", "image": "busybox"}, {"name": "d", "image": "busybox"}],
            "schedulingGroup": {"podGroupName": "train-b"},
        }
    }
    status, body = await patched(fake_apiserver, both)
    # ValidateContainerUpdates stops ValidatePodUpdate: nothing else is reported
    assert (status, refusal(body)) == (
        422,
        (
            "spec.containers: Forbidden: pod updates may not add or remove containers",
            [("FieldValueForbidden", "spec.containers")],
        ),
    )


@bounded()
async def test_binding_status_and_deletion_still_update_a_pod(
    fake_apiserver: FakeAPIServer,
) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    assert (await call(fake_apiserver, "POST", "/api/v1/nodes", node)).status == 201
    await created(fake_apiserver, pod(schedulingGroup={"podGroupName": "train-a"}))
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p1"},
        "target": {"kind": "Node", "name": "n1"},
    }
    assert (await call(fake_apiserver, "POST", f"{PODS}/p1/binding", binding)).status == 201
    status = {"status": {"conditions": [{"type": "Ready", "status": "False"}]}}
    reply = await call(fake_apiserver, "PATCH", f"{PODS}/p1/status", status, content_type=MERGE)
    assert reply.status == 200
    # the user may not take the pod off its node: spec.nodeName is the binding's
    _, body = await patched(fake_apiserver, {"spec": {"nodeName": None}})
    assert refusal(body)[0] == GENERIC + 'spec.nodeName: "n1" -> null'
    deleted = await call(fake_apiserver, "DELETE", f"{PODS}/p1")
    assert deleted.status == 200
    assert deleted.json()["metadata"]["deletionGracePeriodSeconds"] == 30
