"""The ``workloadbuilder`` command: build, validate, explain and simulate spec files, migrate
1.36 manifests, and (with a cluster) apply, watch, diagnose and delete.

Exit codes: 0 success; 1 the input is invalid or something is wrong on the cluster; 2 the
command line is wrong or a file cannot be read.
"""

from __future__ import annotations

from .app import app, main

__all__ = ["app", "main"]
