"""Fault soak: apply, resize and delete composite workloads through ``workloadbuilder.aio``
while the test server throttles, fails, stalls, drops connections and restarts.

Each workload is a 3-level tree (root composite, a nested composite with two leaves, a third
leaf: 1 Workload, 2 CompositePodGroups, 3 PodGroups). One workload in three is only applied,
one is applied then resized (``workers`` 4 -> 3), one is applied then deleted. A seeded random
plan puts faults on the requests the run will send (429, 500, 503, dropped connections,
latency, and latency past the request timeout), and the server restarts once the run is half
way. The end state must be exactly the intended objects, and the requests the server received
stay within a bound computed from the plan alone.

Run: python -m benchmarks.soak_faults --workloads 50 --seed 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

NS = "soak"
SCHEDULING = "scheduling.k8s.io"
MANAGER = "soak-controller"
WORKERS, RESIZED_WORKERS = 4, 3
APPLY_CONCURRENCY = 4
"""Requests in flight at once within one workload's apply or delete."""
WORKLOAD_CONCURRENCY = 8
"""Workloads going through their steps at once."""
REQUEST_TIMEOUT = 1.0
RETRY = aio.RetryPolicy(
    attempts=10,
    initial_wait=0.02,
    max_wait=0.5,
    jitter=0.02,
    request_timeout=REQUEST_TIMEOUT,
    retry_unreachable=True,  # the restart refuses connections for a moment
)
RESTART_DOWNTIME = 0.3
MAX_FAULTS_PER_TARGET = 3
"""Failed tries one request can meet from the plan, well below ``RETRY.attempts`` (the restart
may cost a request a few more)."""

Action = Literal["keep", "resize", "delete"]
FaultKind = Literal["429", "500", "503", "drop", "latency", "timeout"]
FAULT_KINDS: tuple[FaultKind, ...] = ("429", "500", "503", "drop", "latency", "timeout")
FAULT_WEIGHTS = (4, 2, 3, 2, 4, 1)

V1BETA1 = f"/apis/{SCHEDULING}/v1beta1"
V1ALPHA3 = f"/apis/{SCHEDULING}/v1alpha3"


@dataclass(frozen=True)
class Request:
    """One request the plan sends when nothing fails: method and URL path."""

    method: str
    path: str


@dataclass(frozen=True)
class PlannedFault:
    """A fault the server injects on the next ``times`` requests to ``method`` ``path``."""

    kind: FaultKind
    method: str
    path: str
    times: int
    seconds: float = 0.0

    @property
    def failed_tries(self) -> int:
        """Requests this fault makes fail (each one is sent again): all but plain latency."""
        return 0 if self.kind == "latency" else self.times


@dataclass(frozen=True)
class WorkloadPlan:
    """One workload: its objects (Workload first) and what happens to it after the apply."""

    objects: tuple[Any, ...]
    action: Action

    @property
    def workload(self) -> wb.Workload:
        workload: wb.Workload = self.objects[0]
        return workload

    @property
    def name(self) -> str:
        return self.workload.metadata.name or ""

    @property
    def workers(self) -> wb.PodGroup:
        return next(
            o
            for o in self.objects
            if isinstance(o, wb.PodGroup) and o.spec.workload_ref.template_name == "workers"  # type: ignore[union-attr]
        )


@dataclass(frozen=True)
class Plan:
    """Everything the run will do, and the faults it will meet."""

    workloads: tuple[WorkloadPlan, ...]
    faults: tuple[PlannedFault, ...]

    @property
    def requests(self) -> list[Request]:
        """Every request of a run without faults: discovery once, then each workload's."""
        sent = [Request("GET", V1BETA1), Request("GET", V1ALPHA3)]
        for w in self.workloads:
            sent += [Request("PATCH", request_path(o)) for o in w.objects]
            if w.action == "resize":
                sent += [
                    Request("GET", request_path(w.workers)),
                    Request("GET", request_path(w.workload)),
                    Request("PATCH", request_path(w.workload)),
                    Request("PATCH", request_path(w.workers)),
                ]
            elif w.action == "delete":
                sent += [
                    Request("GET", f"{V1ALPHA3}/namespaces/{NS}/compositepodgroups"),
                    Request("GET", f"{V1BETA1}/namespaces/{NS}/podgroups"),
                ]
                sent += [Request("DELETE", request_path(o)) for o in w.objects]
                # the PodGroups come back held by their protection finalizer: delete() reads
                # the namespace's pods once to say which pods hold them
                sent += [Request("GET", f"/api/v1/namespaces/{NS}/pods")]
        return sent

    @property
    def failed_tries(self) -> int:
        """Requests the planned faults make fail."""
        return sum(f.failed_tries for f in self.faults)

    @property
    def restart_window(self) -> int:
        """At most this many requests are in flight when the server restarts."""
        return WORKLOAD_CONCURRENCY * APPLY_CONCURRENCY

    @property
    def request_bound(self) -> int:
        """The most requests the server can receive: the plan's, one more per failed try, and
        those the restart cuts off."""
        return len(self.requests) + self.failed_tries + self.restart_window


