"""What each command on the cluster sends, as the SDK verbs of ``aio.required_rules``.

The one list of the commands ``workloadbuilder rbac`` takes: its help, its error for an
unknown verb and docs/cli.md are read from :data:`COMMAND_VERBS`. (``workloadbuilder.aio``
is imported only when the verbs are resolved: the offline commands start without it.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

__all__ = ["COMMANDS", "COMMAND_VERBS", "role_manifests", "sdk_verbs"]

COMMAND_VERBS: Final[Mapping[str, tuple[str, ...]]] = {
    "apply": ("preflight", "apply"),
    "delete": ("read_object", "delete"),  # the Workload is read first: "not found" is an error
    "diagnose": ("diagnose",),
    "inspect": ("audit",),
    "status": ("diagnose", "list_objects"),  # the Workload's groups are listed
}
"""Each command on the cluster and the SDK verbs it runs (a command's name wins over the
SDK verb of the same name: it runs that verb and more)."""

COMMANDS: Final[str] = ", ".join(COMMAND_VERBS)
"""The commands, as the help and the errors list them."""


def sdk_verbs(words: Iterable[str]) -> tuple[str, ...]:
    """The SDK verbs that ``words`` (commands, or SDK verbs as ``aio.VERBS`` names them, with
    ``-`` for ``_``) run; ``ValueError`` naming every known word for any other."""
    from ..aio import VERBS

    found: list[str] = []
    for word in words:
        key = word.strip()
        if key in COMMAND_VERBS:
            found.extend(COMMAND_VERBS[key])
        elif key.replace("-", "_") in VERBS:
            found.append(key.replace("-", "_"))
        else:
            sdk = ", ".join(v.replace("_", "-") for v in VERBS)
            raise ValueError(
                f"unknown verb {word!r}: give a command ({COMMANDS}) or an SDK verb ({sdk})"
            )
    return tuple(dict.fromkeys(found))


def role_manifests(
    words: Iterable[str],
    service_account: str,
    namespace: str | None,
    name: str,
    cache_kinds: Sequence[str] | None,
    sa_namespace: str,
) -> list[dict[str, Any]]:
    """The Role (a ClusterRole when ``namespace`` is ``None``) that ``words`` need, and its
    binding to ``service_account`` of ``sa_namespace``; ``ValueError`` for an unknown word or
    cache kind."""
    from ..aio import required_rules

    permissions = required_rules(
        *sdk_verbs(words), namespace=namespace, cache_kinds=cache_kinds or None
    )
    return permissions.manifests(service_account, name=name, sa_namespace=sa_namespace)
