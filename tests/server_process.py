"""``python -m workloadbuilder.testing`` started as a separate process, for tests that talk to
it as to a cluster: the kubeconfig path it prints, and the process stopped by its pid."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def server_process(*args: str) -> Iterator[Path]:
    """The kubeconfig of a test API server running in its own process with ``args``."""
    with server_kubeconfigs(*args) as (first,):
        yield first


@contextmanager
def server_kubeconfigs(*args: str, count: int = 1) -> Iterator[list[Path]]:
    """The first ``count`` kubeconfig paths such a server prints (the administrator's, then
    one per ``--kubeconfig-for``)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "workloadbuilder.testing", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        paths = [process.stdout.readline().strip() for _ in range(count)]
        assert all(paths), process.stderr.read() if process.stderr else "no kubeconfig printed"
        yield [Path(p) for p in paths]
    finally:
        process.terminate()
        process.wait(timeout=30)


def command(
    kubeconfig: Path, args: Sequence[str], **kwargs: object
) -> subprocess.CompletedProcess[str]:
    """The installed ``workloadbuilder`` command with ``args`` against ``kubeconfig``."""
    program = str(Path(sys.executable).with_name("workloadbuilder"))
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [program, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"KUBECONFIG": str(kubeconfig), "PATH": "/usr/bin:/bin"},
        **kwargs,
    )