def request_path(obj: Any) -> str:
    doc = obj.to_dict()
    version = "v1alpha3" if doc["kind"] == "CompositePodGroup" else "v1beta1"
    plural = {"Workload": "workloads", "PodGroup": "podgroups"}.get(
        doc["kind"], "compositepodgroups"
    )
    return f"/apis/{SCHEDULING}/{version}/namespaces/{NS}/{plural}/{doc['metadata']['name']}"


def workload_objects(index: int) -> tuple[Any, ...]:
    """The Workload and runtime objects of the ``index``-th TrainJob."""
    uid = f"00000000-0000-4000-8000-{index:012d}"
    name = f"train-{index:03d}"
    owner: dict[str, Any] = {
        "apiVersion": "training.example.com/v1",
        "kind": "TrainJob",
        "metadata": {"name": name, "namespace": NS, "uid": uid},
    }
    root = wb.composite(
        "workload-root",
        [
            wb.composite(
                "stage",
                [wb.leaf("workers", policy=wb.gang(WORKERS)), wb.leaf("ps", policy=wb.gang(1))],
                policy=wb.gang(min_group_count=2),
            ),
            wb.leaf("driver", policy=wb.gang(1)),
        ],
        policy=wb.gang(min_group_count=2),
    )
    builder = wb.Builder(
        root,
        wb.BuildOptions(
            name=wb.generate_workload_name(name, uid),
            namespace=NS,
            owner=wb.controller_ref(owner),
            allowed_policies=frozenset(wb.SchedulingPolicyOption),
        ),
    )
    return (builder.build_workload(), *wb.instantiate(builder))


def make_plan(workloads: int, seed: int, fault_rate: float = 0.3) -> Plan:
    """``workloads`` workloads, keep/resize/delete in turn, with seeded random faults."""
    actions: tuple[Action, ...] = ("keep", "resize", "delete")
    plan = Plan(
        tuple(WorkloadPlan(workload_objects(i), actions[i % 3]) for i in range(workloads)), ()
    )
    rng = random.Random(seed)
    per_target: Counter[tuple[str, str]] = Counter()
    faults: list[PlannedFault] = []
    for request in plan.requests:
        if rng.random() >= fault_rate:
            continue
        kind = rng.choices(FAULT_KINDS, FAULT_WEIGHTS)[0]
        times = rng.choice((1, 2)) if kind in ("429", "503") else 1
        target = (request.method, request.path)
        if kind != "latency" and per_target[target] + times > MAX_FAULTS_PER_TARGET:
            continue
        if kind != "latency":
            per_target[target] += times
        seconds = {"latency": rng.uniform(0.01, 0.2), "timeout": REQUEST_TIMEOUT + 0.5}.get(kind, 0)
        faults.append(PlannedFault(kind, request.method, request.path, times, seconds))
    return Plan(plan.workloads, tuple(faults))


def inject(server: FakeAPIServer, faults: tuple[PlannedFault, ...]) -> None:
    """Queue ``faults`` on ``server`` through its public fault injection."""
    for f in faults:
        where = {"method": f.method, "path": f.path, "times": f.times}
        if f.kind in ("latency", "timeout"):
            server.faults.delay(f.seconds, **where)  # type: ignore[arg-type]
        elif f.kind == "drop":
            server.faults.drop_connection(**where)  # type: ignore[arg-type]
        else:
            server.faults.add(status=int(f.kind), retry_after=0, **where)  # type: ignore[arg-type]


