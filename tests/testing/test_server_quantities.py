"""Resource quantities are written back in their canonical form, as kube-apiserver writes them.

Expected texts come from apimachinery's ``pkg/api/resource/quantity_test.go`` (its tables
``TestQuantityString``, ``TestQuantityParseEmit``, ``TestParseQuantity``, ``TestQuantityParse``
and ``TestJSONWhitespace``), from its sources where no table covers a case (``quantity.go``,
``suffix.go``) and from kubernetes/kubernetes issues that show what 1.37 answers
(#141249, #140459, #142156). End to end, a Pod, a Job and a Node created over HTTP with
non-canonical quantities read back canonical from the create, a get, a list and a watch.
"""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from typing import Any

import aiohttp
import pytest
from server_helpers import APPLY, bounded, call, pod

from workloadbuilder.testing import FakeAPIServer, SimNode
from workloadbuilder.testing.engine.object_types import TypeMismatch, decode_quantity
from workloadbuilder.testing.rules import quantity
from workloadbuilder.testing.sim.model import pod_requests

POD_PATH = "/api/v1/namespaces/default/pods"
JOB_PATH = "/apis/batch/v1/namespaces/default/jobs"
NODE_PATH = "/api/v1/nodes"

# TestQuantityString: (canonical, alternate); the canonical text parses back to itself and the
# alternate spelling (when there is one) is written as the canonical one.
STRING_TABLE = [
    ("1Gi", "1024Mi"),
    ("300Mi", "307200Ki"),
    ("6Ki", ""),
    ("1001Gi", "1025024Mi"),
    ("1Ti", "1024Gi"),
    ("5", "5000m"),
    ("500m", "0.5"),
    ("1G", "1000M"),
    ("1G", "0.001T"),
    ("1m", "1000u"),
    ("80m", ""),
    ("1080m", "1.08"),
    ("1080m", "1080000000n"),
    ("300M", ""),
    ("1T", ""),
    ("1234567M", ""),
    ("1234567m", ""),
    ("3k", ""),
    ("1025", ""),
    ("0", ""),
    ("1e9", ".001e12"),
    ("1e-3", "0.001e0"),
    ("1e-9", "1000e-12"),
    ("80e-3", ""),
    ("300e6", ""),
    ("1e12", ""),
    ("1e3", ""),
    ("3e3", ""),
    ("0", "00"),
    ("1n", ""),
    ("80n", ""),
    ("1080n", ""),
    ("1u", ""),
    ("80u", ""),
    ("1080u", ""),
]

# TestQuantityParseEmit: input -> canonical; "-" + input gives "-" + canonical.
PARSE_EMIT = [
    ("1Ki", "1Ki"),
    ("1Mi", "1Mi"),
    ("1Gi", "1Gi"),
    ("1024Mi", "1Gi"),
    ("1000M", "1G"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),
]

