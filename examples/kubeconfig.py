"""The cluster the cluster examples talk to: the current kubeconfig, or the in-cluster service
account; without either, one line naming the kubeconfig that was looked for."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from workloadbuilder import aio


def kubeconfig_path() -> Path:
    """The kubeconfig kubectl reads first: ``$KUBECONFIG``'s first file, else ~/.kube/config."""
    first = os.environ.get("KUBECONFIG", "").split(os.pathsep)[0]
    return Path(first or "~/.kube/config").expanduser()


async def connect() -> Any:
    """A client of the cluster; ``SystemExit`` with one line when there is none."""
    path = kubeconfig_path()
    if not path.is_file() and "KUBERNETES_SERVICE_HOST" not in os.environ:
        raise SystemExit(
            f"error: no cluster: no kubeconfig at {path} and not in a pod (set KUBECONFIG,"
            " e.g. to the path python -m workloadbuilder.testing prints)"
        )
    return await aio.new_client(str(path) if path.is_file() else None)
