"""Import time of ``workloadbuilder`` next to lightkube's PodGroup and Workload resources
(``lightkube.resources.scheduling_v1beta1``) and the official client's ``kubernetes.client``.

Run: ``python -m benchmarks.bench_import [--runs N]``

Every sample is a fresh interpreter. Two measures per module, each the median of N samples
(runs of the two modules and of a bare interpreter are interleaved, after one warm-up each so
that bytecode caches exist; the interpreters may write them even where ``PYTHONDONTWRITEBYTECODE``
is set, since an installed package has its caches from ``pip install`` and an editable checkout
without them would time the compiler):

* wall clock of ``python -c "import X"`` minus the median of a bare ``python -c "pass"``;
* the same for the child's CPU time (user + system), which other jobs on a shared machine
  disturb less than the wall clock;
* the interpreter's own account (``-X importtime``): the cumulative time of every top-level
  import that the statement triggered.

``import workloadbuilder`` loads its parts on first use (PEP 562), so a second pair of rows
times each import followed by making its first PodGroup's JSON: what a controller pays before
its first object.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

from benchmarks._harness import Row, arguments, print_table

OURS = "workloadbuilder"
# Each baseline with its target ratio.
BASELINES = {"lightkube.resources.scheduling_v1beta1": 0.8, "kubernetes.client": 0.4}
MODULES = (OURS, *BASELINES)
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

# ``import workloadbuilder`` loads its parts on first use, so the import alone is not what a
# controller pays: each module's import plus its first PodGroup, as JSON (the same document
# from each: ``benchmarks.bench_stamp``'s PodGroup, named "pg-0"), is timed as well.
_OWNER = (
    '{"apiVersion": "training.example.com/v1", "kind": "TrainJob", "name": "resnet",'
    ' "uid": "3f6c1a2e-0d1b-4c55", "controller": True, "blockOwnerDeletion": True}'
)
FIRST_USE = {
    OURS: f"""
import workloadbuilder as wb
options = wb.BuildOptions(name="resnet-wl", namespace="ml-training", owner={_OWNER})
built = wb.Builder(wb.leaf("workers", policy=wb.gang(4), topology=["topology.example.com/rack"]),
                   options)
built.build_workload()
doc = built.new_pod_group("pg-0", "workers").to_dict()
""",
    "lightkube.resources.scheduling_v1beta1": f"""
from lightkube.models import meta_v1 as meta, scheduling_v1beta1 as s
from lightkube.resources.scheduling_v1beta1 import PodGroup
doc = PodGroup(
    metadata=meta.ObjectMeta(name="pg-0", namespace="ml-training",
                             ownerReferences=[meta.OwnerReference(**{_OWNER})]),
    spec=s.PodGroupSpec(
        workloadRef=s.WorkloadReference(workloadName="resnet-wl", templateName="workers"),
        schedulingPolicy=s.PodGroupSchedulingPolicy(gang=s.GangSchedulingPolicy(minCount=4)),
        schedulingConstraints=s.PodGroupSchedulingConstraints(
            topology=[s.TopologyConstraint(key="topology.example.com/rack")]),
    ),
).to_dict()
""",
    "kubernetes.client": f"""
import kubernetes.client as k
owner = {_OWNER}
doc = k.ApiClient().sanitize_for_serialization(k.V1beta1PodGroup(
    api_version="scheduling.k8s.io/v1beta1", kind="PodGroup",
    metadata=k.V1ObjectMeta(name="pg-0", namespace="ml-training", owner_references=[
        k.V1OwnerReference(api_version=owner["apiVersion"], kind=owner["kind"],
                           name=owner["name"], uid=owner["uid"], controller=True,
                           block_owner_deletion=True)]),
    spec=k.V1beta1PodGroupSpec(
        workload_ref=k.V1beta1WorkloadReference(workload_name="resnet-wl",
                                                template_name="workers"),
        scheduling_policy=k.V1beta1PodGroupSchedulingPolicy(
            gang=k.V1beta1GangSchedulingPolicy(min_count=4)),
        scheduling_constraints=k.V1beta1PodGroupSchedulingConstraints(
            topology=[k.V1beta1TopologyConstraint(key="topology.example.com/rack")]),
    ),
))
""",
}
_PRINT_DOC = "\nimport json, sys; json.dump(doc, sys.stdout, sort_keys=True)"


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wall(code: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of ``python -c code``."""
    start, cpu = time.perf_counter(), _child_cpu()
    subprocess.run([sys.executable, "-c", code], check=True, env=_ENV)
    return time.perf_counter() - start, _child_cpu() - cpu


