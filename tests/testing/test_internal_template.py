"""A changed Job template is rendered, in its 422, as kube-apiserver renders it.

Since 1.34 (apimachinery c58e197e, "Nicer value rendering in API errors") a struct value in a
field error is written by ``json.Marshal``. Job validation runs on the internal
``core.PodTemplateSpec``, whose fields carry no JSON tags: Go field names, declaration order,
every field written. The oracles here are independent of the layouts under test: the
official ``kubernetes`` 37 client's models (every v1 field, its JSON name and its type), the
field order of internal structs as real API servers printed them before 1.34 (quoted from
public bug reports), and encoding/json's documented rules.
"""

from __future__ import annotations

import json
import re
from typing import Any

import kubernetes.client as k8s
import pytest
from server_helpers import bounded, call

from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.rules.internal_core import LAYOUTS, internal_json, layout

JOBS = "/apis/batch/v1/namespaces/default/jobs"
STRATEGIC = "application/strategic-merge-patch+json"

# Conversion (pkg/apis/core/v1/conversion.go): v1's host namespace fields live in the internal
# PodSecurityContext; v1's deprecated serviceAccount is read into ServiceAccountName.
_MOVED_TO_SECURITY_CONTEXT = {
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "hostUsers",
}
_EXPECTED_KEY_DIFFERENCES = {
    "PodSpec": (_MOVED_TO_SECURITY_CONTEXT | {"serviceAccount"}, set()),
    "PodSecurityContext": (set(), _MOVED_TO_SECURITY_CONTEXT),
}


def _v1_keys(type_name: str) -> set[str]:
    """The v1 JSON keys a layout reads (embedded structs flattened where v1 inlines them)."""
    keys: set[str] = set()
    for field in layout(type_name):
        if field.embedded and not field.key:
            keys |= _v1_keys(field.kind)
        else:
            keys.add(field.key)
    return keys


def _model(type_name: str) -> Any:
    """The client's model of a v1 type (``CoreV1`` where another group has the same name)."""
    return getattr(k8s, "V1" + type_name, None) or getattr(k8s, "CoreV1" + type_name, None)


MODELLED = sorted(name for name in LAYOUTS if _model(name) is not None)


def test_every_v1_type_of_a_pod_template_has_a_model_to_check_against() -> None:
    # Only the structs v1 inlines (and so has no OpenAPI definition of) lack one.
    assert sorted(set(LAYOUTS) - set(MODELLED)) == [
        "EphemeralContainerCommon",
        "ProbeHandler",
        "VolumeSource",
    ]


@pytest.mark.parametrize("type_name", MODELLED)
def test_a_layout_reads_exactly_the_fields_of_the_1_37_v1_type(type_name: str) -> None:
    v1_only, internal_only = _EXPECTED_KEY_DIFFERENCES.get(type_name, (set(), set()))
    model_keys = set(_model(type_name).attribute_map.values())
    assert _v1_keys(type_name) == (model_keys - v1_only) | internal_only


def _flattened_types(type_name: str) -> dict[str, str]:
    types: dict[str, str] = {}
    for field in layout(type_name):
        if field.embedded and not field.key:
            types |= _flattened_types(field.kind)
        elif not field.embedded:
            types[field.key] = field.kind
    return types


@pytest.mark.parametrize("type_name", MODELLED)
def test_a_layouts_nested_structs_are_the_v1_models_nested_types(type_name: str) -> None:
    model = _model(type_name)
    by_key = {key: model.openapi_types[attr] for attr, key in model.attribute_map.items()}
    for key, kind in _flattened_types(type_name).items():
        if key not in by_key:
            continue  # a field moved by conversion, checked above
        openapi = by_key[key]
        nested = kind.strip("*[]")
        if kind.startswith("["):
            assert openapi.lower() == f"list[{_model(nested).__name__.lower()}]", key
        elif nested[:1].isupper():
            assert openapi == _model(nested).__name__, key
        else:  # a scalar, or a list or map of scalars
            assert not re.search(r"V1[A-Z]", openapi), key


# Field order of internal structs as API servers printed them with %#v (before 1.34), quoted
# from public reports: kubernetes/kubernetes#89657 (core.PodSpec head, core.Container),
# kubernetes-client/javascript#723 (core.PodSpec tail, which differs from v1's order) and
# kubernetes/kubernetes#118645 (core.VolumeSource).
OBSERVED_ORDERS = [
    ("PodSpec", ["Volumes", "InitContainers", "Containers"]),
    (
        "Container",
        [
            "Name", "Image", "Command", "Args", "WorkingDir", "Ports", "EnvFrom", "Env",
            "Resources", "VolumeMounts", "VolumeDevices", "LivenessProbe", "ReadinessProbe",
            "StartupProbe", "Lifecycle",
        ],
    ),
    (
        "PodSpec",
        [
            "SecurityContext", "ImagePullSecrets", "Hostname", "Subdomain", "SetHostnameAsFQDN",
            "Affinity", "SchedulerName", "Tolerations", "HostAliases", "PriorityClassName",
            "Priority", "PreemptionPolicy", "DNSConfig", "ReadinessGates", "RuntimeClassName",
            "Overhead", "EnableServiceLinks", "TopologySpreadConstraints",
        ],
    ),
    (
        "VolumeSource",
        [
            "HostPath", "EmptyDir", "GCEPersistentDisk", "AWSElasticBlockStore", "GitRepo",
            "Secret", "NFS", "ISCSI", "Glusterfs",
        ],
    ),
    ("ResourceRequirements", ["Limits", "Requests"]),
]  # fmt: skip


