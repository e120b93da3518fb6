"""Counts that can never be met: our rules, beyond upstream's layers and the API server's.

The API server accepts a gang whose ``minCount`` exceeds the pods its controller creates, and a
composite whose ``minGroupCount`` exceeds the child groups its controller creates; the
scheduler then waits for ever, as it first waits until ``minCount`` members exist and a
composite needs ``minGroupCount`` satisfiable children. Only counts the controller declared
(``WorkloadItem.replicas``, ``WorkloadItem.child_groups``) are bounds: the number of child
templates is none, as one template may stamp several child groups.
``BuildOptions.check_satisfiable_counts`` (on by default) has ``validate()`` report both at the
count's own path (moved to the controller's field by ``field_paths``, as every other error).
``docs/validation.md`` lists them.
"""

from __future__ import annotations

from typing import Final

from .config import SchedulingConfig
from .field import ErrorList, FieldError, FieldPath
from .item import WorkloadItem

__all__ = ["GANG_NEVER_FORMS", "GROUPS_NEVER_MET", "never_met_errors"]

GANG_NEVER_FORMS: Final = "the gang can never form"
GROUPS_NEVER_MET: Final = "it can never be met"


def never_met_errors(
    item: WorkloadItem, config: SchedulingConfig | None, policy_path: FieldPath
) -> ErrorList:
    """The count of ``item``'s resolved gang policy that can never be met, if any.

    A leaf's ``minCount`` is checked against its ``replicas``, a composite's ``minGroupCount``
    against its ``child_groups``, when the item gives them; otherwise nothing is known.
    """
    policy = config.policy if config is not None else None
    gang = policy.gang if policy is not None else None
    count = gang.min_count if gang is not None else None
    if type(count) is not int:
        return ErrorList()
    if item.child_groups is not None:
        limit, name = item.child_groups, "minGroupCount"
        detail = (
            f"must be no more than the {limit} child groups the controller creates:"
            f" {GROUPS_NEVER_MET}"
        )
    elif item.replicas is not None:
        limit, name = item.replicas, "minCount"
        detail = (
            f"must be no more than the {limit} replicas the controller creates: {GANG_NEVER_FORMS}"
        )
    else:
        return ErrorList()
    if count <= limit:
        return ErrorList()
    return ErrorList([FieldError.invalid(policy_path.child("gang", name), count, detail)])
