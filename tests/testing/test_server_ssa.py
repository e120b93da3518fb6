"""Server-side apply: ownership, conflicts, force, removal, no-op re-apply, managedFields."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import PG_PATH, SCHED, apply, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer

V1B1 = "scheduling.k8s.io/v1beta1"
MIN_COUNT = {"f:spec": {"f:schedulingPolicy": {"f:gang": {"f:minCount": {}}}}}


def managers(obj: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(m["manager"], m["operation"]): m for m in obj["metadata"]["managedFields"]}


@bounded()
async def test_two_managers_conflict_then_force(fake_apiserver: FakeAPIServer) -> None:
    first = await apply(fake_apiserver, pod_group(min_count=2), "alpha")
    assert first.status == 201
    assert first.json()["metadata"]["managedFields"] == [
        {
            "manager": "alpha",
            "operation": "Apply",
            "apiVersion": V1B1,
            "time": first.json()["metadata"]["creationTimestamp"],
            "fieldsType": "FieldsV1",
            "fieldsV1": MIN_COUNT,
        }
    ]
    clash = await apply(fake_apiserver, pod_group(min_count=3), "other")
    assert clash.status == 409
    assert clash.headers["Content-Type"] == "application/json"
    assert clash.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'Apply failed with 1 conflict: conflict with "alpha": '
        ".spec.schedulingPolicy.gang.minCount",
        "reason": "Conflict",
        "details": {
            "causes": [
                {
                    "reason": "FieldManagerConflict",
                    "message": 'conflict with "alpha"',
                    "field": ".spec.schedulingPolicy.gang.minCount",
                }
            ]
        },
        "code": 409,
    }
    forced = await apply(fake_apiserver, pod_group(min_count=3), "other", force="true")
    assert forced.status == 200
    body = forced.json()
    assert body["spec"]["schedulingPolicy"]["gang"]["minCount"] == 3
    assert list(managers(body)) == [("other", "Apply")]
    assert "generation" not in body["metadata"]  # the PodGroup strategy sets none


@bounded()
async def test_equal_values_are_co_owned(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group(min_count=2), "alpha")
    shared = await apply(fake_apiserver, pod_group(min_count=2), "beta")
    assert shared.status == 200
    owners = managers(shared.json())
    assert owners["alpha", "Apply"]["fieldsV1"] == owners["beta", "Apply"]["fieldsV1"] == MIN_COUNT
    changed = await apply(fake_apiserver, pod_group(min_count=5), "beta")
    assert changed.status == 409
    assert changed.json()["details"]["causes"][0]["message"] == 'conflict with "alpha"'


@bounded()
async def test_reapply_identical_persists_nothing(fake_apiserver: FakeAPIServer) -> None:
    first = (await apply(fake_apiserver, pod_group(), "alpha")).json()
    again = await apply(fake_apiserver, pod_group(), "alpha")
    assert again.status == 200
    assert again.json() == first
    assert int(fake_apiserver.resource_version) == int(first["metadata"]["resourceVersion"])


@bounded()
async def test_update_owner_conflict_names_the_api_version(fake_apiserver: FakeAPIServer) -> None:
    created = await call(
        fake_apiserver, "POST", PG_PATH, pod_group(), headers={"User-Agent": "kubectl/v1.37.0"}
    )
    assert created.status == 201
    assert list(managers(created.json())) == [("kubectl", "Update")]
    clash = await apply(fake_apiserver, pod_group(min_count=7), "ctl")
    assert clash.status == 409
    cause = clash.json()["details"]["causes"][0]
    assert cause["message"] == f'conflict with "kubectl" using {V1B1}'
    assert clash.json()["message"] == (
        f'Apply failed with 1 conflict: conflict with "kubectl" using {V1B1}: '
        ".spec.schedulingPolicy.gang.minCount"
    )


@bounded()
async def test_several_conflicts_are_listed_by_manager(fake_apiserver: FakeAPIServer) -> None:
    obj = pod_group()
    obj["metadata"]["labels"] = {"a": "1", "b": "1"}
    await apply(fake_apiserver, obj, "alpha")
    obj = pod_group(min_count=3)
    obj["metadata"]["labels"] = {"a": "2", "b": "2"}
    clash = (await apply(fake_apiserver, obj, "beta")).json()
    assert clash["message"] == (
        'Apply failed with 3 conflicts: conflicts with "alpha":\n'
        "- .metadata.labels.a\n- .metadata.labels.b\n- .spec.schedulingPolicy.gang.minCount"
    )
    assert len(clash["details"]["causes"]) == 3


@bounded()
async def test_omitted_fields_are_removed_unless_owned_elsewhere(
    fake_apiserver: FakeAPIServer,
) -> None:
    obj = pod_group()
    obj["metadata"]["labels"] = {"keep": "1", "drop": "1", "shared": "1"}
    await apply(fake_apiserver, obj, "alpha")
    other = pod_group()
    other["metadata"]["labels"] = {"shared": "1"}
    await apply(fake_apiserver, other, "beta")
    obj["metadata"]["labels"] = {"keep": "1"}
    result = (await apply(fake_apiserver, obj, "alpha")).json()
    assert result["metadata"]["labels"] == {"keep": "1", "shared": "1"}
    owners = managers(result)
    assert owners["alpha", "Apply"]["fieldsV1"] == {
        "f:metadata": {"f:labels": {"f:keep": {}}},
        **MIN_COUNT,
    }


@bounded()
async def test_list_map_entries_are_keyed_by_name(fake_apiserver: FakeAPIServer) -> None:
    def workload(*templates: tuple[str, int]) -> dict[str, Any]:
        return {
            "apiVersion": V1B1,
            "kind": "Workload",
            "metadata": {"name": "wl", "namespace": "default"},
            "spec": {
                "podGroupTemplates": [
                    {"name": n, "schedulingPolicy": {"gang": {"minCount": c}}} for n, c in templates
                ]
            },
        }

    stored = fake_apiserver.apply_object(
        SCHED, "v1beta1", "workloads", workload(("workers", 4)), field_manager="ctl"
    )
    entry = stored["metadata"]["managedFields"][0]
    assert entry["fieldsV1"] == {
        "f:spec": {
            "f:podGroupTemplates": {
                'k:{"name":"workers"}': {
                    ".": {},
                    "f:name": {},
                    "f:schedulingPolicy": {"f:gang": {"f:minCount": {}}},
                }
            }
        }
    }


@bounded()
async def test_status_apply_is_owned_under_the_subresource(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group(), "ctl")
    condition = {
        "type": "PodGroupInitiallyScheduled",
        "status": "True",
        "reason": "Scheduled",
        "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }
    status_cfg = {**pod_group(), "status": {"conditions": [condition]}}
    reply = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg/status",
        status_cfg,
        content_type="application/apply-patch+yaml",
        params={"fieldManager": "scheduler"},
    )
    assert reply.status == 200, reply.text
    body = reply.json()
    assert body["status"]["conditions"] == [condition]
    assert "generation" not in body["metadata"]
    entry = managers(body)["scheduler", "Apply"]
    assert entry["subresource"] == "status"
    assert list(entry["fieldsV1"]) == ["f:status"]
    assert (
        entry["fieldsV1"]["f:status"]["f:conditions"]['k:{"type":"PodGroupInitiallyScheduled"}'][
            "."
        ]
        == {}
    )
    # status in a main-resource apply is ignored
    main = await apply(fake_apiserver, {**pod_group(), "status": {"conditions": []}}, "ctl")
    assert main.json()["status"]["conditions"] == [condition]


@bounded()
async def test_managed_fields_order_apply_before_update(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", PG_PATH, pod_group(), headers={"User-Agent": "maker/1"})
    labelled = pod_group()
    labelled["metadata"]["labels"] = {"team": "a"}
    body = (await apply(fake_apiserver, labelled, "ctl")).json()
    assert [(m["manager"], m["operation"]) for m in body["metadata"]["managedFields"]] == [
        ("ctl", "Apply"),
        ("maker", "Update"),
    ]
    assert list(body["metadata"]["managedFields"][0]) == [
        "manager",
        "operation",
        "apiVersion",
        "time",
        "fieldsType",
        "fieldsV1",
    ]


@bounded()
@pytest.mark.parametrize(
    "fields_v1",
    [{"f:spec": 5}, {"f:spec": {"f:x": "y"}}, {"bogus": {}}, {"k:not-json": {}}],
)
async def test_managed_fields_a_request_cannot_decode_leave_the_stored_ones(
    fake_apiserver: FakeAPIServer, fields_v1: Any
) -> None:
    # The field manager's decodeLiveOrNew: managedFields in a request that do not decode are
    # not the request's to set; the live object's stay (and the write is not refused).
    first = await apply(fake_apiserver, pod_group("pg1"), "m1")
    stored = first.json()
    sent = {**stored, "metadata": {**stored["metadata"]}}
    sent["metadata"]["managedFields"] = [
        {"manager": "x", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": fields_v1}
    ]
    reply = await call(fake_apiserver, "PUT", f"{PG_PATH}/pg1", sent)
    assert reply.status == 200, reply.json()
    assert [m["manager"] for m in reply.json()["metadata"]["managedFields"]] == ["m1"]
