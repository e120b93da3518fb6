"""The test server's part in preemption: Priority admission, graceful pod deletion, the
``pods/binding`` subresource and Nodes. Expected values come from real-apiserver-observed.md
("Core kinds, request by request", "Preemption and topology"), kubernetes/api 1.37
(``scheduling/v1beta1/types.go``) and the Priority admission plugin's messages."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode

NS = "d"
PODS = f"/api/v1/namespaces/{NS}/pods"
SCHED = "scheduling.k8s.io"


@pytest.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as srv:
        srv.create_object("", "v1", "namespaces", {"metadata": {"name": NS}})
        yield srv


async def call(
    srv: FakeAPIServer, method: str, path: str, body: Any = None, **params: str
) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else None
    async with (
        aiohttp.ClientSession(srv.url) as http,
        http.request(method, path, json=body, params=params, headers=headers) as response,
    ):
        return response.status, await response.json(content_type=None)


def pod_body(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "m", "image": "x"}], **spec},
    }


# -- Priority admission -------------------------------------------------------------------


async def test_every_pod_gets_priority_and_preemption_policy(server: FakeAPIServer) -> None:
    """Observed: create, dry-run create, generateName and SSA create all answer priority 0 and
    PreemptLowerPriority; later reads, lists and patches carry them."""
    expected = (0, "PreemptLowerPriority")
    code, created = await call(server, "POST", PODS, pod_body("p1"))
    assert (
        code == 201
        and (created["spec"]["priority"], created["spec"]["preemptionPolicy"]) == expected
    )
    code, dry = await call(server, "POST", PODS, pod_body("p2"), dryRun="All")
    assert (dry["spec"]["priority"], dry["spec"]["preemptionPolicy"]) == expected
    generated = pod_body("")
    generated["metadata"] = {"generateName": "g-"}
    _, gen = await call(server, "POST", PODS, generated)
    assert (gen["spec"]["priority"], gen["spec"]["preemptionPolicy"]) == expected
    async with (
        aiohttp.ClientSession(server.url) as http,
        http.patch(
            f"{PODS}/ssa",
            json=pod_body("ssa"),
            params={"fieldManager": "me"},
            headers={"Content-Type": "application/apply-patch+yaml"},
        ) as response,
    ):
        applied = await response.json()
    assert (applied["spec"]["priority"], applied["spec"]["preemptionPolicy"]) == expected
    _, got = await call(server, "GET", f"{PODS}/p1")
    _, listed = await call(server, "GET", PODS)
    _, patched = await call(server, "PATCH", f"{PODS}/p1", {"metadata": {"labels": {"a": "b"}}})
    async with (
        aiohttp.ClientSession(server.url) as http,
        http.get(PODS, params={"watch": "1", "timeoutSeconds": "1"}) as response,
    ):
        watched = [json.loads(line)["object"] async for line in response.content if line.strip()]
    assert watched
    for obj in (got, *listed["items"], patched, *watched):
        assert (obj["spec"]["priority"], obj["spec"]["preemptionPolicy"]) == expected


async def test_priority_comes_from_the_class_or_the_global_default(server: FakeAPIServer) -> None:
    server.create_object(
        SCHED,
        "v1",
        "priorityclasses",
        {"metadata": {"name": "batch"}, "value": 50, "preemptionPolicy": "Never"},
    )
    _, pod = await call(server, "POST", PODS, pod_body("named", priorityClassName="batch"))
    assert (pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == (50, "Never")
    default = {"metadata": {"name": "everyone"}, "value": 7, "globalDefault": True}
    server.create_object(SCHED, "v1", "priorityclasses", default)
    _, pod = await call(server, "POST", PODS, pod_body("unnamed"))
    assert (pod["spec"]["priorityClassName"], pod["spec"]["priority"]) == ("everyone", 7)
    assert pod["spec"]["preemptionPolicy"] == "PreemptLowerPriority"


async def test_unknown_class_and_a_given_priority_are_refused(server: FakeAPIServer) -> None:
    code, body = await call(server, "POST", PODS, pod_body("x", priorityClassName="nope"))
    assert (code, body["reason"]) == (403, "Forbidden")
    assert body["message"] == 'pods "x" is forbidden: no PriorityClass with name nope was found'
    code, body = await call(server, "POST", PODS, pod_body("y", priority=5))
    assert code == 403
    assert body["message"] == (
        'pods "y" is forbidden: the integer value of priority (5) must not be provided in pod'
        " spec; priority admission controller computed 0 from the given PriorityClass name"
    )


@pytest.mark.parametrize("version", ["v1beta1", "v1alpha3"])
@pytest.mark.parametrize("gate", [True, False])
async def test_pod_group_preemption_policy_follows_the_gate(version: str, gate: bool) -> None:
    """kubernetes/api 1.37, scheduling/v1beta1 (and v1alpha3) PodGroupSpec.preemptionPolicy:
    "Defaults to PreemptLowerPriority if unset. When Priority Admission Controller is enabled,
    it populates this field from PriorityClassName ... available only when the
    PodGroupPreemptionPolicy feature gate is enabled" (+k8s:ifDisabled ... =+k8s:forbidden)."""
    async with FakeAPIServer(feature_gates={"PodGroupPreemptionPolicy": gate}) as srv:
        srv.create_object("", "v1", "namespaces", {"metadata": {"name": NS}})
        body = {
            "metadata": {"name": "pg", "namespace": NS},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}},
        }
        pg = srv.create_object(SCHED, version, "podgroups", body)
    assert pg["spec"]["priority"] == 0
    assert pg["spec"].get("preemptionPolicy") == ("PreemptLowerPriority" if gate else None)


