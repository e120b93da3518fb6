"""``metadata`` validation on every kind, and creates in a namespace that does not exist.

Expected texts follow apimachinery's ``pkg/api/validation/objectmeta.go`` (``ValidateObjectMeta``,
``ValidateObjectMetaUpdate``), ``pkg/api/validate/content`` (name and label formats, written
with ``RegexError``'s double space between examples) and the NamespaceLifecycle admission
observed on a real server (``real-apiserver-observed.md``: a POST into a missing namespace is
404 ``namespaces "nons" not found``, a LIST there is an empty 200).
"""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import APPLY, PG_PATH, bounded, call, pod, pod_group

from workloadbuilder.testing import FakeAPIServer

POD_PATH = "/api/v1/namespaces/default/pods"
JOB_PATH = "/apis/batch/v1/namespaces/default/jobs"
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
QUALIFIED_PART = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def owner(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "name": "o", "uid": "u-1", **fields}


def causes(reply: Any) -> list[tuple[str, str, str]]:
    assert reply.status == 422, reply.text
    body = reply.json()
    assert body["reason"] == "Invalid"
    return [(c["reason"], c["field"], c["message"]) for c in body["details"]["causes"]]


INVALID_META = [
    (
        pod("Bad_Name"),
        [("FieldValueInvalid", "metadata.name", f'Invalid value: "Bad_Name": {SUBDOMAIN}')],
    ),
    (
        pod(labels={"bad key": "v"}),
        [
            (
                "FieldValueInvalid",
                "metadata.labels",
                f'Invalid value: "bad key": name part {QUALIFIED_PART}',
            )
        ],
    ),
    (
        pod(labels={"k": "a" * 64}),
        [
            (
                "FieldValueInvalid",
                "metadata.labels",
                f'Invalid value: "{"a" * 64}": must be no more than 63 bytes',
            )
        ],
    ),
    (
        pod(labels={"k": "-x"}),
        [("FieldValueInvalid", "metadata.labels", f'Invalid value: "-x": {LABEL_VALUE}')],
    ),
    (
        pod(annotations={"a/b/c": "v"}),
        [
            (
                "FieldValueInvalid",
                "metadata.annotations",
                f'Invalid value: "a/b/c": a qualified name {QUALIFIED_PART} with an optional DNS '
                "subdomain prefix and '/' (e.g. 'example.com/MyName')",
            )
        ],
    ),
    (
        pod(annotations={"big": "x" * (256 * 1024)}),
        [
            (
                "FieldValueTooLong",
                "metadata.annotations",
                "Too long: may not be more than 262144 bytes",
            )
        ],
    ),
    (
        pod(ownerReferences=[{"controller": True}]),
        [
            (
                "FieldValueRequired",
                f"metadata.ownerReferences[0].{name}",
                "Required value: must not be empty",
            )
            for name in ("apiVersion", "kind", "name", "uid")
        ],
    ),
    (
        pod(ownerReferences=[owner(apiVersion="a/b/c")]),
        [
            (
                "FieldValueInvalid",
                "metadata.ownerReferences[0].apiVersion",
                'Invalid value: "a/b/c": must be <group>/<version> or <version>',
            )
        ],
    ),
    (
        pod(finalizers=["a/b/c"]),
        [
            (
                "FieldValueInvalid",
                "metadata.finalizers",
                f'Invalid value: "a/b/c": a qualified name {QUALIFIED_PART} with an optional DNS '
                "subdomain prefix and '/' (e.g. 'example.com/MyName')",
            )
        ],
    ),
    (
        pod(finalizers=["orphan", "foregroundDeletion"]),
        [
            (
                "FieldValueInvalid",
                "metadata.finalizers",
                'Invalid value: ["orphan","foregroundDeletion"]: '
                "finalizer orphan and foregroundDeletion cannot be both set",
            )
        ],
    ),
]


@bounded()
@pytest.mark.parametrize(("body", "expected"), INVALID_META)
async def test_pod_metadata_is_validated(
    fake_apiserver: FakeAPIServer, body: dict[str, Any], expected: list[tuple[str, str, str]]
) -> None:
    reply = await call(fake_apiserver, "POST", POD_PATH, body)
    assert causes(reply) == expected
    name = body["metadata"]["name"]
    first = f"{expected[0][1]}: {expected[0][2]}"
    message = reply.json()["message"]
    assert message.startswith(f'Pod "{name}" is invalid: ')
    assert first in message
    assert fake_apiserver.list_objects("", "v1", "pods", "default") == []


@bounded()
async def test_owner_reference_rules(fake_apiserver: FakeAPIServer) -> None:
    two = [owner(name="a", controller=True), owner(name="b", uid="u-2", controller=True)]
    (cause,) = causes(await call(fake_apiserver, "POST", POD_PATH, pod(ownerReferences=two)))
    assert cause[:2] == ("FieldValueInvalid", "metadata.ownerReferences")
    assert cause[2].endswith(
        'Only one reference can have Controller set to true. Found "true" in references for '
        "Pod/a and Pod/b"
    )
    event = [owner(kind="Event")]
    (cause,) = causes(await call(fake_apiserver, "POST", POD_PATH, pod(ownerReferences=event)))
    assert cause[:2] == ("FieldValueInvalid", "metadata.ownerReferences[0]")
    assert cause[2].endswith("/v1, Kind=Event is disallowed from being an owner")
    # The reference is written as json.Marshal writes metav1.OwnerReference: fields in its
    # declaration order (apiVersion, kind, name, uid, controller, blockOwnerDeletion), the
    # unset pointers omitted, whatever order the request had.
    shuffled = [{"uid": "u-9", "name": "e", "kind": "Event", "apiVersion": "v1"}]
    (cause,) = causes(await call(fake_apiserver, "POST", POD_PATH, pod(ownerReferences=shuffled)))
    assert cause[2] == (
        'Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u-9"}: '
        "/v1, Kind=Event is disallowed from being an owner"
    )


