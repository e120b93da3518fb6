"""status, diagnose and inspect against the test API server, with the gang simulator."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from cli_paths import SPECS
from cluster_support import (
    GROUP_NAME,
    NS,
    TRAINING,
    WORKLOAD,
    add_workers,
    cli,
    create_namespace,
)
from docs_pages import assert_snippet
from typer.testing import CliRunner

from workloadbuilder.cli import app
from workloadbuilder.testing import FakeAPIServer, GangSimulator, SimNode


async def test_status_and_diagnose_follow_the_gang(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    create_namespace(server)
    assert (await cli(server, "apply", str(TRAINING))).exit_code == 0

    add_workers(server, range(3))
    waiting = await cli(server, "status", WORKLOAD, "-n", NS, "-o", "json")
    assert waiting.exit_code == 0, waiting.output
    (row,) = json.loads(waiting.stdout)["groups"]
    # 3 of minCount 4 members exist: the scheduler does not even look (no condition yet)
    assert (row["template"], row["state"], row["present"], row["required"]) == (
        "workers",
        "WaitingForMembers",
        3,
        4,
    )

    add_workers(server, range(3, 4))
    await GangSimulator(server).step()
    scheduled = await cli(server, "status", WORKLOAD, "-n", NS)
    assert scheduled.exit_code == 0
    (line,) = scheduled.stdout.splitlines()[1:]
    assert line.split()[:5] == [GROUP_NAME, "workers", "PodGroup", "Scheduled", "4/4"]

    verdict = await cli(server, "diagnose", GROUP_NAME, "-n", NS)
    assert verdict.exit_code == 0, verdict.output
    assert verdict.stdout.startswith(f"PodGroup {NS}/{GROUP_NAME}: Scheduled (4 of 4)")
    assert verdict.stdout.count("pod worker-") == 4


async def test_diagnose_a_composite_names_its_children(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    create_namespace(server)
    release = SPECS / "release.yaml"
    assert (await cli(server, "apply", str(release))).exit_code == 0
    root = server.list_objects("scheduling.k8s.io", "v1alpha3", "compositepodgroups", NS)
    (composite,) = root
    result = await cli(server, "diagnose", composite["metadata"]["name"], "-n", NS)
    assert result.exit_code == 0, result.output
    first, *rest = result.stdout.splitlines()
    assert first.startswith(f"CompositePodGroup {NS}/{composite['metadata']['name']}:")
    children = [line for line in rest if re.match(r"^[├└]── PodGroup \S+: ", line)]
    # no pods exist yet: each child waits for its members and blocks minGroupCount
    assert len(children) == 2
    for line in children:
        assert "WaitingForMembers" in line and "keeps minGroupCount from being met" in line


async def test_diagnose_a_group_that_does_not_exist(fake_apiserver: FakeAPIServer) -> None:
    result = await cli(fake_apiserver, "diagnose", "nope", "-n", "default")
    assert result.exit_code == 1
    assert 'no PodGroup or CompositePodGroup or Workload "nope"' in result.output


async def test_diagnose_a_missing_group_that_pods_name_exits_1(
    fake_apiserver: FakeAPIServer,
) -> None:
    server = fake_apiserver
    create_namespace(server)
    add_workers(server, range(1))  # they name a PodGroup that was never created
    result = await cli(server, "diagnose", GROUP_NAME, "-n", NS)
    assert result.exit_code == 1
    assert result.stdout.startswith(f"PodGroup {NS}/{GROUP_NAME}: Missing")
    assert "pod worker-0" in result.stdout


async def test_diagnose_a_workload_name_lists_its_groups(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    create_namespace(server)
    assert (await cli(server, "apply", str(TRAINING))).exit_code == 0
    result = await cli(server, "diagnose", WORKLOAD, "-n", NS)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Workload {NS}/{WORKLOAD}: WaitingForMembers")
    assert "is a Workload" in result.stdout and f"PodGroup {GROUP_NAME}" in result.stdout


LAUNCHER_AND_WORKERS = """\
apiVersion: workloadbuilder.dev/v1alpha1
kind: WorkloadSpec
spec:
  namespace: ml-training
  owner: {apiVersion: training.example.com/v1, kind: TrainJob, name: run, uid: u-1}
  capabilities: {policies: [Basic, Gang], disruptionModes: [Single, All]}
  root:
    name: train
    schedulingPolicy: {gang: {minGroupCount: 2}}
    children:
      - {name: launcher, schedulingPolicy: {gang: {minCount: 1}}, replicas: 1,
         resources: {cpu: "1"}}
      - {name: workers, schedulingPolicy: {gang: {minCount: 4}}, replicas: 4,
         resources: {cpu: "3"}}
