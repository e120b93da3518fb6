"""docs/operations.md as pasted: its manager program runs against the test server and prints
what the page says, and every Python block of the page passes ``mypy --strict``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from test_docs_examples import DOCS, blocks, run

ROOT = Path(__file__).resolve().parents[3]
PAGE = "operations.md"


def test_the_manager_program_prints_what_the_page_says(tmp_path: Path) -> None:
    (program,) = blocks(PAGE, "program")
    path = tmp_path / "manager_program.py"
    path.write_text(program)
    result = run([sys.executable, "-X", "dev", str(path)], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Unclosed" not in result.stderr and "ResourceWarning" not in result.stderr
    (said,) = re.findall(
        r"It prints:\n\n```text\n(.*?)^```", (DOCS / PAGE).read_text(), re.M | re.S
    )
    assert result.stdout == said


def test_every_block_passes_mypy_strict(tmp_path: Path) -> None:
    found = blocks(PAGE)
    assert len(found) >= 3
    files = []
    for i, code in enumerate(found):
        path = tmp_path / f"operations_{i}.py"
        path.write_text(code)
        files.append(str(path))
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n[mypy-workloadbuilder.*]\nignore_errors = True\n")
    args = [sys.executable, "-m", "mypy", "--strict", "--config-file", str(config)]
    args += ["--no-incremental", "--cache-dir", str(tmp_path / ".mypy"), *files]
    result = run(args, tmp_path, MYPYPATH=str(ROOT))
    assert result.returncode == 0, result.stdout[-5000:]
