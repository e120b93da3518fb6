"""Polyaxon runtime plugins: a compiled operation's Kubeflow run as the WorkloadItem tree, and
the ``polyaxon.com/v1`` KfJob Polyaxon's converter makes of it linked to its groups.

A run's ``schedulingPolicy`` maps field by field (as ``docs/migration-from-group-objects.md``
says of Volcano's PodGroup, which Kubeflow's operators make of it):

- ``minAvailable`` counts pods of the whole run, as Volcano's ``minMember``; unset, every pod
  of the run (the operators' default). A ``pytorchjob`` or ``tfjob`` is one gang over all its
  replicas. An ``mpijob`` is its launcher's gang and its workers' gang (``minAvailable`` less
  the launcher's pods) under a composite that needs both; without the ``CompositePodGroup``
  gate (see ``composite_served``) they are two independent gangs;
- ``priorityClass`` becomes the groups' priority class;
- ``queue`` is Kueue's: the ``kueue.x-k8s.io/queue-name`` label on the pod templates;
- ``minResources`` and ``scheduleTimeoutSeconds`` have no native equivalent and are refused.

Every error is at the polyaxonfile's own path (``run.schedulingPolicy.minAvailable``,
``run.worker.replicas``), with the value written there. ``link_kfjob`` edits the KfJob before
it is created: each replica's pod template is linked to its group by name (``group_names``),
and ``schedulingPolicy`` is removed so that nothing asks Volcano for a second gang.
``builder`` then gives the Builder of the Workload and groups, owned by the created KfJob.
"""

from __future__ import annotations

from workloadbuilder._extras import require

require("polyaxon", "workloadbuilder.contrib.polyaxon")

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from polyaxon.schemas import (
    V1CompiledOperation,
    V1KFReplica,
    V1MPIJob,
    V1PytorchJob,
    V1SchedulingPolicy,
    V1TFJob,
)

from workloadbuilder._formats import label_value_errors
from workloadbuilder.builder import Builder, BuildError, BuildOptions
from workloadbuilder.config import (
    GangSchedulingPolicy,
    SchedulingConfig,
    SchedulingPolicy,
)
from workloadbuilder.counts import GANG_NEVER_FORMS
from workloadbuilder.field import ErrorList, FieldError, FieldPath
from workloadbuilder.item import WorkloadItem
from workloadbuilder.options import (
    DisruptionModeOption,
    SchedulingPolicyOption,
    controller_ref,
    object_json,
)
from workloadbuilder.runtime import group_names, set_scheduling_group

__all__ = [
    "NO_EQUIVALENT",
    "QUEUE_LABEL",
    "REPLICAS",
    "PolyaxonRun",
    "builder",
    "composite_served",
    "convert",
    "link_kfjob",
]

QUEUE_LABEL: Final = "kueue.x-k8s.io/queue-name"
"""Kueue's label naming a job's LocalQueue; ``queue`` goes there, not into a group."""

NO_EQUIVALENT: Final = {
    "minResources": "no native equivalent: the native gang checks placement, not a resource"
    " floor; use a Kueue ClusterQueue quota",
    "scheduleTimeoutSeconds": "no native equivalent: the native gang waits; watch"
    " PodGroupInitiallyScheduled (workloadbuilder.aio.wait_scheduled) and give up in the plugin",
}
"""The ``schedulingPolicy`` fields the native API has no place for, and why."""

REPLICAS: Final = {
    "pytorchjob": (("master", "Master"), ("worker", "Worker")),
    "mpijob": (("launcher", "Launcher"), ("worker", "Worker")),
    "tfjob": (("chief", "Chief"), ("ps", "PS"), ("worker", "Worker"), ("evaluator", "Evaluator")),
}
"""Each run kind's replicas: the field of the run and the KfJob's ``replicaSpecs`` key."""

_SPEC_KEYS: Final = {"pytorchjob": "pytorchJobSpec", "mpijob": "mpiJobSpec", "tfjob": "tfJobSpec"}
_RUNS: Final = {"pytorchjob": V1PytorchJob, "mpijob": V1MPIJob, "tfjob": V1TFJob}
_UNRESOLVED: Final = "must be resolved to an integer: compile the operation with its params first"


