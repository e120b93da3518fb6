"""The typer application behind the ``workloadbuilder`` command."""

from __future__ import annotations

import asyncio
import enum
import functools
import importlib.metadata
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from inspect import Parameter, signature
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.table import Table

from ..migration import migrate as migrate_documents
from ..spec import DocumentError, dump_schema, read_documents
from . import _explain
from ._io import (
    INVALID,
    USAGE,
    Format,
    Output,
    emit,
    err,
    fail,
    load,
    out,
    print_errors,
    print_table,
    read_bytes,
    release,
    spec_path,
)
from ._look import Command, Group
from ._permissions import COMMANDS, role_manifests

__all__ = ["app", "main"]

app = typer.Typer(
    name="workloadbuilder",
    cls=Group,
    help=(
        "Compile, check and explain Kubernetes 1.37 workload-aware scheduling objects"
        " (Workload, PodGroup, CompositePodGroup) from WorkloadSpec files."
    ),
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_F = TypeVar("_F", bound=Callable[..., Any])


def command(**kwargs: Any) -> Callable[[_F], _F]:
    """``app.command`` with the plain help of :class:`Command`."""
    return app.command(cls=Command, **kwargs)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"workloadbuilder {importlib.metadata.version('workloadbuilder')}\n")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The options before any command."""
    if ctx.invoked_subcommand is None:  # no command: the help, as kubectl does
        sys.stdout.write(ctx.get_help() + "\n")
        raise typer.Exit()


SpecArg = Annotated[
    Path | None,
    typer.Argument(
        metavar="SPEC", help="A WorkloadSpec file (YAML or JSON); - for standard input."
    ),
]
FileOpt = Annotated[
    Path | None,
    typer.Option(
        "--filename",
        "-f",
        metavar="FILE",
        help="The WorkloadSpec file, as kubectl's -f; - for standard input.",
    ),
]
FormatOpt = Annotated[Format, typer.Option("--output", "-o", help="Output format.")]
OutputOpt = Annotated[Output, typer.Option("--output", "-o", help="Output format.")]


@command(epilog="Example: workloadbuilder schema > workloadspec.schema.json")
def schema() -> None:
    """Print the JSON Schema of WorkloadSpec files, for editors' completion."""
    sys.stdout.write(dump_schema())


@command(
    epilog=(
        "Example: workloadbuilder build examples/specs/training.yaml"
        " | kubectl apply --server-side -f -"
    )
)
def build(spec: SpecArg = None, filename: FileOpt = None, output: FormatOpt = Format.yaml) -> None:
    """Print the Workload and its runtime objects, ready for kubectl apply.

    Every object of one execution, parents first (Workload, CompositePodGroups, PodGroups), as
    a YAML stream for `kubectl apply --server-side -f -`, or as a JSON `List`.
    """
    emit([o.to_dict() for o in release(load(spec_path(spec, filename))).ordered], output)


@command(epilog="Example: workloadbuilder validate examples/specs/training.yaml")
def validate(spec: SpecArg = None, filename: FileOpt = None) -> None:
    """Check a spec as the controller and the 1.37 API server would.

    Every error is printed at the spec's own path, `FILE:LINE: field: message`; exit 1 if
    there is any.
    """
    loaded = load(spec_path(spec, filename))
    errors = loaded.validate()
    if errors:
        print_errors(loaded.error(errors))
        raise typer.Exit(INVALID)
    out().print(f"{loaded.source}: valid", markup=False)


@command(epilog="Example: workloadbuilder explain examples/specs/release.yaml")
def explain(spec: SpecArg = None, filename: FileOpt = None) -> None:
    """Print the tree as an outline a person reads.

    Each group, its minimum, what must fit together, disruption, topology, shared claims, and
    how many pods must exist before the scheduler even looks.
    """
    loaded = load(
        spec_path(spec, filename)
    ).relaxed()  # counts that can never be met are its warnings
    out().print(_explain.render(loaded, release(loaded).workload))


NodesOpt = Annotated[
    Path,
    typer.Option(
        "--nodes",
        metavar="FILE",
        help="Nodes: Node objects, or a YAML list of {name, allocatable, labels}.",
    ),
]


