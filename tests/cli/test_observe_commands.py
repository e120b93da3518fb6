"""status, diagnose and inspect against the test API server, with the gang simulator."""

from __future__ import annotations

import json
import re

from cluster_support import (
    GROUP_NAME,
    NS,
    TRAINING,
    WORKLOAD,
    add_workers,
    cli,
    create_namespace,
)
from conftest import SPECS

from workloadbuilder.testing import FakeAPIServer, GangSimulator


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
    assert result.exit_code == 0
    assert result.stdout.startswith("PodGroup default/nope: Missing")


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


SNIPPETS = SPECS.parent.parent / "docs" / "snippets"


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
    assert (SNIPPETS / "status-release.txt").read_text() == status.stdout
    assert (SNIPPETS / "diagnose-release.txt").read_text() == diagnosis.stdout
