"""meta/v1: the object metadata, owner references, conditions and Status the scheduling APIs use."""

from typing import Any, Literal

from pydantic import Field

from ._base import Bool, Int32, Int64, K8sModel, OptList, OptMap, Str, Time

__all__ = [
    "Condition",
    "ListMeta",
    "ManagedFieldsEntry",
    "ObjectMeta",
    "OwnerReference",
    "ShardInfo",
    "Status",
    "StatusCause",
    "StatusDetails",
]


class OwnerReference(K8sModel):
    """A reference to an owning object; garbage collection follows it."""

    api_version: Str
    kind: Str
    name: Str
    uid: Str
    controller: Bool | None = None
    block_owner_deletion: Bool | None = None


class ManagedFieldsEntry(K8sModel):
    """One field manager's set of owned fields, as server-side apply records it."""

    manager: Str | None = None
    operation: Str | None = None
    api_version: Str | None = None
    time: Time | None = None
    fields_type: Str | None = None
    fields_v1: dict[str, Any] | None = Field(default=None, alias="fieldsV1")
    subresource: Str | None = None


class ObjectMeta(K8sModel):
    """Standard object metadata."""

    name: Str | None = None
    generate_name: Str | None = None
    namespace: Str | None = None
    self_link: Str | None = None
    uid: Str | None = None
    resource_version: Str | None = None
    generation: Int64 | None = None
    creation_timestamp: Time | None = None
    deletion_timestamp: Time | None = None
    deletion_grace_period_seconds: Int64 | None = None
    labels: OptMap[Str] = None
    annotations: OptMap[Str] = None
    owner_references: OptList[OwnerReference] = None
    finalizers: OptList[Str] = None
    managed_fields: OptList[ManagedFieldsEntry] = None


class ShardInfo(K8sModel):
    """The shard selector a sharded list response was filtered by (gate ShardedListAndWatch)."""

    selector: Str


class ListMeta(K8sModel):
    """Metadata of a list response."""

    self_link: Str | None = None
    resource_version: Str | None = None
    continue_: Str | None = Field(default=None, alias="continue")
    remaining_item_count: Int64 | None = None
    shard_info: ShardInfo | None = None


class Condition(K8sModel):
    """One aspect of an object's current state (``metav1.Condition``)."""

    type: Str
    status: Literal["True", "False", "Unknown"]
    observed_generation: Int64 | None = None
    last_transition_time: Time
    reason: Str
    message: Str


class StatusCause(K8sModel):
    """One cause of a failed request, e.g. one invalid field."""

    reason: Str | None = None
    message: Str | None = None
    field: Str | None = None


class StatusDetails(K8sModel):
    """What a failed request was about."""

    name: Str | None = None
    group: Str | None = None
    kind: Str | None = None
    uid: Str | None = None
    causes: OptList[StatusCause] = None
    retry_after_seconds: Int32 | None = None


class Status(K8sModel):
    """The API server's answer to a failed request (or a successful delete)."""

    api_version: Literal["v1"] = "v1"
    kind: Literal["Status"] = "Status"
    metadata: ListMeta = Field(default_factory=ListMeta)
    status: Str | None = None
    message: Str | None = None
    reason: Str | None = None
    details: StatusDetails | None = None
    code: Int32 | None = None
