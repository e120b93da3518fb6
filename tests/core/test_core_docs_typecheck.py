"""``mypy --strict`` accepts the documented examples: the docs' code blocks and ``examples/``.

Each page's blocks are one module (they run in order, as ``test_core_docs`` runs them).
``docs/testing.md`` is left out: its blocks are fragments of an async pytest module (an
``async with`` at top level), checked by running them in its own tests.
"""

from __future__ import annotations

import re
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
NOT_MODULES = {"testing.md"}


def test_docs_and_examples_pass_mypy_strict(tmp_path: Path) -> None:
    files = sorted(str(p) for p in (ROOT / "examples").glob("*.py"))
    for page in sorted((ROOT / "docs").glob("*.md")):
        blocks = FENCE.findall(page.read_text(encoding="utf-8"))
        if blocks and page.name not in NOT_MODULES:
            module = tmp_path / f"docs_{page.stem.replace('-', '_')}.py"
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
