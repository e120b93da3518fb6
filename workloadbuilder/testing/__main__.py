"""``python -m workloadbuilder.testing``: run a FakeAPIServer until interrupted.

It prints the path of its kubeconfig, so that ``kubectl --kubeconfig <path> get podgroups``
(or any client) can look inside while it runs. ``--nodes FILE`` creates the Nodes of a YAML
or JSON file first: Node objects (documents, or a ``List``), or a list of
``{name, allocatable, labels}`` shorthands.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from typing import Any

import yaml

from workloadbuilder.testing.common.errors import APIStatusError
from workloadbuilder.testing.server import FakeAPIServer
from workloadbuilder.testing.sim import SimNode

_STEP_SECONDS = 0.5  # between simulator passes with --simulate


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
    fields = {k: v for k, v in item.items() if k in ("allocatable", "labels")}
    try:
        return SimNode(item["name"], **fields).to_object()
    except (TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{where}: {exc}") from None


async def serve(*, simulate: bool, nodes: list[dict[str, Any]] | None = None) -> None:
    """Start a server (and a gang simulator when asked), print its kubeconfig, wait for a signal."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with FakeAPIServer() as server:
        for node in nodes or ():
            try:
                server.create_object("", "v1", "nodes", node)
            except APIStatusError as exc:
                raise SystemExit(f"--nodes: the server refused a Node: {exc}") from None
        print(server.kubeconfig_path, flush=True)
        print(
            f"FakeAPIServer at {server.url}: try kubectl --kubeconfig {server.kubeconfig_path} "
            "api-resources; Ctrl-C stops it",
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


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve."""
    parser = argparse.ArgumentParser(
        prog="python -m workloadbuilder.testing",
        description="Run a local Kubernetes API server for poking at by hand; "
        "prints its kubeconfig path on the first line of standard output.",
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
    args = parser.parse_args(argv)
    try:
        nodes = read_nodes(args.nodes) if args.nodes else None
    except ValueError as exc:
        parser.error(str(exc))
    asyncio.run(serve(simulate=args.simulate, nodes=nodes))


if __name__ == "__main__":
    main()
