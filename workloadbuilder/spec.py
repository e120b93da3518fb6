"""Spec files: a WorkloadItem tree, the controller's capabilities and the naming inputs in YAML.

A spec file (``apiVersion: workloadbuilder.dev/v1alpha1``, ``kind: WorkloadSpec``) holds the
v1alpha3 building blocks exactly as a controller's own API embeds them, so every error is
reported at the spec's own path (``spec.root.children[1].schedulingPolicy.gang.minCount``)
and, by :func:`load_spec`, with the file and line it comes from.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
import yaml
from pydantic import ConfigDict, Discriminator, Field, StrictInt, Tag

from .api.meta_v1 import OwnerReference
from .api.scheduling_v1alpha3 import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)
from .api.scheduling_v1beta1 import Workload
from .api.sdk import K8sModel, OptList, OptMap, Str
from .builder import Builder, BuildError
from .execution import Release, RuntimeObject
from .field import ErrorList, FieldError, FieldPath
from .item import WorkloadItem
from .naming import generate_workload_name
from .options import BuildOptions, DisruptionModeOption, SchedulingPolicyOption
from .shorthands import composite, leaf

__all__ = [
    "API_VERSION",
    "KIND",
    "MAX_ALIASED_VALUES",
    "MAX_NESTING",
    "DocumentError",
    "LoadedSpec",
    "SpecError",
    "WorkloadSpecFile",
    "load_spec",
    "parse_spec",
    "read_documents",
    "spec_json_schema",
]

API_VERSION = "workloadbuilder.dev/v1alpha1"
KIND = "WorkloadSpec"


class _SpecModel(K8sModel):
    """A part of a spec file; attribute docstrings become the schema's descriptions."""

    model_config = ConfigDict(use_attribute_docstrings=True)


class SpecOwner(_SpecModel):
    """The controller's object that owns the Workload (garbage collection follows it)."""

    api_version: Str
    kind: Str
    name: Str
    uid: Str


class SpecCapabilities(_SpecModel):
    """What the controller supports; deny by default (an empty list allows nothing)."""

    policies: list[SchedulingPolicyOption]
    disruption_modes: list[DisruptionModeOption]


class SpecLeaf(_SpecModel):
    """A pod group (a PodGroupTemplate): no ``children``."""

    name: Str
    """The template's name: a DNS label, unique across the tree."""
    scheduling_policy: WorkloadPodGroupSchedulingPolicy | None = None
    scheduling_constraints: WorkloadPodGroupSchedulingConstraints | None = None
    disruption_mode: WorkloadPodGroupDisruptionMode | None = None
    resource_claims: OptList[WorkloadPodGroupResourceClaim] = None
    priority_class_name: Str = ""
    replicas: Annotated[StrictInt, Field(ge=0)] | None = None
    """How many pods the controller creates for the group (``explain``, ``simulate``, and
    ``validate``: a gang ``minCount`` above it can never form)."""
    resources: OptMap[Str | StrictInt] = None
    """Each pod's resource requests, e.g. ``{cpu: "2", nvidia.com/gpu: 1}`` (``simulate``)."""


class SpecComposite(_SpecModel):
    """A group of groups (a CompositePodGroupTemplate): one or more ``children``."""

    name: Str
    scheduling_policy: WorkloadCompositePodGroupSchedulingPolicy | None = None
    scheduling_constraints: WorkloadCompositePodGroupSchedulingConstraints | None = None
    disruption_mode: WorkloadCompositePodGroupDisruptionMode | None = None
    priority_class_name: Str = ""
    children: Annotated[list[SpecNode], Field(min_length=1)]
    """The child groups: leaves (no ``children``) or composites."""


def _node_kind(value: Any) -> str:
    has_children = isinstance(value, Mapping) and "children" in value
    if isinstance(value, SpecComposite):
        has_children = True
    return "SpecComposite" if has_children else "SpecLeaf"


