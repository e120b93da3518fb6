"""The admission chain: every plugin's mutating half in order, then every validating half in
order, as kube-apiserver's ``chainAdmissionHandler`` (``k8s.io/apiserver/pkg/admission/chain.go``).
"""

from __future__ import annotations

from collections.abc import Sequence

from workloadbuilder.testing.engine.admission.attributes import (
    Attributes,
    MutationInterface,
    ValidationInterface,
)


class Chain:
    """Plugins in kube-apiserver's order; :meth:`admit` then :meth:`validate` on every write."""

    def __init__(self, plugins: Sequence[object]) -> None:
        self.plugins = tuple(plugins)
        self._mutating = [p for p in self.plugins if isinstance(p, MutationInterface)]
        self._validating = [p for p in self.plugins if isinstance(p, ValidationInterface)]

    @property
    def names(self) -> list[str]:
        """The plugins' names, in order (``--enable-admission-plugins`` spelling)."""
        return [str(getattr(p, "name", type(p).__name__)) for p in self.plugins]

    def admit(self, attrs: Attributes) -> None:
        """The mutating phase: each plugin may change ``attrs.obj`` or refuse. When a plugin
        asks for it, the whole phase runs once more (``admission/reinvocation.go``)."""
        for plugin in self._mutating:
            plugin.admit(attrs)
        if attrs.reinvoke and not attrs.reinvoking:
            attrs.reinvoking = True
            for plugin in self._mutating:
                plugin.admit(attrs)

    def validate(self, attrs: Attributes) -> None:
        """The validating phase, on the object as the mutating phase and validation left it."""
        for plugin in self._validating:
            plugin.validate(attrs)
