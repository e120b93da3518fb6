"""CustomResourceDefinitions over raw HTTP: establishing, discovery, schema, status, tables.

The expected answers are apiextensions-apiserver's and kube-openapi's, not this server's:

- the status a CRD gets: the CRD task page of the Kubernetes docs ("Create a
  CustomResourceDefinition": ``NamesAccepted`` / ``NoConflicts`` / ``no conflicts found``,
  then ``Established`` / ``InitialNamesAccepted`` / ``the initial names have been accepted``);
  the v1 defaults (``SetDefaults_CustomResourceDefinitionSpec``: ``listKind``,
  ``conversion.strategy: None``);
- discovery verbs in the order of apiextensions' discovery controller;
- value errors: kube-openapi's ``validation/errors/schema.go`` texts (``%s in %s should be
  greater than or equal to %v``, ``%s in %s must be of type %s: %q``, ``%s in %s should match
  '%s'``) turned into field errors by apiextensions' ``kubeOpenAPIResultToFieldErrors``
  (required -> ``Required value``, enum -> ``Unsupported value``, type -> the value's type
  name as the bad value); array paths ``[i]`` as kube-openapi's slice validator writes them;
- the CRD's own checks: ``ValidateCustomResourceDefinition`` (``must be
  spec.names.plural+"."+spec.group``, ``must have exactly one version marked as storage
  version``);
- 415 for a strategic merge patch: apiextensions' handler offers JSON patch, merge patch and
  apply only (``staging/.../endpoints/handlers/patch.go``);
- printer columns: apiextensions' table convertor (``Name`` first, ``integer`` cells as
  numbers, a missing value as ``null``, ``Age`` when a version declares no column).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from server_helpers import APPLY, bounded, call

from workloadbuilder.testing import FakeAPIServer

ROOT = Path(__file__).resolve().parents[2]
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
RUN_CRD: dict[str, Any] = yaml.safe_load((ROOT / "examples" / "trainingrun-crd.yaml").read_text())
RUNS = "/apis/training.example.com/v1/namespaces/default/trainingruns"
WIDGETS = "/apis/shop.example.org/v1/widgets"
WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.shop.example.org"},
    "spec": {
        "group": "shop.example.org",
        "scope": "Cluster",
        "names": {"plural": "widgets", "kind": "Widget"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "required": ["size"],
                                "properties": {
                                    "size": {"type": "integer", "minimum": 1, "maximum": 10},
                                    "color": {"type": "string", "enum": ["red", "blue"]},
                                    "sku": {"type": "string", "pattern": "^[a-z]+$"},
                                    "parts": {
                                        "type": "array",
                                        "maxItems": 2,
                                        "items": {
                                            "type": "object",
                                            "properties": {"n": {"type": "integer"}},
                                        },
                                    },
                                    "labels": {
                                        "type": "object",
                                        "additionalProperties": {"type": "string"},
                                    },
                                    "free": {
                                        "type": "object",
                                        "x-kubernetes-preserve-unknown-fields": True,
                                    },
                                    "mode": {"type": "string", "default": "fast"},
                                    "port": {"x-kubernetes-int-or-string": True},
                                    "when": {"type": "string", "format": "date-time"},
                                },
                            }
                        },
                    }
                },
            }
        ],
    },
}


def run(name: str = "resnet", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "training.example.com/v1",
        "kind": "TrainingRun",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"workers": 4, **spec},
    }


def widget(name: str = "w", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "shop.example.org/v1",
        "kind": "Widget",
        "metadata": {"name": name},
        "spec": {"size": 3, **spec},
    }


async def install(server: FakeAPIServer, crd: dict[str, Any]) -> dict[str, Any]:
    reply = await call(server, "POST", CRDS, crd)
    assert reply.status == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


async def invalid_widget(server: FakeAPIServer, **spec: Any) -> dict[str, Any]:
    reply = await call(server, "POST", WIDGETS, widget(**spec))
    assert reply.status == 422, reply.text
    body: dict[str, Any] = reply.json()
    return body


@bounded()
async def test_a_created_definition_is_established_then_its_kind_is_served(
    fake_apiserver: FakeAPIServer,
) -> None:
    assert (await call(fake_apiserver, "GET", "/apis/training.example.com/v1")).status == 404
    created = await install(fake_apiserver, RUN_CRD)
    # the create answer: defaults applied, names not accepted yet, the storage version stored;
    # `conditions` is null (apiextensions/v1 `Conditions ... json:"conditions"`, no omitempty)
    assert created["spec"]["names"]["listKind"] == "TrainingRunList"
    assert created["spec"]["conversion"] == {"strategy": "None"}
    assert created["status"] == {
        "conditions": None,
        "acceptedNames": {"plural": "", "kind": ""},
        "storedVersions": ["v1"],
    }
    crd = (await call(fake_apiserver, "GET", f"{CRDS}/trainingruns.training.example.com")).json()
    conditions = [
        (c["type"], c["status"], c["reason"], c["message"]) for c in crd["status"]["conditions"]
    ]
    assert conditions == [
        ("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
        ("Established", "True", "InitialNamesAccepted", "the initial names have been accepted"),
    ]
    assert crd["status"]["acceptedNames"] == {
        "plural": "trainingruns",
        "singular": "trainingrun",
        "kind": "TrainingRun",
        "shortNames": ["tr"],
        "listKind": "TrainingRunList",
    }
    # the controllers' write is a status update by kube-apiserver
    managers = {(m["manager"], m.get("subresource", "")) for m in crd["metadata"]["managedFields"]}
    assert ("kube-apiserver", "status") in managers

    listing = (await call(fake_apiserver, "GET", "/apis/training.example.com/v1")).json()
    main, status = listing["resources"]
    assert main["name"] == "trainingruns"
    assert main["singularName"] == "trainingrun"
    assert main["shortNames"] == ["tr"]
    assert main["verbs"] == [
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "create",
        "update",
        "watch",
    ]
    assert (status["name"], status["verbs"]) == ("trainingruns/status", ["get", "patch", "update"])
    groups = (await call(fake_apiserver, "GET", "/apis")).json()["groups"]
    assert {"groupVersion": "training.example.com/v1", "version": "v1"} in [
        g["preferredVersion"] for g in groups
    ]
    aggregated = await call(
        fake_apiserver,
        "GET",
        "/apis",
        headers={"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"},
    )
    (item,) = [
        i for i in aggregated.json()["items"] if i["metadata"].get("name") == "training.example.com"
    ]
    (resource,) = item["versions"][0]["resources"]
    assert resource["scope"] == "Namespaced"
    assert resource["subresources"][0]["subresource"] == "status"


@bounded()
async def test_a_definition_is_checked_as_apiextensions_checks_it(
    fake_apiserver: FakeAPIServer,
) -> None:
    wrong = copy.deepcopy(RUN_CRD)
    wrong["metadata"]["name"] = "runs.training.example.com"
    reply = await call(fake_apiserver, "POST", CRDS, wrong)
    assert reply.status == 422
    assert reply.json()["message"] == (
        'CustomResourceDefinition.apiextensions.k8s.io "runs.training.example.com" is invalid: '
        'metadata.name: Invalid value: "runs.training.example.com": '
        'must be spec.names.plural+"."+spec.group'
    )
    two = copy.deepcopy(RUN_CRD)
    two["spec"]["versions"].append({**two["spec"]["versions"][0], "name": "v2"})
    reply = await call(fake_apiserver, "POST", CRDS, two)
    assert reply.status == 422
    (cause,) = reply.json()["details"]["causes"]
    assert cause["field"] == "spec.versions"
    assert cause["message"].endswith("must have exactly one version marked as storage version")
    scope = copy.deepcopy(RUN_CRD)
    scope["spec"]["scope"] = "Global"
    reply = await call(fake_apiserver, "POST", CRDS, scope)
    assert reply.json()["details"]["causes"] == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
            "field": "spec.scope",
        }
    ]


@bounded()
async def test_values_are_checked_by_the_structural_schema(
    fake_apiserver: FakeAPIServer,
) -> None:
    await install(fake_apiserver, WIDGET_CRD)
    body = await invalid_widget(fake_apiserver, size="3")
    assert body["message"] == (
        'Widget.shop.example.org "w" is invalid: spec.size: Invalid value: "string": '
        'spec.size in body must be of type integer: "string"'
    )
    assert body["details"]["causes"][0]["reason"] == "FieldValueTypeInvalid"
    body = await invalid_widget(fake_apiserver, size=0)
    assert body["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 0: spec.size in body should be greater than or equal to 1",
            "field": "spec.size",
        }
    ]
    body = await invalid_widget(fake_apiserver, size=11)
    assert body["details"]["causes"][0]["message"] == (
        "Invalid value: 11: spec.size in body should be less than or equal to 10"
    )
    body = await invalid_widget(fake_apiserver, color="green")
    assert body["details"]["causes"] == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "green": supported values: "red", "blue"',
            "field": "spec.color",
        }
    ]
    body = await invalid_widget(fake_apiserver, sku="AB1")
    assert body["details"]["causes"][0]["message"] == (
        "Invalid value: \"AB1\": spec.sku in body should match '^[a-z]+$'"
    )
    body = await invalid_widget(fake_apiserver, parts=[{"n": "x"}, {"n": 1}, {"n": 2}])
    assert [(c["field"], c["reason"]) for c in body["details"]["causes"]] == [
        ("spec.parts[0].n", "FieldValueTypeInvalid"),
        ("spec.parts", "FieldValueTooMany"),
    ]
    assert body["details"]["causes"][1]["message"] == "Too many: 3: must have at most 2 items"
    body = await invalid_widget(fake_apiserver, labels={"a": 1}, port=True)
    assert [c["message"] for c in body["details"]["causes"]] == [
        'Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
        'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]
    missing = widget()
    del missing["spec"]["size"]
    reply = await call(fake_apiserver, "POST", WIDGETS, missing)
    assert reply.json()["message"] == (
        'Widget.shop.example.org "w" is invalid: spec.size: Required value'
    )
    # int-or-string takes both
    for port in (8080, "http"):
        ok = await call(fake_apiserver, "POST", WIDGETS, widget(f"p{port}", port=port))
        assert ok.status == 201, ok.text


@bounded()
async def test_unknown_fields_are_pruned_and_defaults_filled(
    fake_apiserver: FakeAPIServer,
) -> None:
    await install(fake_apiserver, WIDGET_CRD)
    sent = widget(extra=1, free={"any": {"thing": 1}}, labels={"x": "y"}, parts=[{"n": 1, "q": 2}])
    sent["junk"] = True
    sent["metadata"]["colour"] = "red"
    reply = await call(fake_apiserver, "POST", WIDGETS, sent)
    assert reply.status == 201, reply.text
    spec = reply.json()["spec"]
    assert spec == {
        "size": 3,
        "free": {"any": {"thing": 1}},
        "labels": {"x": "y"},
        "parts": [{"n": 1}],
        "mode": "fast",
    }
    assert "junk" not in reply.json()
    assert "colour" not in reply.json()["metadata"]
    assert sorted(reply.warnings) == sorted(
        f"299 - {json.dumps(f'unknown field {json.dumps(p)}')}"
        for p in ("metadata.colour", "junk", "spec.extra", "spec.parts[0].q")
    )
    strict = await call(
        fake_apiserver, "POST", WIDGETS, widget("s", extra=1), params={"fieldValidation": "Strict"}
    )
    assert strict.status == 400
    assert 'unknown field "spec.extra"' in strict.json()["message"]
    # a null in a field that is not nullable is dropped, or replaced by the default
    nulls = await call(fake_apiserver, "POST", WIDGETS, widget("n", color=None, mode=None))
    assert nulls.status == 201, nulls.text
    assert nulls.json()["spec"] == {"size": 3, "mode": "fast"}


@bounded()
async def test_the_status_subresource_splits_the_writes(fake_apiserver: FakeAPIServer) -> None:
    await install(fake_apiserver, RUN_CRD)
    sent = run()
    sent["status"] = {"phase": "Invented"}
    created = await call(fake_apiserver, "POST", RUNS, sent)
    assert created.status == 201, created.text
    assert "status" not in created.json()  # a create ignores status
    assert created.json()["spec"] == {"workers": 4, "image": "busybox"}
    merge = "application/merge-patch+json"
    both = {"spec": {"workers": 5}, "status": {"phase": "Main"}}
    main = (await call(fake_apiserver, "PATCH", f"{RUNS}/resnet", both, content_type=merge)).json()
    assert main["spec"]["workers"] == 5
    assert "status" not in main
    assert main["metadata"]["generation"] == 2
    other = {"spec": {"workers": 9}, "status": {"phase": "Running"}}
    status = await call(fake_apiserver, "PATCH", f"{RUNS}/resnet/status", other, content_type=merge)
    assert status.status == 200, status.text
    assert status.json()["spec"]["workers"] == 5
    assert status.json()["status"] == {"phase": "Running"}
    assert status.json()["metadata"]["generation"] == 2
    # a kind without the subresource has no /status
    await install(fake_apiserver, WIDGET_CRD)
    await call(fake_apiserver, "POST", WIDGETS, widget())
    assert (await call(fake_apiserver, "GET", f"{WIDGETS}/w/status")).status == 404


@bounded()
async def test_strategic_merge_is_refused_and_apply_tracks_managers(
    fake_apiserver: FakeAPIServer,
) -> None:
    await install(fake_apiserver, RUN_CRD)
    applied = await call(
        fake_apiserver,
        "PATCH",
        f"{RUNS}/resnet",
        run(),
        content_type=APPLY,
        params={"fieldManager": "operator"},
    )
    assert applied.status == 201, applied.text
    (entry,) = applied.json()["metadata"]["managedFields"]
    assert (entry["manager"], entry["operation"]) == ("operator", "Apply")
    assert entry["fieldsV1"] == {"f:spec": {"f:workers": {}}}
    smp = await call(
        fake_apiserver,
        "PATCH",
        f"{RUNS}/resnet",
        {"spec": {"workers": 2}},
        content_type="application/strategic-merge-patch+json",
    )
    assert smp.status == 415
    assert smp.json()["message"] == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    )
    conflict = await call(
        fake_apiserver,
        "PATCH",
        f"{RUNS}/resnet",
        run(workers=2),
        content_type=APPLY,
        params={"fieldManager": "someone-else"},
    )
    assert conflict.status == 409
    assert conflict.json()["details"]["causes"][0]["field"] == ".spec.workers"


@bounded()
async def test_tables_use_the_printer_columns(fake_apiserver: FakeAPIServer) -> None:
    await install(fake_apiserver, RUN_CRD)
    await call(fake_apiserver, "POST", RUNS, run(minAvailable=3))
    table = await call(
        fake_apiserver,
        "GET",
        RUNS,
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
    )
    body = table.json()
    names = [(c["name"], c["type"]) for c in body["columnDefinitions"]]
    assert names == [
        ("Name", "string"),
        ("Workers", "integer"),
        ("Min", "integer"),
        ("Phase", "string"),
        ("Age", "date"),
    ]
    (row,) = body["rows"]
    assert row["cells"][:4] == ["resnet", 4, 3, None]
    assert row["cells"][4].endswith("s")
    # a version without columns gets Age alone
    await install(fake_apiserver, WIDGET_CRD)
    await call(fake_apiserver, "POST", WIDGETS, widget())
    table = await call(
        fake_apiserver,
        "GET",
        WIDGETS,
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
    )
    assert [c["name"] for c in table.json()["columnDefinitions"]] == ["Name", "Age"]


@bounded()
async def test_openapi_describes_the_custom_kind(fake_apiserver: FakeAPIServer) -> None:
    index = (await call(fake_apiserver, "GET", "/openapi/v3")).json()["paths"]
    assert "apis/training.example.com/v1" not in index
    await install(fake_apiserver, RUN_CRD)
    index = (await call(fake_apiserver, "GET", "/openapi/v3")).json()["paths"]
    url = index["apis/training.example.com/v1"]["serverRelativeURL"]
    document = (await call(fake_apiserver, "GET", url)).json()
    schema = document["components"]["schemas"]["com.example.training.v1.TrainingRun"]
    assert schema["properties"]["spec"]["properties"]["workers"]["minimum"] == 1
    assert schema["x-kubernetes-group-version-kind"] == [
        {"group": "training.example.com", "kind": "TrainingRun", "version": "v1"}
    ]
    patch = document["paths"][
        "/apis/training.example.com/v1/namespaces/{namespace}/trainingruns/{name}"
    ]["patch"]
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]


@bounded()
async def test_deleting_the_definition_deletes_its_objects(fake_apiserver: FakeAPIServer) -> None:
    await install(fake_apiserver, RUN_CRD)
    await call(fake_apiserver, "POST", RUNS, run("a"))
    await call(fake_apiserver, "POST", RUNS, run("b"))
    crd_path = f"{CRDS}/trainingruns.training.example.com"
    dry = await call(fake_apiserver, "DELETE", crd_path, params={"dryRun": "All"})
    assert dry.status == 200 and dry.json()["metadata"]["deletionTimestamp"]
    assert (
        "deletionTimestamp" not in (await call(fake_apiserver, "GET", crd_path)).json()["metadata"]
    )
    reply = await call(fake_apiserver, "DELETE", crd_path)
    assert reply.status == 200, reply.text
    # the CRD registry's first DELETE: one write with the timestamp, finalizer and condition
    answer = reply.json()
    assert answer["metadata"]["deletionTimestamp"]
    assert "deletionGracePeriodSeconds" not in answer["metadata"]
    assert answer["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"]
    assert answer["status"]["conditions"][-1]["message"] == (
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"
    )
    assert (
        await call(fake_apiserver, "GET", f"{CRDS}/trainingruns.training.example.com")
    ).status == 404
    assert (await call(fake_apiserver, "GET", "/apis/training.example.com/v1")).status == 404
    # installed again, it starts empty
    await install(fake_apiserver, RUN_CRD)
    assert (await call(fake_apiserver, "GET", RUNS)).json()["items"] == []


@bounded()
async def test_a_watch_sees_the_custom_objects(fake_apiserver: FakeAPIServer) -> None:
    await install(fake_apiserver, RUN_CRD)
    created = (await call(fake_apiserver, "POST", RUNS, run())).json()
    rv = created["metadata"]["resourceVersion"]
    merge = "application/merge-patch+json"
    await call(
        fake_apiserver, "PATCH", f"{RUNS}/resnet", {"spec": {"workers": 6}}, content_type=merge
    )
    await call(fake_apiserver, "DELETE", f"{RUNS}/resnet")
    reply = await call(
        fake_apiserver,
        "GET",
        RUNS,
        params={"watch": "1", "resourceVersion": rv, "timeoutSeconds": "1"},
    )
    events = [json.loads(line) for line in reply.text.splitlines()]
    assert [(e["type"], e["object"]["spec"]["workers"]) for e in events] == [
        ("MODIFIED", 6),
        ("DELETED", 6),
    ]


@pytest.mark.fake_apiserver(group_versions=["v1", "scheduling.k8s.io/v1beta1"])
@bounded()
async def test_without_apiextensions_there_are_no_definitions(
    fake_apiserver: FakeAPIServer,
) -> None:
    assert (await call(fake_apiserver, "POST", CRDS, RUN_CRD)).status == 404


@bounded()
async def test_a_schema_must_be_structural(fake_apiserver: FakeAPIServer) -> None:
    # the message as a real 1.3x server words it for a property without a type
    crd = copy.deepcopy(RUN_CRD)
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    schema["properties"]["spec"]["properties"]["values"] = {"description": "anything"}
    reply = await call(fake_apiserver, "POST", CRDS, crd)
    assert reply.status == 422
    assert reply.json()["message"] == (
        'CustomResourceDefinition.apiextensions.k8s.io "trainingruns.training.example.com" '
        "is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[values]"
        ".type: Required value: must not be empty for specified object fields"
    )
    schema["properties"]["spec"]["properties"]["values"] = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    assert (await call(fake_apiserver, "POST", CRDS, crd)).status == 201


@bounded()
async def test_string_formats_are_checked(fake_apiserver: FakeAPIServer) -> None:
    await install(fake_apiserver, WIDGET_CRD)
    body = await invalid_widget(fake_apiserver, when="yesterday")
    assert body["details"]["causes"] == [
        {
            "reason": "FieldValueTypeInvalid",
            "message": 'Invalid value: "yesterday": spec.when in body must be of type '
            'date-time: "yesterday"',
            "field": "spec.when",
        }
    ]
    ok = await call(fake_apiserver, "POST", WIDGETS, widget(when="2026-12-01T10:00:00Z"))
    assert ok.status == 201, ok.text


@bounded()
async def test_a_changed_schema_ratchets_unchanged_values(fake_apiserver: FakeAPIServer) -> None:
    await install(fake_apiserver, WIDGET_CRD)
    assert (await call(fake_apiserver, "POST", WIDGETS, widget(size=8))).status == 201
    merge = "application/merge-patch+json"
    tighter = {
        "spec": {
            "versions": [
                {
                    **WIDGET_CRD["spec"]["versions"][0],
                    "schema": copy.deepcopy(WIDGET_CRD["spec"]["versions"][0]["schema"]),
                }
            ]
        }
    }
    size = tighter["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    size["properties"]["size"]["maximum"] = 5
    reply = await call(
        fake_apiserver, "PATCH", f"{CRDS}/widgets.shop.example.org", tighter, content_type=merge
    )
    assert reply.status == 200, reply.text
    # CRD validation ratcheting: the unchanged size 8 does not block another change
    labels = await call(
        fake_apiserver, "PATCH", f"{WIDGETS}/w", {"spec": {"color": "red"}}, content_type=merge
    )
    assert labels.status == 200, labels.text
    changed = await call(
        fake_apiserver, "PATCH", f"{WIDGETS}/w", {"spec": {"size": 7}}, content_type=merge
    )
    assert changed.status == 422
    assert changed.json()["details"]["causes"][0]["message"] == (
        "Invalid value: 7: spec.size in body should be less than or equal to 5"
    )


@bounded()
async def test_versions_share_the_objects(fake_apiserver: FakeAPIServer) -> None:
    crd = copy.deepcopy(WIDGET_CRD)
    v1 = crd["spec"]["versions"][0]
    crd["spec"]["versions"] = [{**v1, "name": "v1beta1", "storage": False}, v1]
    await install(fake_apiserver, crd)
    group = (await call(fake_apiserver, "GET", "/apis/shop.example.org")).json()
    # discovery orders a group's versions by Kubernetes version priority: GA first
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"]["version"] == "v1"
    old = {**widget("old"), "apiVersion": "shop.example.org/v1beta1"}
    created = await call(fake_apiserver, "POST", "/apis/shop.example.org/v1beta1/widgets", old)
    assert created.status == 201, created.text
    # conversion strategy None: only apiVersion changes between versions
    read = (await call(fake_apiserver, "GET", f"{WIDGETS}/old")).json()
    assert read["apiVersion"] == "shop.example.org/v1"
    assert read["spec"] == created.json()["spec"]


@bounded()
async def test_a_definition_waits_for_its_objects_finalizers(
    fake_apiserver: FakeAPIServer,
) -> None:
    await install(fake_apiserver, RUN_CRD)
    held = run("held")
    held["metadata"]["finalizers"] = ["example.com/hold"]
    assert (await call(fake_apiserver, "POST", RUNS, held)).status == 201
    await call(fake_apiserver, "DELETE", f"{CRDS}/trainingruns.training.example.com")
    crd = (await call(fake_apiserver, "GET", f"{CRDS}/trainingruns.training.example.com")).json()
    assert crd["metadata"]["deletionTimestamp"]
    terminating = [c for c in crd["status"]["conditions"] if c["type"] == "Terminating"]
    assert [(c["status"], c["reason"]) for c in terminating] == [
        ("True", "InstanceDeletionPending")
    ]
    item = (await call(fake_apiserver, "GET", f"{RUNS}/held")).json()
    assert item["metadata"]["deletionTimestamp"]
    late = await call(fake_apiserver, "POST", RUNS, run("late"))
    assert (late.status, late.json()["message"]) == (
        405,
        "create not allowed while custom resource definition is terminating",
    )
    merge = "application/merge-patch+json"
    released = await call(
        fake_apiserver,
        "PATCH",
        f"{RUNS}/held",
        {"metadata": {"finalizers": None}},
        content_type=merge,
    )
    assert released.status == 200, released.text
    assert (
        await call(fake_apiserver, "GET", f"{CRDS}/trainingruns.training.example.com")
    ).status == 404


@bounded()
async def test_a_protected_group_needs_the_approval_annotation(
    fake_apiserver: FakeAPIServer,
) -> None:
    crd = copy.deepcopy(WIDGET_CRD)
    crd["metadata"]["name"] = "widgets.shop.k8s.io"
    crd["spec"]["group"] = "shop.k8s.io"
    reply = await call(fake_apiserver, "POST", CRDS, crd)
    # the text users meet when a CRD of a *.k8s.io group lacks the annotation
    assert reply.json()["message"] == (
        'CustomResourceDefinition.apiextensions.k8s.io "widgets.shop.k8s.io" is invalid: '
        "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups "
        'must have approval annotation "api-approved.kubernetes.io", '
        "see https://github.com/kubernetes/enhancements/pull/1111"
    )
    crd["metadata"]["annotations"] = {"api-approved.kubernetes.io": "invalid"}
    reply = await call(fake_apiserver, "POST", CRDS, crd)
    # apiextensions' validation_test.go ("invalid annotation create")
    assert reply.json()["details"]["causes"][0]["message"] == (
        'Invalid value: "invalid": protected groups must have approval annotation '
        '"api-approved.kubernetes.io" with either a URL or a reason starting with '
        '"unapproved", see https://github.com/kubernetes/enhancements/pull/1111'
    )
    crd["metadata"]["annotations"] = {"api-approved.kubernetes.io": "unapproved, testing"}
    assert (await call(fake_apiserver, "POST", CRDS, crd)).status == 201


@bounded()
async def test_malformed_schema_keywords_never_break_the_server(
    fake_apiserver: FakeAPIServer,
) -> None:
    """The real server refuses such a CRD while decoding it; whatever this one accepts, a
    write of the kind is answered, never with a 500."""
    crd = copy.deepcopy(WIDGET_CRD)
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["size"] = {"type": "integer", "minimum": "one", "multipleOf": True}
    spec["properties"]["parts"] = {"type": "array", "maxItems": "2", "items": []}
    spec["properties"]["color"] = {"type": "string", "enum": 3, "pattern": 5, "maxLength": None}
    spec["required"] = "size"
    spec["properties"]["labels"] = {"type": "object", "maxProperties": [1], "default": None}
    assert (await call(fake_apiserver, "POST", CRDS, crd)).status in (201, 400, 422)
    for body in (widget(), widget(parts=[1, 2, 3], color="x" * 10, labels={"a": "b"})):
        reply = await call(fake_apiserver, "POST", WIDGETS, body)
        assert reply.status < 500, reply.text