# TestParseQuantity: input -> canonical ("" when the input is already canonical).
PARSE_QUANTITY = [
    ("-999999999999999999", ""),
    ("999999999999999999", ""),
    ("-999999999999999999.0", "-999999999999999999"),
    ("999999999999999999.0", "999999999999999999"),
    ("-999999999999999999.1", "-999999999999999999100m"),
    ("999999999999999999.1", "999999999999999999100m"),
    ("-9999999999999999999", ""),
    ("9999999999999999999", ""),
    ("-1E", ""),
    ("1E", ""),
    ("-1000000000000000000", "-1E"),
    ("1000000000000000000", "1E"),
    ("-9999999999999999999.0", "-9999999999999999999"),
    ("9999999999999999999.0", "9999999999999999999"),
    ("-1.0E", "-1E"),
    ("1.0E", "1E"),
    ("-1000000000000000000.0", "-1E"),
    ("1000000000000000000.0", "1E"),
    ("-9999999999999999999000m", "-9999999999999999999"),
    ("9999999999999999999000m", "9999999999999999999"),
    ("-9999999999999999999.1", "-9999999999999999999100m"),
    ("9999999999999999999.1", "9999999999999999999100m"),
    ("-1.0000000000000000001E", "-1000000000000000000100m"),
    ("1.0000000000000000001E", "1000000000000000000100m"),
    ("-1000000000000000000.1", "-1000000000000000000100m"),
    ("1000000000000000000.1", "1000000000000000000100m"),
    ("-1.000000000000000001E", "-1000000000000000001"),
    ("1.000000000000000001E", "1000000000000000001"),
    ("-1000000000000000001", ""),
    ("1000000000000000001", ""),
    ("-10E", ""),
    ("10E", ""),
    ("-10000000000000000000", "-10E"),
    ("10000000000000000000", "10E"),
    ("-10.0E", "-10E"),
    ("10.0E", "10E"),
    ("-10000000000000000000.0", "-10E"),
    ("10000000000000000000.0", "10E"),
    ("-10000000000000000000000m", "-10E"),
    ("10000000000000000000000m", "10E"),
    ("-10.0000000000000000001E", "-10000000000000000000100m"),
    ("10.0000000000000000001E", "10000000000000000000100m"),
    ("-10000000000000000000.1", "-10000000000000000000100m"),
    ("10000000000000000000.1", "10000000000000000000100m"),
    ("-10.000000000000000001E", "-10000000000000000001"),
    ("10.000000000000000001E", "10000000000000000001"),
    ("-10000000000000000001", ""),
    ("10000000000000000001", ""),
    ("-9223372036854775809", ""),
    ("9223372036854775806", ""),
    ("-9223372036854775809.0", "-9223372036854775809"),
    ("9223372036854775806.0", "9223372036854775806"),
    ("-9223372036854775809000m", "-9223372036854775809"),
    ("9223372036854775806000m", "9223372036854775806"),
    ("-9223372036854775809.1", "-9223372036854775809100m"),
    ("9223372036854775806.1", "9223372036854775806100m"),
    ("-9223372036854775808", ""),
    ("9223372036854775807", ""),
    ("-9223372036854775808.0", "-9223372036854775808"),
    ("9223372036854775807.0", "9223372036854775807"),
    ("-9223372036854775808000m", "-9223372036854775808"),
    ("9223372036854775807000m", "9223372036854775807"),
    ("-9223372036854775808.1", "-9223372036854775808100m"),
    ("9223372036854775807.1", "9223372036854775807100m"),
    ("-9223372036854775807", ""),
    ("9223372036854775808", ""),
    ("-9223372036854775807.0", "-9223372036854775807"),
    ("9223372036854775808.0", "9223372036854775808"),
    ("-9223372036854775807000m", "-9223372036854775807"),
    ("9223372036854775808000m", "9223372036854775808"),
    ("-9223372036854775807.1", "-9223372036854775807100m"),
    ("9223372036854775808.1", "9223372036854775808100m"),
]