@dataclass(frozen=True)
class PolyaxonRun:
    """What a compiled operation's run becomes.

    ``roots`` is the tree (one root, or two independent gangs for an ``mpijob`` without
    composites); ``roles`` maps each KfJob replica (``Worker``) to the item whose group its
    pods join; ``queue`` is the Kueue queue of the pod templates; ``errors`` are at the
    polyaxonfile's paths: while there are any, nothing is linked or built.
    """

    kind: str
    roots: tuple[WorkloadItem, ...]
    roles: Mapping[str, str]
    queue: str | None
    errors: ErrorList

    def group_names(self, workload_name: str) -> dict[str, str]:
        """The group each KfJob replica's pods join, when the Workload is ``workload_name``."""
        names = group_names(list(self.roots), workload_name)
        return {role: names[item] for role, item in self.roles.items()}


def convert(
    operation: Any, *, composite: bool = True, path: FieldPath | str = "run"
) -> PolyaxonRun:
    """The run of ``operation`` (a ``V1CompiledOperation`` with its params resolved, as
    Polyaxon's resolver gives it to the converter) as a tree, with every error at ``path``
    (where the run sits in the polyaxonfile: ``run``, or ``component.run`` in an operation).

    ``composite=False`` makes an ``mpijob``'s launcher and workers independent gangs (for a
    cluster without the ``CompositePodGroup`` gate). ``TypeError`` for anything but a compiled
    operation of a ``pytorchjob``, ``mpijob`` or ``tfjob`` run.
    """
    if not isinstance(operation, V1CompiledOperation):
        raise TypeError(f"operation must be a V1CompiledOperation, not {type(operation).__name__}")
    run = operation.run
    kind = next((k for k, cls in _RUNS.items() if isinstance(run, cls)), None)
    if kind is None:
        raise TypeError(
            "the operation's run must be a pytorchjob, mpijob or tfjob (V1PytorchJob, V1MPIJob,"
            f" V1TFJob), not {type(run).__name__}"
        )
    base = path if isinstance(path, FieldPath) else FieldPath.parse(path)
    at = base.child("schedulingPolicy")
    policy = run.scheduling_policy or V1SchedulingPolicy()
    errors = ErrorList()
    counts = _replica_counts(run, kind, base, errors)
    counted = not errors
    total = sum(counts.values())
    for field, why in NO_EQUIVALENT.items():
        if getattr(policy, _snake(field)) is not None:
            errors.append(FieldError.forbidden(at.child(field), why))
    queue = policy.queue
    if queue is not None:
        for detail in label_value_errors(queue):
            errors.append(FieldError.invalid(at.child("queue"), queue, detail))
    priority = policy.priority_class or ""
    split = kind == "mpijob" and counts.get("Launcher", 0) > 0 and counts.get("Worker", 0) > 0
    if not counted:  # the pods cannot be counted: the errors say why
        return PolyaxonRun(kind, (), {}, queue, errors)
    wanted = _min_available(policy.min_available, total, counts, split, at, errors)
    # with a minAvailable in error the tree still checks the rest, with every pod in the gang
    roots, roles = _tree(kind, base, counts, wanted or total, priority, split, composite)
    # each template of the tree holds the run's one priorityClass: report it once
    seen = {str(e) for e in errors}
    for error in Builder(list(roots), _options()).validate():
        if str(error) not in seen:
            seen.add(str(error))
            errors.append(error)
    if errors:
        return PolyaxonRun(kind, (), {}, queue, errors)
    return PolyaxonRun(kind, roots, roles, queue, errors)


