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
        return without_env_lookups(ApiClient(configuration))
    return without_env_lookups(
        await config.new_client_from_config(config_file=path, context=context)
    )


# The proxy schemes aiohttp reads from the environment (``aiohttp.helpers.proxies_from_env``).
_PROXY_SCHEMES = ("http", "https", "ws", "wss")


def _env_configures_proxy_or_netrc() -> bool:
    """Whether aiohttp, trusting the environment, could find a proxy or a netrc file: a
    ``*_proxy`` setting (``urllib.request.getproxies()``, as aiohttp reads it) or a netrc file
    (``$NETRC``, else ``~/.netrc``; ``~/_netrc`` on Windows)."""
    import urllib.request
    from pathlib import Path

    if any(scheme in _PROXY_SCHEMES for scheme in urllib.request.getproxies()):
        return True
    netrc = os.environ.get("NETRC")
    if netrc is not None:
        return True
    try:
        home = Path.home()
    except RuntimeError:
        return False
    return (home / ("_netrc" if os.name == "nt" else ".netrc")).exists()


def without_env_lookups(client: Any) -> Any:
    """``client``, its session told not to consult the environment when the environment
    configures no proxy and no netrc file.

    kubernetes-asyncio makes its session with ``trust_env=True``, for which aiohttp looks up
    the proxy settings and reads the netrc file, each in a thread, on every request; with
    neither configured that finds nothing, so skipping it changes no request. A proxy in the
    kubeconfig is given per request and stays in use. Checked once, when the client is made."""
    session: Any = getattr(getattr(client, "rest_client", None), "pool_manager", None)
    if (
        getattr(session, "trust_env", False) is True
        and hasattr(session, "_trust_env")
        and not _env_configures_proxy_or_netrc()
    ):
        session._trust_env = False  # aiohttp's own flag: the session has no setter
    return client
