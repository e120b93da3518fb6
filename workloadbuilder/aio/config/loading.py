"""Configuration the kubernetes-asyncio way: a kubeconfig, else the in-cluster service account.

TLS verification stays as the configuration says: on, unless the kubeconfig sets
``insecure-skip-tls-verify: true`` or the caller turns ``verify_ssl`` off. Nothing here logs
or prints a credential: every problem is a ``KubeconfigError`` naming the file, the context
and the key at fault.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..errors import KubeconfigError
from .exec import EXEC_TIMEOUT, run_exec_plugin
from .kubeconfig import Kubeconfig, kubeconfig_paths, read_kubeconfig

__all__ = ["EXEC_TIMEOUT", "new_client"]

_SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"


async def new_client(
    config_file: str | os.PathLike[str] | None = None,
    *,
    context: str | None = None,
    in_cluster: bool | None = None,
    token_file: str | os.PathLike[str] | None = None,
    ca_file: str | os.PathLike[str] | None = None,
    exec_timeout: float = EXEC_TIMEOUT,
) -> Any:
    """A kubernetes-asyncio ``ApiClient`` from a kubeconfig or the in-cluster service account.

    As ``kubernetes_asyncio.config.load_config``: the kubeconfig (``config_file``, else the
    files ``$KUBECONFIG`` lists, else ``~/.kube/config``) when there is one, otherwise the
    in-cluster configuration. ``in_cluster=True`` or ``False`` forces one; ``token_file`` and
    ``ca_file`` replace the service account's standard paths
    (``/var/run/secrets/kubernetes.io/serviceaccount/token`` and ``ca.crt``). An exec
    credential plugin runs once, here, and is killed after ``exec_timeout`` seconds or when the
    call is cancelled. Raises ``KubeconfigError`` when no configuration is usable.
    Close the client when done (``async with`` or ``await client.close()``).
    """
    paths, source = kubeconfig_paths(config_file)
    existing = [p for p in paths if os.path.exists(p)]
    if config_file is not None and not existing:
        raise KubeconfigError(f"the kubeconfig {paths[0]} does not exist")
    if in_cluster is None:
        in_cluster = not existing
        if in_cluster and context is not None:
            raise KubeconfigError(
                f'context "{context}" was asked for, but {source} names no kubeconfig that'
                f" exists ({', '.join(paths)})"
            )
        if in_cluster and not os.environ.get("KUBERNETES_SERVICE_HOST"):
            raise KubeconfigError(_nothing_found(paths, source))
    if in_cluster:
        return _in_cluster(token_file, ca_file)
    if not existing:
        raise KubeconfigError(f"{source} names no kubeconfig that exists ({', '.join(paths)})")
    return await _from_kubeconfig(existing, context, exec_timeout)


def _nothing_found(paths: Sequence[str], source: str) -> str:
    if source == "$KUBECONFIG":
        files = f"$KUBECONFIG names {', '.join(paths)}, none of which exists"
    else:
        files = "$KUBECONFIG is not set and ~/.kube/config does not exist"
    return (
        f"no configuration found: {files}, and this is not in a cluster"
        " (in-cluster configuration needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT)."
        " Pass a kubeconfig or set KUBECONFIG"
    )


def _in_cluster(
    token_file: str | os.PathLike[str] | None, ca_file: str | os.PathLike[str] | None
) -> Any:
    from kubernetes_asyncio import config
    from kubernetes_asyncio.client import ApiClient, Configuration

    configuration = Configuration()
    token = os.fspath(token_file) if token_file is not None else f"{_SERVICE_ACCOUNT}/token"
    ca = os.fspath(ca_file) if ca_file is not None else f"{_SERVICE_ACCOUNT}/ca.crt"
    try:
        config.load_incluster_config(  # type: ignore[no-untyped-call]
            client_configuration=configuration, token_filename=token, cert_filename=ca
        )
    except config.ConfigException as exc:  # fixed texts: "Service host/port is not set." ...
        raise KubeconfigError(
            f"in-cluster configuration (token {token}, CA {ca}): {exc}"
            " (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT name the API server)"
        ) from None
    return without_env_lookups(ApiClient(configuration))


async def _from_kubeconfig(paths: Sequence[str], context: str | None, exec_timeout: float) -> Any:
    from kubernetes_asyncio.client import ApiClient, Configuration
    from kubernetes_asyncio.config.kube_config import KubeConfigMerger

    checked = read_kubeconfig(paths)
    name = checked.check(context)
    merger = KubeConfigMerger(os.pathsep.join(paths))
    configuration = type.__call__(Configuration)  # not the process-wide default's copy
    try:
        loader = _loader_class()(
            config_dict=merger.config,
            config_base_path=None,
            active_context=name,
            config_persister=merger.save_changes,
        )
        loader.exec_timeout, loader.where = exec_timeout, checked.where(name)
        await loader.load_and_set(configuration)
        return without_env_lookups(ApiClient(configuration))
    except KubeconfigError:
        raise
    except Exception as exc:  # the loader's messages may quote an entry: say what, not that
        raise KubeconfigError(_loader_failure(checked, name, exc)) from None


def _loader_failure(checked: Kubeconfig, context: str, exc: Exception) -> str:
    text = checked.redact(str(exc).strip()) or "no detail"
    return f"{checked.where(context)}: cannot be loaded ({type(exc).__name__}: {text[:300]})"


_LOADER: type[Any] | None = None


def _loader_class() -> type[Any]:
    """kubernetes-asyncio's ``KubeConfigLoader`` with a bounded exec credential plugin."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    from kubernetes_asyncio.config.kube_config import FileOrData, KubeConfigLoader

    class BoundedExecLoader(KubeConfigLoader):
        exec_timeout: float = EXEC_TIMEOUT
        where: str = "kubeconfig"

        async def load_from_exec_plugin(self) -> bool:
            assert self._user is not None  # only called for a user with an exec entry
            status = await run_exec_plugin(
                self._user["exec"].value, timeout=self.exec_timeout, where=self.where
            )
            if isinstance(status.get("token"), str):
                self.token = f"Bearer {status['token']}"
                return True
            for attribute, key in (
                ("cert_file", "clientCertificateData"),
                ("key_file", "clientKeyData"),
            ):
                setattr(
                    self,
                    attribute,
                    FileOrData(
                        status,
                        None,
                        data_key_name=key,
                        base64_file_content=False,
                        temp_file_path=self._temp_file_path,
                    ).as_file(),
                )
            return True

    _LOADER = BoundedExecLoader
    return _LOADER


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
