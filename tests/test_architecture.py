"""The package's shape: no module over 700 lines, no module importing another package's
private module or name.

A name or module whose own segment starts with ``_`` (dunder names excepted) belongs to what
holds it: ``workloadbuilder.aio._transport`` to the package ``workloadbuilder.aio``,
``_ItemKind`` in ``workloadbuilder.item`` to that module. Only modules inside the owner may
import it. Imports are read with ``ast`` (relative ones resolved, those under
``TYPE_CHECKING`` and inside functions included); nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "workloadbuilder"
MAX_LINES = 700
GENERATED_MARKER = "DO NOT EDIT"
"""A module whose first lines say this (Go's ``// Code generated ... DO NOT EDIT.``) is
generated, and may be longer."""

# Being split or given public homes now; drop an entry once its module passes.
KNOWN_LONG: set[str] = set()
KNOWN_PRIVATE_IMPORTS: set[str] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _private(segment: str) -> bool:
    return segment.startswith("_") and not (segment.startswith("__") and segment.endswith("__"))


def imported(source: str, module: str, *, is_package: bool) -> list[str]:
    """Every dotted name ``source`` (the text of ``module``) imports, relative ones resolved."""
    package = module if is_package else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            names += [f"{origin}.{alias.name}" for alias in node.names if alias.name != "*"]
    return names


def private_imports(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """The imports of ``module`` that reach a private segment of something it is not inside."""
    found = []
    for name in imported(source, module, is_package=is_package):
        if not name.startswith("workloadbuilder."):
            continue  # other projects' privacy is theirs to keep
        segments = name.split(".")
        for i, segment in enumerate(segments):
            owner = ".".join(segments[:i])
            if _private(segment) and module != owner and not module.startswith(owner + "."):
                found.append(name)
                break
    return found


def _known(names: set[str], reason: str) -> list[object]:
    return [
        pytest.param(m, marks=pytest.mark.xfail(strict=True, reason=reason)) if m in names else m
        for m in MODULES
    ]


@pytest.mark.parametrize("module", _known(KNOWN_LONG, "being split"))
def test_module_is_at_most_700_lines(module: str) -> None:
    text = MODULES[module].read_text(encoding="utf-8")
    if GENERATED_MARKER in "".join(text.splitlines(keepends=True)[:5]):
        return
    lines = len(text.splitlines())
    assert lines <= MAX_LINES, f"{module} has {lines} lines: split it by concern"


@pytest.mark.parametrize("module", _known(KNOWN_PRIVATE_IMPORTS, "given a public home"))
def test_module_imports_no_private_name_of_another_package(module: str) -> None:
    path = MODULES[module]
    found = private_imports(
        path.read_text(encoding="utf-8"), module, is_package=path.name == "__init__.py"
    )
    assert not found, f"{module} imports private names of other packages: {found}"


def test_the_known_exceptions_name_modules_that_exist() -> None:
    assert set(MODULES) >= KNOWN_LONG | KNOWN_PRIVATE_IMPORTS


W = "workloadbuilder"


@pytest.mark.parametrize(
    ("source", "module", "is_package", "expected"),
    [
        # a private name of another module, relative and absolute
        ("from .item import _ItemKind", f"{W}.shorthands", False, [f"{W}.item._ItemKind"]),
        (f"from {W}.item import _X", f"{W}.spec", False, [f"{W}.item._X"]),
        # a private module of another package, by ``import`` and by ``from``
        (f"import {W}.aio._transport", f"{W}.cli.app", False, [f"{W}.aio._transport"]),
        ("from ..aio import _transport", f"{W}.cli.app", False, [f"{W}.aio._transport"]),
        ("from ..api._base import Str", f"{W}.job._read", False, [f"{W}.api._base.Str"]),
        # inside the owner: allowed, from a module and from the package's __init__
        ("from ._transport import Transport", f"{W}.aio.client", False, []),
        ("from ._transport import Transport", f"{W}.aio", True, []),
        ("from .._gorender import render_value", f"{W}.job.rules", False, []),
        ("from . import _read", f"{W}.job.compile", False, []),
        # a private name belongs to its module: a sibling may not import it
        ("from ._read import _Read", f"{W}.job.compile", False, [f"{W}.job._read._Read"]),
        # dunder names are not private; other packages are not checked
        ("from .x import __version__", f"{W}.cli.app", False, []),
        ("from aiohttp import _private", f"{W}.cli.app", False, []),
        # inside a function or under TYPE_CHECKING counts too
        ("def f():\n    from .item import _K\n", f"{W}.spec", False, [f"{W}.item._K"]),
        (
            "if TYPE_CHECKING:\n    from .aio._transport import T\n",
            f"{W}.cli",
            True,
            [f"{W}.cli.aio._transport.T"],
        ),
    ],
)
def test_private_imports_are_found(
    source: str, module: str, is_package: bool, expected: list[str]
) -> None:
    assert private_imports(source, module, is_package=is_package) == expected
