"""``ValidatePodUpdate``: what a Pod update may change (``pkg/apis/core/validation``).

In upstream's order, after the metadata and the new spec's own checks: the AppArmor and
mirror-pod annotations may not be added, changed or removed; containers and init containers
may not be added or removed (nothing else is checked then) and need an image without
surrounding spaces; ``activeDeadlineSeconds`` may only be set or lowered; tolerations may only
be added (an existing one may change only its ``tolerationSeconds``); scheduling gates may
only be removed. Then the rest of the spec, with the updatable fields taken from the old pod,
must equal the old spec as ``Semantic.DeepEqual`` compares (:mod:`.semantic`); a gated pod may
also add to its node selector and to its required node affinity's terms. Anything else is
one ``spec: Forbidden: pod updates may not change fields other than ...`` whose text after
the newline lists each changed field with its old and new value (upstream prints a
``cmp.Diff`` of the Go structs there, whose form go-cmp leaves unspecified).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from .builtin import MIRROR_ANNOTATION, validate_mirror_pod
from .common import Errs, Obj, items, mapping
from .errors import Marshalled, child, forbidden, index, invalid, render_value, required
from .gojson import marshal
from .internal_core import internal_json
from .semantic import MapKey, Path, differences, normal, v1_path

__all__ = ["NOT_UPDATABLE", "UPDATABLE_POD_SPEC_FIELDS", "validate_pod_update"]

UPDATABLE_POD_SPEC_FIELDS: Final = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
NOT_UPDATABLE: Final = "pod updates may not change fields other than " + ",".join(
    UPDATABLE_POD_SPEC_FIELDS
)
_MAX_INT32: Final = 2**31 - 1
_APPARMOR: Final = "container.apparmor.security.beta.kubernetes.io/"
_REQUIRED_TERMS: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_TERMS_PATH: Final = "spec.affinity.nodeAffinity." + _REQUIRED_TERMS + ".nodeSelectorTerms"


def validate_pod_update(obj: Obj, old: Obj) -> Errs:
    """The errors of updating the Pod ``old`` to ``obj``, in upstream's order."""
    errs = _annotation_updates(
        mapping(mapping(obj.get("metadata")).get("annotations")),
        mapping(mapping(old.get("metadata")).get("annotations")),
    )
    errs += validate_mirror_pod(obj)  # ValidatePodSpecificAnnotations, once more
    spec, old_spec = mapping(obj.get("spec")), mapping(old.get("spec"))
    if spec == old_spec:  # a metadata or status write: no rule below can fail
        return errs
    for key in ("containers", "initContainers"):
        found, stop = _container_updates(items(spec.get(key)), items(old_spec.get(key)), key)
        errs += found
        if stop:
            return errs
    found, stop = _active_deadline(spec.get("activeDeadlineSeconds"), old_spec)
    errs += found
    if stop:
        return errs
    errs += _only_added_tolerations(items(spec.get("tolerations")), old_spec)
    errs += _only_deleted_gates(items(spec.get("schedulingGates")), old_spec)
    before = normal("PodSpec", old_spec)
    if normal("PodSpec", spec) == before:
        return errs
    munged = _munged(spec, old_spec)
    if items(old_spec.get("schedulingGates")):
        errs += _gated(munged, old_spec)
    after = normal("PodSpec", munged)
    if after != before:
        changed = "\n".join(_changed(old_spec, munged, at) for at in differences(before, after))
        errs.append(forbidden("spec", f"{NOT_UPDATABLE}\n{changed}", ratchet=False))
    return errs


def _annotation_updates(new: Obj, old: Obj) -> Errs:
    """``ValidatePodSpecificAnnotationUpdates``: AppArmor and mirror-pod annotations stay."""
    errs: Errs = []
    changed = [(k, "remove or update") for k in sorted(old) if k not in new or new[k] != old[k]]
    added = [(k, "add") for k in sorted(new) if k not in old]
    for key, verb in changed + added:
        at = f"metadata.annotations[{key}]"  # as field.Path.Key writes a map key
        if key.startswith(_APPARMOR):
            errs.append(forbidden(at, f"may not {verb} AppArmor annotations", ratchet=False))
        if key == MIRROR_ANNOTATION:
            errs.append(forbidden(at, f"may not {verb} mirror pod annotation", ratchet=False))
    return errs