class _RetryCounter(logging.Handler):
    """Counts the retries ``workloadbuilder.aio`` logs (one INFO record each)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.retries = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("retrying "):
            self.retries += 1


class _ServerErrors(logging.Handler):
    """Records the test server's own failures (it answers them with a 500)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _listening(name: str, handler: logging.Handler) -> Iterator[None]:
    logger = logging.getLogger(name)
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(min(old or logging.WARNING, handler.level))
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


@dataclass
class Outcome:
    """What a run did: requests received, retries made, objects checked, seconds taken."""

    requests: int
    received: list[Request]
    retries: int
    objects_checked: int
    seconds: float
    restarted: bool
    server_errors: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


async def _lifecycle(api: Any, w: WorkloadPlan) -> None:
    await aio.apply(
        api, w.objects, field_manager=MANAGER, concurrency=APPLY_CONCURRENCY, retry=RETRY
    )
    if w.action == "resize":
        await aio.resize(api, w.workers, RESIZED_WORKERS, field_manager=MANAGER, retry=RETRY)
    elif w.action == "delete":
        await aio.delete(api, w.workload, concurrency=APPLY_CONCURRENCY, retry=RETRY)


async def run(plan: Plan, *, restart: bool = True) -> Outcome:
    """Run ``plan`` against a fresh FakeAPIServer; check what it holds at the end."""
    retries, server_errors = _RetryCounter(), _ServerErrors()
    with (
        _listening("workloadbuilder.aio", retries),
        _listening("workloadbuilder.testing", server_errors),
    ):
        async with FakeAPIServer() as server, server.api_client() as api:
            ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
            server.create_object("", "v1", "namespaces", ns)
            inject(server, plan.faults)
            start = time.perf_counter()
            half = len(plan.requests) // 2

            async def restart_half_way() -> bool:
                while len(server.requests) < half:
                    await asyncio.sleep(0.005)
                await server.restart(downtime=RESTART_DOWNTIME)
                return True

            restarter = asyncio.create_task(restart_half_way()) if restart else None
            await aio.preflight(api, plan.workloads[0].objects, retry=RETRY)
            gate = asyncio.Semaphore(WORKLOAD_CONCURRENCY)

            async def one(w: WorkloadPlan) -> None:
                async with gate:
                    await _lifecycle(api, w)

            await asyncio.gather(*(one(w) for w in plan.workloads))
            restarted = False
            if restarter is not None:
                if len(server.requests) >= half:  # restarting, or restarted
                    restarted = await restarter
                else:  # fewer requests than planned: never half way
                    restarter.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await restarter
            seconds = time.perf_counter() - start
            # A request held back past its client's timeout would land by now: check after it.
            await asyncio.sleep(max((f.seconds for f in plan.faults), default=0.0))
            problems, checked = end_state_problems(server, plan)
            problems += [f"fault never met: {f}" for f in server.faults.pending]
            return Outcome(
                requests=len(server.requests),
                received=[Request(r.method, r.path) for r in server.requests],
                retries=retries.retries,
                objects_checked=checked,
                seconds=seconds,
                restarted=restarted,
                server_errors=server_errors.messages,
                problems=problems,
            )


def _stored(server: FakeAPIServer) -> dict[str, list[dict[str, Any]]]:
    return {
        "Workload": server.list_objects(SCHEDULING, "v1beta1", "workloads", NS),
        "CompositePodGroup": server.list_objects(SCHEDULING, "v1alpha3", "compositepodgroups", NS),
        "PodGroup": server.list_objects(SCHEDULING, "v1beta1", "podgroups", NS),
    }