MAX_INT64 = 2**63 - 1
SI, BIN, EXP = "DecimalSI", "BinarySI", "DecimalExponent"
# TestQuantityParse: input -> the value (mantissa, base-10 exponent) and format it parses to.
PARSE_VALUES: list[tuple[str, int, int, str]] = [
    ("0", 0, 0, SI),
    ("0n", 0, 0, SI),
    ("0u", 0, 0, SI),
    ("0m", 0, 0, SI),
    ("0Ki", 0, 0, BIN),
    ("0k", 0, 0, SI),
    ("0Mi", 0, 0, BIN),
    ("0M", 0, 0, SI),
    ("0Gi", 0, 0, BIN),
    ("0G", 0, 0, SI),
    ("0Ti", 0, 0, BIN),
    ("0T", 0, 0, SI),
    ("1", 1, 0, SI),
    ("1Ki", 1024, 0, BIN),
    ("8Ki", 8 * 1024, 0, BIN),
    ("7Mi", 7 * 1024**2, 0, BIN),
    ("6Gi", 6 * 1024**3, 0, BIN),
    ("5Ti", 5 * 1024**4, 0, BIN),
    ("4Pi", 4 * 1024**5, 0, BIN),
    ("3Ei", 3 * 1024**6, 0, BIN),
    ("10Ti", 10 * 1024**4, 0, BIN),
    ("100Ti", 100 * 1024**4, 0, BIN),
    ("5n", 5, -9, SI),
    ("4u", 4, -6, SI),
    ("3m", 3, -3, SI),
    ("9", 9, 0, SI),
    ("8k", 8, 3, SI),
    ("50k", 5, 4, SI),
    ("7M", 7, 6, SI),
    ("6G", 6, 9, SI),
    ("5T", 5, 12, SI),
    ("40T", 4, 13, SI),
    ("300T", 3, 14, SI),
    ("2P", 2, 15, SI),
    ("1E", 1, 18, SI),
    ("1E-3", 1, -3, EXP),
    ("1e3", 1, 3, EXP),
    ("1E6", 1, 6, EXP),
    ("1e9", 1, 9, EXP),
    ("1E12", 1, 12, EXP),
    ("1e15", 1, 15, EXP),
    ("1E18", 1, 18, EXP),
    ("1e14", 1, 14, EXP),
    ("1e13", 1, 13, EXP),
    ("100.035k", 100035, 0, SI),
    ("0.001", 1, -3, SI),
    ("0.0005k", 5, -1, SI),
    ("0.005", 5, -3, SI),
    ("0.05", 5, -2, SI),
    ("0.5", 5, -1, SI),
    ("0.00050k", 5, -1, SI),
    ("0.00500", 5, -3, SI),
    ("0.05000", 5, -2, SI),
    ("0.50000", 5, -1, SI),
    ("0.5e0", 5, -1, EXP),
    ("0.5e-1", 5, -2, EXP),
    ("0.5e-2", 5, -3, EXP),
    ("10.035M", 10035, 3, SI),
    ("1.2e3", 12, 2, EXP),
    ("1.3E+6", 13, 5, EXP),
    ("1.40e9", 14, 8, EXP),
    ("1.53E12", 153, 10, EXP),
    ("1.6e15", 16, 14, EXP),
    ("1.7E18", 17, 17, EXP),
    ("9.01", 901, -2, SI),
    ("8.1k", 81, 2, SI),
    ("7.123456M", 7123456, 0, SI),
    ("6.987654321G", 6987654321, 0, SI),
    ("5.444T", 5444, 9, SI),
    ("40.1T", 401, 11, SI),
    ("300.2T", 3002, 11, SI),
    ("2.5P", 25, 14, SI),
    ("1.01E", 101, 16, SI),
    ("3.001n", 4, -9, SI),
    ("1.1E-9", 2, -9, EXP),
    ("0.0000000001", 1, -9, SI),
    ("0.0000000005", 1, -9, SI),
    ("0.00000000050", 1, -9, SI),
    ("0.5e-9", 1, -9, EXP),
    ("0.9n", 1, -9, SI),
    ("0.00000012345", 124, -9, SI),
    ("0.00000012354", 124, -9, SI),
    ("9Ei", MAX_INT64, 0, BIN),
    ("9223372036854775807Ki", MAX_INT64, 0, BIN),
    ("12E", 12, 18, SI),
    ("100.035Ki", 10243584, -2, BIN),
    ("0.5Mi", 1024**2 // 2, 0, BIN),
    ("0.05Gi", 536870912, -1, BIN),
    ("0.025Ti", 274877906944, -1, BIN),
    ("0.000000000001Ki", 2, -9, SI),
    (".001", 1, -3, SI),
    (".0001k", 100, -3, SI),
    ("1.", 1, 0, SI),
    ("1.G", 1, 9, SI),
]


def canonical(text: str) -> str:
    return quantity.parse(text).canonical()


@pytest.mark.parametrize(("expect", "alternate"), STRING_TABLE)
def test_canonical_texts_are_kept_and_alternates_rewritten(expect: str, alternate: str) -> None:
    assert canonical(expect) == expect
    if alternate:
        assert canonical(alternate) == expect


@pytest.mark.parametrize(("text", "expect"), PARSE_EMIT)
def test_parse_emit(text: str, expect: str) -> None:
    assert canonical(text) == expect
    assert canonical("-" + text) == "-" + expect


@pytest.mark.parametrize(("text", "expect"), PARSE_QUANTITY)
def test_parse_quantity_reserializes(text: str, expect: str) -> None:
    assert canonical(text) == (expect or text)


@pytest.mark.parametrize(("text", "mantissa", "exponent", "form"), PARSE_VALUES)
def test_values_and_formats(text: str, mantissa: int, exponent: int, form: str) -> None:
    value = Fraction(mantissa) * Fraction(10) ** exponent
    for sign, signed in (("", value), ("+", value), ("-", -value)):
        parsed = quantity.parse(sign + text)
        assert (parsed.value, parsed.format) == (signed, form), sign + text


@pytest.mark.parametrize(
    ("sent", "expect"),
    # TestJSONWhitespace: a JSON string's spaces are trimmed; a number is read as its text
    [(" 1", "1"), ("1 ", "1"), (1, "1"), (10, "10"), (-1, "-1"), (2, "2"), (1.5, "1500m")],
)
def test_a_json_value_decodes_to_its_canonical_text(sent: Any, expect: str) -> None:
    assert decode_quantity(sent) == expect


def test_what_kubernetes_1_37_writes_for_edge_values() -> None:
    # quantity.go keeps a text it finds canonical as it was written, sign and case included
    # (ParseQuantity's "reuse the string" branch).
    assert [canonical(t) for t in ("+1", "1E3", "+1Ki")] == ["+1", "1E3", "+1Ki"]
    # kubernetes/kubernetes#140459 and #141249: 1.37 drops a DecimalSI suffix above E.
    assert [canonical(t) for t in ("1000E", "5000E", "1000000E")] == ["1", "5", "1"]
    assert canonical("1000000000000000000000") == "1"
    # #142156: moving trailing zeroes into the exponent wraps as an int32.
    assert canonical("1000e2147483647") == "1e-2147483646"


def test_numbers_of_any_length() -> None:
    # no fraction digits, the largest exponent (quantity.go's canonical form), at any length
    assert canonical("1" + "0" * 5000 + ".5") == "1" + "0" * 5000 + "500m"
    assert canonical("0." + "0" * 5000 + "1") == "1n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # ParseQuantity's invalid vectors (TestQuantityParse), and texts only its arbitrary-
        # precision path reads (no digits for inf.Dec's SetString: ErrNumeric)
        ("1.1.M", quantity.FORMAT_ERROR),
        ("0.1mi", quantity.SUFFIX_ERROR),
        (" 1", quantity.FORMAT_ERROR),
        ("e-10", quantity.NUMERIC_ERROR),
        ("Ei", quantity.NUMERIC_ERROR),
    ],
)
def test_refused_texts_say_why(text: str, message: str) -> None:
    with pytest.raises(quantity.QuantityError) as caught:
        quantity.parse(text)
    assert str(caught.value) == message
    if text.strip() == text:
        with pytest.raises(TypeMismatch, match="quantit"):
            decode_quantity(text)


