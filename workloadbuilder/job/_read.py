"""Read the parts of a batch/v1 Job the Job controller looks at, from any Job-like input.

A Job arrives as a dict, an official-client ``V1Job`` or a lightkube ``Job``. Only the fields
the controller reads are parsed; every other field is ignored, as a controller ignores fields
it does not use. A wrong shape in a field that is read is a ``BuildError`` whose ``errors``
name the field (``spec.parallelism: Invalid value: "8": ...``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, ValidationError, field_validator

from ..api import K8sModel
from ..api.batch_v1 import JobSchedulingConfiguration
from ..api.meta_v1 import OwnerReference
from ..api.sdk import Int32, Str
from ..builder import BuildError
from ..field import OMIT_VALUE, ErrorList, FieldError, FieldPath

__all__ = ["JobView", "as_document", "check_bounded", "read_job"]

MAX_DEPTH = 64
MAX_NODES = 100_000

# The parts of a Job the controller reads: only they are parsed (and must be bounded).
_READ_PARTS = (
    ("apiVersion",),
    ("kind",),
    ("metadata", "name"),
    ("metadata", "namespace"),
    ("metadata", "uid"),
    ("metadata", "annotations"),
    ("metadata", "ownerReferences"),
    ("spec", "parallelism"),
    ("spec", "completions"),
    ("spec", "completionMode"),
    ("spec", "scheduling"),
    ("spec", "template", "spec", "priorityClassName"),
    ("status", "succeeded"),
    ("status", "failed"),
    ("status", "failedIndexes"),
    ("status", "conditions"),
)


def _text(value: str | None) -> str | None:
    """A name or UID must be text the API server can carry: no lone surrogates."""
    if value is not None:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("must be valid UTF-8 text (it holds a lone surrogate)") from None
    return value


class _Read(K8sModel):
    """A part of a Job of which only some fields are read; the others are ignored."""

    model_config = ConfigDict(extra="ignore")


class JobMeta(_Read):
    name: Str | None = None
    namespace: Str | None = None
    uid: Str | None = None
    annotations: dict[Str, Str] | None = None
    owner_references: list[OwnerReference] | None = None

    _utf8 = field_validator("name", "namespace", "uid")(_text)

    def controller(self) -> OwnerReference | None:
        """The owner reference marked ``controller: true`` (the first one), as
        ``metav1.GetControllerOf``."""
        return next((r for r in self.owner_references or () if r.controller), None)


class JobPodSpec(_Read):
    priority_class_name: Str | None = None
    scheduling_group: Any = None  # only whether it is set matters


class JobPodTemplate(_Read):
    spec: JobPodSpec | None = None


class JobSpec(_Read):
    parallelism: Int32 | None = None
    completions: Int32 | None = None
    completion_mode: Str | None = None
    scheduling: JobSchedulingConfiguration | None = None
    template: JobPodTemplate | None = None


class JobCondition(_Read):
    type: Str


class JobStatus(_Read):
    start_time: Any = None  # only whether it is set matters
    succeeded: Int32 | None = None
    failed: Int32 | None = None
    failed_indexes: Str | None = None
    conditions: list[JobCondition] | None = None


class JobView(_Read):
    """What the Job controller reads of a Job."""

    api_version: Str | None = None
    kind: Str | None = None
    metadata: JobMeta | None = None
    spec: JobSpec | None = None
    status: JobStatus | None = None

    @property
    def meta(self) -> JobMeta:
        return self.metadata or JobMeta()

    @property
    def job_spec(self) -> JobSpec:
        return self.spec or JobSpec()

    @property
    def pod_spec(self) -> JobPodSpec:
        template = self.job_spec.template
        return (template.spec if template is not None else None) or JobPodSpec()

    @property
    def job_status(self) -> JobStatus:
        return self.status or JobStatus()

    @property
    def name(self) -> str:
        return self.meta.name or ""

    @property
    def namespace(self) -> str:
        return self.meta.namespace or ""

    @property
    def uid(self) -> str:
        return self.meta.uid or ""

    def owner_reference(self) -> OwnerReference:
        """The controller reference a Workload or PodGroup of this Job carries."""
        return OwnerReference(
            api_version="batch/v1",
            kind="Job",
            name=self.name,
            uid=self.uid,
            controller=True,
            block_owner_deletion=True,
        )

    def require_identity(self) -> None:
        """A Job read from the API server has a name and a UID; the names depend on them."""
        if not self.name or not self.uid:
            raise ValueError(
                "the Job needs metadata.name and metadata.uid (read it from the API server)"
            )


def as_document(obj: object, what: str) -> Mapping[str, Any]:
    """The Kubernetes JSON of a dict, a pydantic model (official client) or a lightkube object."""
    if isinstance(obj, Mapping):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        result = dump(by_alias=True, exclude_none=True, mode="json")
        if isinstance(result, Mapping):
            return result
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict) and getattr(obj, "kind", None) is not None:
        result = to_dict()
        if isinstance(result, Mapping):
            return result
    raise TypeError(
        f"{what} must be a dict, an official-client model or a lightkube object,"
        f" not {type(obj).__name__}"
    )


def check_bounded(value: object, path: FieldPath | None) -> ErrorList:
    """An error when ``value`` nests deeper than ``MAX_DEPTH`` or holds more than ``MAX_NODES``
    values (a cyclic or alias-expanded YAML document): such a value is never a Job's field,
    and rendering it would not end."""
    stack: list[tuple[object, int]] = [(value, 0)]
    nodes = 0
    while stack:
        current, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            detail = (
                f"must not nest more than {MAX_DEPTH} levels deep"
                if depth > MAX_DEPTH
                else f"must not hold more than {MAX_NODES} values"
            )
            return ErrorList([FieldError.invalid(path, OMIT_VALUE, detail)])
        if isinstance(current, Mapping):
            stack.extend((v, depth + 1) for v in current.values())
        elif isinstance(current, (list, tuple)):
            stack.extend((v, depth + 1) for v in current)
    return ErrorList()


def _read_parts_bounded(doc: Mapping[str, Any]) -> ErrorList:
    errors = ErrorList()
    for part in _READ_PARTS:
        value: object = doc
        for key in part:
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is not None:
            errors.extend(check_bounded(value, FieldPath(*part)))
    return errors


def read_job(job: object, what: str = "job") -> JobView:
    """The parts of ``job`` the Job controller reads.

    Raises ``TypeError`` for something that is not a Job at all, and ``BuildError`` (a
    ``ValueError``) whose ``errors`` name each malformed field.
    """
    if isinstance(job, JobView):
        return job
    doc = as_document(job, what)
    unbounded = _read_parts_bounded(doc)
    if unbounded:
        raise BuildError(f"the {what} is malformed: {unbounded}", unbounded)
    try:
        view = JobView.model_validate(doc)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, None, model=JobView)
        raise BuildError(f"the {what} is malformed: {errors}", errors) from None
    wrong = ErrorList()
    if view.api_version not in (None, "batch/v1"):
        wrong.append(
            FieldError.not_supported(FieldPath("apiVersion"), view.api_version, ["batch/v1"])
        )
    if view.kind not in (None, "Job"):
        wrong.append(FieldError.not_supported(FieldPath("kind"), view.kind, ["Job"]))
    if wrong:
        raise BuildError(f"the {what} is not a batch/v1 Job: {wrong}", wrong)
    return view
