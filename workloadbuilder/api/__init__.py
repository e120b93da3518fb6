"""Typed models of the Kubernetes 1.37 workload-aware scheduling APIs, one module per group/version.

Every model parses Kubernetes JSON with ``Model.model_validate(d)`` (unknown fields rejected
with their JSON path), parses server responses tolerantly with ``Model.from_server(d)``, and
emits ``obj.to_dict()`` / ``obj.to_yaml()``.
"""

from . import batch_v1, core_v1, meta_v1, scheduling_v1alpha3, scheduling_v1beta1
from ._base import INT32_MAX, INT32_MIN, K8sModel, client_json

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
