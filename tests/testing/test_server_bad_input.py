"""Malformed requests get the API server's 400/409/413/422 answer as a JSON Status, never a 500.

Expected messages come from upstream's sources (apiserver ``endpoints/handlers/rest.go``
``transformDecodeError`` and ``limitedReadBody``, ``storage/interfaces.go`` preconditions,
``storage/errors.go``, apimachinery's ``ValidateDeleteOptions`` and ``strconv`` parsing of
query parameters, Go's ``encoding/json`` error texts) and ``real-apiserver-observed.md``.
After every bad request the store still lists, selects and deletes.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from server_helpers import APPLY, PG_PATH, Reply, bounded, call, pod, pod_group

from workloadbuilder.testing import FakeAPIServer

POD_PATH = "/api/v1/namespaces/default/pods"
JOB_PATH = "/apis/batch/v1/namespaces/default/jobs"


def assert_status(reply: Reply, code: int, reason: str, message: str | None = None) -> None:
    assert reply.status == code, reply.text
    assert reply.headers["Content-Type"] == "application/json"
    body = reply.json()
    assert body["kind"] == "Status"
    assert body["status"] == "Failure"
    assert body["code"] == code
    assert body["reason"] == reason
    if message is not None:
        assert body["message"] == message


async def assert_store_healthy(server: FakeAPIServer) -> None:
    """The namespace still lists, selects and deletes."""
    for params in (None, {"labelSelector": "a=b"}, {"fieldSelector": "metadata.name=x"}):
        reply = await call(server, "GET", POD_PATH, params=params)
        assert reply.status == 200, reply.text
    created = await call(server, "POST", POD_PATH, pod("canary", labels={"a": "b"}))
    assert created.status == 201, created.text
    assert (
        len((await call(server, "GET", POD_PATH, params={"labelSelector": "a=b"})).json()["items"])
        >= 1
    )
    assert (await call(server, "DELETE", f"{POD_PATH}/canary")).status == 200


# -- wrong JSON types ---------------------------------------------------------------------

WRONG_TYPES = [
    (
        {"apiVersion": 5, "kind": "Pod", "metadata": {"name": "p"}},
        "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; "
        "json parse error: json: cannot unmarshal number into Go struct field .apiVersion of "
        'type string ({"apiVersion": 5, "kind": "Pod ...)',
    ),
    (
        pod(name=["x"]),
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal array into Go '
        "struct field ObjectMeta.metadata.name of type string",
    ),
    (
        {**pod(), "metadata": {"generateName": 5}},
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go '
        "struct field ObjectMeta.metadata.generateName of type string",
    ),
    (
        pod(labels="x"),
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go '
        "struct field ObjectMeta.metadata.labels of type map[string]string",
    ),
    (
        pod(labels={"a": 1}),
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go '
        "struct field ObjectMeta.metadata.labels of type string",
    ),
    (
        pod(ownerReferences=[1]),
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go '
        "struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference",
    ),
    (
        pod(ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": 5, "uid": "u"}]),
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go '
        "struct field OwnerReference.metadata.ownerReferences.name of type string",
    ),
    (
        pod(managedFields=[1]),
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go '
        "struct field ObjectMeta.metadata.managedFields of type v1.ManagedFieldsEntry",
    ),
    (
        pod(finalizers="x"),
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go '
        "struct field ObjectMeta.metadata.finalizers of type []string",
    ),
    (
        {**pod(), "metadata": 5},
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go '
        "struct field Pod.metadata of type v1.ObjectMeta",
    ),
]


@bounded(60)
@pytest.mark.parametrize(("body", "message"), WRONG_TYPES)
async def test_wrong_json_types_in_metadata_are_400_and_store_nothing(
    fake_apiserver: FakeAPIServer, body: dict[str, Any], message: str
) -> None:
    reply = await call(fake_apiserver, "POST", POD_PATH, body)
    assert_status(reply, 400, "BadRequest", message)
    assert fake_apiserver.list_objects("", "v1", "pods", "default") == []
    await assert_store_healthy(fake_apiserver)


WORKLOADS = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads"


def workload(templates: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "w"},
        "spec": {"podGroupTemplates": templates},
    }


GANG = {"gang": {"minCount": 1}}
SPEC_TYPES = [
    (
        WORKLOADS,
        workload("x"),
        "Workload",
        "json: cannot unmarshal string into Go struct field WorkloadSpec.spec.podGroupTemplates "
        "of type []v1beta1.PodGroupTemplate",
    ),
    (
        WORKLOADS,
        workload([{"name": ["a"], "schedulingPolicy": GANG}]),  # a list-map key that is a list
        "Workload",
        "json: cannot unmarshal array into Go struct field "
        "PodGroupTemplate.spec.podGroupTemplates.name of type string",
    ),
    (
        PG_PATH,
        {**pod_group(), "spec": 5},
        "PodGroup",
        "json: cannot unmarshal number into Go struct field PodGroup.spec of type "
        "v1beta1.PodGroupSpec",
    ),
    (
        PG_PATH,
        pod_group(min_count="2"),  # type: ignore[arg-type]
        "PodGroup",
        "json: cannot unmarshal string into Go struct field "
        "GangSchedulingPolicy.spec.schedulingPolicy.gang.minCount of type int32",
    ),
    (
        PG_PATH,
        pod_group(min_count=2**40),
        "PodGroup",
        f"json: cannot unmarshal number {2**40} into Go struct field "
        "GangSchedulingPolicy.spec.schedulingPolicy.gang.minCount of type int32",
    ),
    (
        PG_PATH,
        {**pod_group(), "status": {"conditions": [{"type": 1, "status": "True"}]}},
        "PodGroup",
        "json: cannot unmarshal number into Go struct field Condition.status.conditions.type "
        "of type string",
    ),
]


@bounded()
@pytest.mark.parametrize(("path", "body", "kind", "detail"), SPEC_TYPES)
async def test_wrong_json_types_in_the_body_of_modelled_kinds_are_400(
    fake_apiserver: FakeAPIServer, path: str, body: dict[str, Any], kind: str, detail: str
) -> None:
    message = f'{kind} in version "v1beta1" cannot be handled as a {kind}: {detail}'
    assert_status(await call(fake_apiserver, "POST", path, body), 400, "BadRequest", message)
    name = body["metadata"]["name"]
    applied = await call(
        fake_apiserver,
        "PATCH",
        f"{path}/{name}",
        body,
        content_type=APPLY,
        params={"fieldManager": "m"},
    )
    assert_status(applied, 400, "BadRequest", message)
    assert (await call(fake_apiserver, "GET", path)).json()["items"] == []
    await assert_store_healthy(fake_apiserver)


def _job(**spec: Any) -> dict[str, Any]:
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"template": template, **spec},
    }


def _pod_spec(**spec: Any) -> dict[str, Any]:
    body = pod()
    body["spec"] = {**body["spec"], **spec}
    return body


# Go's encoding/json UnmarshalTypeError: "json: cannot unmarshal <JSON kind> into Go struct
# field <innermost struct>.<dotted path without indexes> of type <Go type>", the Go types
# being those of k8s.io/api core/v1 and batch/v1.
CORE_WRONG_TYPES = [
    (
        POD_PATH,
        {**pod(), "spec": "x"},
        "Pod",
        "json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec",
    ),
    (
        POD_PATH,
        _pod_spec(containers=5),
        "Pod",
        "json: cannot unmarshal number into Go struct field PodSpec.spec.containers of type "
        "[]v1.Container",
    ),
    (
        POD_PATH,
        _pod_spec(containers=[{"name": "c", "image": 5}]),
        "Pod",
        "json: cannot unmarshal number into Go struct field Container.spec.containers.image of "
        "type string",
    ),
    (
        POD_PATH,
        _pod_spec(nodeName=5),
        "Pod",
        "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string",
    ),
    (
        POD_PATH,
        _pod_spec(schedulingGroup={"podGroupName": 5}),
        "Pod",
        "json: cannot unmarshal number into Go struct field PodSchedulingGroup.spec."
        "schedulingGroup.podGroupName of type string",
    ),
    (
        POD_PATH,
        _pod_spec(priority=2**31),
        "Pod",
        f"json: cannot unmarshal number {2**31} into Go struct field PodSpec.spec.priority of "
        "type int32",
    ),
    (
        JOB_PATH,
        _job(parallelism="x"),
        "Job",
        "json: cannot unmarshal string into Go struct field JobSpec.spec.parallelism of type int32",
    ),
    (
        JOB_PATH,
        _job(completions=1.5),
        "Job",
        "json: cannot unmarshal number 1.5 into Go struct field JobSpec.spec.completions of type "
        "int32",
    ),
    (
        JOB_PATH,
        _job(suspend="yes"),
        "Job",
        "json: cannot unmarshal string into Go struct field JobSpec.spec.suspend of type bool",
    ),
]


@bounded()
@pytest.mark.parametrize(("path", "body", "kind", "detail"), CORE_WRONG_TYPES)
async def test_wrong_json_types_in_the_spec_of_core_kinds_are_400(
    fake_apiserver: FakeAPIServer, path: str, body: dict[str, Any], kind: str, detail: str
) -> None:
    message = f'{kind} in version "v1" cannot be handled as a {kind}: {detail}'
    assert_status(await call(fake_apiserver, "POST", path, body), 400, "BadRequest", message)
    assert (await call(fake_apiserver, "GET", path)).json()["items"] == []
    await assert_store_healthy(fake_apiserver)


@bounded()
async def test_wrong_types_are_refused_on_every_write_verb(fake_apiserver: FakeAPIServer) -> None:
    assert (await call(fake_apiserver, "POST", POD_PATH, pod())).status == 201
    put = await call(fake_apiserver, "PUT", f"{POD_PATH}/p", pod(labels="x"))
    assert_status(put, 400, "BadRequest")
    merge = await call(
        fake_apiserver,
        "PATCH",
        f"{POD_PATH}/p",
        {"metadata": {"labels": {"a": ["x"]}}},
        content_type="application/merge-patch+json",
    )
    assert_status(merge, 400, "BadRequest")
    json_patch = [{"op": "add", "path": "/metadata/finalizers", "value": [1]}]
    patched = await call(
        fake_apiserver,
        "PATCH",
        f"{POD_PATH}/p",
        json_patch,
        content_type="application/json-patch+json",
    )
    assert_status(patched, 400, "BadRequest")
    applied = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        {**pod_group(), "metadata": {"name": "pg", "ownerReferences": "x"}},
        content_type=APPLY,
        params={"fieldManager": "m"},
    )
    assert_status(applied, 400, "BadRequest")
    stored = fake_apiserver.get_object("", "v1", "pods", "default", "p")
    assert stored is not None and "labels" not in stored["metadata"]
    await assert_store_healthy(fake_apiserver)


@bounded()
async def test_null_in_metadata_is_a_go_zero_value(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "POST", POD_PATH, pod(labels={"a": None}, finalizers=None))
    assert reply.status == 201, reply.text
    assert reply.json()["metadata"]["labels"] == {"a": ""}
    assert "finalizers" not in reply.json()["metadata"]


# -- numbers ------------------------------------------------------------------------------


def raw_pod(extra: str) -> bytes:
    return (
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},'
        f'"spec":{{"containers":[{{"name":"c","image":"x"}}]{extra}}}}}'
    ).encode()


@bounded()
@pytest.mark.parametrize(
    ("extra", "detail"),
    [
        (',"x":NaN', "invalid character 'N' looking for beginning of value"),
        (',"x":Infinity', "invalid character 'I' looking for beginning of value"),
        (',"x":-Infinity', "invalid character 'I' in numeric literal"),
    ],
)
async def test_nan_and_infinity_are_not_json(
    fake_apiserver: FakeAPIServer, extra: str, detail: str
) -> None:
    body = raw_pod(extra)
    reply = await call(fake_apiserver, "POST", POD_PATH, body)
    summary = body[:30].decode() + " ..."
    assert_status(
        reply,
        400,
        "BadRequest",
        "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; "
        f"json parse error: {detail} ({summary})",
    )
    await assert_store_healthy(fake_apiserver)


@bounded()
@pytest.mark.parametrize("number", ["9" * 5000, str(2**63), "1e400"])
async def test_numbers_beyond_int64_or_float64_are_400(
    fake_apiserver: FakeAPIServer, number: str
) -> None:
    reply = await call(
        fake_apiserver, "POST", POD_PATH, raw_pod(f',"terminationGracePeriodSeconds":{number}')
    )
    assert_status(reply, 400, "BadRequest")
    assert "cannot unmarshal number" in reply.json()["message"]
    await assert_store_healthy(fake_apiserver)


@bounded()
@pytest.mark.parametrize("value", ["²", "١٢", "abc", "1.5", " 1"])
async def test_limit_takes_ascii_digits_only(fake_apiserver: FakeAPIServer, value: str) -> None:
    reply = await call(fake_apiserver, "GET", POD_PATH, params={"limit": value})
    quoted = json.dumps(value, ensure_ascii=False)
    assert_status(reply, 400, "BadRequest", f"strconv.ParseInt: parsing {quoted}: invalid syntax")


@bounded()
@pytest.mark.parametrize("value", ["abc", "nan", "²", "1e3"])
async def test_watch_timeout_seconds_must_be_an_integer(
    fake_apiserver: FakeAPIServer, value: str
) -> None:
    reply = await call(
        fake_apiserver, "GET", POD_PATH, params={"watch": "1", "timeoutSeconds": value}
    )
    quoted = json.dumps(value, ensure_ascii=False)
    assert_status(reply, 400, "BadRequest", f"strconv.ParseInt: parsing {quoted}: invalid syntax")
    assert fake_apiserver.open_watches == 0


@bounded()
async def test_watch_resource_version_must_be_unsigned(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(
        fake_apiserver, "GET", POD_PATH, params={"watch": "1", "resourceVersion": "²"}
    )
    # storage.APIObjectVersioner.ParseResourceVersion, interpreted by InterpretWatchError
    assert_status(
        reply,
        422,
        "Invalid",
        'pods "" is invalid: resourceVersion: Invalid value: "²": '
        'strconv.ParseUint: parsing "²": invalid syntax',
    )


@bounded()
async def test_json_patch_index_must_be_ascii_digits(fake_apiserver: FakeAPIServer) -> None:
    assert (await call(fake_apiserver, "POST", POD_PATH, pod())).status == 201
    ops = [{"op": "remove", "path": "/spec/containers/²"}]
    reply = await call(
        fake_apiserver, "PATCH", f"{POD_PATH}/p", ops, content_type="application/json-patch+json"
    )
    assert_status(reply, 422, "Invalid")
    stored = fake_apiserver.get_object("", "v1", "pods", "default", "p")
    assert stored is not None and len(stored["spec"]["containers"]) == 1


# -- nesting and expansion ----------------------------------------------------------------

ALIAS_BOMB = b"\n".join(
    [b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]".encode()
        for i in range(8)
    ]
)


@bounded()
@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"[" * 10_000 + b"]" * 10_000, "exceeded max depth"),
        (b'{"a":' * 200 + b"1" + b"}" * 200, "exceeded max depth"),
        (b"a: &a [*a]\n", "yaml: anchor value contains itself"),
        (ALIAS_BOMB, "yaml: document contains excessive aliasing"),
    ],
)
async def test_deep_nesting_and_alias_expansion_are_400(
    fake_apiserver: FakeAPIServer, body: bytes, detail: str
) -> None:
    assert len(body) < 30_000
    reply = await call(fake_apiserver, "POST", POD_PATH, body, content_type="application/yaml")
    assert_status(reply, 400, "BadRequest")
    assert detail in reply.json()["message"]
    await assert_store_healthy(fake_apiserver)


YAML_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, {meta}}}\n"
    "spec: {{containers: [{{name: c, image: x}}]}}\n"
)


@bounded()
@pytest.mark.parametrize(
    "meta",
    [
        "labels: {a: !!binary aGVsbG8=}",
        "labels: !!set {a, b}",
        "annotations: {a: !custom x}",
        "labels: !!omap [{a: b}]",
        "annotations: {a: .nan}",
        "labels: {? [a, b] : c}",
        "labels: {null: a}",
    ],
)
async def test_yaml_outside_json_is_400(fake_apiserver: FakeAPIServer, meta: str) -> None:
    body = YAML_POD.format(meta=meta).encode()
    reply = await call(fake_apiserver, "POST", POD_PATH, body, content_type="application/yaml")
    assert_status(reply, 400, "BadRequest")
    assert fake_apiserver.list_objects("", "v1", "pods", "default") == []
    await assert_store_healthy(fake_apiserver)


@bounded()
async def test_yaml_scalar_keys_and_dates_become_strings(fake_apiserver: FakeAPIServer) -> None:
    # sigs.k8s.io/yaml converts int, bool and float keys to strings; go-yaml keeps dates as text
    meta = "labels: {7: a, true: b, 1.5: c}, annotations: {d: 2020-01-01}"
    body = YAML_POD.format(meta=meta).encode()
    reply = await call(fake_apiserver, "POST", POD_PATH, body, content_type="application/yaml")
    assert reply.status == 201, reply.text
    stored = reply.json()["metadata"]
    assert stored["labels"] == {"7": "a", "true": "b", "1.5": "c"}
    assert stored["annotations"] == {"d": "2020-01-01"}


# -- watch parameters before the 200 ------------------------------------------------------


@bounded()
@pytest.mark.parametrize(
    "params",
    [
        {"allowWatchBookmarks": "true", "sendInitialEvents": "maybe"},
        {"timeoutSeconds": "x"},
        {"resourceVersion": "-1"},
        {"labelSelector": "a in (b"},
        {"allowWatchBookmarks": "sure"},
    ],
)
async def test_watch_parameters_are_checked_before_the_response_starts(
    fake_apiserver: FakeAPIServer, params: dict[str, str]
) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(fake_apiserver.url + POD_PATH, params={"watch": "1", **params}) as resp,
    ):
        text = await asyncio.wait_for(resp.text(), 5)
        assert resp.status in (400, 422)
        assert resp.headers["Content-Type"] == "application/json"
    body = json.loads(text)  # one JSON Status, not a stream with a second response inside
    assert body["kind"] == "Status"
    assert body["code"] == resp.status
    assert fake_apiserver.open_watches == 0


# -- timestamps ---------------------------------------------------------------------------


@bounded()
async def test_out_of_range_timestamps_are_400(fake_apiserver: FakeAPIServer) -> None:
    stamp = "9999-12-31T23:59:59-01:00"  # year 10000 in UTC: not writable as RFC 3339
    created = await call(fake_apiserver, "POST", POD_PATH, pod(creationTimestamp=stamp))
    assert_status(
        created,
        400,
        "BadRequest",
        'Pod in version "v1" cannot be handled as a Pod: '
        f'parsing time "{stamp}": year outside of range [1,9999] in UTC',
    )
    garbled = await call(fake_apiserver, "POST", POD_PATH, pod(deletionTimestamp="yesterday"))
    assert_status(garbled, 400, "BadRequest")
    managed = [{"manager": "m", "operation": "Update", "time": stamp}]
    assert (await call(fake_apiserver, "POST", POD_PATH, pod())).status == 201
    live = (await call(fake_apiserver, "GET", f"{POD_PATH}/p")).json()
    live["metadata"]["managedFields"] = managed
    assert_status(await call(fake_apiserver, "PUT", f"{POD_PATH}/p", live), 400, "BadRequest")
    await assert_store_healthy(fake_apiserver)


@bounded()
async def test_out_of_range_timestamps_in_conditions_are_400(fake_apiserver: FakeAPIServer) -> None:
    stamp = "9999-12-31T23:59:59-01:00"
    assert (await call(fake_apiserver, "POST", PG_PATH, pod_group())).status == 201
    assert (await call(fake_apiserver, "POST", POD_PATH, pod())).status == 201
    condition = {
        "type": "PodGroupInitiallyScheduled",
        "status": "True",
        "reason": "Scheduled",
        "message": "",
        "lastTransitionTime": stamp,
    }
    merge = "application/merge-patch+json"
    group = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg/status",
        {"status": {"conditions": [condition]}},
        content_type=merge,
    )
    assert_status(
        group,
        400,
        "BadRequest",
        'PodGroup in version "v1beta1" cannot be handled as a PodGroup: '
        f'parsing time "{stamp}": year outside of range [1,9999] in UTC',
    )
    ready = {"type": "Ready", "status": "True", "lastTransitionTime": stamp}
    pod_status = await call(
        fake_apiserver,
        "PATCH",
        f"{POD_PATH}/p/status",
        {"status": {"conditions": [ready]}},
        content_type=merge,
    )
    assert_status(pod_status, 400, "BadRequest")
    started = await call(
        fake_apiserver,
        "PATCH",
        f"{POD_PATH}/p/status",
        {"status": {"startTime": "soon"}},
        content_type=merge,
    )
    assert_status(started, 400, "BadRequest")
    live = fake_apiserver.get_object("", "v1", "pods", "default", "p")
    assert live is not None
    assert "conditions" not in live.get("status", {})
    assert "startTime" not in live.get("status", {})
    await assert_store_healthy(fake_apiserver)


# -- body size ----------------------------------------------------------------------------


@bounded(60)
async def test_a_body_over_3_mib_is_a_413_status(fake_apiserver: FakeAPIServer) -> None:
    big = pod(annotations={"a": "x" * (3 * 1024 * 1024)})
    reply = await call(fake_apiserver, "POST", POD_PATH, big)
    assert_status(reply, 413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")
    just_under = b" " * (3 * 1024 * 1024 - len(json.dumps(pod()))) + json.dumps(pod()).encode()
    assert (await call(fake_apiserver, "POST", POD_PATH, just_under)).status == 201
    await assert_store_healthy(fake_apiserver)


# -- DeleteOptions ------------------------------------------------------------------------


@bounded()
@pytest.mark.parametrize(
    ("options", "code", "message"),
    [
        (
            {"dryRun": 5},
            400,
            "json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type "
            "[]string",
        ),
        (
            {"propagationPolicy": 1},
            400,
            "json: cannot unmarshal number into Go struct field "
            "DeleteOptions.propagationPolicy of type string",
        ),
        (
            {"preconditions": {"uid": 5}},
            400,
            "json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid "
            "of type string",
        ),
        (
            {"propagationPolicy": "Sometimes"},
            422,
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
            '"Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
        ),
        (
            {"propagationPolicy": "Orphan", "orphanDependents": True},
            422,
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: '
            '"Orphan": orphanDependents and deletionPropagation cannot be both set',
        ),
        (
            {"dryRun": ["Maybe"]},
            422,
            'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: '
            'supported values: "All"',
        ),
    ],
)
async def test_delete_options_are_decoded_and_validated(
    fake_apiserver: FakeAPIServer, options: dict[str, Any], code: int, message: str
) -> None:
    assert (await call(fake_apiserver, "POST", POD_PATH, pod())).status == 201
    reply = await call(fake_apiserver, "DELETE", f"{POD_PATH}/p", options)
    assert_status(reply, code, "BadRequest" if code == 400 else "Invalid", message)
    assert fake_apiserver.get_object("", "v1", "pods", "default", "p") is not None


@bounded()
async def test_delete_preconditions_are_honoured(fake_apiserver: FakeAPIServer) -> None:
    live = (await call(fake_apiserver, "POST", POD_PATH, pod())).json()["metadata"]
    stale = await call(
        fake_apiserver, "DELETE", f"{POD_PATH}/p", {"preconditions": {"resourceVersion": "1"}}
    )
    # Observed ("Delete preconditions"): rest.BeforeDelete's words, the kind in details.
    assert_status(
        stale,
        409,
        "Conflict",
        'Operation cannot be fulfilled on Pod "p": the ResourceVersion in the precondition (1) '
        f"does not match the ResourceVersion in record ({live['resourceVersion']}). "
        "The object might have been modified",
    )
    assert stale.json()["details"] == {"name": "p", "kind": "Pod"}
    wrong_uid = await call(
        fake_apiserver, "DELETE", f"{POD_PATH}/p", {"preconditions": {"uid": "nope"}}
    )
    assert_status(wrong_uid, 409, "Conflict")
    assert wrong_uid.json()["message"].endswith(
        f"the UID in the precondition (nope) does not match the UID in record ({live['uid']}). "
        "The object might have been deleted and then recreated"
    )
    assert fake_apiserver.get_object("", "v1", "pods", "default", "p") is not None
    held = {"preconditions": {"uid": live["uid"], "resourceVersion": live["resourceVersion"]}}
    assert (await call(fake_apiserver, "DELETE", f"{POD_PATH}/p", held)).status == 200
    assert fake_apiserver.get_object("", "v1", "pods", "default", "p") is None


@bounded()
async def test_a_delete_body_replaces_the_query(fake_apiserver: FakeAPIServer) -> None:
    # handlers/delete.go decodes the query only when there is no body
    assert (await call(fake_apiserver, "POST", POD_PATH, pod())).status == 201
    reply = await call(
        fake_apiserver,
        "DELETE",
        f"{POD_PATH}/p",
        {"kind": "DeleteOptions", "apiVersion": "v1"},
        params={"dryRun": "All"},
    )
    assert reply.status == 200
    assert fake_apiserver.get_object("", "v1", "pods", "default", "p") is None


# -- resource quantities ---------------------------------------------------------------------
# A Quantity decodes as apimachinery's Quantity.UnmarshalJSON: a JSON string or a number's text,
# trimmed of spaces, then ParseQuantity. The refused texts are ParseQuantity's own invalid
# vectors (pkg/api/resource/quantity_test.go), whose errors are ErrFormatWrong or ErrSuffix,
# and texts its arbitrary-precision path refuses (ErrNumeric).

FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_ERROR = "unable to parse quantity's suffix"
# quantity.go: a text without digits that only the arbitrary-precision path reads (an exponent
# below nano, or a suffix too large for int64) fails inf.Dec's SetString: ErrNumeric.
NUMERIC_ERROR = "unable to parse numeric part of quantity"


def _pod_asking(cpu: Any, where: str = "requests") -> dict[str, Any]:
    body = pod()
    body["spec"]["containers"][0]["resources"] = {where: {"cpu": cpu}}
    return body


@bounded(60)
@pytest.mark.parametrize(
    ("quantity", "detail"),
    [
        ("1.1.M", FORMAT_ERROR),
        ("1+1.0M", FORMAT_ERROR),
        ("0.1mi", SUFFIX_ERROR),
        ("0.1am", FORMAT_ERROR),
        ("aoeu", FORMAT_ERROR),
        (".5i", SUFFIX_ERROR),
        ("1i", SUFFIX_ERROR),
        ("-3.01i", SUFFIX_ERROR),
        ("-3.01e-", SUFFIX_ERROR),
        ("1e99999999999999999999", SUFFIX_ERROR),  # the exponent is read as an int64
        ("e-10", NUMERIC_ERROR),
        ("Ei", NUMERIC_ERROR),
        ("", FORMAT_ERROR),
        ([1], FORMAT_ERROR),  # the raw JSON text "[1]"
        ({"a": 1}, FORMAT_ERROR),
        (True, FORMAT_ERROR),
    ],
)
async def test_a_quantity_its_decoder_refuses_is_400_and_stores_nothing(
    fake_apiserver: FakeAPIServer, quantity: Any, detail: str
) -> None:
    for where in ("requests", "limits"):
        reply = await call(fake_apiserver, "POST", POD_PATH, _pod_asking(quantity, where))
        message = f'Pod in version "v1" cannot be handled as a Pod: {detail}'
        assert_status(reply, 400, "BadRequest", message)
    overhead = pod()
    overhead["spec"]["overhead"] = {"cpu": quantity}
    reply = await call(fake_apiserver, "POST", POD_PATH, overhead)
    assert_status(
        reply, 400, "BadRequest", f'Pod in version "v1" cannot be handled as a Pod: {detail}'
    )
    assert fake_apiserver.list_objects("", "v1", "pods", "default") == []
    await assert_store_healthy(fake_apiserver)


@bounded(60)
async def test_quantities_its_decoder_accepts_are_stored(fake_apiserver: FakeAPIServer) -> None:
    accepted = ["0", "1", "500m", "1Ki", "1.5Gi", "1e3", "1E", "+1", ".5", " 1 ", 2, 1.5, None]
    for i, quantity in enumerate(accepted):
        body = _pod_asking(quantity)
        body["metadata"]["name"] = f"p{i}"
        reply = await call(fake_apiserver, "POST", POD_PATH, body)
        assert reply.status == 201, (quantity, reply.text)
    await assert_store_healthy(fake_apiserver)


@bounded()
@pytest.mark.parametrize("status", [True, [], "Running", {"phase": 1}, {"conditions": "x"}])
async def test_a_status_the_server_cannot_decode_is_400_and_the_pod_stays_deletable(
    fake_apiserver: FakeAPIServer, status: Any
) -> None:
    # encoding/json's refusal inside kube-apiserver's "cannot be handled as" 400, as above
    assert (await call(fake_apiserver, "POST", POD_PATH, pod())).status == 201
    written = await call(fake_apiserver, "PUT", f"{POD_PATH}/p/status", {**pod(), "status": status})
    assert_status(written, 400, "BadRequest")
    assert "cannot unmarshal" in written.json()["message"]
    assert (await call(fake_apiserver, "DELETE", f"{POD_PATH}/p")).status == 200
    await assert_store_healthy(fake_apiserver)