SpecNode = Annotated[
    Annotated[SpecLeaf, Tag("SpecLeaf")] | Annotated[SpecComposite, Tag("SpecComposite")],
    Discriminator(_node_kind),
]


class SpecBody(_SpecModel):
    """Naming inputs, capabilities and the tree."""

    namespace: Str
    """The namespace of the Workload and its runtime objects."""
    owner: SpecOwner
    workload_name: Str | None = None
    """Defaults to ``generate_workload_name(owner.name, owner.uid)``, as the Job controller."""
    capabilities: SpecCapabilities
    root: SpecNode | None = None
    """The tree's root group (or give ``roots``)."""
    roots: Annotated[list[SpecNode], Field(min_length=1)] | None = None
    """Independent groups, one template each of the Workload's own list (``podGroupTemplates``
    for leaves: a cluster without the CompositePodGroup gate runs them); instead of ``root``."""


class WorkloadSpecFile(_SpecModel):
    """A ``WorkloadSpec`` document."""

    api_version: Literal["workloadbuilder.dev/v1alpha1"]
    kind: Literal["WorkloadSpec"]
    spec: SpecBody


SpecComposite.model_rebuild()
SpecBody.model_rebuild()
WorkloadSpecFile.model_rebuild()


def spec_json_schema() -> dict[str, Any]:
    """The JSON Schema of a spec file (draft 2020-12), for editors and linters."""
    schema = WorkloadSpecFile.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://workloadbuilder.dev/schemas/v1alpha1/workloadspec.json",
        **schema,
    }


class SpecError(ValueError):
    """A spec file that cannot be read or is invalid: ``errors`` at the spec's own paths.

    ``str()`` gives one line per error, each prefixed with ``FILE:LINE:``.
    """

    def __init__(self, source: str, errors: ErrorList, lines: Mapping[str, int]) -> None:
        self.source = source
        self.errors = errors
        self.lines = dict(lines)
        super().__init__("\n".join(self.located()))

    def located(self) -> list[str]:
        """Each error as ``FILE:LINE: <apimachinery rendering>``, on one line: a line break or
        another control character (in a key, say) is written as its escape (``\\r``)."""
        return [_one_line(f"{self.source}:{_line_of(e, self.lines)}: {e}") for e in self.errors]


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one_line(text: str) -> str:
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