def link_kfjob(kfjob: MutableMapping[str, Any], run: PolyaxonRun) -> dict[str, str]:
    """Edit ``kfjob`` (Polyaxon's converter's ``polyaxon.com/v1`` KfJob, before it is created)
    in place: each replica's pod template linked to its group, labelled with the run's queue,
    and the KfJob's ``schedulingPolicy`` removed. Returns each replica's group name.

    The Workload is named after the KfJob (Polyaxon's resource names are unique per run), so
    the names are known before the KfJob and its uid exist; ``builder`` stamps the same names.
    ``ValueError`` when the run has errors or the KfJob does not hold the run's replicas.
    """
    if run.errors:
        raise BuildError(f"the run does not validate:\n{run.errors}", run.errors)
    spec = kfjob.get(_SPEC_KEYS[run.kind]) if isinstance(kfjob, MutableMapping) else None
    replicas = spec.get("replicaSpecs") if isinstance(spec, MutableMapping) else None
    if not isinstance(spec, MutableMapping) or not isinstance(replicas, MutableMapping):
        raise ValueError(
            f"kfjob has no {_SPEC_KEYS[run.kind]}.replicaSpecs: pass the KfJob Polyaxon's"
            f" converter made of this {run.kind} run"
        )
    if set(replicas) != set(run.roles):
        raise ValueError(
            f"kfjob's replicaSpecs ({', '.join(sorted(replicas))}) are not the run's"
            f" ({', '.join(sorted(run.roles))}): pass the KfJob made of this run"
        )
    names = run.group_names(_kfjob_name(kfjob))
    linked: list[tuple[MutableMapping[str, Any], Any]] = []
    for role, replica in replicas.items():  # every template first: an error changes nothing
        if not isinstance(replica, MutableMapping) or replica.get("template") is None:
            raise ValueError(f"kfjob's replicaSpecs[{role}] has no template")
        template = set_scheduling_group(replica["template"], names[role])
        if run.queue:
            _label(template, QUEUE_LABEL, run.queue)
        linked.append((replica, template))
    for replica, template in linked:
        replica["template"] = template
    spec.pop("schedulingPolicy", None)
    return names


def builder(run: PolyaxonRun, kfjob: Any) -> Builder:
    """The Builder of the run's Workload and groups, owned by ``kfjob`` as the API server
    returned it (with its ``metadata.uid``): ``builder(...).release()`` stamps the groups
    ``link_kfjob`` linked the templates to. ``BuildError`` when the run has errors."""
    if run.errors:
        raise BuildError(f"the run does not validate:\n{run.errors}", run.errors)
    owner = controller_ref(kfjob)
    namespace = _namespace(kfjob)
    return Builder(list(run.roots), _options(name=owner.name, namespace=namespace, owner=owner))


async def composite_served(api_client: Any) -> bool:
    """Whether the cluster serves CompositePodGroups (the ``CompositePodGroup`` gate), by
    ``workloadbuilder.aio.preflight``: pass the answer to ``convert(composite=...)``. Raises
    ``MissingAPIError`` when it serves no Workload API at all (``GenericWorkload``)."""
    from workloadbuilder.aio import MissingAPIError, preflight

    groups = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup"}
    composites = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup"}
    try:
        await preflight(api_client, [groups, composites])
    except MissingAPIError as exc:
        if {m.resource for m in exc.missing} == {"compositepodgroups"}:
            return False
        raise
    return True


def _tree(
    kind: str,
    base: FieldPath,
    counts: dict[str, int],
    wanted: int,
    priority: str,
    split: bool,
    composite: bool,
) -> tuple[tuple[WorkloadItem, ...], dict[str, str]]:
    """The run's roots, and the item each KfJob replica's pods join."""
    at = base.child("schedulingPolicy")
    place = {"priorityClassName": at.child("priorityClass")}
    if not split:
        total = sum(counts.values())
        return (_gang(kind, at, wanted, priority, place, total),), dict.fromkeys(counts, kind)
    launchers = counts["Launcher"]
    launcher = _gang("launcher", base.child("launcher"), launchers, priority, place, launchers)
    workers = counts["Worker"]
    worker = _gang("worker", base.child("worker"), wanted - launchers, priority, place, workers)
    roles = {"Launcher": "launcher", "Worker": "worker"}
    if not composite:
        return (launcher, worker), roles
    config = SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=2)),
        priority_class_name=priority,
    )
    root = WorkloadItem(
        kind, path=at, default_config=config, children=(launcher, worker), field_paths=place
    )
    return (root,), roles


