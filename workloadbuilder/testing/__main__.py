"""``python -m workloadbuilder.testing``: run a FakeAPIServer until interrupted.

It prints the path of the kubeconfig it wrote on the first line of standard output, so that
``kubectl --kubeconfig <path> get podgroups`` (or any client) can look inside while it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Sequence

from workloadbuilder._extras import missing_message

_STEP_SECONDS = 0.5  # between simulator passes with --simulate


def _namespace(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


async def serve(*, simulate: bool, port: int = 0, namespaces: Sequence[str] = ()) -> None:
    """Start a server (and a gang simulator when asked) with ``namespaces`` created, print
    its kubeconfig, wait for a signal."""
    from workloadbuilder.testing.server import FakeAPIServer

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with FakeAPIServer(port=port) as server:
        for name in dict.fromkeys(namespaces):
            if server.get_object("", "v1", "namespaces", None, name) is None:
                server.create_object("", "v1", "namespaces", _namespace(name))
        print(server.kubeconfig_path, flush=True)
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
    return parser


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve."""
    args = parser().parse_args(argv)
    missing = missing_message("testing", "python -m workloadbuilder.testing")
    if missing is not None:
        sys.exit(f"error: {missing}")
    try:
        asyncio.run(serve(simulate=args.simulate, port=args.port, namespaces=args.namespace))
    except OSError as exc:  # the port is taken, say
        sys.exit(f"error: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}")


if __name__ == "__main__":
    main()
