"""Configuration the kubernetes-asyncio way: a kubeconfig, else the in-cluster service account.

TLS verification stays as the configuration says: on, unless the kubeconfig sets
``insecure-skip-tls-verify: true`` or the caller turns ``verify_ssl`` off. Nothing here logs
or prints a credential.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["new_client"]


async def new_client(
    config_file: str | os.PathLike[str] | None = None,
    *,
    context: str | None = None,
    in_cluster: bool | None = None,
    token_file: str | os.PathLike[str] | None = None,
    ca_file: str | os.PathLike[str] | None = None,
) -> Any:
    """A kubernetes-asyncio ``ApiClient`` from a kubeconfig or the in-cluster service account.

    As ``kubernetes_asyncio.config.load_config``: the kubeconfig (``config_file``, else
    ``$KUBECONFIG``, else ``~/.kube/config``) when there is one, otherwise the in-cluster
    configuration (whose token is re-read as it rotates). ``in_cluster=True`` or ``False``
    forces one; ``token_file`` and ``ca_file`` replace the service account's standard paths
    (``/var/run/secrets/kubernetes.io/serviceaccount/token`` and ``ca.crt``). Exec credential
    plugins and OIDC tokens refresh as the client's loader does.
    Close the client when done (``async with`` or ``await client.close()``).
    """
    from kubernetes_asyncio import config
    from kubernetes_asyncio.client import ApiClient, Configuration

    path = os.fspath(config_file) if config_file is not None else None
    if in_cluster is None:
        default = os.path.expanduser(os.environ.get("KUBECONFIG", "~/.kube/config"))
        in_cluster = path is None and not os.path.exists(default.split(os.pathsep)[0])
    if in_cluster:
        configuration = Configuration()
        files: dict[str, str] = {}
        if token_file is not None:
            files["token_filename"] = os.fspath(token_file)
        if ca_file is not None:
            files["cert_filename"] = os.fspath(ca_file)
        config.load_incluster_config(client_configuration=configuration, **files)  # type: ignore[no-untyped-call]
        return ApiClient(configuration)
    return await config.new_client_from_config(config_file=path, context=context)
