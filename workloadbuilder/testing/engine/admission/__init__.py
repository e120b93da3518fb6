"""Admission: the plugins a write passes after decoding and defaulting, before it is stored.

One module per plugin, chained in kube-apiserver's order (``AllOrderedPlugins`` in
``pkg/kubeapiserver/options/plugins.go``: ``NamespaceAutoProvision``, ``NamespaceLifecycle``,
..., ``TaintNodesByCondition``, ..., ``Priority``, ..., ``PodGroupProtection``, ..., then
``MutatingAdmissionWebhook`` and ``ValidatingAdmissionWebhook`` at the end). The verbs build
one :class:`Attributes` per write and call :meth:`Chain.admit` (every mutating half in order)
then, after the kind's validation, :meth:`Chain.validate` (every validating half in order).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from workloadbuilder.testing.common.resources import Registry
from workloadbuilder.testing.engine.admission.attributes import (
    CREATE,
    DELETE,
    UPDATE,
    Attributes,
    MutationInterface,
    ValidationInterface,
)
from workloadbuilder.testing.engine.admission.chain import Chain
from workloadbuilder.testing.engine.admission.namespace import (
    NamespaceAutoProvision,
    NamespaceLifecycle,
)
from workloadbuilder.testing.engine.admission.pod_group_protection import PodGroupProtection
from workloadbuilder.testing.engine.admission.priority import Priority
from workloadbuilder.testing.engine.admission.taint_nodes import (
    NOT_READY_TAINT,
    TaintNodesByCondition,
)
from workloadbuilder.testing.engine.admission.webhooks import (
    MutatingAdmissionWebhook,
    UserInfo,
    ValidatingAdmissionWebhook,
    Webhooks,
)
from workloadbuilder.testing.store.store import Store

__all__ = [
    "CREATE",
    "DELETE",
    "NOT_READY_TAINT",
    "UPDATE",
    "Attributes",
    "Chain",
    "MutationInterface",
    "ValidationInterface",
    "default_chain",
]


def default_chain(
    registry: Registry,
    store: Store,
    create_namespace: Callable[[str], object],
    *,
    auto_create_namespaces: bool,
    webhook_services: Mapping[str, str],
    user: UserInfo,
) -> Chain:
    """The plugins kube-apiserver enables by default that this server implements, in order
    (``NamespaceAutoProvision`` only with ``auto_create_namespaces``). ``webhook_services``
    maps a webhook's ``service`` (``"namespace/name"`` or ``"namespace/name:port"``) to the
    loopback ``host:port`` serving it; ``user`` is the requester's ``userInfo``."""
    webhooks = Webhooks(store, registry, webhook_services, user)
    plugins: list[object] = []
    if auto_create_namespaces:
        plugins.append(NamespaceAutoProvision(registry, store, create_namespace))
    plugins += [
        NamespaceLifecycle(registry, store, auto_provision=auto_create_namespaces),
        TaintNodesByCondition(),
        Priority(store, registry.gates),
        PodGroupProtection(),
        MutatingAdmissionWebhook(webhooks),
        ValidatingAdmissionWebhook(webhooks),
    ]
    return Chain(plugins)
