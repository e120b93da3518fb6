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
from . import _explain

__all__ = ["app", "main"]

app = typer.Typer(
    name="workloadbuilder",
    help=(
        "Compile, check and explain Kubernetes 1.37 workload-aware scheduling objects"
        " (Workload, PodGroup, CompositePodGroup) from WorkloadSpec files."
    ),
    no_args_is_help=True,
    rich_markup_mode="markdown",
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

INVALID = 1
USAGE = 2

_F = TypeVar("_F", bound=Callable[..., Any])


class Format(enum.StrEnum):
    """Formats of Kubernetes objects."""

    yaml = "yaml"
    json = "json"


class Output(enum.StrEnum):
    """Formats of a report."""

    table = "table"
    yaml = "yaml"
    json = "json"


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


def _print_table(table: Table) -> None:
    """A table on standard output, without the padding after the last column."""
    console = _out()
    with console.capture() as captured:
        console.print(table)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def _objects(spec: LoadedSpec) -> list[dict[str, Any]]:
    try:
        return [o.to_dict() for o in spec.objects()]
    except SpecError as exc:
        _print_errors(exc)
        raise typer.Exit(INVALID) from None


def _emit(documents: Iterable[Any], output: Format | Output) -> None:
    docs = list(documents)
    if output == "json":
        body = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
    else:
        sys.stdout.write(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False))


SpecArg = Annotated[
    Path, typer.Argument(metavar="SPEC", help="A WorkloadSpec file (YAML or JSON).")
]
FormatOpt = Annotated[Format, typer.Option("--output", "-o", help="Output format.")]
OutputOpt = Annotated[Output, typer.Option("--output", "-o", help="Output format.")]


@app.command(epilog="Example: workloadbuilder schema > workloadspec.schema.json")
def schema() -> None:
    """Print the JSON Schema of WorkloadSpec files, for editors' completion."""
    sys.stdout.write(dump_schema())


@app.command(
    epilog=(
        "Example: workloadbuilder build examples/specs/training.yaml"
        " | kubectl apply --server-side -f -"
    )
)
def build(spec: SpecArg, output: FormatOpt = Format.yaml) -> None:
    """Print the Workload and its runtime objects, ready for kubectl apply.

    Every object of one execution, parents first (Workload, CompositePodGroups, PodGroups), as
    a YAML stream for `kubectl apply --server-side -f -`, or as a JSON `List`.
    """
    _emit(_objects(_load(spec)), output)


@app.command(epilog="Example: workloadbuilder validate examples/specs/training.yaml")
def validate(spec: SpecArg) -> None:
    """Check a spec as the controller and the 1.37 API server would.

    Every error is printed at the spec's own path, `FILE:LINE: field: message`; exit 1 if
    there is any.
    """
    loaded = _load(spec)
    errors = loaded.validate()
    if errors:
        _print_errors(loaded.error(errors))
        raise typer.Exit(INVALID)
    _out().print(f"{spec}: valid", markup=False)


@app.command(epilog="Example: workloadbuilder explain examples/specs/release.yaml")
def explain(spec: SpecArg) -> None:
    """Print the tree as an outline a person reads.

    Each group, its minimum, what must fit together, disruption, topology, shared claims, and
    how many pods must exist before the scheduler even looks.
    """
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
    """Say which groups would be placed, wait for members, or stay unschedulable, and why.

    The spec's objects and pods (`replicas` per group, each asking for `resources`) are
    created on a local API server and the gang simulator runs one pass over NODES; exit 1
    unless every group is placed.
    """
    from . import _simulate  # the local API server: loaded only for this command

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
        _print_table(table)
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
    output: FormatOpt = Format.yaml,
) -> None:
    """Rewrite Kubernetes 1.36 Workloads and PodGroups (v1alpha2) for 1.37.

    `podGroupTemplateRef` becomes `workloadRef`, the string `disruptionMode` becomes
    `{single: {}}` / `{all: {}}`; other documents pass through unchanged and no defaults are
    added. What has no 1.37 equivalent, or what 1.37 would reject, is reported on stderr with
    its field (exit 1).
    """
    if to not in ("v1beta1", "v1alpha3"):
        fail(f"--to must be v1beta1 or v1alpha3, not {to!r}", USAGE)
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
