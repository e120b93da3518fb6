"""The docs' examples run as pasted: the pytest examples pass in an empty project under
pytest's default settings (no ``asyncio_mode``), the programs run and close what they open,
and the documented Python passes ``mypy --strict``."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

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


def mypy_strict(
    files: Sequence[str | Path], project: Path, cache: Path
) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` on ``files`` with the package as a user has it installed (its own
    modules are not the user's to fix); ``cache`` is the run's, so that the package is checked
    once a run."""
    config = project / "mypy.ini"
    config.write_text("[mypy]\n[mypy-workloadbuilder.*]\nignore_errors = True\n")
    args = [sys.executable, "-m", "mypy", "--strict", "--config-file", str(config)]
    args += ["--cache-dir", str(cache), *map(str, files)]
    # the package as installed (an editable install hides it from mypy)
    return run(args, project, MYPYPATH=str(ROOT))


def write(project: Path, page: str, kind: str, prefix: str) -> list[Path]:
    files = []
    for i, code in enumerate(blocks(page, kind)):
        path = project / f"{prefix}{page.removesuffix('.md').replace('-', '_')}_{i}.py"
        path.write_text(code)
        files.append(path)
    return files


PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]


def pyproject() -> str:
    """The one setting docs/testing.md tells a project to make (its ``toml`` block)."""
    (block,) = re.findall(r"```toml\n(.*?)^```", (DOCS / "testing.md").read_text(), re.M | re.S)
    return str(block)