@bounded()
async def test_names_follow_the_kind(fake_apiserver: FakeAPIServer) -> None:
    # Namespace names are DNS labels; pods, jobs and the scheduling kinds take subdomains
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}}
    assert causes(await call(fake_apiserver, "POST", "/api/v1/namespaces", ns)) == [
        ("FieldValueInvalid", "metadata.name", 'Invalid value: "a.b": must not contain dots')
    ]
    assert (await call(fake_apiserver, "POST", POD_PATH, pod("a.b"))).status == 201
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "Job!"},
        "spec": {
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}
            }
        },
    }
    assert ("FieldValueInvalid", "metadata.name", f'Invalid value: "Job!": {SUBDOMAIN}') in (
        causes(await call(fake_apiserver, "POST", JOB_PATH, job))
    )
    group = pod_group("pg")
    group["metadata"]["labels"] = {"bad key": "v"}
    reply = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        group,
        content_type=APPLY,
        params={"fieldManager": "m"},
    )
    assert causes(reply) == [
        (
            "FieldValueInvalid",
            "metadata.labels",
            f'Invalid value: "bad key": name part {QUALIFIED_PART}',
        )
    ]


@bounded()
async def test_generate_name_is_checked_as_a_prefix(fake_apiserver: FakeAPIServer) -> None:
    ok = await call(
        fake_apiserver, "POST", POD_PATH, {**pod(), "metadata": {"generateName": "web-"}}
    )
    assert ok.status == 201
    assert ok.json()["metadata"]["name"].startswith("web-")
    bad = {**pod(), "metadata": {"generateName": "Web-"}}
    found = causes(await call(fake_apiserver, "POST", POD_PATH, bad))
    assert found[0] == (
        "FieldValueInvalid",
        "metadata.generateName",
        f'Invalid value: "Web-": {SUBDOMAIN}',
    )
    assert found[1][:2] == ("FieldValueInvalid", "metadata.name")
    long_prefix = "a" * 70
    made = await call(
        fake_apiserver, "POST", POD_PATH, {**pod(), "metadata": {"generateName": long_prefix}}
    )
    assert made.status == 201
    assert len(made.json()["metadata"]["name"]) == 63  # 58 of the prefix, 5 generated


@bounded()
async def test_labels_are_checked_again_on_update(fake_apiserver: FakeAPIServer) -> None:
    assert (await call(fake_apiserver, "POST", POD_PATH, pod(labels={"a": "b"}))).status == 201
    reply = await call(
        fake_apiserver,
        "PATCH",
        f"{POD_PATH}/p",
        {"metadata": {"labels": {"a": "-"}}},
        content_type="application/merge-patch+json",
    )
    assert causes(reply) == [
        ("FieldValueInvalid", "metadata.labels", f'Invalid value: "-": {LABEL_VALUE}')
    ]


@bounded()
async def test_no_new_finalizers_while_deleting(fake_apiserver: FakeAPIServer) -> None:
    created = await call(fake_apiserver, "POST", POD_PATH, pod(finalizers=["example.com/f"]))
    assert created.status == 201
    assert (await call(fake_apiserver, "DELETE", f"{POD_PATH}/p")).status == 200
    reply = await call(
        fake_apiserver,
        "PATCH",
        f"{POD_PATH}/p",
        {"metadata": {"finalizers": ["example.com/f", "example.com/g"]}},
        content_type="application/merge-patch+json",
    )
    assert causes(reply) == [
        (
            "FieldValueForbidden",
            "metadata.finalizers",
            "Forbidden: no new finalizers can be added if the object is being deleted, "
            'found new finalizers []string{"example.com/g"}',
        )
    ]


# -- namespaces ---------------------------------------------------------------------------


@bounded()
async def test_create_in_a_missing_namespace_is_404(fake_apiserver: FakeAPIServer) -> None:
    path = POD_PATH.replace("default", "nons")
    reply = await call(fake_apiserver, "POST", path, pod())
    assert reply.status == 404
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'namespaces "nons" not found',
        "reason": "NotFound",
        "details": {"name": "nons", "kind": "namespaces"},
        "code": 404,
    }
    applied = await call(
        fake_apiserver,
        "PATCH",
        PG_PATH.replace("default", "nons") + "/pg",
        pod_group(namespace="nons"),
        content_type=APPLY,
        params={"fieldManager": "m"},
    )
    assert applied.status == 404
    assert applied.json()["message"] == 'namespaces "nons" not found'
    listed = await call(fake_apiserver, "GET", path)
    assert listed.status == 200 and listed.json()["items"] == []
    assert (await call(fake_apiserver, "GET", f"{path}/p")).json()[
        "message"
    ] == 'pods "p" not found'
    names = [n["metadata"]["name"] for n in fake_apiserver.list_objects("", "v1", "namespaces")]
    assert names == ["default"]


@bounded()
@pytest.mark.fake_apiserver(auto_create_namespaces=True)
async def test_auto_create_namespaces_creates_the_namespace(fake_apiserver: FakeAPIServer) -> None:
    path = POD_PATH.replace("default", "team-a")
    assert (await call(fake_apiserver, "POST", path, pod())).status == 201
    namespace = fake_apiserver.get_object("", "v1", "namespaces", None, "team-a")
    assert namespace is not None
    dry = await call(
        fake_apiserver,
        "POST",
        POD_PATH.replace("default", "team-b"),
        pod(),
        params={"dryRun": "All"},
    )
    assert dry.status == 201
    assert fake_apiserver.get_object("", "v1", "namespaces", None, "team-b") is None
