"""The typer application behind the ``workloadbuilder`` command."""

from __future__ import annotations

import asyncio
import enum
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
import yaml
from rich.console import Console
from rich.table import Table

from ..migration import migrate as migrate_documents
from ..spec import LoadedSpec, SpecError, dump_schema, load_spec
from . import _explain, _simulate

__all__ = ["app", "main"]

app = typer.Typer(
    name="workloadbuilder",
    help=(
        "Compile, check and explain Kubernetes 1.37 workload-aware scheduling objects"
        " (Workload, PodGroup, CompositePodGroup) from WorkloadSpec files."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

INVALID = 1
USAGE = 2

_F = TypeVar("_F", bound=Callable[..., Any])


class Output(enum.StrEnum):
    """Output formats."""

    yaml = "yaml"
    json = "json"
    table = "table"


def _out() -> Console:
    """Standard output; not cropped to 80 columns when piped."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else 1000)


def _err() -> Console:
    return Console(stderr=True, soft_wrap=True, highlight=False)


def fail(message: str, code: int = INVALID) -> NoReturn:
    """Print a one-line error and exit with ``code``."""
    _err().print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def _load(path: Path) -> LoadedSpec:
    try:
        return load_spec(path)
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}", USAGE)
    except SpecError as exc:
        _print_errors(exc)
        raise typer.Exit(INVALID) from None


def _print_errors(exc: SpecError) -> None:
    console = _err()
    for line in exc.located():
        console.print(line, markup=False)


def _objects(spec: LoadedSpec) -> list[dict[str, Any]]:
    try:
        return [o.to_dict() for o in spec.objects()]
    except SpecError as exc:
        _print_errors(exc)
        raise typer.Exit(INVALID) from None


def _emit(documents: Iterable[Any], output: Output) -> None:
    docs = list(documents)
    if output is Output.json:
        body = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
    else:
        sys.stdout.write(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False))


SpecArg = Annotated[
    Path, typer.Argument(metavar="SPEC", help="A WorkloadSpec file (YAML or JSON).")
]
OutputOpt = Annotated[Output, typer.Option("--output", "-o", help="Output format.")]


@app.command(epilog="Example: workloadbuilder schema > workloadspec.schema.json")
def schema() -> None:
    """Print the JSON Schema of WorkloadSpec files (for editors' completion)."""
    sys.stdout.write(dump_schema())


@app.command(
    epilog=(
        "Example: workloadbuilder build examples/specs/training.yaml"
        " | kubectl apply --server-side -f -"
    )
)
def build(spec: SpecArg, output: OutputOpt = Output.yaml) -> None:
    """Print the Workload and every runtime object (CompositePodGroups, PodGroups), parents
    first, as a YAML stream ready for kubectl apply --server-side, or as JSON."""
    if output is Output.table:
        fail("build prints yaml or json; use explain for a readable outline", USAGE)
    _emit(_objects(_load(spec)), output)


@app.command(epilog="Example: workloadbuilder validate examples/specs/training.yaml")
def validate(spec: SpecArg) -> None:
    """Check a spec as the controller and the 1.37 API server would; print every error at the
    spec's own path (FILE:LINE: field: message) and exit 1 if there is any."""
    loaded = _load(spec)
    errors = loaded.validate()
    if errors:
        _print_errors(loaded.error(errors))
        raise typer.Exit(INVALID)
    _out().print(f"{spec}: valid", markup=False)


@app.command(epilog="Example: workloadbuilder explain examples/specs/release.yaml")
def explain(spec: SpecArg) -> None:
    """Print the tree as an outline: each group, its minimum, what must fit together,
    disruption, topology, and how many pods must exist before the scheduler even looks."""
    loaded = _load(spec)
    _objects(loaded)
    _out().print(_explain.render(loaded, loaded.builder().build_workload()))


NodesOpt = Annotated[
    Path,
    typer.Option(
        "--nodes",
        help="Nodes: Node objects, or a YAML list of {name, allocatable, labels}.",
    ),
]


@app.command(
    epilog=(
        "Example: workloadbuilder simulate examples/specs/training.yaml --nodes examples/nodes.yaml"
    )
)
def simulate(spec: SpecArg, nodes: NodesOpt, output: OutputOpt = Output.table) -> None:
    """Run the gang simulator on the spec's objects and pods (replicas per group): which
    groups would be placed, which would wait for members, which would stay unschedulable, and
    why. Exit 1 unless every group is placed."""
    loaded = _load(spec)
    _objects(loaded)
    try:
        sim_nodes = _simulate.load_nodes(nodes)
    except OSError as exc:
        fail(f"cannot read {nodes}: {exc.strerror or exc}", USAGE)
    except (ValueError, yaml.YAMLError) as exc:
        fail(str(exc).replace("\n", " "), INVALID)
    verdicts = asyncio.run(_simulate.simulate(loaded, sim_nodes))
    if output is Output.table:
        table = Table("GROUP", "KIND", "VERDICT", "WHY", box=None, pad_edge=False)
        for v in verdicts:
            table.add_row(v.template, v.kind, v.verdict, v.detail)
        _out().print(table)
    else:
        _emit([{"groups": [v.to_dict() for v in verdicts]}], output)
    if any(v.verdict != "placed" for v in verdicts):
        raise typer.Exit(INVALID)


@app.command(
    epilog=(
        "Example: workloadbuilder migrate old/*.yaml > migrated.yaml"
        "  (exit 1 when something needs a decision)"
    )
)
def migrate(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE...", help="Manifests of Kubernetes 1.36.")
    ],
    to: Annotated[
        str, typer.Option("--to", help="The 1.37 version to emit: v1beta1 or v1alpha3.")
    ] = "v1beta1",
    output: OutputOpt = Output.yaml,
) -> None:
    """Rewrite 1.36 scheduling.k8s.io/v1alpha2 Workloads and PodGroups for 1.37; other
    documents pass through unchanged. What has no 1.37 equivalent is reported on stderr with
    its field (exit 1)."""
    if to not in ("v1beta1", "v1alpha3"):
        fail(f"--to must be v1beta1 or v1alpha3, not {to!r}", USAGE)
    if output is Output.table:
        fail("migrate prints yaml or json", USAGE)
    documents: list[Any] = []
    sources: list[str] = []
    for path in files:
        try:
            loaded = [
                d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None
            ]
        except OSError as exc:
            fail(f"cannot read {path}: {exc.strerror or exc}", USAGE)
        except yaml.YAMLError as exc:
            fail(f"{path}: not valid YAML: {str(exc).splitlines()[0]}", INVALID)
        documents.extend(loaded)
        sources.extend(str(path) for _ in loaded)
    result = migrate_documents(documents, target=to)  # type: ignore[arg-type]
    _emit(result.documents, output)
    console = _err()
    for finding in result.findings:
        console.print(f"{sources[finding.document]}: {finding}", markup=False)
    if not result.ok:
        raise typer.Exit(INVALID)


def main() -> None:
    """The console script."""
    app()
