"""The package's shape: what `pip install workloadbuilder` brings, and what works without extras."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# Makes the extras' packages unimportable, as in an environment with the core install only.
BLOCK_EXTRAS = textwrap.dedent(
    """
    import importlib.abc, sys

    BLOCKED = ("aiohttp", "kubernetes_asyncio", "tenacity", "typer", "rich")

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Blocker())
    for loaded in [m for m in sys.modules if m.split(".")[0] in BLOCKED]:
        del sys.modules[loaded]
    """
)


def _names(requirements: list[str]) -> set[str]:
    out = set()
    for req in requirements:
        name = req.split(";")[0]
        for sep in "<>=!~[ ":
            name = name.split(sep)[0]
        out.add(name.lower())
    return out


def test_core_dependencies_are_pydantic_and_pyyaml() -> None:
    assert _names(PYPROJECT["project"]["dependencies"]) == {"pydantic", "pyyaml"}


def test_extras_are_as_decided() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    # prometheus-client: the metrics every part records; jsonpatch: a mutating webhook's answer
    assert _names(extras["aio"]) == {
        "kubernetes-asyncio",
        "tenacity",
        "aiohttp",
        "prometheus-client",
        "jsonpatch",
    }
    # cryptography: the RBAC server's TLS listener (kubectl sends a token only over TLS)
    assert _names(extras["testing"]) == {"aiohttp", "kubernetes-asyncio", "cryptography"}
    assert _names(extras["cli"]) == {"typer", "rich", "workloadbuilder"}
    assert "workloadbuilder[aio]" in extras["cli"]
    assert _names(extras["docs"]) == {"mkdocs-material", "mkdocstrings"}
    # The benchmarks' lightkube baseline: the 1.37 models, which have scheduling v1beta1.
    assert _names(extras["bench"]) == {"lightkube-models", "lightkube"}
    assert "lightkube-models>=1.37.0.8,<1.38" in extras["bench"]
    # [dev] installs everything: every other extra, the test tools and the oracles.
    assert "workloadbuilder[aio,testing,cli,docs,bench]" in extras["dev"]
    for tool in ("pytest", "pytest-asyncio", "hypothesis", "mypy", "ruff", "nox", "syrupy"):
        assert tool in _names(extras["dev"]), tool
    assert {"kubernetes-validate", "kubernetes", "lightkube", "kr8s", "kopf"} <= _names(
        extras["dev"]
    )
    assert "kubernetes-validate==1.37.0" in extras["dev"]
    assert "kubernetes==37.0.2" in extras["dev"]


def test_readme_names_the_extras() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for extra in ("[aio]", "[testing]", "[cli]", "[docs]", "[dev]"):
        assert extra in readme, extra
    # The two commands keep their meaning: the [cli] install builds the example, [dev] the tests.
    assert "pip install -e '.[cli]' && workloadbuilder build examples/specs/training.yaml" in readme
    assert "pip install -e '.[dev]' && pytest" in readme


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK_EXTRAS + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_the_core_imports_and_works_without_the_extras() -> None:
    result = _run(
        """
        import workloadbuilder as wb
        root = wb.composite("r", [wb.leaf("a", policy=wb.gang(2))], policy=wb.basic())
        owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u"}
        builder = wb.Builder(root, wb.BuildOptions(name="w", namespace="n", owner=owner))
        print(len(wb.instantiate(builder)), builder.build_workload().kind)
        import aiohttp
        """
    )
    assert "2 Workload" in result.stdout, result.stderr
    assert "No module named 'aiohttp'" in result.stderr  # the blocker did block


@pytest.mark.slow
def test_the_pytest_plugin_loads_without_the_extras(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    result = _run(
        f"""
        import sys, pytest
        code = pytest.main(["-q", "-p", "no:cacheprovider", {str(tmp_path)!r}])
        import workloadbuilder.testing.plugin as plugin
        assert plugin.MARKER == "fake_apiserver"
        sys.exit(int(code))
        """
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