# -- graceful deletion ----------------------------------------------------------------------


async def bound_pod(srv: FakeAPIServer, name: str, **spec: Any) -> None:
    await call(srv, "POST", PODS, pod_body(name, **spec))
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name}}
    binding["target"] = {"apiVersion": "v1", "kind": "Node", "name": "n1"}
    code, _ = await call(srv, "POST", f"{PODS}/{name}/binding", binding)
    assert code == 201


def seconds_ahead(stamp: str) -> float:
    then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return then.timestamp() - datetime.now(UTC).timestamp()


async def test_a_bound_pod_terminates_with_its_grace(server: FakeAPIServer) -> None:
    """Observed: deletionTimestamp = now + 30 s, deletionGracePeriodSeconds 30, generation 2;
    it stays Terminating until a force delete."""
    await bound_pod(server, "b")
    code, answer = await call(server, "DELETE", f"{PODS}/b")
    meta = answer["metadata"]
    assert code == 200 and meta["deletionGracePeriodSeconds"] == 30 and meta["generation"] == 2
    assert 25 <= seconds_ahead(meta["deletionTimestamp"]) <= 31
    code, still = await call(server, "GET", f"{PODS}/b")
    assert code == 200 and still["metadata"]["deletionTimestamp"] == meta["deletionTimestamp"]
    code, _ = await call(server, "PATCH", f"{PODS}/b/status", {"status": {"phase": "Running"}})
    assert code == 200 and server.get_object("", "v1", "pods", NS, "b") is not None
    code, forced = await call(server, "DELETE", f"{PODS}/b", gracePeriodSeconds="0")
    assert code == 200 and forced["metadata"]["deletionGracePeriodSeconds"] == 0
    assert server.get_object("", "v1", "pods", NS, "b") is None