@dataclass(frozen=True)
class LoadedSpec:
    """A parsed spec: its document, its tree and options, and where each path sits in the file."""

    source: str
    document: WorkloadSpecFile
    root: WorkloadItem | tuple[WorkloadItem, ...]
    """The tree, or the independent roots of ``spec.roots``."""
    options: BuildOptions
    lines: Mapping[str, int] = field(default_factory=dict)

    def builder(self) -> Builder:
        """A Builder over the spec's tree and options."""
        return Builder(self.root, self.options)

    def validate(self) -> ErrorList:
        """Every error of the spec at its own paths (empty when it is valid).

        The errors come from ``Builder.validate()``; the Workload's name and namespace are
        reported at ``spec.workloadName`` (or ``spec.owner.name``) and ``spec.namespace``, what
        the API server would refuse of the owner (its reference, the Workload's
        ``controllerRef``) at ``spec.owner``, once per field.
        """
        return self._checked(self.builder())

    def _checked(self, builder: Builder) -> ErrorList:
        """:meth:`validate` with ``builder``, which then releases without checking again."""
        errors = ErrorList()
        owner_fields: set[str] = set()
        for error in map(self._relocated, builder.validate()):
            if error.field.startswith("spec.owner."):
                if error.field in owner_fields:
                    continue
                owner_fields.add(error.field)
            errors.append(error)
        if errors:
            return errors
        try:
            builder.build_workload()
        except BuildError as exc:
            return exc.errors or ErrorList([FieldError.invalid(None, None, str(exc))])
        return errors

    def relaxed(self) -> LoadedSpec:
        """This spec without the rules on counts that can never be met, for the commands that
        tell those their own way (``explain``'s warnings, ``simulate``'s verdicts)."""
        o = self.options
        options = BuildOptions(
            o.name,
            o.namespace,
            o.owner,
            o.allowed_policies,
            o.allowed_disruption_modes,
            o.disable_declarative_validation,
            o.check_api_server_rules,
            check_satisfiable_counts=False,
        )
        return dataclasses.replace(self, options=options)

    def _relocated(self, error: FieldError) -> FieldError:
        named = "workloadName" if self.document.spec.workload_name else "owner.name"
        moved = {
            "metadata.name": f"spec.{named}",
            "metadata.namespace": "spec.namespace",
            "spec.controllerRef.apiGroup": "spec.owner.apiVersion",
            "spec.controllerRef.kind": "spec.owner.kind",
            "spec.controllerRef.name": "spec.owner.name",
        }
        if error.field in moved:
            return error.with_field(moved[error.field])
        reference = "metadata.ownerReferences[0]."
        if error.field.startswith(reference):
            return error.with_field("spec.owner." + error.field.removeprefix(reference))
        return error

    def error(self, errors: ErrorList) -> SpecError:
        """``errors`` located in this spec's file."""
        return SpecError(self.source, errors, self.lines)

    def objects(self) -> list[Workload | RuntimeObject]:
        """The Workload and every runtime object of one execution, parents first.

        Raises :class:`SpecError` when the spec does not validate.
        """
        return self.release().ordered

    def release(self) -> Release:
        """``Builder.release()`` of the spec: the Workload and its runtime objects, checked once.

        Raises :class:`SpecError` when the spec does not validate.
        """
        builder = self.builder()
        errors = self._checked(builder)
        if errors:
            raise self.error(errors)
        return builder.release()

    def nodes(self) -> Iterator[tuple[FieldPath, SpecLeaf | SpecComposite, int]]:
        """Every node of the tree with its path and depth (the root at 0), parents first."""
        body = self.document.spec
        if body.root is not None:
            yield from _walk(body.root, FieldPath("spec", "root"), 0)
        for path, node in _tops(body.roots or []):
            yield from _walk(node, path, 0)


def _walk(
    node: SpecLeaf | SpecComposite, path: FieldPath, depth: int
) -> Iterator[tuple[FieldPath, SpecLeaf | SpecComposite, int]]:
    yield path, node, depth
    if isinstance(node, SpecComposite):
        for i, child in enumerate(node.children):
            yield from _walk(child, path.child("children").index(i), depth + 1)


def _item(node: SpecLeaf | SpecComposite, path: FieldPath) -> WorkloadItem:
    topology = [t.key for t in (node.scheduling_constraints or _NO_CONSTRAINTS).topology or ()]
    if isinstance(node, SpecComposite):
        return composite(
            node.name,
            [_item(c, path.child("children").index(i)) for i, c in enumerate(node.children)],
            path=path,
            policy=node.scheduling_policy,
            disruption_mode=node.disruption_mode,
            topology=topology,
            priority_class_name=node.priority_class_name,
        )
    return leaf(
        node.name,
        path=path,
        policy=node.scheduling_policy,
        disruption_mode=node.disruption_mode,
        topology=topology,
        resource_claims=node.resource_claims or (),
        priority_class_name=node.priority_class_name,
        replicas=node.replicas,
    )


_NO_CONSTRAINTS = WorkloadPodGroupSchedulingConstraints()


