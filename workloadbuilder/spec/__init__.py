"""Spec files: a WorkloadItem tree, the controller's capabilities and the naming inputs in YAML.

A spec file (``apiVersion: workloadbuilder.dev/v1alpha1``, ``kind: WorkloadSpec``) holds the
v1alpha3 building blocks exactly as a controller's own API embeds them, so every error is
reported at the spec's own path (``spec.root.children[1].schedulingPolicy.gang.minCount``)
and, by :func:`load_spec`, with the file and line it comes from.

- ``schema``: the document's models and its JSON Schema;
- ``reader``: the hardened YAML/JSON reader (bounded nesting and aliases, lines of paths);
- ``mapping``: a document to its tree and the Builder's options;
- ``loaded``: :class:`LoadedSpec`, :func:`parse_spec`, :func:`load_spec`, :class:`SpecError`.
"""

from .loaded import LoadedSpec, SpecError, load_spec, parse_spec
from .reader import MAX_ALIASED_VALUES, MAX_NESTING, DocumentError, read_documents
from .schema import API_VERSION, KIND, WorkloadSpecFile, spec_json_schema

# The schema's parts and the schema as JSON, for the command line (outside ``__all__``).
from .schema import SpecBody as SpecBody
from .schema import SpecCapabilities as SpecCapabilities
from .schema import SpecComposite as SpecComposite
from .schema import SpecLeaf as SpecLeaf
from .schema import SpecNode as SpecNode
from .schema import SpecOwner as SpecOwner
from .schema import dump_schema as dump_schema

__all__ = [
    "API_VERSION",
    "KIND",
    "MAX_ALIASED_VALUES",
    "MAX_NESTING",
    "DocumentError",
    "LoadedSpec",
    "SpecError",
    "WorkloadSpecFile",
    "load_spec",
    "parse_spec",
    "read_documents",
    "spec_json_schema",
]
