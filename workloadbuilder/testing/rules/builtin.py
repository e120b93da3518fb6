"""Defaults and validation of the core and batch kinds a controller test creates.

What the API server does to a Pod, a Namespace and a Job on create (kubernetes/kubernetes
``pkg/apis/core/v1/defaults.go``, ``pkg/apis/batch/v1/defaults.go``, the Job registry's
generated selector, the Namespace registry) and the validation tests most often trip over
(``pkg/apis/core/validation``: containers and images required; ``pkg/apis/batch/validation``:
a Job's pods restart ``OnFailure`` or ``Never``).
"""

from __future__ import annotations

from typing import Any, Final

from .common import IMMUTABLE, Errs, Obj, items, mapping, short_name
from .errors import Marshalled, child, index, invalid, not_supported, required
from .internal_core import internal_json
from .semantic import normal

__all__ = [
    "default_job",
    "default_namespace",
    "default_pod",
    "validate_job_spec",
    "validate_job_update",
    "validate_mirror_pod",
    "validate_namespace",
    "validate_pod_images",
    "validate_pod_spec",
]

NAME_LABEL: Final = "kubernetes.io/metadata.name"
CONTROLLER_UID: Final = "batch.kubernetes.io/controller-uid"
JOB_NAME: Final = "batch.kubernetes.io/job-name"
_JOB_RESTART: Final = ["OnFailure", "Never"]  # in batch validation's order


def _default(obj: dict[str, Any], key: str, value: Any) -> None:
    if obj.get(key) is None:
        obj[key] = value


def _image_pull_policy(image: Any) -> str:
    """``Always`` for an untagged or ``:latest`` image, else ``IfNotPresent``."""
    if not isinstance(image, str) or "@" in image:
        return "IfNotPresent"
    tag = image.rpartition("/")[2].partition(":")[2]
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def _default_container(container: dict[str, Any]) -> None:
    _default(container, "terminationMessagePath", "/dev/termination-log")
    _default(container, "terminationMessagePolicy", "File")
    _default(container, "imagePullPolicy", _image_pull_policy(container.get("image")))
    _default(container, "resources", {})


def _containers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        container
        for key in ("containers", "initContainers")
        for container in items(spec.get(key))
        if isinstance(container, dict)
    ]


def default_pod_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_PodSpec`` and the container defaults: what a pod template gets too."""
    _default(spec, "restartPolicy", "Always")
    _default(spec, "terminationGracePeriodSeconds", 30)
    _default(spec, "dnsPolicy", "ClusterFirst")
    _default(spec, "securityContext", {})
    _default(spec, "schedulerName", "default-scheduler")
    for container in _containers(spec):
        _default_container(container)


def _default_pod_only(spec: dict[str, Any]) -> None:
    """``SetDefaults_Pod``: what a Pod gets and a pod template does not (upstream keeps new
    defaults out of ``SetDefaults_PodSpec`` so that templates stay as written): each
    container's and init container's requests default to its limits, ``enableServiceLinks``
    to true, and with ``hostNetwork`` each container port's ``hostPort`` to its
    ``containerPort``."""
    for container in _containers(spec):
        resources = container.get("resources")
        limits = resources.get("limits") if isinstance(resources, dict) else None
        if isinstance(resources, dict) and isinstance(limits, dict) and limits:
            requests = resources.get("requests")
            requests = dict(requests) if isinstance(requests, dict) else {}
            # a Go map: written in key order
            resources["requests"] = dict(sorted({**limits, **requests}.items()))
    _default(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        for container in _containers(spec):
            for port in items(container.get("ports")):
                if (
                    isinstance(port, dict)
                    and not port.get("hostPort")
                    and port.get("containerPort")
                ):
                    port["hostPort"] = port["containerPort"]


def _qos_class(spec: Obj) -> str:
    """``BestEffort`` without requests or limits; ``Guaranteed`` when every container limits
    CPU and memory and requests equal limits; else ``Burstable``."""
    containers = [mapping(c) for c in items(spec.get("containers"))]
    resources = [mapping(c.get("resources")) for c in containers]
    if not any(mapping(r.get("requests")) or mapping(r.get("limits")) for r in resources):
        return "BestEffort"
    for r in resources:
        limits, requests = mapping(r.get("limits")), mapping(r.get("requests"))
        if not all(k in limits for k in ("cpu", "memory")):
            return "Burstable"
        if any(requests.get(k, limits[k]) != limits[k] for k in ("cpu", "memory")):
            return "Burstable"
    return "Guaranteed"


def default_pod(obj: dict[str, Any], *, creating: bool) -> None:
    """A Pod's spec defaults; on create ``status.phase: Pending`` and its QoS class."""
    spec = obj.get("spec")
    if isinstance(spec, dict):
        default_pod_spec(spec)
        _default_pod_only(spec)
    if creating:
        obj["status"] = {"phase": "Pending", "qosClass": _qos_class(mapping(spec))}