def _container_updates(new: list[Any], old: list[Any], key: str) -> tuple[Errs, bool]:
    """``ValidateContainerUpdates``: the same number of containers, each with an image."""
    path = child("spec", key)
    if len(new) != len(old):
        return [forbidden(path, "pod updates may not add or remove containers")], True
    errs: Errs = []
    for i, container in enumerate(new):
        image = mapping(container).get("image")
        at = child(index(path, i), "image")
        if not image:
            errs.append(required(at))
        elif isinstance(image, str) and image.strip() != image:
            errs.append(invalid(at, image, "must not have leading or trailing whitespace"))
    return errs, False


def _active_deadline(new: Any, old_spec: Obj) -> tuple[Errs, bool]:
    """Set from nil, or lowered; never cleared."""
    path, old = "spec.activeDeadlineSeconds", old_spec.get("activeDeadlineSeconds")
    if new is None:
        if old is None:
            return [], False
        detail = "must not update from a positive integer to nil value"
        return [invalid(path, None, detail, ratchet=False)], False
    if not isinstance(new, int) or isinstance(new, bool):
        return [], False
    if new < 0 or new > _MAX_INT32:
        detail = f"must be between 0 and {_MAX_INT32}, inclusive"
        return [invalid(path, new, detail, ratchet=False)], True
    if isinstance(old, int) and old < new:
        detail = "must be less than or equal to previous value"
        return [invalid(path, new, detail, ratchet=False)], True
    return [], False


def _only_added_tolerations(new: list[Any], old_spec: Obj) -> Errs:
    """Every old toleration is still there, but for its ``tolerationSeconds``."""
    kept = [_toleration(t) for t in new]
    for old in items(old_spec.get("tolerations")):
        if _toleration(old) not in kept:
            detail = "existing toleration can not be modified except its tolerationSeconds"
            return [forbidden("spec.tolerations", detail, ratchet=False)]
    return []


def _toleration(value: Any) -> dict[str, Any]:
    fields = normal("Toleration", value)
    fields.pop("tolerationSeconds")
    return fields


def _only_deleted_gates(new: list[Any], old_spec: Obj) -> Errs:
    """No scheduling gate that the old pod did not have."""
    added = {mapping(g).get("name"): i for i, g in enumerate(new)}
    for gate in items(old_spec.get("schedulingGates")):
        added.pop(mapping(gate).get("name"), None)
    return [
        forbidden(
            child(index("spec.schedulingGates", i), "name"),
            f"only deletion is allowed, but found new scheduling gate '{name}'",
            ratchet=False,
        )
        for name, i in added.items()
    ]


def _set(spec: Obj, key: str, value: Any) -> None:
    """``spec[key] = value``, a missing value staying missing."""
    if value is None:
        spec.pop(key, None)
    else:
        spec[key] = copy.deepcopy(value)


def _munged(spec: Obj, old_spec: Obj) -> Obj:
    """``spec`` with the updatable fields as the old spec has them."""
    munged = copy.deepcopy(spec)
    for key in ("containers", "initContainers"):
        for container, was in zip(items(munged.get(key)), items(old_spec.get(key)), strict=True):
            if isinstance(container, dict):
                _set(container, "image", mapping(was).get("image"))
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        _set(munged, key, old_spec.get(key))
    grace, old_grace = (
        munged.get("terminationGracePeriodSeconds"),
        old_spec.get("terminationGracePeriodSeconds"),
    )
    if isinstance(old_grace, int) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