# -- over HTTP ----------------------------------------------------------------------------

# (sent, canonical) pairs of the tables above; a JSON number is read as its text. The objects
# are ones kube-apiserver accepts (limits at least the requests, cpu divisors of 1m).
REQUESTS = {
    "cpu": ("0.5", "500m"),
    "memory": ("307200Ki", "300Mi"),
    "ephemeral-storage": ("1000M", "1G"),
}
LIMITS = {
    "cpu": ("5000m", "5"),
    "memory": ("1024Mi", "1Gi"),
    "ephemeral-storage": ("0.001T", "1G"),
}


def _sent(table: dict[str, tuple[Any, str]]) -> dict[str, Any]:
    return {name: sent for name, (sent, _) in table.items()}


def _canonical(table: dict[str, tuple[Any, str]]) -> dict[str, str]:
    return {name: text for name, (_, text) in table.items()}


def _pod_spec() -> dict[str, Any]:
    ref = {"resource": "limits.cpu", "containerName": "c"}
    return {
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "c",
                "image": "busybox",
                "resources": {"requests": _sent(REQUESTS), "limits": _sent(LIMITS)},
                "env": [
                    {"name": "A", "valueFrom": {"resourceFieldRef": {**ref, "divisor": "1000u"}}},
                    {"name": "B", "valueFrom": {"resourceFieldRef": ref}},
                ],
            }
        ],
        "initContainers": [
            {
                "name": "i",
                "image": "busybox",
                "resources": {"requests": {"cpu": "1080000000n", "memory": "1e3"}},
            }
        ],
        "resources": {"limits": {"memory": "1025024Mi"}},
        "volumes": [
            {"name": "scratch", "emptyDir": {"sizeLimit": "1024Gi"}},
            {
                "name": "info",
                "downwardAPI": {
                    "items": [{"path": "cpu", "resourceFieldRef": {**ref, "divisor": "0.001e0"}}]
                },
            },
        ],
    }


def _assert_canonical_pod_spec(spec: dict[str, Any]) -> None:
    container = spec["containers"][0]
    assert container["resources"] == {
        "requests": _canonical(REQUESTS),
        "limits": _canonical(LIMITS),
    }
    refs = [env["valueFrom"]["resourceFieldRef"] for env in container["env"]]
    # resource.Quantity (not a pointer) is never omitted: an unset divisor reads back "0"
    assert [ref["divisor"] for ref in refs] == ["1m", "0"]
    init = spec["initContainers"][0]["resources"]
    assert init == {"requests": {"cpu": "1080m", "memory": "1e3"}}
    assert spec["resources"] == {"limits": {"memory": "1001Gi"}}
    assert spec["volumes"][0]["emptyDir"] == {"sizeLimit": "1Ti"}
    assert spec["volumes"][1]["downwardAPI"]["items"][0]["resourceFieldRef"]["divisor"] == "1e-3"


