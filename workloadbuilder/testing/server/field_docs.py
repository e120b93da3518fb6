"""The documentation of the API fields that describe server-side printer columns.

The printers (``pkg/printers/internalversion``) describe many columns with ``SwaggerDoc()`` of
the field the column shows; these are those texts, as the 1.37 API documents them.
"""

from __future__ import annotations

from typing import Final

POD_IP: Final = (
    "podIP address allocated to the pod. Routable at least within the cluster. Empty if not "
    "yet allocated."
)
"""``PodStatus.podIP``."""
NODE_NAME: Final = (
    "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
    "candidate for scheduling by the scheduler defined in schedulerName. Once this field is "
    "set, the kubelet for this node becomes responsible for the lifecycle of this pod. This "
    "field should not be used to express a desire for the pod to be scheduled on a specific "
    "node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
)
"""``PodSpec.nodeName``."""
NOMINATED_NODE: Final = (
    "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
    "cannot be scheduled right away as preemption victims receive their graceful termination "
    "periods. This field does not guarantee that the pod will be scheduled on this node. "
    "Scheduler may decide to place the pod elsewhere if other nodes become available sooner. "
    "Scheduler may also decide to give the resources on this node to a higher priority pod "
    "that is created after preemption. As a result, this field may be different than "
    "PodSpec.nodeName when the pod is scheduled."
)
"""``PodStatus.nominatedNodeName``."""
READINESS_GATES: Final = (
    "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready "
    "when all its containers are ready AND all conditions specified in the readiness gates "
    'have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-'
    "network/580-pod-readiness-gates"
)
"""``PodSpec.readinessGates``."""
JOB_SUCCEEDED: Final = (
    "The number of pods which reached phase Succeeded. The value increases monotonically for "
    "a given spec. However, it may decrease in reaction to scale down of elastic indexed "
    "jobs."
)
"""``JobStatus.succeeded``."""
JOB_SELECTOR: Final = (
    "A label query over pods that should match the pod count. Normally, the system sets this "
    "field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-"
    "objects/labels/#label-selectors"
)
"""``JobSpec.selector``."""
KUBELET_VERSION: Final = "Kubelet Version reported by the node."
"""``NodeSystemInfo.kubeletVersion``."""
NODE_ADDRESSES: Final = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. More"
    " info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field"
    " is declared as mergeable, but the merge key is not sufficiently unique, which can cause"
    " data corruption when it is merged. Callers should instead use a full-replacement patch."
    " See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can "
    "change during the lifetime of a Node. However, there are some exceptions where this may "
    "not be possible, such as Pods that inherit a Node's address in its own status or "
    "consumers of the downward API (status.hostIP)."
)
"""``NodeStatus.addresses``."""
OS_IMAGE: Final = (
    "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."
)
"""``NodeSystemInfo.osImage``."""
KERNEL_VERSION: Final = (
    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."
)
"""``NodeSystemInfo.kernelVersion``."""
CONTAINER_RUNTIME: Final = (
    "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
    "containerd://1.4.2)."
)
"""``NodeSystemInfo.containerRuntimeVersion``."""
EVENT_LAST: Final = "The time at which the most recent occurrence of this event was recorded."
"""``Event.lastTimestamp``."""
EVENT_TYPE: Final = "Type of this event (Normal, Warning), new types could be added in the future"
"""``Event.type``."""
EVENT_REASON: Final = (
    "This should be a short, machine understandable string that gives the reason for the "
    "transition into the object's current status."
)
"""``Event.reason``."""
EVENT_OBJECT: Final = "The object that this event is about."
"""``Event.involvedObject``."""
EVENT_FIELD_PATH: Final = (
    "If referring to a piece of an object instead of an entire object, this string should "
    "contain a valid JSON/Go field access statement, such as "
    "desiredState.manifest.containers[2]. For example, if the object reference is to a "
    'container within a pod, this would take on a value like: "spec.containers{name}" (where '
    '"name" refers to the name of the container that triggered the event) or if no container '
    'name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax'
    " is chosen only to have some well-defined way of referencing a part of an object."
)
"""``ObjectReference.fieldPath``."""
EVENT_SOURCE: Final = (
    "The component reporting this event. Should be a short machine understandable string."
)
"""``Event.source``."""
EVENT_MESSAGE: Final = "A human-readable description of the status of this operation."
"""``Event.message``."""
EVENT_FIRST: Final = (
    "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"
)
"""``Event.firstTimestamp``."""
EVENT_COUNT: Final = "The number of times this event has occurred."
"""``Event.count``."""
CLASS_VALUE: Final = (
    "value represents the integer value of this priority class. This is the actual priority "
    "that pods receive when they have the name of this class in their pod spec."
)
"""``PriorityClass.value``."""
CLASS_GLOBAL_DEFAULT: Final = (
    "globalDefault specifies whether this PriorityClass should be considered as the default "
    "priority for pods that do not have any priority class. Only one PriorityClass can be "
    "marked as `globalDefault`. However, if more than one PriorityClasses exists with their "
    "`globalDefault` field set to true, the smallest value of such global default "
    "PriorityClasses will be used as the default priority."
)
"""``PriorityClass.globalDefault``."""
CLASS_PREEMPTION: Final = (
    "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
    "PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."
)
"""``PriorityClass.preemptionPolicy``."""
LEASE_HOLDER: Final = (
    "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
    "Leader Election is used, the holder identity must be equal to the elected "
    "LeaseCandidate.metadata.name field."
)
"""``Lease.spec.holderIdentity``."""
