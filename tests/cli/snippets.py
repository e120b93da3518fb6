"""The outputs the docs show from ``docs/snippets/``: each is what its command printed.

A test compares each with the command's output; ``WORKLOADBUILDER_WRITE_SNIPPETS=1 pytest
tests/cli`` writes them from the commands instead (then review the diff).
"""

from __future__ import annotations

import os

from cli_paths import ROOT

SNIPPETS = ROOT / "docs" / "snippets"


def assert_snippet(name: str, printed: str) -> None:
    """``docs/snippets/NAME`` is ``printed`` (written so when the variable above is set)."""
    path = SNIPPETS / name
    if os.environ.get("WORKLOADBUILDER_WRITE_SNIPPETS") == "1":
        path.write_text(printed, encoding="utf-8")
    assert path.is_file(), f"docs/snippets/{name} is missing: WORKLOADBUILDER_WRITE_SNIPPETS=1"
    shown = path.read_text(encoding="utf-8")
    assert shown == printed, f"docs/snippets/{name} is not what the command prints"


def assert_shown(page: str, command: str, name: str) -> None:
    """``page`` shows ``$ COMMAND`` followed by the snippet ``NAME``."""
    text = (ROOT / ("README.md" if page == "README.md" else f"docs/{page}")).read_text()
    assert f'$ {command}\n--8<-- "docs/snippets/{name}"\n' in text, (page, command, name)
