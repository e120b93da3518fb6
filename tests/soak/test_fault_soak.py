"""The fault soak: apply, resize and delete composite workloads through ``workloadbuilder.aio``
while the test server throttles, fails, stalls, drops connections and restarts half way; the
end state is exactly the intended objects and the requests stay within the plan's bound."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from benchmarks import soak_faults as soak
from workloadbuilder.testing import FakeAPIServer

SEED = 10
WORKLOADS = 10
OBJECTS_PER_WORKLOAD = 6  # 1 Workload, 2 CompositePodGroups, 3 PodGroups


def _kept(plan: soak.Plan) -> int:
    return sum(w.action != "delete" for w in plan.workloads)


async def test_without_faults_the_run_sends_exactly_the_planned_requests() -> None:
    # The request bound rests on this: the plan's requests are exactly what aio sends, as
    # docs/apply.md describes each call (one apply PATCH per object; resize: GET the PodGroup
    # and its Workload, PATCH both; delete: list both group kinds, DELETE each member).
    plan = soak.Plan(soak.make_plan(WORKLOADS, SEED).workloads, ())
    async with asyncio.timeout(60):
        outcome = await soak.run(plan, restart=False)
    assert outcome.problems == []
    assert Counter(outcome.received) == Counter(plan.requests)
    assert outcome.retries == 0
    assert outcome.objects_checked == _kept(plan) * OBJECTS_PER_WORKLOAD


async def test_through_every_fault_and_a_restart_exactly_the_intended_objects_remain() -> None:
    plan = soak.make_plan(WORKLOADS, SEED)
    # Also a write that times out on a workload deleted right after: held back past the
    # client's timeout, it must never land later and bring a deleted group back.
    deleted = next(w for w in plan.workloads if w.action == "delete")
    # (held long enough that the workload's delete is surely over when it would land)
    held = soak.REQUEST_TIMEOUT + 4
    late = soak.PlannedFault("timeout", "PATCH", soak.request_path(deleted.objects[-1]), 1, held)
    plan = soak.Plan(plan.workloads, (late, *plan.faults))
    kinds = {f.kind for f in plan.faults}
    assert kinds == set(soak.FAULT_KINDS)  # the seed meets every kind of fault

    async with asyncio.timeout(60):  # a hang fails, it does not stall CI
        outcome = await soak.run(plan)
    print(
        f"\nfault soak ({WORKLOADS} workloads, seed {SEED}): {outcome.requests} requests"
        f" (bound {plan.request_bound}), {outcome.retries} retries,"
        f" {outcome.objects_checked} objects checked, {outcome.seconds:.1f}s"
    )
    assert outcome.problems == []
    assert outcome.server_errors == []  # the server never failed on its own
    assert outcome.restarted
    assert outcome.objects_checked == _kept(plan) * OBJECTS_PER_WORKLOAD
    # Every planned request arrived, plus one per failed try; at most the restart's window more.
    failed = len(plan.requests) + plan.failed_tries
    assert failed <= outcome.requests <= plan.request_bound
    assert Counter(plan.requests) - Counter(outcome.received) == Counter()
    assert outcome.retries >= plan.failed_tries


@pytest.mark.slow
def test_the_full_soak_of_50_workloads(capsys: pytest.CaptureFixture[str]) -> None:
    assert soak.main(["--workloads", "50", "--seed", str(SEED)]) == 0
    printed = capsys.readouterr().out
    assert "problems: none" in printed
    with capsys.disabled():
        print("\n" + printed)


async def test_the_end_state_check_finds_orphans_leftovers_and_wrong_counts() -> None:
    plan = soak.Plan(soak.make_plan(3, SEED).workloads, ())
    keep, resize, delete = plan.workloads
    async with FakeAPIServer() as server:
        ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": soak.NS}}
        server.create_object("", "v1", "namespaces", ns)
        for w in (keep, resize):  # the resize never happened
            for o in w.objects:
                doc = o.to_dict()
                server.apply_object(*_resource(doc), doc, field_manager="ctl")
        leftover = delete.objects[-1].to_dict()  # a group of the deleted workload stays
        server.apply_object(*_resource(leftover), leftover, field_manager="ctl")
        problems, checked = soak.end_state_problems(server, plan)
    name = leftover["metadata"]["name"]
    assert checked == 2 * OBJECTS_PER_WORKLOAD + 1
    assert f"PodGroups not intended (orphaned or left over): ['{name}']" in problems
    assert f"PodGroup {name} orphaned: its Workload is gone" in problems
    assert f"Workload {resize.name}: spec is not as intended" in problems
    assert f"PodGroup {resize.workers.metadata.name}: spec is not as intended" in problems
    assert len(problems) == 5  # and the leftover's missing parent


def _resource(doc: dict[str, object]) -> tuple[str, str, str]:
    version = str(doc["apiVersion"]).split("/")[1]
    plural = {"Workload": "workloads", "PodGroup": "podgroups"}.get(
        str(doc["kind"]), "compositepodgroups"
    )
    return soak.SCHEDULING, version, plural
