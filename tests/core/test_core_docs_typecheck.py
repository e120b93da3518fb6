"""``mypy --strict`` accepts the documented examples: the docs' code blocks and ``examples/``.

Each page whose blocks form one runnable module (they run in order, as ``test_core_docs``
and ``test_docs_models`` run them) is one module to mypy. The other pages hold fragments:
top-level ``await`` or ``async with``, names from the surrounding prose (``my_builder``,
``api``), which no type checker can read as a module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
MODULE_PAGES = ("builder.md", "validation.md", "models.md", "field-errors.md", "naming.md")


@pytest.mark.slow
def test_docs_and_examples_pass_mypy_strict(tmp_path: Path) -> None:
    files = sorted(str(p) for p in (ROOT / "examples").glob("*.py"))
    for name in MODULE_PAGES:
        blocks = FENCE.findall((ROOT / "docs" / name).read_text(encoding="utf-8"))
        assert blocks, f"docs/{name} has no python blocks"
        module = tmp_path / f"docs_{name.removesuffix('.md').replace('-', '_')}.py"
        module.write_text("\n\n".join(blocks), encoding="utf-8")
        files.append(str(module))
    assert len(files) >= 6, files
    out, err, status = api.run(
        [
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            *files,
        ]
    )
    assert status == 0, out + err