@command(
    epilog=(
        "Example: workloadbuilder simulate examples/specs/training.yaml --nodes examples/nodes.yaml"
    )
)
def simulate(
    nodes: NodesOpt,
    spec: SpecArg = None,
    filename: FileOpt = None,
    output: OutputOpt = Output.table,
) -> None:
    """Say which groups would be placed, wait for members, or stay unschedulable, and why.

    The spec's objects and pods (`replicas` per group, each asking for `resources`) are
    created on a local API server and the gang simulator runs one pass over NODES; exit 1
    unless every group is placed.
    """
    from . import _simulate  # the local API server: loaded only for this command

    loaded = load(
        spec_path(spec, filename)
    ).relaxed()  # a count that can never be met shows as waiting
    released = release(loaded)
    errors = _simulate.spec_errors(loaded)
    if errors:
        print_errors(loaded.error(errors))
        raise typer.Exit(INVALID)
    try:
        sim_nodes = _simulate.load_nodes(nodes)
    except OSError as exc:
        fail(f"cannot read {nodes}: {exc.strerror or exc}", USAGE)
    except ValueError as exc:
        fail(str(exc).replace("\n", " "), INVALID)
    verdicts = asyncio.run(_simulate.simulate(loaded, sim_nodes, released.ordered))
    if output is Output.table:
        table = Table("GROUP", "KIND", "VERDICT", "WHY", box=None, pad_edge=False)
        for v in verdicts:
            table.add_row(v.template, v.kind, v.verdict, v.detail)
        print_table(table)
    else:
        emit([{"groups": [v.to_dict() for v in verdicts]}], output)
    if any(v.verdict != "placed" for v in verdicts):
        raise typer.Exit(INVALID)


class Target(enum.StrEnum):
    """The 1.37 versions ``migrate`` emits."""

    v1beta1 = "v1beta1"
    v1alpha3 = "v1alpha3"


@command(
    epilog=(
        "Example: workloadbuilder migrate old/*.yaml > migrated.yaml"
        "  (exit 1, and nothing on standard output, when something needs a decision)"
    )
)
def migrate(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="FILE...", help="Manifests of Kubernetes 1.36; - for standard input."
        ),
    ] = None,
    filenames: Annotated[
        list[Path] | None,
        typer.Option(
            "--filename", "-f", metavar="FILE", help="A manifest, as kubectl's -f (repeatable)."
        ),
    ] = None,
    to: Annotated[Target, typer.Option("--to", help="The 1.37 version to emit.")] = (
        Target.v1beta1
    ),
    output: FormatOpt = Format.yaml,
) -> None:
    """Rewrite Kubernetes 1.36 Workloads and PodGroups (v1alpha2) for 1.37.

    `podGroupTemplateRef` becomes `workloadRef`, the string `disruptionMode` becomes
    `{single: {}}` / `{all: {}}`; other documents pass through unchanged and no defaults are
    added. What has no 1.37 equivalent, or what 1.37 would reject, is reported on stderr with
    its field, and then nothing is written to standard output (exit 1).
    """
    paths = [*(files or []), *(filenames or [])]
    if not paths:
        fail("give the manifests: FILE... or -f FILE (- for standard input)", USAGE)
    documents: list[Any] = []
    sources: list[str] = []
    for path in paths:
        try:
            loaded = [d for d in read_documents(read_bytes(path)) if d is not None]
        except DocumentError as exc:
            fail(exc.located(str(path)), INVALID)
        documents.extend(loaded)
        sources.extend(str(path) for _ in loaded)
    result = migrate_documents(documents, target=to.value)
    console = err()
    for finding in result.findings:
        console.print(f"{sources[finding.document]}: {finding}", markup=False)
    if not result.ok:  # a half-migrated stream is never written
        raise typer.Exit(INVALID)
    emit(result.documents, output)


# -- the cluster of the current kubeconfig ---------------------------------------------------

KubeconfigOpt = Annotated[
    str | None,
    typer.Option(
        "--kubeconfig",
        metavar="FILE",
        help="The kubeconfig file (default: $KUBECONFIG, ~/.kube/config).",
    ),
]
ContextOpt = Annotated[
    str | None, typer.Option("--context", metavar="NAME", help="The kubeconfig context.")
]
NamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        "-n",
        metavar="NS",
        help="The namespace (default: the kubeconfig context's, as kubectl).",
    ),
]
RequestTimeoutOpt = Annotated[
    str,
    typer.Option(
        "--request-timeout",
        metavar="DURATION",
        help=(
            "How long the command may wait for the API server, each request and retry included"
            " (30s, 1m, 500ms; 0: no limit); with --watch, each read."
        ),
    ),
]
NameArg = Annotated[str, typer.Argument(metavar="NAME")]
WorkloadArg = Annotated[
    str | None, typer.Argument(metavar="NAME", help="The Workload (or give -f SPEC).")
]
WorkloadFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--filename",
        "-f",
        metavar="SPEC",
        help="Find the Workload from its spec file, as kubectl's -f; - for standard input.",
    ),
]


