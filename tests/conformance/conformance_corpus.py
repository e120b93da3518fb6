"""The hand-written conformance corpus: the seed examples and "everything set" documents.

Every exported model class gets instances from here: the documents below are parsed into our
models, and every nested object becomes a corpus instance of its own class too. Together they
set every optional field of every model at least once (``test_corpus.py`` checks it).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from workloadbuilder.api import (
    K8sModel,
    batch_v1,
    core_v1,
    meta_v1,
    scheduling_v1alpha3,
    scheduling_v1beta1,
)

B1 = "scheduling.k8s.io/v1beta1"
A3 = "scheduling.k8s.io/v1alpha3"
T0 = "2026-07-24T10:11:12Z"

# --------------------------------------------------------------------------- the seed examples

SEED_POD_GROUP: dict[str, Any] = {
    "apiVersion": B1,
    "kind": "PodGroup",
    "metadata": {"name": "training-workers", "namespace": "ml-training"},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
}

SEED_WORKLOAD: dict[str, Any] = {
    "apiVersion": B1,
    "kind": "Workload",
    "metadata": {"name": "training", "namespace": "ml-training"},
    "spec": {
        "compositePodGroupTemplates": [
            {
                "name": "workload-root",
                "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                "disruptionMode": {"all": {}},
                "podGroupTemplates": [
                    {
                        "name": "workers",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "schedulingConstraints": {
                            "topology": [{"key": "topology.example.com/rack"}]
                        },
                    },
                    {"name": "driver", "schedulingPolicy": {"gang": {"minCount": 1}}},
                ],
            }
        ]
    },
}

SEED_JOB_SCHEDULING: dict[str, Any] = {
    "schedulingPolicy": {"gang": {}},
    "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
    "disruptionMode": {"all": {}},
}

SEEDS: dict[str, tuple[type[K8sModel], dict[str, Any]]] = {
    "pod-group": (scheduling_v1beta1.PodGroup, SEED_POD_GROUP),
    "workload": (scheduling_v1beta1.Workload, SEED_WORKLOAD),
    "job-scheduling": (batch_v1.JobSchedulingConfiguration, SEED_JOB_SCHEDULING),
}

# --------------------------------------------------------------------------- everything set

FULL_OBJECT_META: dict[str, Any] = {
    "name": "trainer-pg",
    "generateName": "trainer-",
    "namespace": "ml",
    "selfLink": "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups/trainer-pg",
    "uid": "5f0c3b2e-1111-4e7a-9d51-0123456789ab",
    "resourceVersion": "12345",
    "generation": 3,
    "creationTimestamp": T0,
    "deletionTimestamp": "2026-07-24T11:00:00Z",
    "deletionGracePeriodSeconds": 30,
    "labels": {"app.kubernetes.io/name": "trainer", "tier": ""},
    "annotations": {"scheduling.k8s.io/group-template-name": "trainer-pgt-0"},
    "ownerReferences": [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": "trainer",
            "uid": "0a1b2c3d-2222-4e7a-9d51-0123456789ab",
            "controller": True,
            "blockOwnerDeletion": True,
        },
        {
            "apiVersion": B1,
            "kind": "Workload",
            "name": "trainer-wl",
            "uid": "0a1b2c3d-3333-4e7a-9d51-0123456789ab",
        },
    ],
    "finalizers": ["example.com/cleanup"],
    "managedFields": [
        {
            "manager": "workloadbuilder",
            "operation": "Apply",
            "apiVersion": B1,
            "time": T0,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:schedulingPolicy": {"f:gang": {"f:minCount": {}}}}},
            "subresource": "status",
        }
    ],
}

FULL_LIST_META: dict[str, Any] = {
    "selfLink": "/apis/scheduling.k8s.io/v1beta1/podgroups",
    "resourceVersion": "777",
    "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ",
    "remainingItemCount": 12,
    "shardInfo": {"selector": "shard=0"},
}


def _condition(type_: str, reason: str) -> dict[str, Any]:
    return {
        "type": type_,
        "status": "True",
        "observedGeneration": 3,
        "lastTransitionTime": T0,
        "reason": reason,
        "message": "all 4 pods of the group were placed",
    }


FULL_POD_GROUP_SPEC: dict[str, Any] = {
    "workloadRef": {"workloadName": "trainer-wl", "templateName": "workers"},
    "parentCompositePodGroupName": "trainer-root-x7c2",
    "schedulingPolicy": {"gang": {"minCount": 4}},
    "schedulingConstraints": {"topology": [{"key": "topology.example.com/rack"}]},
    "resourceClaims": [
        {"name": "shared-gpu", "resourceClaimName": "trainer-gpus"},
        {"name": "scratch", "resourceClaimTemplateName": "scratch-template"},
    ],
    "disruptionMode": {"all": {}},
    "priorityClassName": "high-priority",
    "priority": 1000,
    "preemptionPolicy": "PreemptLowerPriority",
}

FULL_POD_GROUP: dict[str, Any] = {
    "apiVersion": B1,
    "kind": "PodGroup",
    "metadata": FULL_OBJECT_META,
    "spec": FULL_POD_GROUP_SPEC,
    "status": {
        "conditions": [
            _condition("PodGroupInitiallyScheduled", "Scheduled"),
            _condition("DisruptionTarget", "PreemptionByScheduler"),
        ],
        "resourceClaimStatuses": [
            {"name": "scratch", "resourceClaimName": "trainer-pg-scratch-9k2x"},
            {"name": "shared-gpu"},
        ],
    },
}

BASIC_POD_GROUP_A3: dict[str, Any] = {
    "apiVersion": A3,
    "kind": "PodGroup",
    "metadata": {"name": "driver", "namespace": "ml"},
    "spec": {
        "schedulingPolicy": {"basic": {}},
        "disruptionMode": {"single": {}},
        "preemptionPolicy": "Never",
    },
}

FULL_LEAF_TEMPLATE: dict[str, Any] = {
    "name": "workers",
    "schedulingPolicy": {"gang": {"minCount": 8}},
    "schedulingConstraints": {"topology": [{"key": "topology.example.com/rack"}]},
    "resourceClaims": [{"name": "shared-gpu", "resourceClaimTemplateName": "gpu-template"}],
    "disruptionMode": {"all": {}},
    "priorityClassName": "high-priority",
    "priority": 1000,
    "preemptionPolicy": "Never",
}

FULL_LEAF_WORKLOAD: dict[str, Any] = {
    "apiVersion": B1,
    "kind": "Workload",
    "metadata": {"name": "trainer-wl", "namespace": "ml", "labels": {"team": "vision"}},
    "spec": {
        "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "trainer"},
        "podGroupTemplates": [
            FULL_LEAF_TEMPLATE,
            {
                "name": "evaluator",
                "schedulingPolicy": {"basic": {}},
                "disruptionMode": {"single": {}},
                "priorityClassName": "high-priority",
                "priority": 1000,
            },
        ],
    },
}

FULL_COMPOSITE_WORKLOAD_A3: dict[str, Any] = {
    "apiVersion": A3,
    "kind": "Workload",
    "metadata": {"name": "jobset-wl", "namespace": "ml"},
    "spec": {
        "controllerRef": {"kind": "TrainingRun", "name": "run-1"},
        "compositePodGroupTemplates": [
            {
                "name": "root",
                "schedulingPolicy": {"basic": {}},
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                "disruptionMode": {"single": {}},
                "priorityClassName": "batch-low",
                "priority": 10,
                "preemptionPolicy": "PreemptLowerPriority",
                "podGroupTemplates": [
                    {
                        "name": "coordinator",
                        "schedulingPolicy": {"basic": {}},
                        "priorityClassName": "batch-low",
                        "priority": 10,
                    }
                ],
                "compositePodGroupTemplates": [
                    {
                        "name": "replicas",
                        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                        "disruptionMode": {"all": {}},
                        "priorityClassName": "batch-low",
                        "priority": 10,
                        "compositePodGroupTemplates": [
                            {
                                "name": "replica-0",
                                "schedulingPolicy": {"gang": {"minGroupCount": 1}},
                                "priorityClassName": "batch-low",
                                "priority": 10,
                                "podGroupTemplates": [
                                    {
                                        "name": "replica-0-workers",
                                        "schedulingPolicy": {"gang": {"minCount": 2}},
                                        "priorityClassName": "batch-low",
                                        "priority": 10,
                                    }
                                ],
                            }
                        ],
                        "podGroupTemplates": [
                            {
                                "name": "replica-1",
                                "schedulingPolicy": {"gang": {"minCount": 2}},
                                "priorityClassName": "batch-low",
                                "priority": 10,
                            }
                        ],
                    }
                ],
            }
        ],
    },
}

FULL_COMPOSITE_POD_GROUP: dict[str, Any] = {
    "apiVersion": A3,
    "kind": "CompositePodGroup",
    "metadata": {"name": "jobset-wl-replicas-6d9f", "namespace": "ml", "uid": "abc"},
    "spec": {
        "workloadRef": {"workloadName": "jobset-wl", "templateName": "replicas"},
        "parentCompositePodGroupName": "jobset-wl-root-2b4c",
        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
        "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
        "disruptionMode": {"all": {}},
        "priorityClassName": "batch-low",
        "priority": 10,
        "preemptionPolicy": "Never",
    },
    "status": {
        "conditions": [
            {
                "type": "CompositePodGroupInitiallyScheduled",
                "status": "False",
                "lastTransitionTime": T0,
                "reason": "Invalid",
                "message": "the hierarchy is deeper than 4 levels",
            }
        ]
    },
}

BASIC_COMPOSITE_POD_GROUP: dict[str, Any] = {
    "apiVersion": A3,
    "kind": "CompositePodGroup",
    "metadata": {"name": "jobset-wl-root-2b4c"},
    "spec": {
        "workloadRef": {"workloadName": "jobset-wl", "templateName": "root"},
        "schedulingPolicy": {"basic": {}},
        "disruptionMode": {"single": {}},
    },
}

FULL_STATUS: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Status",
    "metadata": {},
    "status": "Failure",
    "message": 'PodGroup.scheduling.k8s.io "pg" is invalid: spec.schedulingPolicy.gang.minCount',
    "reason": "Invalid",
    "details": {
        "name": "pg",
        "group": "scheduling.k8s.io",
        "kind": "PodGroup",
        "uid": "5f0c3b2e-1111-4e7a-9d51-0123456789ab",
        "causes": [
            {
                "reason": "FieldValueInvalid",
                "message": "Invalid value: 0: must be greater than or equal to 1",
                "field": "spec.schedulingPolicy.gang.minCount",
            }
        ],
        "retryAfterSeconds": 1,
    },
    "code": 422,
}

FULL_JOB_SCHEDULING: dict[str, Any] = {
    "schedulingPolicy": {"gang": {"minCount": 4}},
    "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
    "disruptionMode": {"single": {}},
    "resourceClaims": [
        {"name": "gpus", "resourceClaimName": "shared-gpus"},
        {"name": "scratch", "resourceClaimTemplateName": "scratch"},
    ],
}

BASIC_JOB_SCHEDULING: dict[str, Any] = {"schedulingPolicy": {"basic": {}}}

DOCUMENTS: dict[str, tuple[type[K8sModel], dict[str, Any]]] = {
    **SEEDS,
    "pod-group-full": (scheduling_v1beta1.PodGroup, FULL_POD_GROUP),
    "pod-group-v1alpha3-basic": (scheduling_v1alpha3.PodGroup, BASIC_POD_GROUP_A3),
    "pod-group-v1alpha3-full": (
        scheduling_v1alpha3.PodGroup,
        {**copy.deepcopy(FULL_POD_GROUP), "apiVersion": A3},
    ),
    "pod-group-list": (
        scheduling_v1beta1.PodGroupList,
        {
            "apiVersion": B1,
            "kind": "PodGroupList",
            "metadata": FULL_LIST_META,
            "items": [FULL_POD_GROUP, SEED_POD_GROUP],
        },
    ),
    "pod-group-list-v1alpha3": (
        scheduling_v1alpha3.PodGroupList,
        {"apiVersion": A3, "kind": "PodGroupList", "metadata": {}, "items": [BASIC_POD_GROUP_A3]},
    ),
    "workload-leaf-full": (scheduling_v1beta1.Workload, FULL_LEAF_WORKLOAD),
    "workload-v1alpha3-composite-full": (scheduling_v1alpha3.Workload, FULL_COMPOSITE_WORKLOAD_A3),
    "workload-v1alpha3-seed": (
        scheduling_v1alpha3.Workload,
        {**copy.deepcopy(SEED_WORKLOAD), "apiVersion": A3},
    ),
    "workload-list": (
        scheduling_v1beta1.WorkloadList,
        {
            "apiVersion": B1,
            "kind": "WorkloadList",
            "metadata": {"resourceVersion": "9"},
            "items": [SEED_WORKLOAD, FULL_LEAF_WORKLOAD],
        },
    ),
    "workload-list-v1alpha3": (
        scheduling_v1alpha3.WorkloadList,
        {
            "apiVersion": A3,
            "kind": "WorkloadList",
            "metadata": {},
            "items": [FULL_COMPOSITE_WORKLOAD_A3],
        },
    ),
    "composite-pod-group-full": (scheduling_v1alpha3.CompositePodGroup, FULL_COMPOSITE_POD_GROUP),
    "composite-pod-group-basic": (
        scheduling_v1alpha3.CompositePodGroup,
        BASIC_COMPOSITE_POD_GROUP,
    ),
    "composite-pod-group-list": (
        scheduling_v1alpha3.CompositePodGroupList,
        {
            "apiVersion": A3,
            "kind": "CompositePodGroupList",
            "metadata": FULL_LIST_META,
            "items": [FULL_COMPOSITE_POD_GROUP, BASIC_COMPOSITE_POD_GROUP],
        },
    ),
    "status-full": (meta_v1.Status, FULL_STATUS),
    "pod-scheduling-group": (core_v1.PodSchedulingGroup, {"podGroupName": "trainer-pg"}),
    "job-scheduling-full": (batch_v1.JobSchedulingConfiguration, FULL_JOB_SCHEDULING),
    "job-scheduling-basic": (batch_v1.JobSchedulingConfiguration, BASIC_JOB_SCHEDULING),
    # Building blocks as a controller's own API embeds them.
    "block-policy-gang": (
        scheduling_v1alpha3.WorkloadPodGroupSchedulingPolicy,
        {"gang": {"minCount": 3}},
    ),
    "block-composite-policy-gang": (
        scheduling_v1alpha3.WorkloadCompositePodGroupSchedulingPolicy,
        {"gang": {"minGroupCount": 2}},
    ),
    "block-composite-policy-basic": (
        scheduling_v1alpha3.WorkloadCompositePodGroupSchedulingPolicy,
        {"basic": {}},
    ),
    "block-composite-constraints": (
        scheduling_v1alpha3.WorkloadCompositePodGroupSchedulingConstraints,
        {"topology": [{"key": "topology.kubernetes.io/zone"}]},
    ),
    "block-composite-disruption-single": (
        scheduling_v1alpha3.WorkloadCompositePodGroupDisruptionMode,
        {"single": {}},
    ),
    "block-composite-disruption-all": (
        scheduling_v1alpha3.WorkloadCompositePodGroupDisruptionMode,
        {"all": {}},
    ),
}
"""Name -> (model class, JSON document); every document is valid and round-trips exactly."""


def _nested(obj: K8sModel, path: str) -> Iterator[tuple[str, K8sModel]]:
    yield path, obj
    for name in type(obj).model_fields:
        value = getattr(obj, name)
        items = value if isinstance(value, (list, tuple)) else [value]
        for i, item in enumerate(items):
            if isinstance(item, K8sModel):
                sub = f"{path}.{name}" + (f"[{i}]" if isinstance(value, (list, tuple)) else "")
                yield from _nested(item, sub)


def corpus_instances() -> list[tuple[str, K8sModel]]:
    """Every document of ``DOCUMENTS`` and every object nested in it, with an id for each.

    An object that appears several times (the same class and JSON) is listed once.
    """
    seen: set[tuple[type[K8sModel], str]] = set()
    out: list[tuple[str, K8sModel]] = []
    for name, (cls, doc) in DOCUMENTS.items():
        for path, obj in _nested(cls.model_validate(doc), name):
            key = (type(obj), obj.model_dump_json())
            if key not in seen:
                seen.add(key)
                out.append((f"{type(obj).__name__}:{path}", obj))
    return out