def default_namespace(obj: dict[str, Any], *, creating: bool) -> None:
    """The ``kubernetes`` finalizer, phase ``Active`` and the name label."""
    meta = obj.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("name"), str):
        labels = meta.get("labels")
        labels = dict(labels) if isinstance(labels, dict) else {}
        labels[NAME_LABEL] = meta["name"]
        meta["labels"] = labels
    spec = obj.setdefault("spec", {})
    if isinstance(spec, dict) and creating:
        _default(spec, "finalizers", ["kubernetes"])
    if creating:
        obj["status"] = {"phase": "Active"}


def default_job(obj: dict[str, Any], *, creating: bool) -> None:
    """``SetDefaults_Job``, the pod template's defaults and, on create, the generated
    selector and labels keyed by the Job's UID."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    _default(spec, "parallelism", 1)
    _default(spec, "backoffLimit", 2**31 - 1 if spec.get("backoffLimitPerIndex") is not None else 6)
    _default(spec, "completionMode", "NonIndexed")
    _default(spec, "suspend", False)
    if spec.get("podFailurePolicy") is None:
        _default(spec, "podReplacementPolicy", "TerminatingOrFailed")
    _default(spec, "manualSelector", False)
    template = spec.get("template")
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        default_pod_spec(template["spec"])
    meta = mapping(obj.get("metadata"))
    if creating and isinstance(template, dict) and not spec.get("manualSelector"):
        uid, name = meta.get("uid"), meta.get("name")
        generated = {CONTROLLER_UID: uid, JOB_NAME: name, "controller-uid": uid, "job-name": name}
        tmeta = template.setdefault("metadata", {})
        if isinstance(tmeta, dict):
            labels = tmeta.get("labels")
            tmeta["labels"] = {**(labels if isinstance(labels, dict) else {}), **generated}
            if not meta.get("labels") and isinstance(obj.get("metadata"), dict):
                obj["metadata"]["labels"] = dict(tmeta["labels"])
        _default(spec, "selector", {"matchLabels": {CONTROLLER_UID: uid}})
    if creating:
        obj["status"] = {}


def validate_pod_spec(path: str, spec: Any) -> Errs:
    """What tests get wrong most: no containers, a container without name or image."""
    errs: Errs = []
    containers = items(mapping(spec).get("containers"))
    if not containers:
        return [required(child(path, "containers"))]
    for i, container in enumerate(containers):
        c = mapping(container)
        at = index(child(path, "containers"), i)
        if not c.get("name"):
            errs.append(required(child(at, "name")))
        if not c.get("image"):
            errs.append(required(child(at, "image")))
    return errs


MIRROR_ANNOTATION: Final = "kubernetes.io/config.mirror"


def validate_mirror_pod(obj: Obj) -> Errs:
    """``ValidatePodSpecificAnnotations``' first rule: a mirror pod names its node."""
    annotations = mapping(mapping(obj.get("metadata")).get("annotations"))
    if MIRROR_ANNOTATION not in annotations or mapping(obj.get("spec")).get("nodeName"):
        return []
    at = f"metadata.annotations[{MIRROR_ANNOTATION}]"  # as field.Path.Key writes a map key
    detail = "must set spec.nodeName if mirror pod annotation is set"
    return [invalid(at, annotations[MIRROR_ANNOTATION], detail, ratchet=False)]