@dataclass(frozen=True)
class Cluster:
    """The options of every command on the cluster: which kubeconfig, which context, and how
    long one request may take."""

    kubeconfig: str | None
    context: str | None
    request_timeout: str


_CLUSTER_OPTIONS = [
    Parameter(name, Parameter.KEYWORD_ONLY, default=default, annotation=option)
    for name, default, option in (
        ("kubeconfig", None, KubeconfigOpt),
        ("context", None, ContextOpt),
        ("request_timeout", "30s", RequestTimeoutOpt),
    )
]


def cluster_command(**kwargs: Any) -> Callable[[_F], _F]:
    """``command`` for a command on the cluster: after its own options it takes
    ``--kubeconfig``, ``--context`` and ``--request-timeout``, given to it as ``cluster``."""

    def register(func: _F) -> _F:
        own = signature(func, eval_str=True)
        parameters = [p for p in own.parameters.values() if p.name != "cluster"]

        @functools.wraps(func)
        def run(
            *args: Any,
            kubeconfig: str | None,
            context: str | None,
            request_timeout: str,
            **own_options: Any,
        ) -> Any:
            cluster = Cluster(kubeconfig, context, request_timeout)
            return func(*args, cluster=cluster, **own_options)

        every = own.replace(parameters=[*parameters, *_CLUSTER_OPTIONS])
        run.__signature__ = every  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in every.parameters.values()}
        command(**kwargs)(run)
        return func

    return register


def _namespace(namespace: str | None, cluster: Cluster) -> str:
    """``-n``, else the kubeconfig context's namespace, as kubectl."""
    from . import _cluster

    connection = _cluster.Connection(cluster.kubeconfig, cluster.context)
    return namespace or _cluster.default_namespace(connection)


def _workload(
    name: str | None, filename: Path | None, namespace: str | None, cluster: Cluster
) -> tuple[str, str]:
    """The (namespace, name) of the Workload: NAME in the namespace, or the spec's own."""
    if (name is None) == (filename is None):
        fail("give the Workload: NAME, or -f SPEC (- for standard input)", USAGE)
    if name is not None:
        return _namespace(namespace, cluster), name
    spec = load(filename)  # type: ignore[arg-type]
    release(spec)  # a spec that does not validate names no Workload
    if namespace is not None and namespace != spec.options.namespace:
        fail(
            f"the namespace from the spec ({spec.options.namespace}) does not match"
            f" --namespace {namespace}",
            USAGE,
        )
    return spec.options.namespace, spec.options.name


def _connection(cluster: Cluster) -> Any:
    """The ``_cluster.Connection`` of the options; a bad ``--request-timeout`` is a usage
    error."""
    from . import _cluster

    try:
        timeout = _cluster.parse_timeout(cluster.request_timeout)
    except ValueError as exc:
        fail(str(exc), USAGE)
    return _cluster.Connection(cluster.kubeconfig, cluster.context, timeout)


def _on_cluster(cluster: Cluster, work: Callable[[Any], Any], *, bounded: bool = True) -> Any:
    """``work`` on the cluster, its errors printed; ``--request-timeout`` bounds all of it
    (``bounded``), or each step ``work`` bounds itself."""
    from . import _cluster

    connection = _connection(cluster)
    try:
        return asyncio.run(_cluster.run(connection, work, bounded=bounded))
    except _cluster.ClusterError as exc:
        console = err()
        for i, line in enumerate(exc.lines):
            console.print(f"error: {line}" if i == 0 else line, markup=False)
        raise typer.Exit(INVALID) from None


class DryRun(enum.StrEnum):
    """kubectl's ``--dry-run`` values that apply here."""

    none = "none"
    server = "server"


