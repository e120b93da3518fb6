"""The parts of the models the rest of the SDK builds on: the base model and its field types,
objects made from JSON known to be valid, fast JSON copies, and the one YAML writer.

These are for the SDK's own modules (the Builder, the runtime objects, spec files, fixtures,
the CLI, other clients' models); a controller uses the models and ``workloadbuilder``'s names
instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ._base import (
    DeferredModel,
    Int32,
    K8sModel,
    OptList,
    OptMap,
    Str,
    deferred_json,
    same_in_both_emitters,
    yaml_document,
)
from ._client_models import is_openapi_model, plain_json, rebuild_openapi_model
from ._json_factory import JsonFactory, json_factory

__all__ = [
    "DeferredModel",
    "Int32",
    "JsonFactory",
    "K8sModel",
    "OptList",
    "OptMap",
    "Str",
    "deferred",
    "deferred_json",
    "deferred_maker",
    "is_openapi_model",
    "json_factory",
    "json_view",
    "plain_json",
    "rebuild_openapi_model",
    "same_in_both_emitters",
    "yaml_document",
    "yaml_stream",
]

_Model = TypeVar("_Model", bound=DeferredModel)

if TYPE_CHECKING:

    def deferred(
        kind: type[_Model], data: dict[str, Any], to_json: JsonFactory | None = None
    ) -> _Model:
        """``kind``'s object of ``data``, validated on first use (``DeferredModel``'s rules)."""

    def deferred_maker(
        kind: type[_Model], data: dict[str, Any], to_json: JsonFactory | None = None
    ) -> Callable[[str], _Model]:
        """A function of a name making ``deferred(kind, data with that metadata.name,
        to_json)``, faster: for a sweep of one template's objects."""

    def json_view(obj: DeferredModel) -> dict[str, Any] | None:
        """``obj.to_dict()`` sharing a deferred object's input (read only); ``None`` once the
        object is validated."""

else:  # the model's own functions, not wrappers: stamping calls them once per object
    deferred = vars(DeferredModel)["_deferred"].__func__
    deferred_maker = vars(DeferredModel)["_deferred_maker"].__func__
    json_view = DeferredModel._json_view


def yaml_stream(documents: Iterable[Any]) -> str:
    """``yaml.safe_dump_all(documents, sort_keys=False)``'s bytes, from PyYAML's C emitter when
    it has one and every document is one both emitters write alike (as ``yaml_document``)."""
    import yaml

    docs = list(documents)
    dumper: type[Any] = yaml.SafeDumper
    if hasattr(yaml, "CSafeDumper") and all(same_in_both_emitters(d) for d in docs):
        dumper = yaml.CSafeDumper
    return yaml.dump_all(docs, Dumper=dumper, sort_keys=False, default_flow_style=False)