def end_state_problems(server: FakeAPIServer, plan: Plan) -> tuple[list[str], int]:
    """Every way the server's objects differ from the plan's intent, and how many were checked.

    Intended: each kept or resized workload's objects exactly once, as applied (resized: the
    Workload template and the PodGroup at the new count); nothing of a deleted workload;
    nothing else; no group whose Workload or parent composite is missing.
    """
    problems: list[str] = []
    stored = _stored(server)
    names = {kind: Counter(o["metadata"]["name"] for o in objs) for kind, objs in stored.items()}
    wanted: dict[str, dict[str, WorkloadPlan]] = {k: {} for k in stored}
    for w in plan.workloads:
        if w.action == "delete":
            continue
        for o in w.objects:
            wanted[o.to_dict()["kind"]][o.metadata.name or ""] = w
    for kind, objs in stored.items():
        for name, n in names[kind].items():
            if n > 1:
                problems.append(f"{kind} {name} stored {n} times")
        if extra := sorted(set(names[kind]) - set(wanted[kind])):
            problems.append(f"{kind}s not intended (orphaned or left over): {extra}")
        if missing := sorted(set(wanted[kind]) - set(names[kind])):
            problems.append(f"{kind}s missing: {missing}")
        for obj in objs:
            problems += _object_problems(kind, obj, wanted[kind].get(obj["metadata"]["name"]))
    workloads, composites = set(names["Workload"]), set(names["CompositePodGroup"])
    for kind in ("CompositePodGroup", "PodGroup"):
        for obj in stored[kind]:
            spec, name = obj["spec"], obj["metadata"]["name"]
            if spec["workloadRef"]["workloadName"] not in workloads:
                problems.append(f"{kind} {name} orphaned: its Workload is gone")
            parent = spec.get("parentCompositePodGroupName")
            if parent and parent not in composites:
                problems.append(f"{kind} {name} orphaned: its parent {parent} is gone")
    return problems, sum(len(objs) for objs in stored.values())


def _object_problems(kind: str, obj: dict[str, Any], w: WorkloadPlan | None) -> list[str]:
    """How a stored object differs from the plan's: its spec holds what was applied (with the
    resized count). A Workload has no generation to count the resize (1.37's strategy sets
    none)."""
    if w is None:
        return []
    name, resized = obj["metadata"]["name"], w.action == "resize"
    [intended] = [o.to_dict() for o in w.objects if o.metadata.name == name]
    spec = intended["spec"]
    if resized and kind == "Workload":
        [root] = spec["compositePodGroupTemplates"]
        [stage] = [t for t in root["compositePodGroupTemplates"] if t["name"] == "stage"]
        [workers] = [t for t in stage["podGroupTemplates"] if t["name"] == "workers"]
        workers["schedulingPolicy"]["gang"]["minCount"] = RESIZED_WORKERS
    if resized and name == w.workers.metadata.name:
        spec["schedulingPolicy"]["gang"]["minCount"] = RESIZED_WORKERS
    return [] if _holds(obj["spec"], spec) else [f"{kind} {name}: spec is not as intended"]


def _holds(stored: Any, intended: Any) -> bool:
    """Whether ``stored`` has every value of ``intended`` (the server adds its defaults)."""
    if isinstance(intended, dict):
        return isinstance(stored, dict) and all(
            k in stored and _holds(stored[k], v) for k, v in intended.items()
        )
    if isinstance(intended, list):
        return (
            isinstance(stored, list)
            and len(stored) == len(intended)
            and all(_holds(a, b) for a, b in zip(stored, intended, strict=True))
        )
    return bool(stored == intended)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", type=int, default=50)
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args(argv)
    plan = make_plan(args.workloads, args.seed)
    outcome = asyncio.run(run(plan))
    kinds = Counter(f.kind for f in plan.faults)
    print(f"fault soak: {args.workloads} workloads, seed {args.seed}")
    print(f"planned requests (no faults): {len(plan.requests)}")
    mix = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    print(f"planned faults: {len(plan.faults)} ({mix}), failing {plan.failed_tries} tries")
    print(f"requests received: {outcome.requests} (bound {plan.request_bound})")
    print(f"retries: {outcome.retries}")
    print(f"server restarted: {outcome.restarted}")
    print(f"objects checked: {outcome.objects_checked}")
    print(f"seconds: {outcome.seconds:.1f}")
    print(f"problems: {outcome.problems + outcome.server_errors or 'none'}")
    print(f"reproduce: python -m benchmarks.soak_faults --workloads {args.workloads}", end="")
    print(f" --seed {args.seed}")
    ok = (
        not outcome.problems
        and not outcome.server_errors
        and outcome.requests <= plan.request_bound
        and outcome.seconds < 60
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
