"""Any file thrown at the spec loader and the command: only the documented outcomes.

docs/cli.md and ``workloadbuilder.spec`` document them: ``load_spec`` gives a spec or raises
``SpecError`` (every line ``FILE:LINE: field: message``); ``validate()`` gives an ``ErrorList``
whose only Internal errors are the tree's (an empty or a repeated name, docs/validation.md T1
and T2), never "unexpected"; a spec without errors compiles to objects that the 1.37 strict
JSON schemas and the official ``kubernetes`` 37 models accept. The command exits 0 or 1
(2 only for a file it cannot read), prints its errors one per line and never a traceback;
``migrate`` likewise, on any stream of 1.36 manifests or any bytes.

Inputs: arbitrary bytes and text; arbitrary JSON values (``test_robustness.JSON``); spec
documents drawn from the documented shape, then broken in one place (a value replaced by any
JSON value, a key dropped or added), written as block or flow YAML or as JSON.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from oracles import assert_conforms, assert_schema_valid
from property_bound import bounded
from strategies import dns_labels, label_keys
from test_robustness import JSON
from typer.testing import CliRunner

from workloadbuilder import ErrorList, ErrorType, FieldError
from workloadbuilder.cli import app
from workloadbuilder.spec import API_VERSION, KIND, LoadedSpec, SpecError, load_spec

pytestmark = pytest.mark.slow

SETTINGS = settings(
    max_examples=bounded(60),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# The tree's own Internal errors (docs/validation.md T1, T2); any other is a defect.
TREE_ERRORS = ("workload item name cannot be empty", "duplicate workload item name ")
# Errors about the document as a whole, at no field.
DOCUMENT_ERRORS = ("must be of type object", "not valid YAML", "not valid UTF-8", "nested deeper")


# -- documents --------------------------------------------------------------------------------


def _mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` seven times in eight: most specs validate, the rest must be reported."""
    return st.integers(min_value=0, max_value=7).flatmap(lambda n: bad if n == 0 else good)


_GANG_COUNTS = _mostly(st.integers(min_value=1, max_value=3), st.sampled_from([0, -1, 2**31]))


@st.composite
def _blocks(draw: st.DrawFn, *, composite: bool) -> dict[str, Any]:
    node: dict[str, Any] = {}
    count = "minGroupCount" if composite else "minCount"
    policy = draw(st.sampled_from(["basic", "gang", None]))
    if policy == "basic":
        node["schedulingPolicy"] = {"basic": {}}
    elif policy == "gang":
        node["schedulingPolicy"] = {"gang": {count: draw(_GANG_COUNTS)}}
    mode = draw(st.sampled_from(["single", "all", None])) if policy == "gang" else None
    if mode is not None:
        node["disruptionMode"] = {mode: {}}
    if draw(st.booleans()):
        keys = draw(_mostly(st.lists(label_keys(), max_size=1), st.lists(label_keys(), max_size=3)))
        node["schedulingConstraints"] = {"topology": [{"key": k} for k in keys]}
    if draw(st.booleans()):
        node["priorityClassName"] = draw(st.sampled_from(["", "high", "system-node-critical"]))
    return node


@st.composite
def _tree(draw: st.DrawFn, names: list[str], depth: int) -> dict[str, Any]:
    name = names.pop() if names else draw(dns_labels())
    composite = depth < 3 and len(names) >= 2 and draw(st.booleans())
    node = {"name": name, **draw(_blocks(composite=composite))}
    if composite:
        width = draw(st.integers(min_value=1, max_value=3))
        node["children"] = [draw(_tree(names, depth + 1)) for _ in range(width)]
        return node
    if draw(st.booleans()):
        claim = draw(dns_labels())
        source = draw(st.sampled_from(["resourceClaimName", "resourceClaimTemplateName"]))
        node["resourceClaims"] = [{"name": claim, source: draw(dns_labels())}]
    if draw(st.booleans()):
        node["replicas"] = draw(st.integers(min_value=0, max_value=8))
    if draw(st.booleans()):
        node["resources"] = {"cpu": draw(st.sampled_from(["1", "500m", 2])), "memory": "1Gi"}
    return node


_BAD_VERSIONS = st.sampled_from(["", "a/b/c", "kubeflow.org/v1/x"])


def _subsets(*values: str) -> st.SearchStrategy[list[str]]:
    """Usually every value (the controller supports everything), else any subset."""
    return _mostly(st.just(list(values)), st.lists(st.sampled_from(values), unique=True))