def parse_spec(
    data: Any, *, source: str = "<spec>", lines: Mapping[str, int] | None = None
) -> LoadedSpec:
    """A spec from its parsed YAML/JSON; :class:`SpecError` at the spec's paths if malformed."""
    where = dict(lines or {})
    if not isinstance(data, Mapping):
        raise SpecError(
            source,
            ErrorList([FieldError.type_invalid(None, data, "must be of type object")]),
            where,
        )
    try:
        document = WorkloadSpecFile.model_validate(data)
    except pydantic.ValidationError as exc:
        raise SpecError(
            source, ErrorList.from_pydantic(exc, model=WorkloadSpecFile), where
        ) from None
    body = document.spec
    owner = OwnerReference(
        api_version=body.owner.api_version,
        kind=body.owner.kind,
        name=body.owner.name,
        uid=body.owner.uid,
        controller=True,
        block_owner_deletion=True,
    )
    named = body.owner.name and body.owner.uid  # else validate() reports the owner
    options = BuildOptions(
        name=body.workload_name
        or (generate_workload_name(body.owner.name, body.owner.uid) if named else ""),
        namespace=body.namespace,
        owner=owner,
        allowed_policies=frozenset(body.capabilities.policies),
        allowed_disruption_modes=frozenset(body.capabilities.disruption_modes),
    )
    if (body.root is None) == (body.roots is None):
        detail = "give the tree's root group, or roots: several independent groups (not both)"
        error = FieldError.required(FieldPath("spec", "root"), detail)
        raise SpecError(source, ErrorList([error]), where)
    root: WorkloadItem | tuple[WorkloadItem, ...] = (
        _item(body.root, FieldPath("spec", "root"))
        if body.root is not None
        else tuple(_item(n, p) for p, n in _tops(body.roots or []))
    )
    return LoadedSpec(source=source, document=document, root=root, options=options, lines=where)


def _tops(
    roots: list[SpecLeaf | SpecComposite],
) -> Iterator[tuple[FieldPath, SpecLeaf | SpecComposite]]:
    """Each of ``spec.roots`` with its path."""
    for i, node in enumerate(roots):
        yield FieldPath("spec", "roots").index(i), node


MAX_NESTING = 100
"""The deepest a spec file may nest mappings and lists (a tree of about 45 levels)."""

MAX_ALIASED_VALUES = 100_000
"""How many values YAML aliases may add to a spec file once expanded ("billion laughs")."""


def load_spec(path: str | Path) -> LoadedSpec:
    """Read a spec file (YAML or JSON). Raises :class:`SpecError` with file and line numbers.

    The file is read as :func:`read_documents` reads one; its :class:`DocumentError` is a
    ``SpecError`` at the line concerned. ``OSError`` is left to the caller (a missing or
    unreadable file).
    """
    source = str(path)
    raw = Path(path).read_bytes()
    try:
        data, lines = _read(_decoded(raw))
    except DocumentError as exc:
        error = FieldError.invalid(None, None, exc.message)
        raise SpecError(source, ErrorList([error]), {"": exc.line}) from None
    return parse_spec(data, source=source, lines=lines)


