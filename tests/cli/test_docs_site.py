"""The docs site builds with --strict and no warnings; the outputs it shows are current."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NODES, ROOT, SPECS
from typer.testing import CliRunner

from workloadbuilder.cli import app

SNIPPETS = ROOT / "docs" / "snippets"


@pytest.mark.parametrize(
    ("snippet", "args"),
    [
        ("explain-release.txt", ["explain", str(SPECS / "release.yaml")]),
        (
            "simulate-release.txt",
            ["simulate", str(SPECS / "release.yaml"), "--nodes", str(NODES)],
        ),
    ],
)
def test_the_outputs_shown_in_the_docs_are_the_commands_own(
    runner: CliRunner, snippet: str, args: list[str]
) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (SNIPPETS / snippet).read_text() == result.stdout


def test_the_site_builds_strictly_without_warnings(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).with_name("mkdocs")
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    concepts = (tmp_path / "site" / "concepts" / "index.html").read_text()
    assert concepts.count('class="mermaid"') == 2
    reference = (tmp_path / "site" / "reference" / "index.html").read_text()
    for name in ("workloadbuilder.Builder", "workloadbuilder.migrate", "load_spec"):
        assert name in reference