async def test_grace_from_the_request_or_the_pod(server: FakeAPIServer) -> None:
    await bound_pod(server, "short", terminationGracePeriodSeconds=10)
    _, answer = await call(server, "DELETE", f"{PODS}/short")
    assert answer["metadata"]["deletionGracePeriodSeconds"] == 10
    await bound_pod(server, "asked")
    _, answer = await call(server, "DELETE", f"{PODS}/asked", gracePeriodSeconds="5")
    assert answer["metadata"]["deletionGracePeriodSeconds"] == 5
    _, again = await call(server, "DELETE", f"{PODS}/asked", gracePeriodSeconds="60")
    assert again["metadata"]["deletionGracePeriodSeconds"] == 5  # never lengthened


async def test_an_unbound_pod_goes_at_once_and_dry_run_changes_nothing(
    server: FakeAPIServer,
) -> None:
    """Observed: DELETE (default options and dryRun=All) answers 200 with deletionTimestamp and
    deletionGracePeriodSeconds 0; the pod is gone at once; a dry run changes nothing."""
    await call(server, "POST", PODS, pod_body("u"))
    rv = server.resource_version
    code, dry = await call(server, "DELETE", f"{PODS}/u", dryRun="All")
    assert code == 200 and dry["metadata"]["deletionGracePeriodSeconds"] == 0
    assert dry["metadata"]["deletionTimestamp"]
    assert server.resource_version == rv and server.get_object("", "v1", "pods", NS, "u")
    code, answer = await call(server, "DELETE", f"{PODS}/u")
    assert code == 200 and answer["metadata"]["deletionGracePeriodSeconds"] == 0
    assert answer["metadata"]["deletionTimestamp"]
    assert server.get_object("", "v1", "pods", NS, "u") is None
    await bound_pod(server, "bd")
    _, dry = await call(server, "DELETE", f"{PODS}/bd", dryRun="All")
    assert dry["metadata"]["deletionGracePeriodSeconds"] == 30
    assert "deletionTimestamp" not in server.get_object("", "v1", "pods", NS, "bd")["metadata"]  # type: ignore[index]


# -- binding --------------------------------------------------------------------------------


async def test_binding_sets_the_node_and_the_condition_only(server: FakeAPIServer) -> None:
    node = SimNode("n1", {"cpu": "2"}, {"topology.kubernetes.io/zone": "a"}).to_object()
    server.create_object("", "v1", "nodes", node)
    await call(server, "POST", PODS, pod_body("p"))
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}}
    binding["target"] = {"apiVersion": "v1", "kind": "Node", "name": "n1"}
    code, status = await call(server, "POST", f"{PODS}/p/binding", binding)
    assert (code, status["status"], status["code"]) == (201, "Success", 201)
    _, pod = await call(server, "GET", f"{PODS}/p")
    assert pod["spec"]["nodeName"] == "n1"
    assert pod["metadata"]["generation"] == 1
    assert pod["metadata"]["labels"]["topology.kubernetes.io/zone"] == "a"  # observed
    (scheduled,) = pod["status"]["conditions"]
    assert scheduled["type"] == "PodScheduled" and scheduled["status"] == "True"
    assert not {"reason", "message", "observedGeneration"} & set(scheduled)
    assert scheduled["lastProbeTime"] is None
    code, again = await call(server, "POST", f"{PODS}/p/binding", binding)
    assert code == 409
    assert again["message"] == (
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"'
    )


# -- Nodes ----------------------------------------------------------------------------------


