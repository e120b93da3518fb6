"""Files the spec loader cannot read as a document: one located error each, as docs/cli.md says.

"A file that is not UTF-8, not one valid YAML or JSON document, nests mappings and lists
deeper than 100 levels, contains itself through a YAML alias, or whose aliases expand to more
than 100,000 values is reported on one line ``FILE:LINE:COLUMN: ...``, exit code 1." A JSON
file is read as JSON. The columns are counted here from the content (1-based, as the line).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml
from cli_paths import ROOT, SPECS
from typer.testing import CliRunner

from workloadbuilder.cli import app
from workloadbuilder.spec import MAX_ALIASED_VALUES, MAX_NESTING, SpecError, load_spec

TRAINING = (SPECS / "training.yaml").read_text(encoding="utf-8")


def _billion_laughs() -> bytes:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 10)}]")
    return ("\n".join(lines) + "\n").encode()


UNREADABLE = [
    pytest.param(
        TRAINING.replace("name: resnet-training", "name: r\xe9snet").encode("latin-1"),
        TRAINING.splitlines().index("    name: resnet-training") + 1,
        len("    name: r") + 1,  # the byte \xe9
        "not valid UTF-8: invalid continuation byte at byte ",
        id="latin-1",
    ),
    pytest.param(
        b"[" * 20_000 + b"]" * 20_000,
        1,
        None,  # JSON (read as JSON, whose reader gives no place)
        f"nested deeper than {MAX_NESTING} levels",
        id="deep-yaml",
    ),
    pytest.param(
        b"spec:\n  " + b"[" * MAX_NESTING + b"]" * MAX_NESTING,
        2,
        len("  ") + MAX_NESTING,  # the mapping of line 1 is the first level
        f"nested deeper than {MAX_NESTING} levels",
        id="deep-from-line-2",
    ),
    pytest.param(
        b'{"a": ' * 5000 + b"1" + b"}" * 5000,
        1,
        None,  # JSON's reader gives no place
        f"nested deeper than {MAX_NESTING}",
        id="deep-json",
    ),
    pytest.param(
        b"spec:\n  root: &node\n    children: [*node]\n",
        3,
        len("    children: [") + 1,
        "not valid YAML: anchor 'node' value contains itself (alias *node)",
        id="recursive-alias",
    ),
    pytest.param(
        _billion_laughs(),
        5,
        len("e: &e [") + 1 + 7 * len("*d, "),  # 12,330 values before e, 11,111 per *d
        f"not valid YAML: the aliases expand to more than {MAX_ALIASED_VALUES} values",
        id="billion-laughs",
    ),
    pytest.param(
        b"apiVersion: v1\nkind: \x00\n",
        2,
        len("kind: ") + 1,
        "not valid YAML: unacceptable character #x0000: special characters are not allowed",
        id="nul",
    ),
    pytest.param(
        (TRAINING + "---\n" + TRAINING).encode(),
        TRAINING.count("\n") + 1,
        1,  # the second "---"
        "not valid YAML: expected a single document in the stream, but found another document",
        id="two-documents",
    ),
]


class Case(NamedTuple):
    content: bytes
    line: int
    column: int | None
    message: str

    def expected(self, path: Path) -> str:
        """``PATH:LINE:COLUMN: MESSAGE`` (no column where the reader gives none)."""
        column = "" if self.column is None else f"{self.column}:"
        return f"{path}:{self.line}:{column} {self.message}"


CASES = [pytest.param(Case(*p.values), id=p.id) for p in UNREADABLE]  # type: ignore[arg-type]


@pytest.mark.parametrize("case", CASES)
def test_the_loader_reports_one_located_error(tmp_path: Path, case: Case) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(case.content)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    (located,) = caught.value.located()
    assert located.startswith(case.expected(path)), located
    assert "<nil>" not in located and "Invalid value" not in located  # no field to name


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["validate", "build", "explain"])
def test_the_commands_print_it_on_one_line_and_exit_1(
    runner: CliRunner, tmp_path: Path, command: str, case: Case
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(case.content)
    result = runner.invoke(app, [command, str(path)])
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    (printed,) = result.stderr.splitlines()
    assert printed.startswith(case.expected(path)), printed


def test_an_error_is_one_line_whatever_the_key(runner: CliRunner, tmp_path: Path) -> None:
    # "Errors are one line each": a line break in a key is written as its escape.
    path = tmp_path / "spec.json"
    document = {**yaml.safe_load(TRAINING), "x\ny\u2028": 1}
    path.write_text(json.dumps(document), encoding="utf-8")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"{path}:1: x\\ny\\u2028: Forbidden: unknown field"]


@pytest.mark.parametrize(
    "case", [p for p in CASES if p.id != "two-documents"]
)  # a stream of documents is what these commands read
@pytest.mark.parametrize("command", ["migrate", "simulate"])
def test_migrate_and_simulate_read_their_files_alike(
    runner: CliRunner, tmp_path: Path, command: str, case: Case
) -> None:
    path = tmp_path / "input.yaml"
    path.write_bytes(case.content)
    args = [command, str(path)] if command == "migrate" else [command, str(SPECS / "training.yaml")]
    result = runner.invoke(app, args + (["--nodes", str(path)] if command == "simulate" else []))
    assert result.exit_code == 1, result.output
    (printed,) = result.stderr.splitlines()
    assert printed.startswith(f"error: {case.expected(path)}"), printed


def _objects(path: Path) -> list[dict[str, object]]:
    return [o.to_dict() for o in load_spec(path).objects()]


def test_json_is_read_as_json(tmp_path: Path) -> None:
    document = yaml.safe_load(TRAINING)
    document["spec"]["owner"]["kind"] = "Trainer\U0001f600"
    as_yaml = tmp_path / "spec.yaml"
    as_yaml.write_text(yaml.safe_dump(document), encoding="utf-8")
    # Tab indentation and an escaped surrogate pair: JSON that PyYAML (YAML 1.1) misreads.
    as_json = tmp_path / "spec.json"
    as_json.write_text(json.dumps(document, indent="\t"), encoding="utf-8")
    assert "\\ud83d\\ude00" in as_json.read_text()
    objects = _objects(as_json)
    assert objects == _objects(as_yaml)
    assert objects[1]["metadata"]["ownerReferences"][0]["kind"] == "Trainer\U0001f600"  # type: ignore[index]


def test_a_json_error_keeps_its_line(tmp_path: Path) -> None:
    document = yaml.safe_load(TRAINING)
    document["spec"]["root"]["schedulingPolicy"]["gang"]["minCount"] = -1
    path = tmp_path / "spec.json"
    text = json.dumps(document, indent=2)
    path.write_text(text, encoding="utf-8")
    (located,) = load_spec(path).error(load_spec(path).validate()).located()
    line = next(i for i, s in enumerate(text.splitlines(), 1) if '"minCount"' in s)
    assert located.startswith(f"{path}:{line}: spec.root.schedulingPolicy.gang.minCount:")


def test_explain_prints_markup_in_the_owner_as_text(runner: CliRunner, tmp_path: Path) -> None:
    # The owner's kind and name are free text: "[red]" or "[bold]" are not rich markup. (A
    # closing "[/]" cannot occur: a kind is a path segment, which the API server checks.)
    path = tmp_path / "spec.yaml"
    path.write_text(
        TRAINING.replace("kind: PyTorchJob", 'kind: "Py[red]Torch[bold]Job"'), encoding="utf-8"
    )
    result = runner.invoke(app, ["explain", str(path)])
    assert result.exit_code == 0, result.output
    assert "controlled by Py[red]Torch[bold]Job resnet-training" in result.stdout


def test_a_lone_surrogate_is_printed_escaped_by_the_installed_command(tmp_path: Path) -> None:
    # YAML's "\ud800" escape gives a lone surrogate, which UTF-8 cannot encode.
    path = tmp_path / "spec.yaml"
    path.write_text(TRAINING.replace("kind: PyTorchJob", 'kind: "Py\\ud800Job"'), encoding="utf-8")
    for command in ("explain", "validate", "build"):
        result = subprocess.run(
            [sys.executable, "-m", "workloadbuilder", command, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=ROOT,
        )
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
    assert "Py\\ud800Job" in result.stdout or "Py\\uD800Job" in result.stdout


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ("[{name: n, labels: [1, 2]}]", "[0].labels: must be a map of strings to strings"),
        ("[{name: n, labels: abc}]", "[0].labels: must be a map of strings to strings"),
        ("[{name: n, allocatable: 3}]", "[0].allocatable: must be a map of resource names"),
        ("[{name: n, allocatable: {cpu: [1]}}]", "[0].allocatable: must be a map of resource"),
        ("{kind: Node, metadata: [1]}", "a Node without metadata.name"),
        ("{kind: Node, metadata: {name: n}, status: [1]}", "Node n: status must be an object"),
    ],
)
def test_simulate_names_what_is_wrong_in_the_nodes(
    runner: CliRunner, tmp_path: Path, nodes: str, message: str
) -> None:
    # docs/cli.md: "a --nodes file that is not of the shape above" is reported (exit 1).
    path = tmp_path / "nodes.yaml"
    path.write_text(nodes + "\n", encoding="utf-8")
    result = runner.invoke(app, ["simulate", str(SPECS / "training.yaml"), "--nodes", str(path)])
    assert result.exit_code == 1, result.output
    (printed,) = result.stderr.splitlines()
    assert printed.startswith(f"error: {path}: {message}"), printed


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ('cpu: "2"', "cpu: abc", "spec.root.resources[cpu]", 'Invalid value: "abc": expected a'),
        ('cpu: "2"', 'cpu: "-1"', "spec.root.resources[cpu]", 'Invalid value: "-1": must be gre'),
        ("replicas: 4", "replicas: 20000", "spec.root", "Invalid value: 20000: the leaves' rep"),
    ],
    ids=["not-a-quantity", "negative", "too-many-pods"],
)
def test_simulate_reports_the_specs_requests_and_replicas(
    runner: CliRunner, tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    # docs/cli.md: resources must be quantities and not negative; at most 10,000 pods.
    path = tmp_path / "spec.yaml"
    path.write_text(TRAINING.replace(old, new), encoding="utf-8")
    nodes = ROOT / "examples" / "nodes.yaml"
    result = runner.invoke(app, ["simulate", str(path), "--nodes", str(nodes)])
    assert result.exit_code == 1, result.output
    (printed,) = result.stderr.splitlines()
    assert printed.startswith(f"{path}:"), printed
    assert f": {field}: {message}" in printed, printed


@pytest.mark.parametrize(("key", "shown"), [("null", "null"), ("7", "7"), ("true", "true")])
def test_a_key_that_is_not_a_string_is_reported_at_its_mapping(
    tmp_path: Path, key: str, shown: str
) -> None:
    from workloadbuilder.spec import SpecError, load_spec

    text = (SPECS / "training.yaml").read_text(encoding="utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text(text.replace("spec:\n", f"spec:\n  {key}: 3\n", 1), encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        load_spec(path)
    (error,) = raised.value.errors
    assert (error.field, error.detail) == ("spec", "Keys should be strings")
    line = text.splitlines().index("spec:") + 1  # the mapping's own line
    assert str(raised.value) == (
        f"{path}:{line}: spec: Invalid value: {shown}: Keys should be strings"
    )
