"""docs/controllers.md as pasted: its programs run against the test server and close what
they open, and every Python block of the page passes ``mypy --strict``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_docs_examples import blocks, mypy_strict, page_files, run

PAGE = "controllers.md"


@pytest.mark.slow
def test_the_controller_program_runs_and_creates_a_gang_per_job(tmp_path: Path) -> None:
    (program,) = blocks(PAGE, "program")
    path = tmp_path / "controller_program.py"
    path.write_text(program)
    result = run([sys.executable, "-X", "dev", str(path)], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Unclosed" not in result.stderr and "ResourceWarning" not in result.stderr
    lines = result.stdout.splitlines()
    # each Job reconciled once: its Workload and then its PodGroup created
    created = sorted(line.split(" ", 1)[0] for line in lines[:-1])
    assert created == ["train-a", "train-b", "train-c"]
    for line in lines[:-1]:
        assert "Workload default/train-" in line and "PodGroup default/train-" in line, line
    assert lines[-1] == "3 PodGroups"


@pytest.mark.slow
def test_every_block_passes_mypy_strict(tmp_path: Path, mypy_cache: Path) -> None:
    files = page_files(PAGE, tmp_path)
    assert len(files) >= 6
    result = mypy_strict(files, tmp_path, mypy_cache)
    assert result.returncode == 0, result.stdout[-5000:]