@cluster_command(
    epilog=(
        "Example: workloadbuilder apply -f examples/specs/training.yaml --dry-run=server"
        " --field-manager my-operator"
    )
)
def apply(
    spec: SpecArg = None,
    filename: FileOpt = None,
    dry_run: Annotated[
        DryRun, typer.Option("--dry-run", help="server: the API server checks, nothing persists.")
    ] = DryRun.none,
    force: Annotated[
        bool, typer.Option("--force-conflicts", help="Take over fields another manager owns.")
    ] = False,
    field_manager: Annotated[
        str,
        typer.Option(
            "--field-manager", metavar="NAME", help="The server-side apply field manager."
        ),
    ] = "workloadbuilder",
    *,
    cluster: Cluster,
) -> None:
    """Server-side apply the spec's objects to the cluster, after a preflight.

    The preflight checks that the cluster serves every API the objects need (and names the
    feature gates otherwise); then the Workload, the CompositePodGroups parents first and the
    PodGroups are applied one after the other, with a progress bar on a terminal.
    """
    from . import _cluster

    to_apply = release(load(spec_path(spec, filename))).ordered
    progress = _cluster.new_progress(err(), enabled=sys.stderr.isatty())

    async def work(client: Any) -> list[str]:
        with progress:
            return await _cluster.apply_objects(
                client,
                to_apply,
                field_manager=field_manager,
                force=force,
                dry_run=dry_run is DryRun.server,
                progress=progress,
            )

    for line in _on_cluster(cluster, work):
        out().print(line, markup=False)


@cluster_command(
    epilog=(
        "Example: workloadbuilder delete -f examples/specs/training.yaml"
        " (or: delete resnet-training-6dbff5dc47 -n ml-training)"
    )
)
def delete(
    name: WorkloadArg = None,
    filename: WorkloadFileOpt = None,
    namespace: NamespaceOpt = None,
    ignore_not_found: Annotated[
        bool,
        typer.Option("--ignore-not-found", help="A missing Workload is not an error (exit 0)."),
    ] = False,
    *,
    cluster: Cluster,
) -> None:
    """Delete Workload NAME (or the spec's) and every group stamped from it, children first."""
    from . import _cluster

    ns, workload = _workload(name, filename, namespace, cluster)
    lines = _on_cluster(
        cluster,
        lambda c: _cluster.delete_workload(c, ns, workload, ignore_not_found=ignore_not_found),
    )
    for line in lines:
        out().print(line, markup=False)


def _status_table(rows: Iterable[Any], *, header: bool = True) -> Table:
    table = Table(
        "NAME",
        "GROUP",
        "KIND",
        "STATE",
        "MEMBERS",
        "WHY",
        box=None,
        pad_edge=False,
        show_header=header,
    )
    for r in rows:
        members = f"{r.present}/{r.required}" if r.required is not None else str(r.present)
        table.add_row(r.name, r.template, r.kind, r.state, members, r.cause or r.summary)
    return table


WATCH_SECONDS = 1.0
"""How often ``status -w`` reads the groups again."""


@cluster_command(
    epilog=(
        "Example: workloadbuilder status -f examples/specs/training.yaml -w"
        " (or: status resnet-training-6dbff5dc47 -n ml-training)"
    )
)
def status(
    name: WorkloadArg = None,
    filename: WorkloadFileOpt = None,
    namespace: NamespaceOpt = None,
    output: OutputOpt = Output.table,
    watch: Annotated[
        bool,
        typer.Option("--watch", "-w", help="After the list, print each group again as it changes."),
    ] = False,
    *,
    cluster: Cluster,
) -> None:
    """Show every group of Workload NAME (or the spec's) and what the scheduler is doing."""
    from . import _cluster, _observe

    ns, workload = _workload(name, filename, namespace, cluster)

    def show(rows: list[Any], header: bool) -> None:
        if output is not Output.table:
            emit([{"groups": [r.to_dict() for r in rows]}], output)
            sys.stdout.flush()
        elif rows or header:
            print_table(_status_table(rows, header=header))

    connection = _connection(cluster)

    async def work(client: Any) -> None:
        async with _cluster.within(connection):  # each read bounded by --request-timeout
            rows = await _observe.workload_status(client, ns, workload)
        show(rows, True)
        seen = {r.name: r for r in rows}
        while watch:
            await asyncio.sleep(WATCH_SECONDS)
            async with _cluster.within(connection):
                rows = await _observe.workload_status(client, ns, workload)
            changed = [r for r in rows if seen.get(r.name) != r]
            seen.update((r.name, r) for r in rows)
            if changed:
                show(changed, False)

    _on_cluster(cluster, work, bounded=False)


