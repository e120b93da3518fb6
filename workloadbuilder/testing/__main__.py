"""``python -m workloadbuilder.testing``: run a FakeAPIServer until interrupted.

It prints the path of its kubeconfig, so that ``kubectl --kubeconfig <path> get podgroups``
(or any client) can look inside while it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from workloadbuilder.testing.server import FakeAPIServer

_STEP_SECONDS = 0.5  # between simulator passes with --simulate


async def serve(*, simulate: bool) -> None:
    """Start a server (and a gang simulator when asked), print its kubeconfig, wait for a signal."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with FakeAPIServer() as server:
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
    args = parser.parse_args(argv)
    asyncio.run(serve(simulate=args.simulate))


if __name__ == "__main__":
    main()
