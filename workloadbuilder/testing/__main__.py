"""``python -m workloadbuilder.testing``: run a FakeAPIServer until interrupted.

It prints the path of the kubeconfig it wrote on the first line of standard output, so that
``kubectl --kubeconfig <path> get podgroups`` (or any client) can look inside while it runs.
``--nodes FILE`` creates the Nodes of a YAML or JSON file first: Node objects (documents, or
a ``List``), or a list of ``{name, allocatable, labels}`` shorthands. ``--preset`` names
the cluster it stands for (``all``, ``default-1.37``, ``beta-1.37``); ``--feature-gates`` and
``--runtime-config`` change it as kube-apiserver's flags of the same names do. With
``--authorization-mode RBAC``, each ``--kubeconfig-for USER`` (a ServiceAccount is
``system:serviceaccount:NS:NAME``) writes a kubeconfig acting as that user and prints its
path on a line of its own, after the administrator's, in the order given.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from workloadbuilder._extras import missing_message
from workloadbuilder.testing.common.gates import DEFAULT_PRESET, FEATURE_GATES, PRESETS

_STEP_SECONDS = 0.5  # between simulator passes with --simulate


def _namespace(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def read_nodes(path: Path) -> list[dict[str, Any]]:
    """The Node objects of ``path``; ``ValueError`` names the file and what is wrong."""
    try:
        documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read the nodes: {exc}") from None
    nodes: list[dict[str, Any]] = []
    for doc in documents:
        if isinstance(doc, list):
            nodes += [_shorthand(item, f"{path}: [{i}]") for i, item in enumerate(doc)]
        elif isinstance(doc, dict) and isinstance(doc.get("items"), list):
            nodes += doc["items"]
        elif isinstance(doc, dict) and doc.get("kind") == "Node":
            nodes.append(doc)
        elif doc is not None:
            raise ValueError(f"{path}: expected Node objects or a list of {{name, allocatable}}")
    return nodes


def _shorthand(item: Any, where: str) -> dict[str, Any]:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ValueError(f"{where}: each node needs a name, e.g. {{name: node-0}}")
    from workloadbuilder.testing.sim import SimNode

    fields = {k: v for k, v in item.items() if k in ("allocatable", "labels")}
    try:
        return SimNode(item["name"], **fields).to_object()
    except (TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{where}: {exc}") from None


async def serve(
    *,
    simulate: bool,
    port: int = 0,
    namespaces: Sequence[str] = (),
    nodes: Sequence[dict[str, Any]] = (),
    preset: str = DEFAULT_PRESET,
    feature_gates: dict[str, bool] | None = None,
    runtime_config: dict[str, bool] | None = None,
    authorization: str = "AlwaysAllow",
    identities: Sequence[str] = (),
) -> None:
    """Start a server (and a gang simulator when asked) with ``namespaces`` and ``nodes``
    created, print its kubeconfig (then one per user of ``identities``), wait for a
    signal."""
    from workloadbuilder.testing.common.errors import APIStatusError
    from workloadbuilder.testing.server import FakeAPIServer

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with FakeAPIServer(
        port=port,
        preset=preset,
        feature_gates=feature_gates,
        runtime_config=runtime_config,
        authorization=authorization,
    ) as server:
        for name in dict.fromkeys(namespaces):
            if server.get_object("", "v1", "namespaces", None, name) is None:
                server.create_object("", "v1", "namespaces", _namespace(name))
        for node in nodes:
            try:
                server.create_object("", "v1", "nodes", node)
            except APIStatusError as exc:
                raise SystemExit(f"--nodes: the server refused a Node: {exc}") from None
        print(server.kubeconfig_path, flush=True)
        for user in identities:
            print(server.kubeconfig_for(user), flush=True)
        print(
            f"FakeAPIServer at {server.url}, kubeconfig {server.kubeconfig_path}: try kubectl"
            f" --kubeconfig {server.kubeconfig_path} api-resources; Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        if simulate:
            from workloadbuilder.testing.sim import GangSimulator

            simulator = GangSimulator(server)
            while not stop.is_set():
                await simulator.step()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), _STEP_SECONDS)
        else:
            await stop.wait()


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {port}")
    return port


def _switches(what: str, known: Sequence[str] | None = None) -> Any:
    """A parser of ``key=true,key2=false`` (kube-apiserver's ``--feature-gates`` form)."""

    def parse(text: str) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, value = item.partition("=")
            if not sep or value.lower() not in ("true", "false"):
                raise argparse.ArgumentTypeError(f"{what}: {item!r} is not NAME=true or NAME=false")
            if known is not None and key not in known:
                raise argparse.ArgumentTypeError(
                    f"{what}: unknown gate {key!r}; known: {', '.join(known)}"
                )
            out[key] = value.lower() == "true"
        return out

    return parse


def parser() -> argparse.ArgumentParser:
    """The command line; each option a separate ``add_argument``."""
    parser = argparse.ArgumentParser(
        prog="python -m workloadbuilder.testing",
        description="Run a local Kubernetes API server for poking at by hand; "
        "prints the path of its kubeconfig on the first line of standard output.",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=0,
        help="listen on this port of 127.0.0.1 (default: a free one)",
    )
    parser.add_argument(
        "--namespace",
        "-n",
        action="append",
        default=[],
        metavar="NAME",
        help="create this namespace up front (repeatable; 'default' always exists)",
    )
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="also run the gang-scheduling simulator: a pass every half second places pods "
        "on simulated nodes",
    )
    parser.add_argument(
        "--nodes",
        type=Path,
        metavar="FILE",
        help="create these Nodes first (YAML or JSON: Node objects, or a list of "
        "{name, allocatable, labels}); the simulator schedules onto the server's Nodes",
    )
    parser.add_argument(
        "--preset",
        choices=list(PRESETS),
        default=DEFAULT_PRESET,
        help="the cluster to stand for: all (every gate and version), default-1.37 (a 1.37"
        " cluster without flags: no workload API), beta-1.37 (its beta gates and"
        " scheduling.k8s.io/v1beta1 on) (default: %(default)s)",
    )
    parser.add_argument(
        "--feature-gates",
        type=_switches("--feature-gates", FEATURE_GATES),
        default={},
        metavar="GATE=BOOL,...",
        help=f"turn gates on or off over the preset ({', '.join(FEATURE_GATES)})",
    )
    parser.add_argument(
        "--runtime-config",
        type=_switches("--runtime-config"),
        default={},
        metavar="GROUP/VERSION=BOOL,...",
        help="serve or stop serving API versions over the preset "
        "(e.g. scheduling.k8s.io/v1beta1=true)",
    )
    parser.add_argument(
        "--authorization-mode",
        choices=("AlwaysAllow", "RBAC"),
        default="AlwaysAllow",
        help="RBAC: authenticate bearer tokens and authorize as kube-apiserver's RBAC "
        "authorizer (the kubeconfig printed holds an administrator's token)",
    )
    parser.add_argument(
        "--kubeconfig-for",
        action="append",
        default=[],
        metavar="USER",
        help="with --authorization-mode RBAC: also write a kubeconfig that acts as USER (a "
        "ServiceAccount is system:serviceaccount:NAMESPACE:NAME) and print its path on a line "
        "of its own after the administrator's (repeatable, printed in the order given)",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve."""
    command = parser()
    args = command.parse_args(argv)
    missing = missing_message("testing", "python -m workloadbuilder.testing")
    if missing is not None:
        sys.exit(f"error: {missing}")
    if args.kubeconfig_for and args.authorization_mode != "RBAC":
        command.error(
            "--kubeconfig-for needs --authorization-mode RBAC: without it every request is "
            "allowed, whoever sends it"
        )
    if "" in args.kubeconfig_for:
        command.error(
            "--kubeconfig-for: a user name is required, e.g. system:serviceaccount:ml:trainer"
        )
    try:
        nodes = read_nodes(args.nodes) if args.nodes else []
    except ValueError as exc:
        command.error(str(exc))
    try:
        asyncio.run(
            serve(
                simulate=args.simulate,
                port=args.port,
                namespaces=args.namespace,
                nodes=nodes,
                preset=args.preset,
                feature_gates=args.feature_gates,
                runtime_config=args.runtime_config,
                authorization=args.authorization_mode,
                identities=args.kubeconfig_for,
            )
        )
    except OSError as exc:  # the port is taken, say
        sys.exit(f"error: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}")


if __name__ == "__main__":
    main()