@pytest.mark.slow
@pytest.mark.parametrize("page", ["testing.md", "fixtures.md"])
def test_the_pytest_examples_pass_in_an_empty_project(page: str, tmp_path: Path) -> None:
    files = write(tmp_path, page, "pytest", "test_")
    assert files, f"{page} has no <!-- pytest --> example"
    assert not list(tmp_path.glob("*.toml")) and not list(tmp_path.glob("*.ini"))
    (tmp_path / "pyproject.toml").write_text(pyproject())  # what testing.md says to set
    args = [*PYTEST, "-W", "error::pytest.PytestUnraisableExceptionWarning"]
    if page == "fixtures.md":  # the first run records the snapshots, as the page says
        recorded = run([*args, "--snapshot-update"], tmp_path)
        assert recorded.returncode == 0, recorded.stdout[-3000:]
    result = run(args, tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"{len(files)} passed" in result.stdout
    assert "Unclosed" not in result.stdout + result.stderr
    assert "PytestDeprecationWarning" not in result.stdout + result.stderr


@pytest.mark.slow
def test_the_loop_scope_setting_is_what_silences_pytest_asyncio(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing() -> None:\n    pass\n")
    unset = run([*PYTEST, "-p", "pytest_asyncio"], tmp_path)
    assert "asyncio_default_fixture_loop_scope" in unset.stdout + unset.stderr  # the warning
    (tmp_path / "pyproject.toml").write_text(pyproject())
    result = run([*PYTEST, "-p", "pytest_asyncio"], tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "PytestDeprecationWarning" not in result.stdout + result.stderr


PAGES = sorted(p.name for p in DOCS.glob("*.md") if blocks(p.name))


@pytest.mark.parametrize("page", PAGES)
def test_every_block_runs_as_pasted_or_after_the_blocks_above_it(page: str, tmp_path: Path) -> None:
    """Each python block is a module (no ``await`` outside a function) whose names are its own
    or those of the page's blocks above it: a fragment says what it takes as parameters."""
    code = blocks(page)
    for i, block in enumerate(code):
        compile(block, f"{page}[block {i}]", "exec")
    joined = tmp_path / "page.py"
    joined.write_text("\n".join(code))
    result = run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F821",
         "--output-format", "concise", str(joined)],
        tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, f"{page}: names defined nowhere on the page\n{result.stdout}"


@pytest.mark.slow
def test_the_kopf_page_tests_the_operator_from_the_repository(tmp_path: Path) -> None:
    (test,) = write(tmp_path, "kopf.md", "pytest-repo", "test_")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # pytest's defaults, not the project's
    args = [*PYTEST, "-c", str(tmp_path / "pytest.ini")]
    result = run([*args, "--rootdir", str(tmp_path), str(test)], ROOT)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 passed" in result.stdout


@pytest.mark.slow
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
FRAGMENTS = ["apply.md", "observe.md", "testing.md"]


def unmarked(page: str) -> list[str]:
    """The page's python blocks no other test runs (no mark, no program of its own), and
    apply.md's worked example, on which its later blocks build."""
    found = BLOCK.findall((DOCS / page).read_text())
    return [
        code
        for marks, code in found
        if marks in ("", "<!-- example -->\n") and "asyncio.run(" not in code
    ]


@pytest.mark.slow
def test_the_documented_python_passes_mypy_strict(tmp_path: Path, mypy_cache: Path) -> None:
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
    for page in FRAGMENTS:  # the blocks test_the_fragments_... runs, as it runs them
        joined = tmp_path / f"fragments_{page.removesuffix('.md')}.py"
        joined.write_text("\n".join(unmarked(page)))
        files.append(joined)
    result = mypy_strict(files, tmp_path, mypy_cache)
    assert result.returncode == 0, result.stdout[-5000:]


def page_files(page: str, tmp_path: Path) -> list[Path]:
    """Each Python block of ``page`` as a file of its own."""
    files = []
    for i, code in enumerate(blocks(page)):
        path = tmp_path / f"{page.removesuffix('.md')}_{i}.py"
        path.write_text(code)
        files.append(path)
    return files


def page_namespace(page: str) -> dict[str, Any]:
    """The page's ``unmarked()`` blocks run in one namespace, in order."""
    namespace: dict[str, Any] = {}
    for i, code in enumerate(unmarked(page)):
        exec(compile(code, f"{page}[fragment {i}]", "exec"), namespace)
    return namespace


async def test_the_fragments_of_apply_observe_and_testing_run(
    fake_apiserver: FakeAPIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    applying, observing = page_namespace("apply.md"), page_namespace("observe.md")
    testing = page_namespace("testing.md")
    objects = [
        (builder := applying["trainjob_builder"](workers=2)).build_workload(),
        *wb.instantiate(builder),
    ]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}}
    fake_apiserver.create_object("", "v1", "namespaces", namespace)
    async with fake_apiserver.api_client() as api:
        await aio.apply(api, objects, field_manager="trainjob-controller")
        await observing["audit_namespace"](api)  # nothing in ml-training: no finding
        await applying["tear_down"](api, objects[0])
    assert fake_apiserver.list_objects("scheduling.k8s.io", "v1beta1", "podgroups", "ml") == []
    assert fake_apiserver.list_objects("scheduling.k8s.io", "v1beta1", "workloads", "ml") == []
    testing["inject_faults"](fake_apiserver)
    assert fake_apiserver.faults.pending == []
    assert testing["patch_queries"](fake_apiserver) == [
        {"fieldManager": "trainjob-controller", "fieldValidation": "Strict"}
    ] * len(objects)
    printed = capsys.readouterr().out
    assert printed.startswith("[") and "429" in printed  # the pending faults, then cleared


INSTALL = re.compile(r"pip install ([^#`\n&]*)")


@functools.cache
def _installed_by(command: str) -> frozenset[str]:
    """The distributions ``pip install COMMAND`` brings (``.``/``-e .``/the wheel with
    extras), with what they require, read from the installed metadata (normalized names)."""
    wanted: list[tuple[str, frozenset[str]]] = []
    for word in shlex.split(command):
        if word.startswith("-"):
            continue
        name, _, extra = word.partition("[")
        if name in (".", "workloadbuilder") or name.startswith("dist/"):
            wanted.append(("workloadbuilder", frozenset(extra.rstrip("]").split(",")) - {""}))
        else:
            requirement = Requirement(word)
            wanted.append((requirement.name, frozenset(requirement.extras)))
    seen: set[tuple[str, frozenset[str]]] = set()
    while wanted:
        name, extras = wanted.pop()
        if (canonicalize_name(name), extras) in seen:
            continue
        seen.add((canonicalize_name(name), extras))
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # not in this environment (polyaxon): its own name is what it brings
        for line in requires:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in extras or {""}):
                wanted.append((requirement.name, frozenset(requirement.extras)))
    return frozenset(name for name, _ in seen)


_OWNERS = functools.cache(importlib.metadata.packages_distributions)


def _needs(code: str) -> set[str]:
    """The distributions (normalized) of the modules ``code`` imports, the project's left out."""
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module.split(".")[0])
    return {
        canonicalize_name(dist)
        for module in modules - set(sys.stdlib_module_names) - {"workloadbuilder"}
        for dist in _OWNERS().get(module, [module])
    }


@pytest.mark.parametrize("page", PAGES)
def test_each_block_imports_only_what_the_page_says_to_install(page: str) -> None:
    """What the page's own install commands bring (getting-started.md's when it has none),
    and what the paragraph just before a block adds for it (`pip install ...`)."""
    text = (DOCS / page).read_text()
    commands = INSTALL.findall(text) or INSTALL.findall((DOCS / "getting-started.md").read_text())
    base = frozenset().union(*map(_installed_by, commands))
    for match in BLOCK.finditer(text):
        before = text[: match.start()].rstrip().rsplit("\n\n", 1)[-1]
        extra = frozenset().union(*map(_installed_by, INSTALL.findall(before)))
        missing = _needs(match.group(2)) - base - extra
        assert not missing, f"{page}: a block imports {sorted(missing)}, which it does not install"