@st.composite
def spec_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A spec of the documented shape (docs/cli.md), valid or not in its values."""
    names = draw(st.lists(dns_labels(max_length=8), min_size=1, max_size=8, unique=True))
    body: dict[str, Any] = {
        "namespace": draw(_mostly(dns_labels(), st.sampled_from(["ML_Training", "a" * 64]))),
        "owner": {
            "apiVersion": draw(
                _mostly(st.sampled_from(["kubeflow.org/v1", "batch/v1", "v1"]), _BAD_VERSIONS)
            ),
            "kind": draw(
                _mostly(st.sampled_from(["PyTorchJob", "Job", "Py[red]Job"]), st.just(""))
            ),
            "name": draw(_mostly(dns_labels(), st.just(""))),
            "uid": draw(_mostly(st.uuids().map(str), st.just(""))),
        },
        "capabilities": {
            "policies": draw(_subsets("Basic", "Gang")),
            "disruptionModes": draw(_subsets("Single", "All")),
        },
        "root": draw(_tree(names, 0)),
    }
    if draw(st.booleans()):
        body["workloadName"] = draw(dns_labels())
    return {"apiVersion": API_VERSION, "kind": KIND, "spec": body}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(_paths(child, (*prefix, key)))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out.extend(_paths(child, (*prefix, i)))
    return out


@st.composite
def broken_spec_documents(draw: st.DrawFn) -> Any:
    """A spec document with one value replaced, one key dropped or one key added."""
    document = draw(spec_documents())
    path = draw(st.sampled_from(_paths(document)))
    if not path:
        return draw(JSON)
    *parents, last = path
    parent = document
    for key in parents:
        parent = parent[key]
    change = draw(st.sampled_from(["replace", "drop", "add"]))
    if change == "replace":
        parent[last] = draw(JSON)
    elif change == "drop" and isinstance(parent, dict):
        del parent[last]
    elif isinstance(parent, dict):
        parent[draw(st.text(max_size=8))] = draw(JSON)
    return document


def _dump(document: Any, style: str) -> str:
    if style == "json":
        return json.dumps(document, indent="\t")
    return yaml.safe_dump(document, default_flow_style=style == "flow", allow_unicode=True)


STYLES = st.sampled_from(["block", "flow", "json"])


# -- outcomes ---------------------------------------------------------------------------------


def _assert_documented(path: Path, lines: list[str], errors: ErrorList | None) -> None:
    """Every error is one located line naming its field; only the tree's Internal errors."""
    assert lines
    located = re.compile(re.escape(str(path)) + r":[0-9]+:([0-9]+:)? .")  # a column: unreadable
    for line in lines:
        assert located.match(line), line
        assert line.splitlines() == [line], line
        assert "unexpected validation failure" not in line, line
        assert "Traceback" not in line, line
    for error in errors or ():
        assert isinstance(error, FieldError)
        if error.type is ErrorType.INTERNAL:
            assert error.detail.startswith(TREE_ERRORS), error
        if not error.field:  # the document itself, or a key that is the empty string
            unknown_empty_key = error.type is ErrorType.FORBIDDEN
            assert unknown_empty_key or error.detail.startswith(DOCUMENT_ERRORS), error


def _outcome(path: Path) -> LoadedSpec | None:
    """The spec when it is valid (its objects checked by the oracles), else ``None``."""
    try:
        spec = load_spec(path)
    except SpecError as exc:
        event("not a spec")
        _assert_documented(path, exc.located(), exc.errors)
        return None
    errors = spec.validate()
    assert isinstance(errors, ErrorList)
    event("invalid" if errors else "valid")
    if errors:
        _assert_documented(path, spec.error(errors).located(), errors)
        with pytest.raises(SpecError):
            spec.objects()
        return None
    objects = spec.objects()
    assert objects[0].kind == "Workload"
    for obj in objects:
        assert_conforms(obj)  # the 1.37 strict schema and the official model
    return spec


def _write(tmp_path: Path, content: bytes | str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_bytes(content.encode("utf-8", "surrogatepass"))
    else:
        path.write_bytes(content)
    return path


# -- the loader -------------------------------------------------------------------------------


@SETTINGS
@given(content=st.binary(max_size=200))
def test_any_bytes(tmp_path: Path, content: bytes) -> None:
    _outcome(_write(tmp_path, content))


@SETTINGS
@given(text=st.text(st.characters(exclude_categories=("Cs",)), max_size=120))
def test_any_text(tmp_path: Path, text: str) -> None:
    _outcome(_write(tmp_path, text))


@SETTINGS
@given(value=JSON, style=STYLES)
def test_any_json_value(tmp_path: Path, value: Any, style: str) -> None:
    _outcome(_write(tmp_path, _dump(value, style)))


@settings(SETTINGS, max_examples=bounded(80))
@given(document=broken_spec_documents(), style=STYLES)
def test_a_spec_broken_in_one_place(tmp_path: Path, document: Any, style: str) -> None:
    _outcome(_write(tmp_path, _dump(document, style)))


@settings(SETTINGS, max_examples=40)
@given(document=spec_documents(), style=STYLES)
def test_specs_of_the_documented_shape_that_validate_build_conforming_objects(
    tmp_path: Path, document: dict[str, Any], style: str
) -> None:
    spec = _outcome(_write(tmp_path, _dump(document, style)))
    if spec is not None:  # the same tree as the document says
        ((_, root, _), *_) = spec.nodes()
        assert root.name == document["spec"]["root"]["name"]


# -- the command ------------------------------------------------------------------------------


def _run(runner: CliRunner, path: Path, *args: str) -> Any:
    result = runner.invoke(app, [*args, str(path)])
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1), (result.exit_code, result.output)
    assert "Traceback" not in result.output
    errors = result.stderr.splitlines()
    if result.exit_code == 1:
        _assert_documented(path, errors, None)
    return result