@pytest.mark.parametrize(("type_name", "observed"), OBSERVED_ORDERS)
def test_fields_keep_the_order_real_servers_printed(type_name: str, observed: list[str]) -> None:
    names = [field.name for field in layout(type_name)]
    assert [name for name in names if name in observed] == observed


def _render(template: dict[str, Any]) -> dict[str, Any]:
    rendered: dict[str, Any] = json.loads(internal_json("PodTemplateSpec", template))
    return rendered


def test_the_template_is_its_metadata_flattened_then_the_go_named_spec() -> None:
    rendered = _render(
        {"metadata": {"labels": {"b": "2", "a": "1"}}, "spec": {"containers": [{"name": "c"}]}}
    )
    # ObjectMeta is embedded (its JSON tags kept, empty fields omitted, a zero
    # creationTimestamp omitted as omitzero); map keys are sorted as Go maps are.
    assert list(rendered) == ["labels", "Spec"]
    assert list(rendered["labels"]) == ["a", "b"]
    spec = rendered["Spec"]
    assert spec["Volumes"] is None  # a nil slice
    assert spec["NodeName"] == ""  # a zero string is written, not omitted
    container = spec["Containers"][0]
    assert container["Stdin"] is False
    assert container["Resources"] == {"Limits": None, "Requests": None, "Claims": None}


def test_conversion_moves_the_host_namespaces_and_reads_the_deprecated_account() -> None:
    spec = {"containers": [], "hostPID": True, "serviceAccount": "old", "securityContext": None}
    rendered = _render({"spec": spec})["Spec"]
    assert "HostPID" not in rendered
    assert rendered["ServiceAccountName"] == "old"
    assert rendered["SecurityContext"]["HostPID"] is True
    assert rendered["SecurityContext"]["HostNetwork"] is False
    named = _render({"spec": {**spec, "serviceAccountName": "new"}})["Spec"]
    assert named["ServiceAccountName"] == "new"


def test_init_container_annotations_are_dropped_by_conversion() -> None:
    annotations = {"pod.beta.kubernetes.io/init-containers": "[]", "keep": "yes"}
    rendered = _render({"metadata": {"annotations": annotations}, "spec": {}})
    assert rendered["annotations"] == {"keep": "yes"}


def test_strings_are_escaped_as_encoding_json_escapes_them() -> None:
    env = [{"name": "E", "value": "<a&b>\u2028"}]
    text = internal_json("PodTemplateSpec", {"spec": {"containers": [{"name": "c", "env": env}]}})
    assert r'"Value":"\u003ca\u0026b\u003e\u2028"' in text
    assert json.loads(text)["Spec"]["Containers"][0]["Env"][0]["Value"] == "<a&b>\u2028"


def test_embedded_structs_are_flattened_where_v1_inlines_them() -> None:
    volume = {"name": "v", "configMap": {"name": "cm"}}
    probe = {"exec": {"command": ["true"]}, "periodSeconds": 5}
    container = {"name": "c", "livenessProbe": probe}
    rendered = _render({"spec": {"volumes": [volume], "containers": [container]}})["Spec"]
    source = rendered["Volumes"][0]
    assert list(source)[:3] == ["Name", "HostPath", "EmptyDir"]
    assert source["ConfigMap"]["Name"] == "cm"  # LocalObjectReference, embedded
    live = rendered["Containers"][0]["LivenessProbe"]
    assert live["Exec"] == {"Command": ["true"]}
    assert live["PeriodSeconds"] == 5
    assert live["TimeoutSeconds"] == 0


def test_label_selectors_keep_their_json_tags() -> None:
    term = {
        "topologyKey": "zone",
        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
    }
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    rendered = _render({"spec": {"affinity": affinity}})["Spec"]
    (written,) = rendered["Affinity"]["PodAffinity"][
        "RequiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert written["LabelSelector"] == {"matchExpressions": [{"key": "app", "operator": "Exists"}]}
    assert written["TopologyKey"] == "zone"


def test_values_of_the_wrong_shape_are_written_not_raised() -> None:
    text = internal_json("PodTemplateSpec", {"spec": {"containers": "x", "affinity": 3}})
    rendered = json.loads(text)["Spec"]
    assert rendered["Containers"] == "x"
    assert rendered["Affinity"] == 3


@bounded()
async def test_a_changed_job_template_is_rendered_as_the_internal_struct(
    fake_apiserver: FakeAPIServer,
) -> None:
    spec = {"containers": [{"name": "c", "image": "busybox"}], "restartPolicy": "Never"}
    created = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j1"},
        "spec": {"template": {"spec": spec}},
    }
    assert (await call(fake_apiserver, "POST", JOBS, created)).status == 201
    image = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", image, content_type=STRATEGIC)
    assert reply.status == 422
    message = reply.json()["message"]
    prefix = 'Job.batch "j1" is invalid: spec.template: Invalid value: '
    suffix = ": field is immutable"
    assert message.startswith(prefix)
    assert message.endswith(suffix)
    rendered = json.loads(message[len(prefix) : -len(suffix)])
    # The Job's generated labels (observed on create), sorted; then the defaulted spec, with
    # the new image: the value is the new template.
    assert list(rendered) == ["labels", "Spec"]
    assert list(rendered["labels"]) == sorted(rendered["labels"])
    assert rendered["labels"]["batch.kubernetes.io/job-name"] == "j1"
    container = rendered["Spec"]["Containers"][0]
    assert (container["Name"], container["Image"]) == ("c", "nginx")
    assert container["TerminationMessagePath"] == "/dev/termination-log"
    assert rendered["Spec"]["RestartPolicy"] == "Never"
    assert rendered["Spec"]["SecurityContext"]["HostNetwork"] is False
    cause = reply.json()["details"]["causes"][0]
    assert cause["message"] == message.split("spec.template: ", 1)[1]
