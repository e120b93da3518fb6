"""The ``workloadbuilder`` command: build, validate, explain and simulate spec files, migrate
1.36 manifests, and (with a cluster) apply, watch, diagnose and delete.

Exit codes: 0 success; 1 the input is invalid or something is wrong on the cluster; 2 the
command line is wrong or a file cannot be read. It needs the ``[cli]`` extra; without it the
command prints one line naming it (exit 2).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from workloadbuilder._extras import missing_message, require

__all__ = ["app", "main"]

_MISSING = missing_message("cli", "the workloadbuilder command")

if TYPE_CHECKING or _MISSING is None:
    from .app import app


def main() -> None:
    """The console script."""
    if _MISSING is not None:
        sys.stderr.write(f"error: {_MISSING}\n")
        sys.exit(2)
    app()


def __getattr__(name: str) -> Any:
    """Without the extra, ``app`` names it."""
    if name == "app":
        require("cli", "workloadbuilder.cli")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
