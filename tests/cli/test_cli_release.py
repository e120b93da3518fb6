"""The commands release a spec once, and write YAML streams with the bytes of the writer they
used before (``yaml.safe_dump_all``, PyYAML's pure-Python emitter: the oracle here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_paths import NODES, ROOT, SPECS
from profiled import calls
from typer.testing import CliRunner

from workloadbuilder import Builder
from workloadbuilder.cli import app
from workloadbuilder.migration import migrate
from workloadbuilder.spec import load_spec, read_documents

SPEC_FILES = sorted(SPECS.glob("*.yaml"))


def previous_writer(docs: list[Any]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False)


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.name)
def test_build_writes_the_bytes_of_the_previous_writer(runner: CliRunner, path: Path) -> None:
    result = runner.invoke(app, ["build", str(path)])
    assert result.exit_code == 0, result.output
    expected = previous_writer([o.to_dict() for o in load_spec(path).objects()])
    assert result.stdout == expected


def test_migrate_writes_the_bytes_of_the_previous_writer(runner: CliRunner) -> None:
    example = ROOT / "examples" / "migration" / "training-1.36.yaml"
    result = runner.invoke(app, ["migrate", str(example)])
    assert result.exit_code == 0, result.output
    documents = [d for d in read_documents(example.read_bytes()) if d is not None]
    assert result.stdout == previous_writer(migrate(documents).documents)


PASSED_THROUGH = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: "caf\\u00e9", annotations: {"": "empty key", "k": "\\x1f"}}
data: {script: "line one\\nline two\\n\\n", tab: "a\\tb", long: "%s"}
--- just a scalar
--- 42
--- [1, "two", {three: null}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: last}
data: {kept: "ends with newlines\\n\\n\\n"}
""" % ("\\u0100" * 60)


def test_documents_migrate_passes_through_keep_their_bytes(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(PASSED_THROUGH, encoding="utf-8")
    result = runner.invoke(app, ["migrate", str(path)])
    assert result.exit_code == 0, result.output
    documents = list(yaml.safe_load_all(PASSED_THROUGH))
    assert result.stdout == previous_writer(documents)
    assert list(yaml.safe_load_all(result.stdout)) == documents


def test_a_report_as_yaml_has_the_bytes_of_the_previous_writer(runner: CliRunner) -> None:
    result = runner.invoke(
        app, ["simulate", str(SPECS / "training.yaml"), "--nodes", str(NODES), "-o", "yaml"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == previous_writer(list(yaml.safe_load_all(result.stdout)))


@pytest.mark.parametrize(
    "args",
    [
        ["build", str(SPECS / "release.yaml")],
        ["explain", str(SPECS / "release.yaml")],
        ["simulate", str(SPECS / "training.yaml"), "--nodes", str(NODES)],
    ],
    ids=lambda a: a[0],
)
def test_a_command_compiles_the_spec_once(runner: CliRunner, args: list[str]) -> None:
    with calls(Builder._build) as counted:
        result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert counted == {"Builder._build": 1}