@settings(SETTINGS, max_examples=25)
@given(
    document=spec_documents() | broken_spec_documents() | JSON,
    style=STYLES,
)
def test_the_command_on_any_spec(tmp_path: Path, document: Any, style: str) -> None:
    runner = CliRunner()
    path = _write(tmp_path, _dump(document, style))
    validated = _run(runner, path, "validate")
    built = _run(runner, path, "build")
    explained = _run(runner, path, "explain")
    # validate, build and explain agree on whether the spec is valid, but for counts that can
    # never be met: explain shows those as warnings (docs/validation.md, N1/N2) and exits 0.
    assert validated.exit_code == built.exit_code
    if validated.exit_code == 1 and explained.exit_code == 0:
        assert not load_spec(path).relaxed().validate()
        assert "warning:" in explained.stdout
    else:
        assert explained.exit_code == validated.exit_code
    if built.exit_code == 0:
        assert validated.stdout == f"{path}: valid\n"
        for doc in yaml.safe_load_all(built.stdout):
            assert_schema_valid(doc)
    else:
        assert built.stdout == ""


@settings(SETTINGS, max_examples=25)
@given(content=st.binary(max_size=120) | st.text(max_size=80).map(str.encode))
def test_the_command_on_any_file(tmp_path: Path, content: bytes) -> None:
    runner = CliRunner()
    path = _write(tmp_path, content)
    for command in ("validate", "build", "explain"):
        _run(runner, path, command)


def _manifests() -> st.SearchStrategy[Any]:
    """1.36 manifests as ``migrate`` reads them, broken anywhere."""
    workload = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {
            "podGroupTemplates": [{"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}}]
        },
    }
    pod_group = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "g"},
        "spec": {
            "podGroupTemplateRef": {"workloadName": "w", "templateName": "a"},
            "disruptionMode": "All",
        },
    }
    return st.lists(st.sampled_from([workload, pod_group]) | JSON, max_size=3)


@settings(SETTINGS, max_examples=30)
@given(
    documents=_manifests(),
    raw=st.none() | st.binary(max_size=80),
    to=st.sampled_from(["v1beta1", "v1alpha3"]),
)
def test_migrate_on_any_file(
    tmp_path: Path, documents: list[Any], raw: bytes | None, to: str
) -> None:
    path = tmp_path / "old.yaml"
    path.write_bytes(raw if raw is not None else yaml.safe_dump_all(documents).encode())
    result = CliRunner().invoke(app, ["migrate", str(path), "--to", to])
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1), result.output
    for line in result.stderr.splitlines():  # findings and errors name the file
        assert line.startswith((f"{path}: ", f"error: {path}:")), line
    if result.exit_code == 0 or result.stdout:
        list(yaml.safe_load_all(result.stdout))  # what it prints is YAML


_NODE = st.fixed_dictionaries(
    {"name": st.just("n") | JSON},
    optional={"allocatable": st.just({"cpu": "4"}) | JSON, "labels": JSON, "x": JSON},
)
_NODE_OBJECT = st.fixed_dictionaries(
    {"kind": st.just("Node"), "metadata": st.just({"name": "n"}) | JSON},
    optional={"status": st.just({"allocatable": {"cpu": "4"}}) | JSON},
)


@SETTINGS
@given(
    nodes=st.lists(_NODE, max_size=3) | _NODE_OBJECT | st.fixed_dictionaries({"items": JSON}) | JSON
)
def test_simulate_nodes_files(tmp_path: Path, nodes: Any) -> None:
    """``--nodes``: SimNodes, or a ValueError (``error: ...``, exit 1) naming the file."""
    from workloadbuilder.cli import _simulate

    path = tmp_path / "nodes.yaml"
    path.write_text(yaml.safe_dump(nodes), encoding="utf-8")
    try:
        loaded = _simulate.load_nodes(path)
    except ValueError as exc:
        assert str(exc).startswith(f"{path}"), exc
        return
    assert loaded