def _importtime(module: str) -> float:
    """Seconds spent importing ``module`` and everything it pulled in, per ``-X importtime``."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        check=True,
        env=_ENV,
        capture_output=True,
        text=True,
    )
    total_us = 0
    seen_start = False
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not cumulative.strip().isdigit():
            continue  # the header line
        # Interpreter start-up imports (site, encodings, ...) come first; the statement's own
        # imports follow. Top-level entries have no indentation in the name column.
        seen_start = seen_start or name.strip() == "site"
        if seen_start and name.strip() != "site" and not name.startswith("  "):
            total_us += int(cumulative)
    return total_us / 1e6


def _same_documents() -> None:
    """Every first-use snippet makes the same PodGroup."""
    docs = {
        module: subprocess.run(
            [sys.executable, "-c", code + _PRINT_DOC],
            check=True,
            env=_ENV,
            capture_output=True,
            text=True,
        ).stdout
        for module, code in FIRST_USE.items()
    }
    assert len(set(docs.values())) == 1, docs


def main() -> None:
    args = arguments(__doc__.splitlines()[0], runs=9)
    runs = args.runs if not args.smoke else 1
    _same_documents()
    codes = {m: f"import {m}" for m in MODULES}
    codes.update({f"{m}, first use": code for m, code in FIRST_USE.items()})
    for code in codes.values():  # warm-up: compile and cache bytecode
        _wall(code)
    bare: list[tuple[float, float]] = []
    wall: dict[str, list[tuple[float, float]]] = {c: [] for c in codes}
    own: dict[str, list[float]] = {m: [] for m in MODULES}
    labels = list(codes)
    for run in range(runs):
        bare.append(_wall("pass"))
        shift = run % len(labels)
        for label in [*labels[shift:], *labels[:shift]]:
            wall[label].append(_wall(codes[label]))
            if label in own:
                own[label].append(_importtime(label))
    base = statistics.median(w for w, _ in bare)
    base_cpu = statistics.median(c for _, c in bare)
    wall_s = {c: statistics.median(w for w, _ in wall[c]) - base for c in codes}
    cpu_s = {c: statistics.median(c_ for _, c_ in wall[c]) - base_cpu for c in codes}
    own_s = {m: statistics.median(own[m]) for m in MODULES}
    rows = []
    for theirs, target in BASELINES.items():
        for what, seconds in (
            ("wall clock minus a bare interpreter's start", wall_s),
            ("CPU time minus a bare interpreter's", cpu_s),
            ("-X importtime cumulative", own_s),
        ):
            rows.append(
                Row(
                    f"import {OURS}, {what}",
                    f"import {theirs}",
                    seconds[theirs],
                    seconds[OURS],
                    target=target,
                )
            )
        for what, seconds in (
            ("wall clock minus a bare interpreter's start", wall_s),
            ("CPU time minus a bare interpreter's", cpu_s),
        ):
            rows.append(
                Row(
                    f"import {OURS} + its first PodGroup.to_dict(), {what}",
                    f"import {theirs} + the same PodGroup",
                    seconds[f"{theirs}, first use"],
                    seconds[f"{OURS}, first use"],
                )
            )
    print_table(
        "import time",
        rows,
        note=f"{runs} fresh interpreters per case, interleaved; bare interpreter start"
        f" {base * 1e3:.1f} ms",
    )


if __name__ == "__main__":
    main()
