"""Custom resources through real clients: kubectl and kubernetes-asyncio.

What kubectl prints is what it prints against a real API server: its success lines
(``<kind>.<group>/<name> created``, ``condition met``, ``serverside-applied``), the table
from the printer columns (a missing value as ``<none>``), and the server's 415 and 422
``Status`` messages after ``Error from server (...)`` / ``The <Kind> "<name>" is invalid``.
The kubernetes-asyncio test drives the typed ``ApiextensionsV1Api`` and ``CustomObjectsApi``
(create, list, merge patch, the status subresource, watch, delete).
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes_asyncio import client, config, watch
from server_helpers import bounded
from test_server_crd import RUN_CRD, run
from test_server_kubectl import _rows, kubectl, needs_kubectl

from workloadbuilder.testing import FakeAPIServer

ROOT = Path(__file__).resolve().parents[2]
CRD_FILE = str(ROOT / "examples" / "trainingrun-crd.yaml")
CRD_NAME = "trainingruns.training.example.com"
GROUP, VERSION, PLURAL = "training.example.com", "v1", "trainingruns"


@needs_kubectl
@bounded(90)
async def test_kubectl_installs_the_definition_and_works_the_kind(
    fake_apiserver: FakeAPIServer, tmp_path: Path
) -> None:
    ctl = functools.partial(kubectl, fake_apiserver, tmp_path)
    assert await ctl("apply", "-f", CRD_FILE) == (
        0,
        f"customresourcedefinition.apiextensions.k8s.io/{CRD_NAME} created\n",
    )
    assert await ctl("wait", "--for=condition=established", "--timeout=10s", f"crd/{CRD_NAME}") == (
        0,
        f"customresourcedefinition.apiextensions.k8s.io/{CRD_NAME} condition met\n",
    )
    manifest = yaml.safe_dump(run(minAvailable=3))
    assert await ctl("apply", "-f", "-", stdin=manifest) == (
        0,
        "trainingrun.training.example.com/resnet created\n",
    )
    code, out = await ctl("get", "trainingruns")
    assert code == 0, out
    rows = _rows(out)
    assert rows[0] == ["NAME", "WORKERS", "MIN", "PHASE", "AGE"]
    # no status yet: the Phase cell is null, which kubectl prints as blank
    assert rows[1][:3] == ["resnet", "4", "3"]
    assert len(rows[1]) == 4 and rows[1][3].endswith("s")
    code, out = await ctl("get", "tr", "resnet", "-o", "jsonpath={.spec.image}")
    assert (code, out) == (0, "busybox")  # the schema's default
    code, out = await ctl("patch", "tr", "resnet", "-p", '{"spec":{"workers":2}}')
    assert code == 1
    # kubectl words a 415 itself ("<type> is not supported by <gvk>: <the server's message>")
    assert out == (
        "error: application/strategic-merge-patch+json is not supported by "
        "training.example.com/v1, Kind=TrainingRun: the body of the request was in an unknown "
        "format - accepted media types include: application/json-patch+json, "
        "application/merge-patch+json, application/apply-patch+yaml\n"
    )
    assert await ctl("patch", "tr", "resnet", "--type=merge", "-p", '{"spec":{"workers":2}}') == (
        0,
        "trainingrun.training.example.com/resnet patched\n",
    )
    # the merge patch made kubectl-patch the owner of spec.workers: applying 4 conflicts
    code, out = await ctl("apply", "--server-side", "-f", "-", stdin=manifest)
    assert code == 1
    assert 'conflict with "kubectl-patch" using training.example.com/v1: .spec.workers' in out
    assert await ctl("apply", "--server-side", "--force-conflicts", "-f", "-", stdin=manifest) == (
        0,
        "trainingrun.training.example.com/resnet serverside-applied\n",
    )
    bad = run("bad", workers="many")
    code, out = await ctl("apply", "-f", "-", stdin=yaml.safe_dump(bad))
    assert code == 1
    assert (
        'The TrainingRun "bad" is invalid: spec.workers: Invalid value: "string": '
        'spec.workers in body must be of type integer: "string"'
    ) in out
    code, out = await ctl("api-resources", "--api-group=training.example.com")
    assert code == 0, out
    assert _rows(out)[1] == ["trainingruns", "tr", "training.example.com/v1", "true", "TrainingRun"]
    code, out = await ctl("explain", "trainingrun.spec")
    assert code == 0 and "workers" in out, out
    assert await ctl("delete", "crd", CRD_NAME) == (
        0,
        f'customresourcedefinition.apiextensions.k8s.io "{CRD_NAME}" deleted\n',
    )
    code, out = await ctl("get", "trainingruns")
    assert code == 1
    # kubectl's discovery cache still names the kind; the server no longer serves it
    assert "the server could not find the requested resource" in out


@bounded(60)
async def test_kubernetes_asyncio_drives_the_custom_kind(fake_apiserver: FakeAPIServer) -> None:
    configuration = client.Configuration()
    await config.load_kube_config(
        config_file=str(fake_apiserver.kubeconfig_path), client_configuration=configuration
    )
    async with client.ApiClient(configuration) as api:
        extensions = client.ApiextensionsV1Api(api)
        created = await extensions.create_custom_resource_definition(RUN_CRD)
        assert created.status.stored_versions == ["v1"]
        crd = await extensions.read_custom_resource_definition(CRD_NAME)
        assert [c.type for c in crd.status.conditions] == ["NamesAccepted", "Established"]
        objects = client.CustomObjectsApi(api)
        body = await objects.create_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, run()
        )
        assert body["spec"] == {"workers": 4, "image": "busybox"}
        with pytest.raises(client.ApiException) as invalid:
            await objects.create_namespaced_custom_object(
                GROUP, VERSION, "default", PLURAL, run("zero", workers=0)
            )
        assert invalid.value.status == 422
        assert "spec.workers in body should be greater than or equal to 1" in invalid.value.body

        events: list[tuple[str, Any]] = []

        async def follow() -> None:
            async with watch.Watch().stream(
                objects.list_namespaced_custom_object,
                GROUP,
                VERSION,
                "default",
                PLURAL,
                resource_version=body["metadata"]["resourceVersion"],
                timeout_seconds=5,
            ) as stream:
                async for event in stream:
                    obj = event["object"]
                    events.append((event["type"], (obj.get("status") or {}).get("phase")))
                    if event["type"] == "DELETED":
                        return

        watcher = asyncio.create_task(follow())
        await asyncio.sleep(0.2)
        merged = await objects.patch_namespaced_custom_object(
            GROUP,
            VERSION,
            "default",
            PLURAL,
            "resnet",
            {"spec": {"workers": 8}},
            _content_type="application/merge-patch+json",
        )
        assert merged["spec"]["workers"] == 8
        status = await objects.patch_namespaced_custom_object_status(
            GROUP,
            VERSION,
            "default",
            PLURAL,
            "resnet",
            {"status": {"phase": "Running"}},
            _content_type="application/merge-patch+json",
        )
        assert status["status"] == {"phase": "Running"}
        listed = await objects.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL)
        assert [i["metadata"]["name"] for i in listed["items"]] == ["resnet"]
        await objects.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "resnet")
        await asyncio.wait_for(watcher, 10)
        assert events == [("MODIFIED", None), ("MODIFIED", "Running"), ("DELETED", "Running")]