class GroupKind(enum.StrEnum):
    """The kinds ``diagnose`` reads: a group, or a Workload (its groups)."""

    PodGroup = "PodGroup"
    CompositePodGroup = "CompositePodGroup"
    Workload = "Workload"


@cluster_command(
    epilog="Example: workloadbuilder diagnose resnet-training-6dbff5dc47-workers-586d747894"
)
def diagnose(
    name: NameArg,
    namespace: NamespaceOpt = None,
    kind: Annotated[
        GroupKind | None,
        typer.Option("--kind", help="The kind (default: whichever exists)."),
    ] = None,
    *,
    cluster: Cluster,
) -> None:
    """Print the verdict on group NAME: missing, waiting for members, pending, unschedulable,
    scheduled, degraded or preempted, with the evidence (members, conditions, children).

    NAME may be a Workload: its groups' verdicts. Exit 1 when NAME is missing.
    """
    from . import _observe

    ns = _namespace(namespace, cluster)
    verdict = _on_cluster(
        cluster, lambda c: _observe.diagnose_group(c, ns, name, kind.value if kind else None)
    )
    out().print(_observe.render_verdict(verdict))
    if verdict.state == "Missing":
        raise typer.Exit(INVALID)


@cluster_command(epilog="Example: workloadbuilder inspect -n ml-training -o json")
def inspect(
    namespace: NamespaceOpt = None,
    output: OutputOpt = Output.table,
    *,
    cluster: Cluster,
) -> None:
    """Audit the live objects of a namespace: each finding with the object and what to do.

    Names are never shortened; exit 1 when something is wrong.
    """
    from . import _observe

    ns = _namespace(namespace, cluster)
    findings = _on_cluster(cluster, lambda c: _observe.inspect_namespace(c, ns))
    rows = _observe.as_rows(findings)
    if output is not Output.table:
        emit([{"findings": rows}], output)
    elif not rows:
        out().print(f"no findings in namespace {ns}", markup=False)
    else:
        table = Table("SEVERITY", "FINDING", "OBJECT", "WHAT", "TO DO", box=None, pad_edge=False)
        for r in rows:
            table.add_row(r["severity"], r["kind"], r["object"], r["message"], r["action"])
        print_table(table)
    if rows:
        raise typer.Exit(INVALID)


@command(
    epilog=(
        "Example: workloadbuilder rbac reconcile-job cache -n ml --service-account trainer"
        " | kubectl apply -f -"
    )
)
def rbac(
    verbs: Annotated[
        list[str],
        typer.Argument(
            help=f"What the account runs: the commands ({COMMANDS}) or the SDK's verbs"
            " (aio.VERBS: reconcile-job, cache, leader-election, ...).",
            show_default=False,
        ),
    ],
    service_account: Annotated[
        str, typer.Option("--service-account", help="The ServiceAccount to bind.")
    ],
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", help="Where the verbs run (and the account lives)."),
    ] = None,
    all_namespaces: Annotated[
        bool,
        typer.Option("--all-namespaces", "-A", help="The verbs run in every namespace."),
    ] = False,
    name: Annotated[str, typer.Option(help="The Role's and binding's name.")] = "workloadbuilder",
    cache_kind: Annotated[
        list[str] | None,
        typer.Option(
            "--cache-kind",
            help=(
                "A kind the cache follows (repeat it): Pod, Job, Workload, ..., or a custom"
                " resource by its CRD's name (trainingjobs.example.com); by default every kind"
                " a cache holds."
            ),
        ),
    ] = None,
) -> None:
    """Print the Role (a ClusterRole with -A) that the verbs need, and its binding, as YAML.

    Exactly what the verbs send, no more: ready for `kubectl apply -f -`.
    """
    if namespace is None and not all_namespaces:
        fail("name the namespace with -n NAMESPACE, or -A for every namespace", USAGE)
    try:
        scope = None if all_namespaces else namespace
        manifests = role_manifests(
            verbs, service_account, scope, name, cache_kind, sa_namespace=namespace or ""
        )
    except ValueError as exc:
        fail(str(exc), USAGE)
    emit(manifests, Format.yaml)


def main() -> None:
    """The console script."""
    app()