"""
TWO_NODES = "- {name: n0, allocatable: {cpu: '4'}}\n- {name: n1, allocatable: {cpu: '4'}}\n"


async def test_simulate_shows_each_child_of_a_composite_with_its_members_cause(
    tmp_path: Path,
) -> None:
    spec, nodes = tmp_path / "train.yaml", tmp_path / "nodes.yaml"
    spec.write_text(LAUNCHER_AND_WORKERS)
    nodes.write_text(TWO_NODES)
    result = await asyncio.to_thread(
        CliRunner().invoke, app, ["simulate", str(spec), "--nodes", str(nodes), "-o", "json"]
    )
    assert result.exit_code == 1, result.output
    rows = {g["template"]: g for g in json.loads(result.stdout)["groups"]}
    # the launcher (1 cpu) and two workers (3 cpu) fit on two 4-cpu nodes; two workers do not
    assert rows["train"]["verdict"] == "unschedulable"
    assert "blocked by: " in rows["train"]["detail"] and "workers" in rows["train"]["detail"]
    assert rows["workers"]["verdict"] == "unschedulable"
    assert rows["workers"]["detail"] == "2 of 4 members fit; 2 cannot: 2 Insufficient cpu"
    assert rows["launcher"]["verdict"] == "unschedulable"  # held back with its composite


async def test_status_of_a_composite_whose_workers_cannot_fit(
    fake_apiserver: FakeAPIServer, tmp_path: Path
) -> None:
    server = fake_apiserver
    spec = tmp_path / "train.yaml"
    spec.write_text(LAUNCHER_AND_WORKERS)
    create_namespace(server)
    assert (await cli(server, "apply", str(spec))).exit_code == 0
    groups = server.list_objects("scheduling.k8s.io", "v1beta1", "podgroups", NS)
    by_template = {g["spec"]["workloadRef"]["templateName"]: g for g in groups}
    for template, count, cpu in (("launcher", 1, "1"), ("workers", 4, "3")):
        name = by_template[template]["metadata"]["name"]
        for i in range(count):
            container = {"name": "m", "image": "pause", "resources": {"requests": {"cpu": cpu}}}
            server.create_object(
                "",
                "v1",
                "pods",
                {
                    "metadata": {"name": f"{template}-{i}", "namespace": NS},
                    "spec": {"containers": [container], "schedulingGroup": {"podGroupName": name}},
                },
            )
    await GangSimulator(server, [SimNode("n0", {"cpu": "4"}), SimNode("n1", {"cpu": "4"})]).step()
    (root,) = server.list_objects("scheduling.k8s.io", "v1alpha3", "compositepodgroups", NS)
    workload = root["spec"]["workloadRef"]["workloadName"]
    result = await cli(server, "status", workload, "-n", NS, "-o", "json")
    assert result.exit_code == 0, result.output
    rows = {r["template"]: r for r in json.loads(result.stdout)["groups"]}
    assert {t: r["state"] for t, r in rows.items()} == {
        "train": "Unschedulable",
        "launcher": "Unschedulable",
        "workers": "Unschedulable",
    }
    assert rows["workers"]["cause"] == "2 of 4 members fit; 2 cannot: 2 Insufficient cpu"
    assert "workers" in rows["train"]["cause"]
    table = await cli(server, "status", workload, "-n", NS)
    line = next(x for x in table.stdout.splitlines() if x.split()[1] == "workers")
    assert line.split()[3:5] == ["Unschedulable", "4/4"] and "3 Insufficient" not in line
    assert "2 Insufficient cpu" in line


async def test_status_of_a_composite_waiting_for_children_counts_those_that_can_be_tried(
    fake_apiserver: FakeAPIServer,
) -> None:
    server = fake_apiserver
    create_namespace(server)
    assert (await cli(server, "apply", str(SPECS / "release.yaml"))).exit_code == 0
    (root,) = server.list_objects("scheduling.k8s.io", "v1alpha3", "compositepodgroups", NS)
    result = await cli(server, "status", root["spec"]["workloadRef"]["workloadName"], "-n", NS)
    line = next(x for x in result.stdout.splitlines() if x.split()[1] == "workload-root")
    assert line.split()[3:5] == ["WaitingForMembers", "0/2"]  # no child has its pods yet


async def test_inspect_reports_pods_on_a_missing_group(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    create_namespace(server)
    clean = await cli(server, "inspect", "-n", NS)
    assert (clean.exit_code, clean.stdout) == (0, f"no findings in namespace {NS}\n")
    add_workers(server, range(1))  # its PodGroup was never created
    found = await cli(server, "inspect", "-n", NS, "-o", "json")
    assert found.exit_code == 1
    (finding,) = json.loads(found.stdout)["findings"]
    assert finding["kind"] == "MissingPodGroup"
    assert finding["object"] == f"Pod {NS}/worker-0"
    assert finding["action"]
    table = await cli(server, "inspect", "-n", NS)
    assert table.exit_code == 1
    assert "MissingPodGroup" in table.stdout and f"Pod {NS}/worker-0" in table.stdout


async def test_the_outputs_shown_in_the_docs_are_the_commands_own(
    fake_apiserver: FakeAPIServer,
) -> None:
    server = fake_apiserver
    create_namespace(server)
    assert (await cli(server, "apply", str(SPECS / "release.yaml"))).exit_code == 0
    (root,) = server.list_objects("scheduling.k8s.io", "v1alpha3", "compositepodgroups", NS)
    workload = root["spec"]["workloadRef"]["workloadName"]
    status = await cli(server, "status", workload, "-n", NS)
    diagnosis = await cli(server, "diagnose", root["metadata"]["name"], "-n", NS)
    assert_snippet("status-release.txt", status.stdout)
    assert_snippet("diagnose-release.txt", diagnosis.stdout)


async def test_delete_says_which_groups_pods_still_hold(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    create_namespace(server)
    assert (await cli(server, "apply", str(TRAINING))).exit_code == 0
    add_workers(server, range(2))
    result = await cli(server, "delete", WORKLOAD, "-n", NS)
    assert result.exit_code == 0, result.output
    group, workload = result.stdout.splitlines()
    assert group.startswith(f"podgroup.scheduling.k8s.io/{GROUP_NAME} terminating: worker-0,")
    assert "delete those pods" in group
    assert workload == f"workload.scheduling.k8s.io/{WORKLOAD} deleted"


async def test_status_and_diagnose_without_the_scheduling_api_name_the_gate() -> None:
    async with FakeAPIServer(feature_gates={"GenericWorkload": False}) as server:
        create_namespace(server)
        status = await cli(server, "status", WORKLOAD, "-n", NS)
        diagnosis = await cli(server, "diagnose", GROUP_NAME, "-n", NS)
    for result in (status, diagnosis):
        assert result.exit_code == 1
        assert "does not serve podgroups.scheduling.k8s.io/v1beta1" in result.output
        assert "GenericWorkload" in result.output and "not found" not in result.output
