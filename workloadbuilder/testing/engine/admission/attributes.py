"""What one admission call is about: kube-apiserver's ``admission.Attributes``
(``k8s.io/apiserver/pkg/admission``), and the two interfaces a plugin may implement."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from workloadbuilder.testing.common.resources import ResourceType

CREATE: Final = "CREATE"
UPDATE: Final = "UPDATE"
DELETE: Final = "DELETE"


@dataclass
class Attributes:
    """One write under admission.

    ``obj`` is the object being written (``None`` on a delete; mutating plugins change it in
    place), ``old`` the stored one (``None`` on a create). ``options`` is the request's
    ``CreateOptions`` / ``UpdateOptions`` / ``DeleteOptions`` as sent to webhooks.
    """

    operation: str
    rt: ResourceType
    namespace: str
    name: str
    obj: dict[str, Any] | None
    old: dict[str, Any] | None
    subresource: str = ""
    dry_run: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    """``Warning`` header texts plugins add (a webhook's ``response.warnings``)."""
    reinvoke: bool = False
    """Set by a plugin whose change calls for a second mutating round (``reinvocationPolicy``)."""
    reinvoking: bool = False
    """Whether the mutating phase runs its second round."""
    state: dict[str, Any] = field(default_factory=dict)
    """Plugins' own bookkeeping across the rounds, by plugin name."""


@runtime_checkable
class MutationInterface(Protocol):
    """A plugin of the mutating phase (``admission.MutationInterface``)."""

    name: str

    def admit(self, attrs: Attributes) -> None:
        """Change ``attrs.obj`` in place, or raise an ``APIStatusError`` to refuse."""


@runtime_checkable
class ValidationInterface(Protocol):
    """A plugin of the validating phase (``admission.ValidationInterface``)."""

    name: str

    def validate(self, attrs: Attributes) -> None:
        """Raise an ``APIStatusError`` to refuse; never change the object."""
