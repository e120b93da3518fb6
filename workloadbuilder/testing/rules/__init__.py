"""The API server's rules (defaulting and validation) as an implementation independent of the SDK.

``objects`` dispatches per kind; ``workload``, ``groups`` and ``core`` hold the per-kind rules,
``common`` the shared field checks, ``formats`` the name formats and ``errors`` the field errors
with upstream's messages; ``rbac`` the RBAC kinds' defaults and validation.
"""

from .objects import (
    POD_GROUP_PROTECTION,
    apply_defaults,
    drop_disabled_fields,
    has_status_subresource,
    validate_object,
)

__all__ = [
    "POD_GROUP_PROTECTION",
    "apply_defaults",
    "drop_disabled_fields",
    "has_status_subresource",
    "validate_object",
]
