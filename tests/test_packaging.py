"""The package as a user gets it: the sdist holds what its tests need, and without an extra
each optional part fails with one line naming the extra to install.

Built with ``python -m build`` and installed with pip into fresh virtual environments (pip
reads the configured package index or cache); slow, each step bounded by a timeout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def run(
    *args: str | Path, cwd: Path | None = None, timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        env=env,
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, and the wheel built from it (the [dev] extra brings build and setuptools)."""
    out = tmp_path_factory.mktemp("dist")
    built = run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT)
    assert built.returncode == 0, built.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def sdist(dist: Path) -> Path:
    (archive,) = dist.glob("workloadbuilder-*.tar.gz")
    return archive


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (built,) = dist.glob("workloadbuilder-*.whl")
    return built


@pytest.fixture(scope="module")
def core_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the package and no extra (pytest to load its plugin)."""
    venv = tmp_path_factory.mktemp("core") / "venv"
    assert run(sys.executable, "-m", "venv", venv).returncode == 0
    installed = run(venv / "bin" / "pip", "install", "-q", wheel, "pytest", "pytest-asyncio")
    assert installed.returncode == 0, installed.stderr[-3000:]
    return venv


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    assert project["license-files"] == ["LICENSE"]


def test_the_sdist_holds_its_tests_and_they_run_from_it(sdist: Path, tmp_path: Path) -> None:
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        archive.extractall(tmp_path, filter="data")
    (top,) = {n.split("/")[0] for n in names}
    for needed in (
        "LICENSE",
        "tests/conftest.py",
        "tests/cli/conftest.py",
        "examples/specs/training.yaml",
        "docs/testing.md",
        "mkdocs.yml",
    ):
        assert f"{top}/{needed}" in names, needed
    assert not any("__pycache__" in n for n in names)
    unpacked = tmp_path / top
    result = run(
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_reference.py",
        "tests/cli/test_commands.py::test_every_command_has_help_with_an_example",
        cwd=unpacked,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout


def _last_line(result: subprocess.CompletedProcess[str]) -> str:
    return result.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("code", "extra"),
    [
        ("import workloadbuilder.aio", "aio"),
        ("from workloadbuilder.testing import FakeAPIServer", "testing"),
        ("from workloadbuilder.cli import app", "cli"),
    ],
)
def test_without_the_extra_an_import_names_it(core_venv: Path, code: str, extra: str) -> None:
    result = run(core_venv / "bin" / "python", "-c", code)
    assert result.returncode == 1
    line = _last_line(result)
    assert line.startswith("ModuleNotFoundError: workloadbuilder")
    assert f"needs the [{extra}] extra: pip install 'workloadbuilder[{extra}]'" in line
    assert "No module named" not in result.stderr


def test_the_core_works_without_any_extra(core_venv: Path) -> None:
    code = (
        "import workloadbuilder as wb\n"
        "from workloadbuilder.testing.fixtures import fixture_dicts\n"
        "print(*(d['kind'] for d in fixture_dicts(wb.leaf('workers', policy=wb.gang(2)))))"
    )
    result = run(core_venv / "bin" / "python", "-c", code)
    assert (result.returncode, result.stdout) == (0, "Workload PodGroup\n"), result.stderr


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["bin/workloadbuilder", "--help"], "cli"),
        (["bin/python", "-m", "workloadbuilder", "build", "x.yaml"], "cli"),
        (["bin/python", "-m", "workloadbuilder.testing"], "testing"),
    ],
)
def test_without_the_extra_a_command_prints_one_line(
    core_venv: Path, args: list[str], extra: str
) -> None:
    result = run(core_venv / args[0], *args[1:])
    assert result.returncode in (1, 2)
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ")
    assert f"needs the [{extra}] extra: pip install 'workloadbuilder[{extra}]'" in line


def test_without_the_extra_the_fixtures_say_what_to_install(
    core_venv: Path, tmp_path: Path
) -> None:
    (tmp_path / "test_it.py").write_text(
        "async def test_server(fake_apiserver):\n    pass\n\ndef test_plain():\n    pass\n"
    )
    result = run(
        core_venv / "bin" / "python", "-m", "pytest", "-rs", "-p", "no:cacheprovider", cwd=tmp_path
    )
    assert "1 passed, 1 error" in result.stdout, result.stdout[-3000:]
    assert (
        "the fake_apiserver fixture needs the [testing] extra:"
        " pip install 'workloadbuilder[testing]'"
    ) in result.stdout


def test_with_the_cli_extra_the_command_runs(core_venv: Path, wheel: Path) -> None:
    """Last: the extra is added to the environment the tests above found without it."""
    pip = core_venv / "bin" / "pip"
    installed = run(pip, "install", "-q", f"workloadbuilder[cli] @ {wheel.as_uri()}")
    assert installed.returncode == 0, installed.stderr[-3000:]
    version = run(core_venv / "bin" / "workloadbuilder", "--version")
    assert version.stdout == "workloadbuilder 0.1.0\n", version.stderr
    training = ROOT / "examples" / "specs" / "training.yaml"
    built = run(core_venv / "bin" / "workloadbuilder", "build", training)
    assert built.returncode == 0 and "kind: PodGroup" in built.stdout, built.stderr
    imported = run(core_venv / "bin" / "python", "-c", "import workloadbuilder.aio")
    assert imported.returncode == 0, imported.stderr


def test_the_wheel_installs_as_getting_started_says(wheel: Path, tmp_path: Path) -> None:
    """docs/getting-started.md's wheel install, run as it reads (the wheel ``python -m build``
    wrote, with ``[cli]``) in a fresh environment, then the README's commands from elsewhere.

    ``--no-deps`` and this environment's packages behind the new one's keep it quick: the
    full resolve from the index is ``test_with_the_cli_extra_the_command_runs``'s."""
    page = (ROOT / "docs" / "getting-started.md").read_text()
    (shown,) = re.findall(r"^pip install '(dist/[^']+)'$", page, re.MULTILINE)
    assert shown == f"dist/{wheel.name}[cli]"
    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", "--without-pip", venv).returncode == 0
    python = venv / "bin" / "python"
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    (Path(site.stdout.strip()) / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    pip = [sys.executable, "-m", "pip", "--python", python]  # this pip, for the new environment
    installed = run(*pip, "install", "-q", "--no-deps", str(wheel) + "[cli]")
    assert installed.returncode == 0, installed.stderr[-3000:]
    where = run(
        python, "-c", "import workloadbuilder; print(workloadbuilder.__file__)", cwd=tmp_path
    )
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    command = venv / "bin" / "workloadbuilder"
    training = ROOT / "examples" / "specs" / "training.yaml"
    built = run(command, "build", training, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert [d["kind"] for d in yaml.safe_load_all(built.stdout)] == ["Workload", "PodGroup"]
    explained = run(command, "explain", training, cwd=tmp_path)
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.startswith("Workload resnet-training-6dbff5dc47 in namespace ml-")