def _gated(munged: Obj, old_spec: Obj) -> Errs:
    """A gated pod may add node selector entries and required node affinity expressions;
    checked, those two are then taken from the old spec (``munged`` is changed)."""
    errs: Errs = []
    selector, old_selector = (
        mapping(munged.get("nodeSelector")),
        mapping(old_spec.get("nodeSelector")),
    )
    if selector != old_selector:
        if any(k not in selector or selector[k] != v for k, v in old_selector.items()):
            value = Marshalled(marshal(munged["nodeSelector"])) if selector else None
            detail = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
            errs.append(invalid("spec.nodeSelector", value, detail, ratchet=False))
        _set(munged, "nodeSelector", old_spec.get("nodeSelector"))
    affinity, old_affinity = munged.get("affinity"), old_spec.get("affinity")
    new_node = mapping(affinity).get("nodeAffinity")
    old_node = mapping(old_affinity).get("nodeAffinity")
    if _node_affinity(new_node) == _node_affinity(old_node):
        return errs
    errs += _node_affinity_mutation(new_node, old_node)
    if affinity is None:
        if old_node is not None:
            munged["affinity"] = {"nodeAffinity": copy.deepcopy(old_node)}
    elif (
        old_affinity is None
        and mapping(affinity).get("podAffinity") is None
        and mapping(affinity).get("podAntiAffinity") is None
    ):
        munged.pop("affinity", None)
    elif isinstance(affinity, dict):
        _set(affinity, "nodeAffinity", old_node)
    return errs


def _node_affinity(value: Any) -> Any:
    return normal("NodeAffinity", value) if isinstance(value, dict) else value


def _node_affinity_mutation(new: Any, old: Any) -> Errs:
    """``validateNodeAffinityMutation``: with required terms, the same number of terms, each
    only gaining expressions and field expressions."""
    required_old = mapping(old).get(_REQUIRED_TERMS)
    if required_old is None:
        return []
    old_terms = items(mapping(required_old).get("nodeSelectorTerms"))
    new_terms = items(mapping(mapping(new).get(_REQUIRED_TERMS)).get("nodeSelectorTerms"))
    if old_terms and len(old_terms) != len(new_terms):
        rendered = Marshalled(_terms(new_terms)) if new_terms else None
        detail = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
        return [invalid(_TERMS_PATH, rendered, detail, ratchet=False)]
    return [
        invalid(
            index(_TERMS_PATH, i),
            Marshalled(internal_json("NodeSelectorTerm", new_terms[i])),
            "only additions are allowed (no mutations or deletions)",
            ratchet=False,
        )
        for i in range(len(old_terms))
        if not _only_additions(mapping(new_terms[i]), mapping(old_terms[i]))
    ]


def _terms(terms: list[Any]) -> str:
    return "[" + ",".join(internal_json("NodeSelectorTerm", t) for t in terms) + "]"


def _only_additions(new: Obj, old: Obj) -> bool:
    """The old term's expressions and field expressions start the new term's lists."""
    pairs = [(items(new.get(k)), items(old.get(k))) for k in ("matchExpressions", "matchFields")]
    if not any(o for _, o in pairs) and any(n for n, _ in pairs):
        return False
    for new_list, old_list in pairs:
        if old_list and (
            len(new_list) < len(old_list)
            or [normal("NodeSelectorRequirement", x) for x in new_list[: len(old_list)]]
            != [normal("NodeSelectorRequirement", x) for x in old_list]
        ):
            return False
    return True


def _changed(old_spec: Obj, munged: Obj, at: Path) -> str:
    """One line of the diff: ``spec.<path>: <old> -> <new>``."""
    where = v1_path("PodSpec", at)
    text = "spec"
    for segment in where:
        if isinstance(segment, int | MapKey):
            text += f"[{segment}]"
        else:
            text += f".{segment}"
    was, now = render_value(_at(old_spec, where)), render_value(_at(munged, where))
    return f"{text}: {was} -> {now}"


def _at(value: Any, where: Path) -> Any:
    for segment in where:
        if isinstance(segment, int):
            value = value[segment] if isinstance(value, list) and segment < len(value) else None
        else:
            value = value.get(segment) if isinstance(value, dict) else None
    return value
