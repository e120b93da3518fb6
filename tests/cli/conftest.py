"""Shared helpers of the command-line tests: the runner, the bundled specs, the 1.37 oracle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "examples" / "specs"
NODES = ROOT / "examples" / "nodes.yaml"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()
