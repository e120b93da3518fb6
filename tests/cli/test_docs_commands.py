"""The commands the pages show run as shown: every file they name is in the repository, and
the output they show (without a cluster) is the command's own."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
from cli_paths import ROOT
from docs_pages import COMMANDS, OFFLINE, PAGES, SESSIONS
from typer.testing import CliRunner

from workloadbuilder.cli import app


def test_the_pages_show_commands() -> None:
    assert len(COMMANDS) > 10


@pytest.mark.parametrize(
    ("page", "argv", "shown"), COMMANDS, ids=[" ".join(c[1])[:60] for c in COMMANDS]
)
def test_a_shown_command_runs_as_shown(
    page: str, argv: list[str], shown: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    args = argv[: argv.index(">")] if ">" in argv else argv
    for arg in args:
        if re.search(r"\.(ya?ml|json)$", arg) and "*" not in arg:
            assert (ROOT / arg).is_file(), f"{page} runs a command on {arg}, not in the repository"
    if args[0] != "workloadbuilder":
        return
    args = args[1:]
    if not args or args[0] not in OFFLINE:
        return  # needs a cluster: tests/cli/test_*cluster* and test_observe_commands run those
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, args, terminal_width=200)
    if any(line.startswith("--8<--") for line in shown):
        return  # a snippet, checked by test_docs_site
    if ">" in argv or not shown:
        return
    assert (result.stdout + result.stderr).splitlines() == shown, page


FENCED = re.compile(r"^```[a-z]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
WHEEL = f"dist/workloadbuilder-{PROJECT['version']}-py3-none-any.whl"


def install_commands() -> list[tuple[str, list[str], str]]:
    """(page, the words after ``pip install``, the paragraph) of each install command the
    pages show, in a block, an indented line or inline code."""
    found = []
    for page in PAGES:
        text = page.read_text()
        lines = [
            (line, line)
            for block in [*FENCED.findall(text), *re.findall(r"^    .*$", text, re.MULTILINE)]
            for line in block.splitlines()
        ]
        prose = FENCED.sub("", text)
        for paragraph in re.split(r"\n\s*\n", prose):
            flat = " ".join(paragraph.split())
            lines.extend((span, flat) for span in re.findall(r"`([^`]*)`", flat))
        for line, paragraph in lines:
            for command in re.findall(r"pip install ([^#`]*)", line):
                words = shlex.split(command.split("&&")[0])
                found.append((page.name, words, paragraph))
    return found


INSTALLS = install_commands()


def test_every_install_command_shown_can_work() -> None:
    """The package is on no index yet: it is installed from the clone (``.``, ``-e .``) or
    from the wheel ``python -m build`` makes, with extras that exist; the published name only
    where the text says it is about its publication."""
    extras = set(PROJECT["optional-dependencies"])
    assert len(INSTALLS) > 8
    for page, words, paragraph in INSTALLS:
        for word in words:
            name, _, extra = word.partition("[")
            named = {e.strip() for e in extra.rstrip("]").split(",") if e.strip()}
            assert named <= extras, (page, word)
            if name == "workloadbuilder":
                assert "publish" in paragraph, f"{page}: {word} is on no package index yet"
            elif name.startswith("dist/"):
                assert name == WHEEL, (page, word)


# Outputs the pages show of commands on a cluster that no test reproduces yet, and why.
RBAC_PIPE = "workloadbuilder rbac reconcile-job cache -n ml --service-account trainer"
UNCHECKED = {
    f"{RBAC_PIPE} | kubectl apply -f -": (
        "the default test server does not yet serve the RBAC kinds to kubectl's validation"
    ),
}


def test_every_output_shown_is_checked() -> None:
    """Each output a page shows is the offline command's (above), a snippet a test writes
    and checks, or a line of testing.md's sessions (test_docs_cluster_outputs)."""
    in_sessions = [argv for session in SESSIONS for argv, _ in session]
    unchecked = {
        " ".join(argv)
        for _, argv, shown in COMMANDS
        if shown
        and not any(line.startswith("--8<--") for line in shown)
        and not (argv[0] == "workloadbuilder" and argv[1] in OFFLINE and "|" not in argv)
        and argv not in in_sessions
    }
    assert unchecked == set(UNCHECKED)
