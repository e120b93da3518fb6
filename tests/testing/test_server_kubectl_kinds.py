"""Every kind the test server serves passes ``kubectl apply`` with validation on.

The kinds are read from the server's own discovery (every group/version, not only the
preferred one), so a kind added to the server without a sample here fails the test. kubectl
validates client-side with the server's OpenAPI (``/openapi/v3``, falling back to
``/openapi/v2``) and asks for server-side field validation where the OpenAPI lists
``fieldValidation``: a kind without a schema is the error ``error validating data``. What is
expected is what kubectl prints for each created object (``<kind>.<group>/<name> created``)
and, applied again, ``unchanged``; each kind's list then holds its object without ``kind``
and ``apiVersion``, as a real server's typed lists do (``real-apiserver-observed.md``).
Kinds that are create-only (the reviews: discovery lists the one verb ``create``) cannot be
applied on any server, as ``kubectl apply`` reads first. Every kind's OpenAPI schema names the
top-level fields of the official client's model of it (``kubernetes==37``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from server_helpers import bounded, call
from test_server_kubectl import kubectl, needs_kubectl

from workloadbuilder.testing import FakeAPIServer

NS = "kinds"
_CONTAINERS = [{"name": "c", "image": "busybox"}]
_RULES = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
_ROLE_REF = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
_SUBJECTS = [{"kind": "ServiceAccount", "name": "trainer", "namespace": NS}]
_WEBHOOK = {  # never called: no object of its rules' resource is written
    # the defaults written out: `rules` is an atomic list, so a defaulted `scope` would make
    # kubectl's next three-way patch replace it ("configured"), as on a real cluster
    "name": "v.runs.example.com",
    "failurePolicy": "Fail",
    "matchPolicy": "Equivalent",
    "namespaceSelector": {},
    "objectSelector": {},
    "timeoutSeconds": 10,
    "clientConfig": {"url": "https://127.0.0.1:9/validate"},
    "rules": [
        {
            "apiGroups": ["example.com"],
            "apiVersions": ["v1"],
            "operations": ["CREATE"],
            "resources": ["runs"],
            "scope": "*",
        }
    ],
    "sideEffects": "None",
    "admissionReviewVersions": ["v1"],
}
_TEMPLATES = [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}}}]

SAMPLES: dict[tuple[str, str], dict[str, Any]] = {
    # (group, kind): the fields of a minimal valid object beside apiVersion, kind and metadata
    ("", "Namespace"): {},
    ("", "Pod"): {"spec": {"containers": _CONTAINERS}},
    ("", "Node"): {},
    ("", "Event"): {
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": NS},
        "reason": "Tested",
        "message": "applied by kubectl",
        "type": "Normal",
    },
    ("batch", "Job"): {
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": _CONTAINERS}}}
    },
    ("coordination.k8s.io", "Lease"): {"spec": {"holderIdentity": "me"}},
    ("scheduling.k8s.io", "PriorityClass"): {"value": 1000},
    ("scheduling.k8s.io", "Workload"): {"spec": {"podGroupTemplates": _TEMPLATES}},
    ("scheduling.k8s.io", "PodGroup"): {"spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}},
    ("scheduling.k8s.io", "CompositePodGroup"): {
        "spec": {
            "workloadRef": {"workloadName": "w", "templateName": "t"},
            "schedulingPolicy": {"gang": {"minGroupCount": 1}},
        }
    },
    ("apiextensions.k8s.io", "CustomResourceDefinition"): {
        "spec": {
            "group": "example.com",
            "names": {"kind": "Run", "plural": "runs", "singular": "run", "listKind": "RunList"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object"}},
                }
            ],
        }
    },
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): {"webhooks": [_WEBHOOK]},
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): {
        "webhooks": [{**_WEBHOOK, "name": "m.runs.example.com", "reinvocationPolicy": "Never"}]
    },
    ("rbac.authorization.k8s.io", "Role"): {"rules": _RULES},
    ("rbac.authorization.k8s.io", "ClusterRole"): {"rules": _RULES},
    ("rbac.authorization.k8s.io", "RoleBinding"): {"roleRef": _ROLE_REF, "subjects": _SUBJECTS},
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): {
        "roleRef": _ROLE_REF,
        "subjects": _SUBJECTS,
    },
}
_NAMES = {"CustomResourceDefinition": "runs.example.com", "Namespace": NS}


async def served_kinds(server: FakeAPIServer) -> list[tuple[str, str, dict[str, Any]]]:
    """``(group, version, APIResource)`` of every top-level resource in discovery."""
    paths = ["/api/v1"]
    groups = (await call(server, "GET", "/apis", headers=server.admin_headers)).json()
    for group in groups["groups"]:
        paths += [f"/apis/{v['groupVersion']}" for v in group["versions"]]
    out = []
    for path in paths:
        listing = (await call(server, "GET", path, headers=server.admin_headers)).json()
        group, _, version = listing["groupVersion"].rpartition("/")
        out += [(group, version, r) for r in listing["resources"] if "/" not in r["name"]]
    return out


def manifest(group: str, version: str, resource: dict[str, Any]) -> dict[str, Any]:
    """The sample object of ``resource``, named after its kind and version."""
    kind = resource["kind"]
    name = _NAMES.get(kind, f"{kind.lower()}-{version}")
    metadata = {"name": name, **({"namespace": NS} if resource["namespaced"] else {})}
    api_version = f"{group}/{version}" if group else version
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, **SAMPLES[(group, kind)]}


def printed(group: str, obj: dict[str, Any]) -> str:
    """kubectl's name of an object: ``<kind>.<group>/<name>`` (the core group: ``<kind>/``)."""
    kind = obj["kind"].lower()
    return (
        f"{kind}.{group}/{obj['metadata']['name']}"
        if group
        else f"{kind}/{obj['metadata']['name']}"
    )


