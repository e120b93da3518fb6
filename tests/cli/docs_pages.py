"""The commands the pages show (``$`` lines of their ``console`` blocks) and the outputs
they show from ``docs/snippets/``: each is what its command printed.

A test compares each snippet with the command's output; ``WORKLOADBUILDER_WRITE_SNIPPETS=1
pytest tests/cli`` writes them from the commands instead (then review the diff).
"""

from __future__ import annotations

import os
import re
import shlex

from cli_paths import ROOT

PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
CONSOLE = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)
OFFLINE = {"schema", "build", "validate", "explain", "simulate", "migrate"}


def shown_commands() -> list[tuple[str, list[str], list[str]]]:
    """(page, argv, the output lines shown after it) for each ``$`` line."""
    found = []
    for page in PAGES:
        for block in CONSOLE.findall(page.read_text()):
            lines = block.splitlines()
            starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
            for n, i in enumerate(starts):
                end = starts[n + 1] if n + 1 < len(starts) else len(lines)
                argv = shlex.split(lines[i][2:])
                if argv:
                    found.append((page.name, argv, lines[i + 1 : end]))
    return found


COMMANDS = shown_commands()


def _server_sessions() -> list[list[tuple[list[str], list[str]]]]:
    """The shell sessions of testing.md with the standalone server, from the ``$ python -m
    workloadbuilder.testing`` that starts one: ($ argv, shown lines) each."""
    sessions: list[list[tuple[list[str], list[str]]]] = []
    for page, argv, shown in COMMANDS:
        if page == "testing.md" and argv[:3] == ["python", "-m", "workloadbuilder.testing"]:
            sessions.append([])
        if page == "testing.md" and sessions:
            sessions[-1].append((argv, shown))
    return sessions


SESSIONS = _server_sessions()


SNIPPETS = ROOT / "docs" / "snippets"


def assert_snippet(name: str, printed: str) -> None:
    """``docs/snippets/NAME`` is ``printed`` (written so with WORKLOADBUILDER_WRITE_SNIPPETS=1)."""
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
