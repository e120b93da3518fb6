"""The docs' examples run as pasted: the pytest examples pass in an empty project under
pytest's default settings (no ``asyncio_mode``), the programs run and close what they open,
and the documented Python passes ``mypy --strict``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"((?:<!-- [a-z-]+ -->\n)*)```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(page: str, kind: str | None = None) -> list[str]:
    """The python blocks of ``page``; only those marked ``<!-- kind -->`` when given."""
    found = BLOCK.findall((DOCS / page).read_text())
    return [code for marks, code in found if kind is None or f"<!-- {kind} -->" in marks]


def run(
    args: list[str], cwd: Path, timeout: int = 300, **extra: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "WORKLOADBUILDER_"))}
    env.update(extra)
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=env
    )


def write(project: Path, page: str, kind: str, prefix: str) -> list[Path]:
    files = []
    for i, code in enumerate(blocks(page, kind)):
        path = project / f"{prefix}{page.removesuffix('.md').replace('-', '_')}_{i}.py"
        path.write_text(code)
        files.append(path)
    return files


PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]


@pytest.mark.parametrize("page", ["testing.md", "fixtures.md"])
def test_the_pytest_examples_pass_in_an_empty_project(page: str, tmp_path: Path) -> None:
    files = write(tmp_path, page, "pytest", "test_")
    assert files, f"{page} has no <!-- pytest --> example"
    assert not list(tmp_path.glob("*.toml")) and not list(tmp_path.glob("*.ini"))
    args = [*PYTEST, "-W", "error::pytest.PytestUnraisableExceptionWarning"]
    if page == "fixtures.md":  # the first run records the snapshots, as the page says
        recorded = run([*args, "--snapshot-update"], tmp_path)
        assert recorded.returncode == 0, recorded.stdout[-3000:]
    result = run(args, tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"{len(files)} passed" in result.stdout
    assert "Unclosed" not in result.stdout + result.stderr


def test_the_kopf_page_tests_the_operator_from_the_repository(tmp_path: Path) -> None:
    (test,) = write(tmp_path, "kopf.md", "pytest-repo", "test_")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # pytest's defaults, not the project's
    args = [*PYTEST, "-c", str(tmp_path / "pytest.ini")]
    result = run([*args, "--rootdir", str(tmp_path), str(test)], ROOT)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 passed" in result.stdout


def test_the_programs_run_and_close_their_clients(tmp_path: Path) -> None:
    files = write(tmp_path, "testing.md", "program", "")
    assert len(files) >= 2
    for path in files:
        result = run([sys.executable, "-X", "dev", str(path)], tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
        assert "Unclosed" not in result.stderr and "ResourceWarning" not in result.stderr, (
            result.stderr
        )


EXECUTED = ["getting-started.md", "fixtures.md", "migration-from-1.36.md"]


def test_the_documented_python_passes_mypy_strict(tmp_path: Path) -> None:
    files = [
        *write(tmp_path, "testing.md", "pytest", "test_"),
        *write(tmp_path, "testing.md", "program", "program_"),
        *write(tmp_path, "fixtures.md", "pytest", "test_"),
        *write(tmp_path, "models.md", "typed", "typed_"),
        *write(tmp_path, "kopf.md", "pytest-repo", "test_"),
    ]
    for page in EXECUTED:  # each page's blocks run in one namespace, in order
        joined = tmp_path / f"page_{page.removesuffix('.md').replace('-', '_')}.py"
        joined.write_text("\n".join(blocks(page)))
        files.append(joined)
    # the package as a user has it installed: its own modules are not the user's to fix
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n[mypy-workloadbuilder.*]\nignore_errors = True\n")
    result = run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(config),
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy"),
            *map(str, files),
        ],
        tmp_path,
        MYPYPATH=str(ROOT),  # the package as installed (an editable install hides it from mypy)
    )
    assert result.returncode == 0, result.stdout[-5000:]
