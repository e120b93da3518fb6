"""The docs site builds with --strict and no warnings; the outputs it shows are current."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_paths import ROOT
from docs_pages import SNIPPETS, assert_shown, assert_snippet
from typer.testing import CliRunner

from workloadbuilder.cli import app


@pytest.mark.parametrize(
    ("snippet", "args", "code"),
    [
        ("explain-release.txt", ["explain", "examples/specs/release.yaml"], 0),
        (
            "simulate-release.txt",
            ["simulate", "examples/specs/release.yaml", "--nodes", "examples/nodes.yaml"],
            0,
        ),
        ("validate-not-yaml.txt", ["validate", "examples/invalid/not-yaml.yaml"], 1),
    ],
)
def test_the_outputs_shown_in_the_docs_are_the_commands_own(
    runner: CliRunner, snippet: str, args: list[str], code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the paths as the pages write them
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == code, result.output
    assert_snippet(snippet, result.stdout + result.stderr)
    assert_shown("cli.md", " ".join(["workloadbuilder", *args]), snippet)


def test_every_snippet_is_shown_and_every_shown_snippet_exists() -> None:
    pages = "".join(p.read_text() for p in [*(ROOT / "docs").glob("*.md"), ROOT / "README.md"])
    shown = set(re.findall(r'--8<-- "docs/snippets/([^"]+)"', pages))
    assert shown == {p.name for p in SNIPPETS.iterdir()}


@pytest.mark.slow
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
    site = tmp_path / "site"
    concepts = (site / "concepts.html").read_text()
    # Diagrams are files of the site, drawn without a script from the internet.
    assert 'class="mermaid"' not in concepts
    for name in ("release-tree.svg", "diagnose-states.svg"):
        assert f'src="diagrams/{name}"' in concepts
        assert (site / "diagrams" / name).read_text().startswith("<svg ")
    assert "mermaid" not in concepts
    reference = (site / "reference.html").read_text()
    for name in ("workloadbuilder.Builder", "workloadbuilder.migrate", "load_spec"):
        assert name in reference
    for module in ("workloadbuilder", "workloadbuilder.aio", "workloadbuilder.testing"):
        for name in importlib.import_module(module).__all__:
            assert f"{module}.{name}\n" in reference or f"{module}.{name}</code>" in reference, name
    assert not re.search(r":(func|class|data|meth|attr|mod|exc):`", reference)
    # a class's public methods, a dataclass's fields with their defaults
    for method in ("apply", "resize", "delete", "reconcile", "wait_scheduled"):
        assert f'id="workloadbuilder.aio.client.Client.{method}"' in reference
    assert 'id="workloadbuilder.aio.wire.retry.RetryPolicy.attempts"' in reference
    # the signature of a function that shares its name with its module, typed and formatted
    assert re.search(r"field_manager</span><span[^>]*>:</span>", reference)
    # a dark/light toggle; search that works from the files (offline plugin); no web fonts
    index = (site / "index.html").read_text()
    assert 'data-md-component="palette"' in index and 'data-md-color-scheme="slate"' in index
    assert (site / "search" / "search_index.js").is_file()
    assert "fonts.googleapis" not in index


FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", ["getting-started.md", "fixtures.md", "migration-from-1.36.md"])
def test_the_pages_python_examples_run(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples name the bundled files from the repository's root
    namespace: dict[str, object] = {"__name__": f"docs_{page.replace('-', '_')}"}
    blocks = FENCE.findall((ROOT / "docs" / page).read_text())
    assert blocks
    for i, code in enumerate(blocks):
        exec(compile(code, f"{page}[block {i}]", "exec"), namespace)