@needs_kubectl
@bounded(90)
@pytest.mark.parametrize("authorization", ["AlwaysAllow", "RBAC"])
async def test_every_served_kind_passes_kubectl_apply(authorization: str, tmp_path: Path) -> None:
    async with FakeAPIServer(authorization=authorization) as server:
        served = await served_kinds(server)
        applicable = [(g, v, r) for g, v, r in served if r["verbs"] != ["create"]]
        missing = {(g, r["kind"]) for g, _, r in applicable} - SAMPLES.keys()
        assert not missing, f"add a sample object of each of {sorted(missing)}"
        kinds = {(g, r["kind"]) for g, _, r in applicable}
        assert ("rbac.authorization.k8s.io", "RoleBinding") in kinds  # in every mode
        # The namespace first, then everything else (kubectl applies in document order).
        objects = sorted(
            (manifest(g, v, r) for g, v, r in applicable), key=lambda o: o["kind"] != "Namespace"
        )
        stream = yaml.safe_dump_all(objects)
        code, out = await kubectl(server, tmp_path, "apply", "-f", "-", stdin=stream)
        expected = sorted(
            f"{printed(o['apiVersion'].rpartition('/')[0], o)} created" for o in objects
        )
        assert (code, sorted(out.splitlines())) == (0, expected), out
        for group, version, resource in applicable:  # observed: items carry no kind
            base = f"/apis/{group}/{version}" if group else f"/api/{version}"
            path = f"{base}/{resource['name']}"
            listing = (await call(server, "GET", path, headers=server.admin_headers)).json()
            assert listing["items"], path
            assert [set(i) & {"kind", "apiVersion"} for i in listing["items"]] == [
                set() for _ in listing["items"]
            ], path
        code, out = await kubectl(server, tmp_path, "apply", "-f", "-", stdin=stream)
        assert (code, sorted(out.splitlines())) == (
            0,
            [e.replace("created", "unchanged") for e in expected],
        ), out


def _official_model(group: str, version: str, kind: str) -> Any:
    """The official client's model of a kind (``kubernetes==37``: ``V1Role``,
    ``V1beta1PodGroup``; the core Event is ``CoreV1Event``)."""
    from kubernetes import client

    name = "CoreV1Event" if (group, kind) == ("", "Event") else f"V{version[1:]}{kind}"
    return getattr(client, name)


@bounded(60)
async def test_every_served_kinds_openapi_names_its_top_level_fields() -> None:
    # kubectl explain and client-side validation read these; the expected field names are
    # the official client's (attribute_map: JSON names).
    async with FakeAPIServer(authorization="RBAC") as server:
        served = await served_kinds(server)
        index = (await call(server, "GET", "/openapi/v3", headers=server.admin_headers)).json()
        schemas: dict[tuple[str, str, str], set[str]] = {}
        for entry in index["paths"].values():
            url = entry["serverRelativeURL"]
            document = (await call(server, "GET", url, headers=server.admin_headers)).json()
            for schema in document["components"]["schemas"].values():
                for gvk in schema.get("x-kubernetes-group-version-kind", []):
                    key = (gvk["group"], gvk["version"], gvk["kind"])
                    schemas[key] = set(schema["properties"])
    for group, version, resource in served:
        key = (group, version, resource["kind"])
        expected = set(_official_model(*key).attribute_map.values())
        assert schemas[key] == expected, key
