"""The typer application behind the ``workloadbuilder`` command."""

from __future__ import annotations

import asyncio
import enum
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TextIO, TypeVar

import typer
import yaml
from rich.console import Console
from rich.table import Table

from ..migration import migrate as migrate_documents
from ..spec import DocumentError, LoadedSpec, SpecError, dump_schema, load_spec, read_documents
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


def _tolerant(stream: TextIO) -> TextIO:
    """``stream``, writing what its encoding cannot (a lone surrogate) as a backslash escape."""
    reconfigure = getattr(stream, "reconfigure", None)
    if callable(reconfigure):
        reconfigure(errors="backslashreplace")
    return stream


def _out() -> Console:
    """Standard output; not cropped to 80 columns when piped."""
    stdout = _tolerant(sys.stdout)
    return Console(file=stdout, highlight=False, width=None if stdout.isatty() else 1000)


def _err() -> Console:
    return Console(file=_tolerant(sys.stderr), soft_wrap=True, highlight=False)


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
    text = "".join(line.rstrip() + "\n" for line in captured.get().splitlines())
    _tolerant(sys.stdout).write(text)


def _objects(spec: LoadedSpec) -> list[Any]:
    """The spec's Workload and runtime objects; its errors printed and exit 1 if invalid."""
    try:
        return list(spec.objects())
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
    _emit([o.to_dict() for o in _objects(_load(spec))], output)


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
    loaded = _load(spec).relaxed()  # counts that can never be met are its warnings
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

    loaded = _load(spec).relaxed()  # a count that can never be met shows as waiting
    _objects(loaded)
    errors = _simulate.spec_errors(loaded)
    if errors:
        _print_errors(loaded.error(errors))
        raise typer.Exit(INVALID)
    try:
        sim_nodes = _simulate.load_nodes(nodes)
    except OSError as exc:
        fail(f"cannot read {nodes}: {exc.strerror or exc}", USAGE)
    except ValueError as exc:
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
            loaded = [d for d in read_documents(path.read_bytes()) if d is not None]
        except OSError as exc:
            fail(f"cannot read {path}: {exc.strerror or exc}", USAGE)
        except DocumentError as exc:
            fail(f"{path}:{exc.line}: {exc.message}", INVALID)
        documents.extend(loaded)
        sources.extend(str(path) for _ in loaded)
    result = migrate_documents(documents, target=to)  # type: ignore[arg-type]
    _emit(result.documents, output)
    console = _err()
    for finding in result.findings:
        console.print(f"{sources[finding.document]}: {finding}", markup=False)
    if not result.ok:
        raise typer.Exit(INVALID)


# -- the cluster of the current kubeconfig ---------------------------------------------------

KubeconfigOpt = Annotated[
    str | None,
    typer.Option(
        "--kubeconfig", help="The kubeconfig file (default: $KUBECONFIG, ~/.kube/config)."
    ),
]
ContextOpt = Annotated[str | None, typer.Option("--context", help="The kubeconfig context.")]
RequestTimeoutOpt = Annotated[
    str,
    typer.Option(
        "--request-timeout",
        help="How long one request may take before it is given up (30s, 1m, 500ms; 0: no limit).",
    ),
]
NamespaceOpt = Annotated[str, typer.Option("--namespace", "-n", help="The namespace.")]
NameArg = Annotated[str, typer.Argument(metavar="NAME")]


def _on_cluster(
    kubeconfig: str | None, context: str | None, work: Callable[[Any], Any], timeout: str = "30s"
) -> Any:
    from . import _cluster

    try:
        connection = _cluster.Connection(kubeconfig, context, _cluster.parse_timeout(timeout))
    except ValueError as exc:
        fail(str(exc), USAGE)
    try:
        return asyncio.run(_cluster.run(connection, work))
    except _cluster.ClusterError as exc:
        console = _err()
        for i, line in enumerate(exc.lines):
            console.print(f"error: {line}" if i == 0 else line, markup=False)
        raise typer.Exit(INVALID) from None


class DryRun(enum.StrEnum):
    """kubectl's ``--dry-run`` values that apply here."""

    none = "none"
    server = "server"