async def _watch_one(server: FakeAPIServer, path: str, rv: str) -> dict[str, Any]:
    timeout = aiohttp.ClientTimeout(total=10)
    params = {"watch": "1", "resourceVersion": rv}
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(server.url + path, params=params) as resp,
    ):
        assert resp.status == 200
        async for line in resp.content:
            event: dict[str, Any] = json.loads(line)
            return event
    raise AssertionError("the watch ended without an event")


async def _read_back(
    server: FakeAPIServer, path: str, body: dict[str, Any]
) -> list[dict[str, Any]]:
    """The object as the create, a watch, a get and a list answer it."""
    start = server.resource_version
    watcher = asyncio.create_task(_watch_one(server, path, start))
    await asyncio.sleep(0.1)
    created = await call(server, "POST", path, body)
    assert created.status == 201, created.text
    event = await watcher
    assert event["type"] == "ADDED"
    name = body["metadata"]["name"]
    got = await call(server, "GET", f"{path}/{name}")
    items = [i for i in (await call(server, "GET", path)).json()["items"]]
    (listed,) = [i for i in items if i["metadata"]["name"] == name]
    return [created.json(), event["object"], got.json(), listed]


@bounded()
async def test_a_pod_reads_back_canonical(fake_apiserver: FakeAPIServer) -> None:
    body = {**pod("q"), "spec": _pod_spec()}
    for answer in await _read_back(fake_apiserver, POD_PATH, body):
        _assert_canonical_pod_spec(answer["spec"])


@bounded()
async def test_a_job_and_its_template_read_back_canonical(fake_apiserver: FakeAPIServer) -> None:
    body = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "default"},
        "spec": {"parallelism": 1, "template": {"spec": _pod_spec()}},
    }
    for answer in await _read_back(fake_apiserver, JOB_PATH, body):
        _assert_canonical_pod_spec(answer["spec"]["template"]["spec"])


@bounded()
async def test_a_node_reads_back_canonical(fake_apiserver: FakeAPIServer) -> None:
    capacity = {"cpu": ("5000m", "5"), "memory": ("1025024Mi", "1001Gi"), "pods": (10, "10")}
    allocatable = {"cpu": ("1.08", "1080m"), "memory": ("307200Ki", "300Mi")}
    body = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"capacity": _sent(capacity), "allocatable": _sent(allocatable)},
    }
    for answer in await _read_back(fake_apiserver, NODE_PATH, body):
        assert answer["status"]["capacity"] == _canonical(capacity)
        assert answer["status"]["allocatable"] == _canonical(allocatable)


@bounded()
async def test_patches_and_applies_write_canonical_quantities(
    fake_apiserver: FakeAPIServer,
) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    assert (await call(fake_apiserver, "POST", NODE_PATH, node)).status == 201
    merge = {"status": {"capacity": {"cpu": "0.5", "memory": "1024Mi", "pods": 10}}}
    patched = await call(
        fake_apiserver,
        "PATCH",
        f"{NODE_PATH}/n1/status",
        merge,
        content_type="application/merge-patch+json",
    )
    assert patched.status == 200, patched.text
    assert patched.json()["status"]["capacity"] == {"cpu": "500m", "memory": "1Gi", "pods": "10"}
    applied = pod("a", namespace="default")
    applied["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "5000m"}}
    reply = await call(
        fake_apiserver,
        "PATCH",
        f"{POD_PATH}/a",
        applied,
        content_type=APPLY,
        params={"fieldManager": "ctl"},
    )
    assert reply.status == 201, reply.text
    assert reply.json()["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "5"}}


@bounded()
async def test_the_simulator_reads_the_canonical_quantities(
    fake_apiserver: FakeAPIServer,
) -> None:
    # what the scheduler sums: containers, the init containers as a floor (0.5 and 1.08 cpu)
    body = {**pod("q"), "spec": _pod_spec()}
    stored = (await call(fake_apiserver, "POST", POD_PATH, body)).json()
    assert pod_requests(stored)["cpu"] == Fraction(108, 100)
    assert pod_requests(stored)["memory"] == 300 * 2**20
    node = SimNode("n", {"cpu": "5000m", "memory": "1024Mi"})
    assert node.capacity() == {"cpu": Fraction(5), "memory": Fraction(2**30)}
