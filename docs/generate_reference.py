"""Write ``docs/reference.md``: every public name of the documented modules, one entry each.

Each name in a module's ``__all__`` is rendered from the object it is (a function that shares
its name with its submodule, like ``workloadbuilder.aio.apply``, is the function), under the
name users import it by. Run ``python docs/generate_reference.py`` after changing an
``__all__``; ``tests/test_reference.py`` fails while the page is not current.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import griffe

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference.md"

SECTIONS = [
    (
        "workloadbuilder",
        "The SDK",
        "The models, the tree, the Builder, validation, names, the Job.",
    ),
    (
        "workloadbuilder.aio",
        "Async helpers",
        "Putting objects on a cluster and watching them (the `[aio]` extra).",
    ),
    (
        "workloadbuilder.testing",
        "Testing",
        "The test API server and the gang simulator (the `[testing]` extra).",
    ),
    (
        "workloadbuilder.api",
        "Models of the upstream API",
        "Every upstream type, per group/version.",
    ),
]
EXTRA_MODULES = [
    ("workloadbuilder.testing.plugin", "pytest fixtures", ["KubeCluster"]),
    ("workloadbuilder.testing.fixtures", "Fixture objects", None),
    ("workloadbuilder.testing.snapshot", "Snapshots", None),
    (
        "workloadbuilder.spec",
        "Spec files",
        [
            "load_spec",
            "parse_spec",
            "spec_json_schema",
            "LoadedSpec",
            "SpecError",
            "WorkloadSpecFile",
        ],
    ),
]


def public_names(module: str) -> list[str]:
    """The module's ``__all__``."""
    return list(importlib.import_module(module).__all__)


def target(package: griffe.Module, module: str, name: str) -> str | None:
    """The path of the object ``module.name`` is, following re-exports; ``None`` when griffe
    cannot see it (a constant bound by unpacking)."""
    obj = getattr(importlib.import_module(module), name)
    if inspect.ismodule(obj):
        path = obj.__name__
    elif inspect.isclass(obj) or inspect.isfunction(obj):
        path = f"{obj.__module__}.{obj.__qualname__}"
    else:
        imports = package.modules_collection.get_member(module).imports
        path = imports.get(name, f"{module}.{name}")
    try:
        found = package.modules_collection.get_member(path)
    except KeyError:
        return None
    while found.is_alias:
        found = found.final_target
    return str(found.path)


def value_entry(module: str, name: str) -> str:
    """A constant griffe cannot see: its name and value."""
    value = getattr(importlib.import_module(module), name)
    return f"### `{module}.{name}`\n\n`{name} = {value!r}`\n"


def entry(path: str, heading: str, members: list[str] | None = None, level: int = 3) -> str:
    lines = [f"::: {path}", "    options:", f'      heading: "{heading}"']
    lines.append(f"      heading_level: {level}")
    lines.append(f'      toc_label: "{heading.rsplit(".", 1)[-1]}"')
    if members is not None:
        lines.append(f"      members: [{', '.join(members)}]")
    return "\n".join(lines) + "\n"


def render() -> str:
    package = griffe.load("workloadbuilder", search_paths=[str(ROOT)])
    out = [
        "# API reference\n",
        "Every public name, with its signature and docstring, generated from the code by"
        " `docs/generate_reference.py`.\n",
    ]
    for module, title, blurb in SECTIONS:
        out.append(f"## {title}: `{module}`\n\n{blurb}\n")
        for name in public_names(module):
            path = target(package, module, name)
            if path is None:
                out.append(value_entry(module, name))
            else:
                out.append(entry(path, f"{module}.{name}"))
    out.append("## More of `workloadbuilder.testing` and the spec files\n")
    for module, title, members in EXTRA_MODULES:
        out.append(f"### {title}\n")
        out.append(entry(module, module, members, level=4))
    return "\n".join(out)


def main() -> None:
    PAGE.write_text(render())
    sys.stdout.write(f"wrote {PAGE.relative_to(ROOT)}\n")


if __name__ == "__main__":
    main()
