"""The API reference names every public name, and the page is what its generator writes."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = [
    "workloadbuilder",
    "workloadbuilder.aio",
    "workloadbuilder.testing",
    "workloadbuilder.api",
]


def _docs_module(name: str) -> ModuleType:
    """A script of docs/ (not a package), loaded by path."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _generator() -> ModuleType:
    return _docs_module("generate_reference")


def test_the_page_is_what_the_generator_writes() -> None:
    page = (ROOT / "docs" / "reference.md").read_text()
    assert page == _generator().render(), "run: python docs/generate_reference.py"


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_has_an_entry(module: str) -> None:
    page = (ROOT / "docs" / "reference.md").read_text()
    names = importlib.import_module(module).__all__
    missing = [
        n
        for n in names
        if f'heading: "{module}.{n}"' not in page and f"### `{module}.{n}`" not in page
    ]
    assert not missing, f"not in docs/reference.md: {missing}"


def test_a_function_named_as_its_submodule_is_the_function() -> None:
    page = (ROOT / "docs" / "reference.md").read_text()
    for name in (
        "apply",
        "audit",
        "delete",
        "diagnose",
        "preflight",
        "reconcile",
        "reconcile_job",
        "resize",
    ):
        assert re.search(rf"^::: workloadbuilder\.aio\.(\w+\.)?{name}\.{name}$", page, re.M), name


def test_roles_become_code_spans() -> None:
    assert _docs_module("griffe_roles").plain(
        ":func:`fixture_dicts` and :class:`~workloadbuilder.testing.FakeAPIServer`"
    ) == ("`fixture_dicts` and `FakeAPIServer`")
