"""docs/observe.md names every verdict, member problem and finding kind the code has."""

from __future__ import annotations

from pathlib import Path

import pytest

from workloadbuilder.aio import FindingKind, GroupState, MemberProblem

DOC = (Path(__file__).resolve().parents[3] / "docs" / "observe.md").read_text(encoding="utf-8")


def table_first_column(heading: str) -> set[str]:
    """The backticked first cells of the table whose header row starts with ``heading``."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| `{heading}`"))
    cells = set()
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells.add(line.split("|")[1].strip().strip("`"))
    return cells


def test_the_verdict_table_has_every_state() -> None:
    assert table_first_column("GroupState") == {s.value for s in GroupState}


def test_the_finding_table_has_every_kind() -> None:
    assert table_first_column("FindingKind") == {k.value for k in FindingKind}


def test_every_member_problem_is_explained() -> None:
    assert all(f"`{p.value}`" in DOC for p in MemberProblem)


def test_the_picture_reaches_every_state() -> None:
    svg = DOC.split("](diagrams/", 1)[1].split(")", 1)[0]
    picture = (Path(__file__).resolve().parents[3] / "docs" / "diagrams" / svg).read_text()
    assert all(f">{s.value}<" in picture for s in GroupState)


@pytest.mark.slow
def test_the_examples_output_shown_is_the_examples_own() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    result = subprocess.run(
        [sys.executable, str(root / "examples" / "observe_gang.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    shown = DOC.split("and wait for their gang left out):\n\n```\n", 1)[1].split("```", 1)[0]
    printed = [line for line in result.stdout.splitlines() if "from a gang" not in line]
    assert shown.splitlines() == printed
