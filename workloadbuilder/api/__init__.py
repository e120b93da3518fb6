"""Typed models of the Kubernetes 1.37 workload-aware scheduling APIs, one module per group/version.

Every model parses Kubernetes JSON with ``Model.model_validate(d)`` (unknown fields rejected
with their JSON path), parses server responses tolerantly with ``Model.from_server(d)``, and
emits ``obj.to_dict()`` / ``obj.to_yaml()``. ``workloadbuilder.api.sdk`` holds the parts the
SDK's own modules build on (the base model and field types, deferred objects, the YAML writer).
"""

import importlib
import sys
from typing import TYPE_CHECKING

from ._base import INT32_MAX, INT32_MIN, K8sModel, client_json

if TYPE_CHECKING:  # each group/version loads on first use (PEP 562), or when imported
    from . import batch_v1, core_v1, meta_v1, scheduling_v1alpha3, scheduling_v1beta1

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "K8sModel",
    "batch_v1",
    "client_json",
    "core_v1",
    "meta_v1",
    "scheduling_v1alpha3",
    "scheduling_v1beta1",
]

_LAZY_SUBMODULES = frozenset(
    {"batch_v1", "core_v1", "meta_v1", "scheduling_v1alpha3", "scheduling_v1beta1"}
)


def _load_lazily(name: str) -> object:
    if name not in _LAZY_SUBMODULES:
        raise AttributeError(
            f"module {__name__!r} has no attribute {name!r}", name=name, obj=sys.modules[__name__]
        )
    return importlib.import_module(f"{__name__}.{name}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if not TYPE_CHECKING:  # type checkers see the imports above, and still flag misspelt names
    __getattr__ = _load_lazily
