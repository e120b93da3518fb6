"""A parsed spec file: its tree and options, its errors at the spec's own paths and lines.

A spec file (``apiVersion: workloadbuilder.dev/v1alpha1``, ``kind: WorkloadSpec``) is read by
:func:`load_spec` (the hardened reader), checked against the schema and mapped to a tree; every
error is reported at the spec's own path (``spec.root.children[1].schedulingPolicy.gang.minCount``)
and with the file and line it comes from.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic

from ..api.scheduling_v1beta1 import Workload
from ..builder import Builder, BuildError
from ..execution import Release, RuntimeObject
from ..field import ErrorList, FieldError, FieldPath
from ..item import WorkloadItem
from ..options import BuildOptions
from .mapping import build_options, tops, tree, walk
from .reader import DocumentError, read_located
from .schema import SpecComposite, SpecLeaf, WorkloadSpecFile

__all__ = ["LoadedSpec", "SpecError", "load_spec", "parse_spec"]


class SpecError(ValueError):
    """A spec file that cannot be read or is invalid: ``errors`` at the spec's own paths, or
    ``document_error``, a :class:`DocumentError` of the file as a whole (not YAML, not an
    object; ``errors`` then holds it at no field).

    ``str()`` gives one line per error, each prefixed with ``FILE:LINE:``.
    """

    def __init__(
        self,
        source: str,
        errors: ErrorList,
        lines: Mapping[str, int],
        *,
        document_error: DocumentError | None = None,
    ) -> None:
        self.source = source
        self.errors = errors
        self.lines = dict(lines)
        self.document_error = document_error
        super().__init__("\n".join(self.located()))

    def located(self) -> list[str]:
        """Each error as ``FILE:LINE: <apimachinery rendering>``, on one line: a line break or
        another control character (in a key, say) is written as its escape (``\\r``). A problem
        of the file as a whole is one line ``FILE:LINE[:COLUMN]: MESSAGE``: it has no field."""
        if self.document_error is not None:
            return [_one_line(self.document_error.located(self.source))]
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
        options = dataclasses.replace(self.options, check_satisfiable_counts=False)
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
            yield from walk(body.root, FieldPath("spec", "root"), 0)
        for path, node in tops(body.roots or []):
            yield from walk(node, path, 0)


def parse_spec(
    data: Any, *, source: str = "<spec>", lines: Mapping[str, int] | None = None
) -> LoadedSpec:
    """A spec from its parsed YAML/JSON; :class:`SpecError` at the spec's paths if malformed."""
    where = dict(lines or {})
    if not isinstance(data, Mapping):
        shape = _SHAPES.get(type(data), "empty" if data is None else "a scalar")
        problem = DocumentError(where.get("", 1), f"the document must be an object, not {shape}")
        raise SpecError(
            source,
            ErrorList([FieldError.type_invalid(None, data, "must be of type object")]),
            where,
            document_error=problem,
        )
    try:
        document = WorkloadSpecFile.model_validate(data)
    except pydantic.ValidationError as exc:
        raise SpecError(
            source, ErrorList.from_pydantic(exc, model=WorkloadSpecFile), where
        ) from None
    body = document.spec
    options = build_options(body)
    if (body.root is None) == (body.roots is None):
        detail = "give the tree's root group, or roots: several independent groups (not both)"
        error = FieldError.required(FieldPath("spec", "root"), detail)
        raise SpecError(source, ErrorList([error]), where)
    root = tree(body)
    return LoadedSpec(source=source, document=document, root=root, options=options, lines=where)


_SHAPES = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
"""What a document that is not an object is, in JSON's words."""


def load_spec(path: str | Path) -> LoadedSpec:
    """Read a spec file (YAML or JSON). Raises :class:`SpecError` with file and line numbers.

    The file is read as :func:`read_documents` reads one; its :class:`DocumentError` is a
    ``SpecError`` at the line concerned. ``OSError`` is left to the caller (a missing or
    unreadable file).
    """
    source = str(path)
    raw = Path(path).read_bytes()
    try:
        data, lines = read_located(raw)
    except DocumentError as exc:
        error = FieldError.invalid(None, None, exc.message)
        raise SpecError(source, ErrorList([error]), {"": exc.line}, document_error=exc) from None
    return parse_spec(data, source=source, lines=lines)


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