def validate_pod_images(spec: Any) -> Errs:
    """A pod's own check beyond its template's (``validateContainersOnlyForPod``): no image
    with leading or trailing whitespace."""
    errs: Errs = []
    for key in ("containers", "initContainers"):
        for i, container in enumerate(items(mapping(spec).get(key))):
            image = mapping(container).get("image")
            if isinstance(image, str) and image.strip() != image:
                at = child(index(child("spec", key), i), "image")
                errs.append(invalid(at, image, "must not have leading or trailing whitespace"))
    return errs


def validate_job_spec(spec: Any) -> Errs:
    """The pod template as a Job's: its pods restart ``OnFailure`` or ``Never`` (a missing or
    ``Always`` policy is Required, as batch validation words it, since defaulting made it
    ``Always``); with a ``podFailurePolicy`` only ``Never``."""
    template_spec = mapping(mapping(mapping(spec).get("template")).get("spec"))
    errs = validate_pod_spec("spec.template.spec", template_spec)
    policy = template_spec.get("restartPolicy")
    path = "spec.template.spec.restartPolicy"
    if policy in ("Always", "", None):
        errs.append(required(path, 'valid values: "OnFailure", "Never"'))
    elif policy not in _JOB_RESTART:
        errs.append(not_supported(path, policy, _JOB_RESTART))
    elif mapping(spec).get("podFailurePolicy") is not None and policy != "Never":
        errs.append(
            invalid(path, policy, 'only "Never" is supported when podFailurePolicy is specified')
        )
    return errs


def validate_job_update(obj: Obj, old: Obj) -> Errs:
    """``ValidateJobSpecUpdate``: the pod template is immutable, except its scheduling
    directives while the Job is suspended and has never started (the Job strategy's
    ``AllowMutableSchedulingDirectives``)."""
    template = mapping(obj.get("spec")).get("template")
    old_template = mapping(old.get("spec")).get("template")
    suspended = mapping(old.get("spec")).get("suspend") is True
    if suspended and mapping(old.get("status")).get("startTime") is None:
        old_template = _with_scheduling_directives(mapping(old_template), mapping(template))
    if normal("PodTemplateSpec", template) == normal("PodTemplateSpec", old_template):
        return []
    rendered = Marshalled(internal_json("PodTemplateSpec", template))
    return [invalid("spec.template", rendered, IMMUTABLE, ratchet=False)]


_MUTABLE_WHILE_SUSPENDED: Final = {
    "metadata": ("labels", "annotations"),
    "spec": ("nodeSelector", "tolerations", "schedulingGates"),
}


def _with_scheduling_directives(old: Obj, new: Obj) -> Obj:
    """``old`` with ``new``'s labels, annotations, node selector, tolerations, scheduling gates
    and node affinity (an affinity with nothing else may come or go), as batch validation
    munges the old template before comparing."""
    munged = {**old}
    for part, keys in _MUTABLE_WHILE_SUSPENDED.items():
        section = {**mapping(old.get(part)), **{k: mapping(new.get(part)).get(k) for k in keys}}
        munged[part] = {k: v for k, v in section.items() if v is not None}
    new_affinity = mapping(new.get("spec")).get("affinity")
    old_affinity = munged["spec"].get("affinity")
    if new_affinity is None and old_affinity is not None:
        rest = {k: v for k, v in mapping(old_affinity).items() if k != "nodeAffinity"}
        kept = {k: v for k, v in rest.items() if v is not None}
        munged["spec"] = {**munged["spec"], "affinity": kept or None}
    elif new_affinity is not None:
        node = mapping(new_affinity).get("nodeAffinity")
        base = {} if old_affinity is None else mapping(old_affinity)
        merged = {k: v for k, v in {**base, "nodeAffinity": node}.items() if v is not None}
        munged["spec"] = {**munged["spec"], "affinity": merged}
    munged["spec"] = {k: v for k, v in munged["spec"].items() if v is not None}
    if not munged["metadata"] and "metadata" not in old:
        del munged["metadata"]
    return munged


def validate_namespace(obj: Obj) -> Errs:
    """A Namespace is named as a DNS label."""
    name = mapping(obj.get("metadata")).get("name")
    return short_name("metadata.name", name) if isinstance(name, str) and name else []