@app.command(
    epilog=(
        "Example: workloadbuilder apply examples/specs/training.yaml --dry-run=server"
        " --field-manager my-operator"
    )
)
def apply(
    spec: SpecArg,
    dry_run: Annotated[
        DryRun, typer.Option("--dry-run", help="server: the API server checks, nothing persists.")
    ] = DryRun.none,
    force: Annotated[
        bool, typer.Option("--force-conflicts", help="Take over fields another manager owns.")
    ] = False,
    field_manager: Annotated[
        str, typer.Option("--field-manager", help="The server-side apply field manager.")
    ] = "workloadbuilder",
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = "30s",
) -> None:
    """Server-side apply the spec's objects to the cluster, after a preflight.

    The preflight checks that the cluster serves every API the objects need (and names the
    feature gates otherwise); then the Workload, the CompositePodGroups parents first and the
    PodGroups are applied in order, with a progress bar on a terminal.
    """
    from . import _cluster

    objects = _objects(_load(spec))
    progress = _cluster.new_progress(_err(), enabled=sys.stderr.isatty())

    async def work(client: Any) -> list[str]:
        with progress:
            return await _cluster.apply_objects(
                client,
                objects,
                field_manager=field_manager,
                force=force,
                dry_run=dry_run is DryRun.server,
                progress=progress,
            )

    for line in _on_cluster(kubeconfig, context, work, request_timeout):
        _out().print(line, markup=False)


@app.command(epilog="Example: workloadbuilder delete resnet-training-6dbff5dc47 -n ml-training")
def delete(
    name: NameArg,
    namespace: NamespaceOpt = "default",
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = "30s",
) -> None:
    """Delete Workload NAME and every group stamped from it, children first."""
    from . import _cluster

    lines = _on_cluster(
        kubeconfig, context, lambda c: _cluster.delete_workload(c, namespace, name), request_timeout
    )
    for line in lines:
        _out().print(line, markup=False)


@app.command(epilog="Example: workloadbuilder status resnet-training-6dbff5dc47 -n ml-training")
def status(
    name: NameArg,
    namespace: NamespaceOpt = "default",
    output: OutputOpt = Output.table,
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = "30s",
) -> None:
    """Show every group of Workload NAME and what the scheduler is doing with it."""
    from . import _observe

    rows = _on_cluster(
        kubeconfig, context, lambda c: _observe.workload_status(c, namespace, name), request_timeout
    )
    if output is not Output.table:
        _emit([{"groups": [r.to_dict() for r in rows]}], output)
        return
    table = Table("GROUP", "KIND", "STATE", "MEMBERS", "WHY", box=None, pad_edge=False)
    for r in rows:
        members = f"{r.present}/{r.required}" if r.required is not None else str(r.present)
        table.add_row(r.template, r.kind, r.state, members, r.cause or r.summary)
    _print_table(table)


@app.command(
    epilog="Example: workloadbuilder diagnose resnet-training-6dbff5dc47-workers-586d747894"
)
def diagnose(
    name: NameArg,
    namespace: NamespaceOpt = "default",
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind",
            help="PodGroup, CompositePodGroup or Workload (default: whichever exists).",
        ),
    ] = None,
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = "30s",
) -> None:
    """Print the verdict on group NAME: missing, waiting for members, pending, unschedulable,
    scheduled, degraded or preempted, with the evidence (members, conditions, children).

    NAME may be a Workload: its groups' verdicts. Exit 1 when NAME is missing.
    """
    from . import _observe

    if kind not in (None, "PodGroup", "CompositePodGroup", "Workload"):
        fail(f"--kind must be PodGroup, CompositePodGroup or Workload, not {kind!r}", USAGE)
    verdict = _on_cluster(
        kubeconfig,
        context,
        lambda c: _observe.diagnose_group(c, namespace, name, kind),
        request_timeout,
    )
    _out().print(_observe.render_verdict(verdict))
    if verdict.state == "Missing":
        raise typer.Exit(INVALID)


@app.command(epilog="Example: workloadbuilder inspect -n ml-training -o json")
def inspect(
    namespace: NamespaceOpt = "default",
    output: OutputOpt = Output.table,
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = "30s",
) -> None:
    """Audit the live objects of a namespace: each finding with the object and what to do.

    Exit 1 when something is wrong.
    """
    from . import _observe

    findings = _on_cluster(
        kubeconfig, context, lambda c: _observe.inspect_namespace(c, namespace), request_timeout
    )
    rows = _observe.as_rows(findings)
    if output is not Output.table:
        _emit([{"findings": rows}], output)
    elif not rows:
        _out().print(f"no findings in namespace {namespace}", markup=False)
    else:
        table = Table("SEVERITY", "FINDING", "OBJECT", "WHAT", "TO DO", box=None, pad_edge=False)
        for r in rows:
            table.add_row(r["severity"], r["kind"], r["object"], r["message"], r["action"])
        _print_table(table)
    if rows:
        raise typer.Exit(INVALID)


def main() -> None:
    """The console script."""
    app()