async def test_a_node_is_tainted_on_create_and_untainted_once_ready(server: FakeAPIServer) -> None:
    """Observed: a created Node keeps its status and gets node.kubernetes.io/not-ready:NoSchedule
    even with Ready True; the server, standing in for the node lifecycle controller, then
    removes the taint from a Ready node (and only from a Ready one)."""
    ready = SimNode("ready", {"cpu": "2"}).to_object()
    code, created = await call(server, "POST", "/api/v1/nodes", ready)
    assert code == 201
    assert created["spec"]["taints"] == [
        {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
    ]
    assert created["status"]["allocatable"] == {"cpu": "2"}
    _, now = await call(server, "GET", "/api/v1/nodes/ready")
    assert "taints" not in now["spec"]
    waiting = SimNode("waiting", {"cpu": "2"}).to_object()
    waiting["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    await call(server, "POST", "/api/v1/nodes", waiting)
    _, still = await call(server, "GET", "/api/v1/nodes/waiting")
    assert still["spec"]["taints"][0]["key"] == "node.kubernetes.io/not-ready"


async def test_the_simulator_uses_the_nodes_in_the_server(server: FakeAPIServer) -> None:
    not_ready = SimNode("tainted", {"cpu": "8"}).to_object()
    not_ready["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    server.create_object("", "v1", "nodes", not_ready)
    server.create_object("", "v1", "nodes", {"metadata": {"name": "empty"}})
    sim = GangSimulator(server)
    await call(server, "POST", PODS, pod_body("p"))
    result = await sim.step()
    assert result.skipped_nodes == {"empty": "node 'empty' has no status.allocatable"}
    assert result.bound == {}
    _, pod = await call(server, "GET", f"{PODS}/p")
    assert pod["status"]["conditions"][0]["message"].startswith(
        "0/1 nodes are available: 1 node(s) had untolerated taint(s)."
    )
    sim.nodes = [SimNode("fresh", {"cpu": "2"})]
    assert (await sim.step()).bound == {f"{NS}/p": "fresh"}
    _, listed = await call(server, "GET", "/api/v1/nodes")
    assert {n["metadata"]["name"] for n in listed["items"]} == {"tainted", "empty", "fresh"}


async def test_default_nodes_are_created_on_an_empty_server(server: FakeAPIServer) -> None:
    await GangSimulator(server).step()
    nodes = server.list_objects("", "v1", "nodes", None)
    assert [n["metadata"]["name"] for n in nodes] == ["node-0", "node-1", "node-2", "node-3"]
    assert all(n["status"]["allocatable"]["cpu"] == "8" for n in nodes)


# -- python -m workloadbuilder.testing --nodes --------------------------------------------


async def test_python_m_serves_the_nodes_of_a_file(tmp_path: Path) -> None:
    nodes = tmp_path / "nodes.yaml"
    shorthand = [{"name": "gpu-0", "allocatable": {"cpu": "4"}, "labels": {"pool": "gpu"}}]
    node_object = SimNode("cpu-0", {"cpu": "2"}).to_object()
    nodes.write_text(yaml.safe_dump_all([shorthand, node_object]))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "workloadbuilder.testing",
        "--simulate",
        "--nodes",
        str(nodes),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        path = Path((await asyncio.wait_for(proc.stdout.readline(), 30)).decode().strip())
        url = yaml.safe_load(path.read_text())["clusters"][0]["cluster"]["server"]
        async with aiohttp.ClientSession() as session, session.get(url + "/api/v1/nodes") as resp:
            listed = await resp.json()
    finally:
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    by_name = {n["metadata"]["name"]: n for n in listed["items"]}
    assert set(by_name) == {"gpu-0", "cpu-0"}
    assert by_name["gpu-0"]["metadata"]["labels"]["pool"] == "gpu"
    assert by_name["gpu-0"]["status"]["allocatable"] == {"cpu": "4"}


async def test_python_m_refuses_an_unreadable_nodes_file(tmp_path: Path) -> None:
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text("- {allocatable: {cpu: 2}}\n")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "workloadbuilder.testing",
        "--nodes",
        str(nodes),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2
    assert "[0]: each node needs a name" in err.decode()
    assert "Traceback" not in err.decode()


# -- the gang_simulator fixture -------------------------------------------------------------


@pytest.mark.gang_simulator(nodes=[SimNode("only", {"cpu": "1"})])
async def test_the_fixture_takes_nodes(
    gang_simulator: GangSimulator, fake_apiserver: FakeAPIServer
) -> None:
    await gang_simulator.step()
    names = [n["metadata"]["name"] for n in fake_apiserver.list_objects("", "v1", "nodes", None)]
    assert names == ["only"]
