"""docs/operations.md as pasted: its manager program runs against the test server and prints
what the page says, and every Python block of the page passes ``mypy --strict``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from test_docs_examples import DOCS, blocks, mypy_strict, page_files, run

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


@pytest.mark.slow
def test_every_block_passes_mypy_strict(tmp_path: Path, mypy_cache: Path) -> None:
    files = page_files(PAGE, tmp_path)
    assert len(files) >= 3
    result = mypy_strict(files, tmp_path, mypy_cache)
    assert result.returncode == 0, result.stdout[-5000:]
