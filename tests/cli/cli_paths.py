"""Where the command-line tests find the repository, the bundled specs and the node set
(a module of its own, so that no test imports ``conftest`` by name)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "examples" / "specs"
NODES = ROOT / "examples" / "nodes.yaml"