def _options(**given: Any) -> BuildOptions:
    return BuildOptions(
        allowed_policies=frozenset({SchedulingPolicyOption.GANG}),
        allowed_disruption_modes=frozenset(DisruptionModeOption),
        **given,
    )


def _gang(
    name: str,
    path: FieldPath,
    count: int,
    priority: str,
    place: dict[str, FieldPath],
    replicas: int,
) -> WorkloadItem:
    config = SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=count)),
        priority_class_name=priority,
    )
    return WorkloadItem(
        name, path=path, default_config=config, field_paths=place, replicas=replicas
    )


def _replica_counts(run: Any, kind: str, base: FieldPath, errors: ErrorList) -> dict[str, int]:
    """The pods of each replica the run has, by KfJob replica name (Kubeflow's operators
    start one pod of a replica whose ``replicas`` is unset)."""
    counts: dict[str, int] = {}
    for field, role in REPLICAS[kind]:
        replica = getattr(run, field)
        if replica is None:
            continue
        path = base.child(field, "replicas")
        if not isinstance(replica, V1KFReplica):
            errors.append(FieldError.invalid(base.child(field), str(replica), _UNRESOLVED))
            continue
        value = 1 if replica.replicas is None else replica.replicas
        if isinstance(value, bool) or not isinstance(value, int):
            errors.append(FieldError.invalid(path, str(value), _UNRESOLVED))
        elif value < 0:
            errors.append(FieldError.invalid(path, value, "must be greater than or equal to 0"))
        else:
            counts[role] = value
    if not counts and not errors:
        errors.append(FieldError.required(base, f"a {kind} run needs at least one replica"))
    elif counts and not errors and sum(counts.values()) == 0:
        errors.append(FieldError.invalid(base, 0, "the run has no pods: every replicas is 0"))
    return counts


def _min_available(
    value: Any,
    total: int,
    counts: dict[str, int],
    split: bool,
    at: FieldPath,
    errors: ErrorList,
) -> int | None:
    """``minAvailable`` as the user wrote it, checked against the run's pods; ``None`` when
    it cannot be used (the errors say why, with the value written)."""
    path = at.child("minAvailable")
    if value is None:
        return total
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append(FieldError.invalid(path, str(value), _UNRESOLVED))
        return None
    if value < 1:
        errors.append(FieldError.invalid(path, value, "must be greater than or equal to 1"))
    elif value > total:
        detail = f"must be no more than the {total} pods of the run: {GANG_NEVER_FORMS}"
        errors.append(FieldError.invalid(path, value, detail))
    elif split and value <= counts["Launcher"]:
        detail = (
            f"must be more than the launcher's {counts['Launcher']} pod(s): the workers' gang of"
            " an mpijob needs at least one worker"
        )
        errors.append(FieldError.invalid(path, value, detail))
    else:
        return value
    return None


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _metadata(kfjob: Any) -> Mapping[str, Any]:
    doc = object_json(kfjob, "kfjob must be a KfJob (a dict, or a client's model)")
    meta = doc.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _kfjob_name(kfjob: Any) -> str:
    name = _metadata(kfjob).get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("kfjob has no metadata.name: pass the KfJob Polyaxon's converter made")
    return name


def _namespace(kfjob: Any) -> str | None:
    namespace = _metadata(kfjob).get("namespace")
    return namespace if isinstance(namespace, str) else None


def _label(template: Any, key: str, value: str) -> None:
    """Set a label on a pod template: a dict, or a client's ``V1PodTemplateSpec``."""
    if isinstance(template, MutableMapping):
        meta = template.setdefault("metadata", {})
        meta["labels"] = {**(meta.get("labels") or {}), key: value}
        return
    meta = template.metadata
    if meta is None:
        raise ValueError("a pod template of the KfJob has no metadata to label")
    meta.labels = {**(meta.labels or {}), key: value}