class DocumentError(ValueError):
    """A file that is not a readable YAML stream or JSON document: the 1-based ``line`` of the
    problem and its one-line ``message``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


def read_documents(raw: bytes) -> list[Any]:
    """The documents of a YAML stream, or the one of a JSON file, read safely.

    The file is UTF-8; JSON is read as JSON (which YAML 1.1 reads differently in places: tab
    indentation, escaped surrogate pairs). A file that is not valid YAML or JSON, nests deeper
    than :data:`MAX_NESTING`, contains itself through an alias or expands aliases to more than
    :data:`MAX_ALIASED_VALUES` values raises :class:`DocumentError`.
    """
    text = _decoded(raw)
    document = _json(text)
    if not isinstance(document, _NotJSON):
        return [document]
    try:
        _check_structure(text)
        return list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, text) from None


class _NotJSON:
    pass


def _decoded(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DocumentError(line, f"not valid UTF-8: {exc.reason} at byte {exc.start}") from None


def _json(text: str) -> Any:
    """The JSON document of ``text``, or a ``_NotJSON`` when it is not JSON."""
    try:
        document = json.loads(text)
    except RecursionError:
        raise DocumentError(1, f"nested deeper than {MAX_NESTING} levels") from None
    except ValueError:
        return _NotJSON()
    if _nesting(document) > MAX_NESTING:
        raise DocumentError(1, f"nested deeper than {MAX_NESTING} levels")
    return document


def _read(text: str) -> tuple[Any, dict[str, int]]:
    """The one document of ``text`` and the line of each of its paths."""
    document = _json(text)
    is_json = not isinstance(document, _NotJSON)
    try:
        _check_structure(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if not is_json:
            document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        if is_json:  # JSON that YAML 1.1 cannot read: no line numbers
            return document, {}
        raise _yaml_error(exc, text) from None
    lines = dict(_node_lines(node, "")) if node is not None else {}
    return document, lines


def _nesting(document: Any) -> int:
    """How deep lists and objects nest in a JSON document (iteratively: any depth)."""
    deepest = 0
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((v, depth) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


def _check_structure(text: str) -> None:
    """Nesting and aliases of a YAML stream, from its events (before anything recurses)."""
    open_nodes: list[list[Any]] = []  # [anchor, values] of each open collection
    sizes: dict[str, int] = {}  # values of each closed anchor
    aliased = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        line = event.start_mark.line + 1 if event.start_mark is not None else 1
        size = 0
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_nodes) >= MAX_NESTING:
                raise DocumentError(line, f"nested deeper than {MAX_NESTING} levels")
            open_nodes.append([event.anchor, 1])
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, size = open_nodes.pop()
            if anchor is not None:
                sizes[anchor] = size
        elif isinstance(event, yaml.ScalarEvent):
            size = 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            name = event.anchor or ""
            if any(anchor == name for anchor, _ in open_nodes):
                raise DocumentError(
                    line, f"not valid YAML: anchor {name!r} value contains itself (alias *{name})"
                )
            size = sizes.get(name, 1)  # an undefined alias is the composer's error
            aliased += size
            if aliased > MAX_ALIASED_VALUES:
                raise DocumentError(
                    line,
                    "not valid YAML: the aliases expand to more than"
                    f" {MAX_ALIASED_VALUES} values (excessive aliasing)",
                )
        if size and open_nodes:
            open_nodes[-1][1] += size


def _yaml_error(exc: yaml.YAMLError, text: str) -> DocumentError:
    return DocumentError(*_yaml_problem(exc, text))


def _yaml_problem(exc: yaml.YAMLError, text: str) -> tuple[int, str]:
    """The line and the one-line description (``not valid YAML: ...``) of a YAML error."""
    if isinstance(exc, yaml.reader.ReaderError):
        character = exc.character
        code = character if isinstance(character, int) else ord(character)
        line = text[: exc.position].count("\n") + 1
        return line, f"not valid YAML: unacceptable character #x{code:04x}: {exc.reason}"
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else 1
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    problem = ", ".join(p for p in parts if p) or str(exc).splitlines()[0]
    return line, f"not valid YAML: {problem}"


def _node_lines(node: yaml.Node, prefix: str) -> Iterator[tuple[str, int]]:
    """Each path in a composed YAML document with the 1-based line where it starts."""
    yield prefix, node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = str(key.value)
            path = name if not prefix else f"{prefix}.{name}"
            yield path, key.start_mark.line + 1
            for sub, line in _node_lines(value, path):
                if sub != path:
                    yield sub, line
    elif isinstance(node, yaml.SequenceNode):
        for i, value in enumerate(node.value):
            yield from _node_lines(value, f"{prefix}[{i}]")


def _line_of(error: FieldError, lines: Mapping[str, int]) -> int:
    """The line of the error's field, or of its nearest ancestor present in the file."""
    path = error.field
    while True:
        if path in lines:
            return lines[path]
        if not path:
            return 1
        cut = max(path.rfind("."), path.rfind("["))
        path = path[: max(cut, 0)]


def dump_schema() -> str:
    """The spec's JSON Schema as indented JSON."""
    return json.dumps(spec_json_schema(), indent=2, sort_keys=False) + "\n"
