"""``FakeAPIServer``: a local Kubernetes API server for tests, with real wire semantics."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import shutil
import socket
import ssl
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from workloadbuilder.testing.apply.merge import copy_json
from workloadbuilder.testing.common.errors import APIStatusError
from workloadbuilder.testing.common.gates import DEFAULT_PRESET, resolve
from workloadbuilder.testing.common.resources import DEFAULT_RESOURCES, Registry, ResourceType
from workloadbuilder.testing.engine.unknown_fields import FieldChecker, model_unknown_fields
from workloadbuilder.testing.engine.verbs import (
    APPLY,
    DEFAULT_REQUESTER,
    JSON_PATCH,
    MERGE,
    STRATEGIC,
    Result,
    WriteOptions,
)
from workloadbuilder.testing.rbac import bootstrap, kinds
from workloadbuilder.testing.rbac.engine import RBACEngine
from workloadbuilder.testing.rbac.identity import REQUESTER
from workloadbuilder.testing.server import tls
from workloadbuilder.testing.server.authn import Gate, Tokens
from workloadbuilder.testing.server.faults import Faults, RecordedRequest
from workloadbuilder.testing.server.handler import HTTPHandler
from workloadbuilder.testing.store.store import Store

if TYPE_CHECKING:
    from kubernetes_asyncio.client import ApiClient

__all__ = ["AUTHORIZATION_MODES", "DEFAULT_MANAGER", "FakeAPIServer"]

DEFAULT_MANAGER = "workloadbuilder-testing"
AUTHORIZATION_MODES = ("AlwaysAllow", "RBAC")
"""The values of ``authorization`` (kube-apiserver's ``--authorization-mode`` names)."""
ADMIN = "kubernetes-admin"
"""The user of the kubeconfig's token (group ``system:masters``)."""
_AA_TOKEN = "workloadbuilder-fake-token"
_PATCH_TYPES = {"apply": APPLY, "merge": MERGE, "strategic": STRATEGIC, "json": JSON_PATCH}


class FakeAPIServer:
    """A Kubernetes API server on ``127.0.0.1`` and a free port, for tests.

    Use it as ``async with FakeAPIServer() as server:``. It serves discovery, create, get,
    list, update, patch (server-side apply, merge, strategic merge, JSON patch), delete with
    garbage collection, the ``status`` subresource and watch for the scheduling.k8s.io
    (v1beta1, v1alpha3), batch/v1 and core/v1 resources, tracking ``managedFields``.

    ``preset`` names the cluster it stands for: ``"all"`` (the default: every gate on, every
    version served), ``"default-1.37"`` (a 1.37 cluster without flags, which serves no
    workload API) or ``"beta-1.37"`` (its beta gates and scheduling.k8s.io/v1beta1 on; see
    ``workloadbuilder.testing.PRESETS``). ``feature_gates`` turns gates on or off over the
    preset, ``runtime_config`` group/versions (``{"scheduling.k8s.io/v1alpha3": True}``), as
    kube-apiserver's ``--feature-gates`` and ``--runtime-config``; ``group_versions`` limits
    the served group/versions (e.g. ``["v1", "scheduling.k8s.io/v1beta1"]``); ``resources``
    replaces the served resource types; ``event_history`` bounds the watch history (older
    resourceVersions get 410 Gone); ``bookmark_interval`` is the seconds between watch
    bookmarks; ``field_checker`` finds unknown fields (``None`` accepts every field). A create
    in a namespace that does not exist is a 404 ``namespaces "x" not found``, as from the API
    server; ``auto_create_namespaces=True`` creates the ``Namespace`` instead. ``port``
    fixes the port (0: a free one).

    Roles, ClusterRoles and their bindings (``rbac.authorization.k8s.io/v1``) are served in
    every mode, as by kube-apiserver: stored, validated, listed and aggregated, but enforced
    only under RBAC. ``authorization="RBAC"`` authenticates and authorizes every request as
    kube-apiserver with ``--authorization-mode=RBAC``: it serves ``rbac.authorization.k8s.io/v1``
    (with the bootstrap ClusterRoles and bindings) and the review APIs whatever ``resources``
    and ``group_versions`` say, maps the bearer tokens of :meth:`token_for` to their users (an
    unknown token is a 401, none is ``system:anonymous``), honours impersonation headers and
    refuses what no binding grants with the API server's 403. The kubeconfig names
    :attr:`secure_url` and carries an administrator's token (``system:masters``), as
    :meth:`api_client` does, so fixtures and kubectl can do anything; the in-process methods
    are never refused. The default ``"AlwaysAllow"`` lets every request in, whatever its
    credentials.

    Admission webhooks configured with ``admissionregistration.k8s.io/v1``
    ``ValidatingWebhookConfiguration`` and ``MutatingWebhookConfiguration`` objects are called
    on create, update and delete, at loopback addresses only. ``webhook_services`` maps a
    webhook's ``clientConfig.service`` (``"namespace/name"`` or ``"namespace/name:port"``) to
    the loopback ``host:port`` that serves it (its certificate must name
    ``<name>.<namespace>.svc``). The server waits for each webhook's answer, so a webhook must
    not be served from the server's own event loop: run it in another thread or process.
    """

    def __init__(
        self,
        *,
        preset: str = DEFAULT_PRESET,
        feature_gates: Mapping[str, bool] | None = None,
        runtime_config: Mapping[str, bool] | None = None,
        group_versions: Iterable[str] | None = None,
        resources: Iterable[ResourceType] = DEFAULT_RESOURCES,
        event_history: int = 1000,
        bookmark_interval: float = 1.0,
        field_checker: FieldChecker | None = model_unknown_fields,
        auto_create_namespaces: bool = False,
        port: int = 0,
        authorization: str = "AlwaysAllow",
        webhook_services: Mapping[str, str] | None = None,
    ) -> None:
        if authorization not in AUTHORIZATION_MODES:
            raise ValueError(
                f"unknown authorization {authorization!r}: use one of "
                f"{', '.join(AUTHORIZATION_MODES)}"
            )
        self.authorization = authorization
        rbac = authorization == "RBAC"
        config = resolve(preset, feature_gates, runtime_config)
        self.preset = preset
        self.gates = config.gates
        served = tuple(resources)
        if rbac:  # an RBAC server serves the RBAC API and the reviews whatever else it serves
            served += tuple(rt for rt in kinds.SERVED if rt not in served)
            if group_versions is not None:
                group_versions = [*group_versions, *(rt.api_version for rt in kinds.SERVED)]
        self._registry = Registry(served, self.gates, group_versions, config.disabled_versions)
        self._store = Store(event_history)
        self._engine = RBACEngine(
            self._registry,
            self._store,
            field_checker,
            auto_create_namespaces=auto_create_namespaces,
        )
        self._engine.webhook_services.update(webhook_services or {})
        self._engine.requester = _requester
        self._tokens = Tokens()
        self._admin_token = self._tokens.issue(ADMIN, ["system:masters"]) if rbac else _AA_TOKEN
        gate = Gate(self._tokens, self._engine.authorizer) if rbac else None
        self.faults = Faults()
        self.requests: list[RecordedRequest] = []
        self._handler = HTTPHandler(
            self._engine, self.faults, self.requests, lambda: self.address, bookmark_interval, gate
        )
        self._runner: web.ServerRunner | None = None
        self._port = port  # 0: a free port, chosen when started
        self._tls: ssl.SSLContext | None = None
        self._tls_port = 0
        self._tmpdir: Path | None = None
        if self._registry.get("", "v1", "namespaces") is not None:
            self.create_object(
                "", "v1", "namespaces", _namespace("default"), field_manager="kube-apiserver"
            )
        if rbac and self._registry.get("rbac.authorization.k8s.io", "v1", "clusterroles"):
            self._bootstrap_policy()

    def _bootstrap_policy(self) -> None:
        for role in bootstrap.cluster_roles():
            self.create_object(
                "rbac.authorization.k8s.io", "v1", "clusterroles", role,
                field_manager="kube-apiserver",
            )  # fmt: skip
        for binding in bootstrap.cluster_role_bindings():
            self.create_object(
                "rbac.authorization.k8s.io", "v1", "clusterrolebindings", binding,
                field_manager="kube-apiserver",
            )  # fmt: skip

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on 127.0.0.1 and write the kubeconfig."""
        if self._runner is not None:
            raise RuntimeError("FakeAPIServer is already started: start it once, or use a new one")
        self._tmpdir = Path(tempfile.mkdtemp(prefix="workloadbuilder-apiserver-"))
        if self.authorization == "RBAC":
            self._tls = tls.server_context(*tls.make_certificate(self._tmpdir))
        await self._listen(self._port)
        if self._tls is None:
            config = _kubeconfig(self.url, "", self._admin_token)
        else:
            config = _kubeconfig(self.secure_url, self._authority(), self._admin_token)
        self.kubeconfig_path.write_text(config)

    async def restart(self, downtime: float = 0.0) -> None:
        """Stop listening (dropping every connection and watch), stay down ``downtime``
        seconds, then listen again on the same port, keeping every object."""
        if self._runner is None:
            raise RuntimeError("FakeAPIServer is not started: start it before restarting it")
        self._store.close_watchers()
        await self._runner.cleanup()
        self._runner = None
        await asyncio.sleep(downtime)
        await self._listen(self._port)

    async def _listen(self, port: int) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self._port = sock.getsockname()[1]
        runner = web.ServerRunner(web.Server(self._handler), shutdown_timeout=1.0)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        if self._tls is not None:
            secure = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            secure.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            secure.bind(("127.0.0.1", self._tls_port))
            self._tls_port = secure.getsockname()[1]
            await web.SockSite(runner, secure, ssl_context=self._tls).start()
        self._runner = runner

    async def stop(self) -> None:
        """End every watch, stop listening and remove the kubeconfig."""
        self._store.close_watchers()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    async def __aenter__(self) -> FakeAPIServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def address(self) -> str:
        """``127.0.0.1:<port>``."""
        return f"127.0.0.1:{self._port}"

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``; only valid once started."""
        if self._runner is None:
            raise _not_started()
        return f"http://{self.address}"

    @property
    def secure_url(self) -> str:
        """``https://127.0.0.1:<port>``: the TLS listener of an RBAC server (client-go sends
        credentials only over TLS); its certificate is the kubeconfig's authority."""
        if self._runner is None or self._tls is None:
            raise RuntimeError(
                "FakeAPIServer has a TLS listener only with authorization='RBAC', once started"
            )
        return f"https://127.0.0.1:{self._tls_port}"

    @property
    def kubeconfig_path(self) -> Path:
        """A kubeconfig for this server (context ``fake``, namespace ``default``); with RBAC
        it names :attr:`secure_url` and carries an administrator's token."""
        if self._tmpdir is None:
            raise _not_started()
        return self._tmpdir / "kubeconfig"

    @property
    def resource_version(self) -> str:
        """The latest resourceVersion (every persisted write increases it)."""
        return str(self._store.rv)

    @property
    def open_watches(self) -> int:
        """How many watch streams are open."""
        return self._store.watcher_count

    def serves(self, group: str, version: str, plural: str) -> bool:
        """Whether ``group/version/plural`` is served (given the preset, gates and versions)."""
        return self._registry.get(group, version, plural) is not None

    @property
    def admin_headers(self) -> dict[str, str]:
        """Request headers that authenticate as the kubeconfig's administrator (none when
        every request is allowed anyway)."""
        if self.authorization == "AlwaysAllow":
            return {}
        return {"Authorization": f"Bearer {self._admin_token}"}

    def token_for(self, user: str, groups: Iterable[str] = ()) -> str:
        """A bearer token this server maps to ``user`` in ``groups``, plus
        ``system:authenticated`` and, for ``system:serviceaccount:NS:NAME``,
        ``system:serviceaccounts`` and ``system:serviceaccounts:NS`` (the same token each
        time for the same user and groups)."""
        return self._tokens.issue(user, tuple(groups))

    def kubeconfig_for(self, user: str, groups: Iterable[str] = ()) -> Path:
        """A kubeconfig like :attr:`kubeconfig_path` that acts as ``user`` (in ``groups``)
        with the token of :meth:`token_for`, so kubectl or any client runs as, say, a
        ServiceAccount (``system:serviceaccount:NS:NAME``) instead of the administrator.
        It is written beside :attr:`kubeconfig_path` and removed with it; only an RBAC
        server has identities, the default one lets every request in whatever its token."""
        if self.authorization != "RBAC":
            raise RuntimeError(
                "kubeconfig_for needs FakeAPIServer(authorization='RBAC'): the default server "
                "lets every request in, whoever sends it"
            )
        config = self.kubeconfig_path
        group_list = tuple(groups)
        token = self.token_for(user, group_list)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", user)
        if group_list:
            name += "-" + hashlib.sha256("\n".join(group_list).encode()).hexdigest()[:8]
        path = config.with_name(f"kubeconfig-{name}")
        path.write_text(_kubeconfig(self.secure_url, self._authority(), token))
        return path

    def _authority(self) -> str:
        """The serving certificate, base64-encoded, as ``certificate-authority-data``."""
        return base64.b64encode(self.kubeconfig_path.with_name("serving.crt").read_bytes()).decode()

    def api_client(self, user: str | None = None, groups: Iterable[str] = ()) -> ApiClient:
        """A kubernetes-asyncio ``ApiClient`` for this server; close it (``async with``).

        It carries the administrator's token, or with ``user`` that of :meth:`token_for`."""
        from kubernetes_asyncio.client import ApiClient, Configuration

        if user is None and self.authorization == "AlwaysAllow":
            return ApiClient(Configuration(host=self.url))
        token = self._admin_token if user is None else self.token_for(user, groups)
        config = Configuration(
            host=self.url,
            api_key={"BearerToken": token},
            api_key_prefix={"BearerToken": "Bearer"},
        )
        return ApiClient(config)

    # -- in-process API (same code path as HTTP; call it from the server's event loop) -----

    def _rt(self, group: str, version: str, plural: str) -> ResourceType:
        return self._registry.require(group, version, plural)

    def get_object(
        self, group: str, version: str, plural: str, namespace: str | None, name: str
    ) -> dict[str, Any] | None:
        """A copy of the object, or ``None`` if it does not exist."""
        try:
            return _copy(self._engine.get(self._rt(group, version, plural), namespace, name))
        except APIStatusError as exc:
            if exc.code == 404:
                return None
            raise

    def list_objects(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[dict[str, Any]]:
        """Copies of the matching objects (every namespace when ``namespace`` is ``None``)."""
        rt = self._rt(group, version, plural)
        items = self._engine.listing(rt, namespace, label_selector, field_selector)["items"]
        return [_copy(item) for item in items]

    def create_object(
        self,
        group: str,
        version: str,
        plural: str,
        obj: Mapping[str, Any],
        *,
        field_manager: str = DEFAULT_MANAGER,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Create ``obj`` as a POST would; failures raise :class:`APIStatusError`."""
        rt = self._rt(group, version, plural)
        opts = WriteOptions(field_manager=field_manager, dry_run=dry_run)
        return _done(self._engine.create(rt, _namespace_of(obj), dict(obj), opts))

    def update_object(
        self,
        group: str,
        version: str,
        plural: str,
        obj: Mapping[str, Any],
        *,
        subresource: str = "",
        field_manager: str = DEFAULT_MANAGER,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Replace the object as a PUT would (``subresource="status"``: only its status)."""
        rt = self._rt(group, version, plural)
        name = _name_of(obj)
        opts = WriteOptions(field_manager=field_manager, dry_run=dry_run)
        return _done(
            self._engine.replace(rt, _namespace_of(obj), name, dict(obj), opts, subresource)
        )

    def patch_object(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None,
        name: str,
        patch: Any,
        *,
        patch_type: str = "merge",
        subresource: str = "",
        field_manager: str = DEFAULT_MANAGER,
        force: bool = False,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Patch as a PATCH would; ``patch_type``: ``apply``, ``merge``, ``strategic``, ``json``."""
        if patch_type not in _PATCH_TYPES:
            raise ValueError(
                f"unknown patch_type {patch_type!r}: use one of {', '.join(_PATCH_TYPES)}"
            )
        rt = self._rt(group, version, plural)
        opts = WriteOptions(field_manager=field_manager, force=force, dry_run=dry_run)
        result = self._engine.patch(
            rt, namespace, name, patch, _PATCH_TYPES[patch_type], opts, subresource
        )
        return _done(result)

    def apply_object(
        self,
        group: str,
        version: str,
        plural: str,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        subresource: str = "",
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Server-side apply ``obj`` (name and namespace from its metadata)."""
        return self.patch_object(
            group,
            version,
            plural,
            _namespace_of(obj),
            _name_of(obj),
            dict(obj),
            patch_type="apply",
            subresource=subresource,
            field_manager=field_manager,
            force=force,
            dry_run=dry_run,
        )

    def patch_status(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None,
        name: str,
        status: Mapping[str, Any],
        *,
        field_manager: str = DEFAULT_MANAGER,
    ) -> dict[str, Any]:
        """Strategic-merge ``status`` into the object's status (conditions merge by ``type``)."""
        return self.patch_object(
            group,
            version,
            plural,
            namespace,
            name,
            {"status": dict(status)},
            patch_type="strategic",
            subresource="status",
            field_manager=field_manager,
        )

    def delete_object(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None,
        name: str,
        *,
        propagation_policy: str | None = None,
        grace_period_seconds: int | None = None,
    ) -> None:
        """Delete as a DELETE would (finalizers, garbage collection and a pod's grace period
        included: a bound pod stays Terminating unless the grace is 0)."""
        self._engine.delete(
            self._rt(group, version, plural),
            namespace,
            name,
            propagation_policy,
            grace_period=grace_period_seconds,
        )


def _copy(obj: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = copy_json(obj)
    return result


def _done(result: Result) -> dict[str, Any]:
    return _copy(result.body)


def _name_of(obj: Mapping[str, Any]) -> str:
    name = (obj.get("metadata") or {}).get("name")
    if not name:
        raise ValueError("the object has no metadata.name: set it to address the object")
    return str(name)


def _namespace_of(obj: Mapping[str, Any]) -> str | None:
    namespace = (obj.get("metadata") or {}).get("namespace")
    return str(namespace) if namespace else None


def _requester() -> dict[str, Any]:
    """The ``userInfo`` webhooks are sent: the authenticated user, else the kubeconfig's."""
    user = REQUESTER.get()
    return copy_json(DEFAULT_REQUESTER) if user is None else user.to_dict()


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _kubeconfig(url: str, authority: str, token: str) -> str:
    ca = f"\n    certificate-authority-data: {authority}" if authority else ""
    return f"""apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: {url}{ca}
users:
- name: fake
  user:
    token: {token}
contexts:
- name: fake
  context:
    cluster: fake
    user: fake
    namespace: default
current-context: fake
preferences: {{}}
"""


def _not_started() -> RuntimeError:
    return RuntimeError("FakeAPIServer is not started: use `async with FakeAPIServer() as server`")
