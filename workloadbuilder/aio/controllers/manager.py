"""``Manager``: controllers, a shared cache, probes, metrics and webhooks in one process, as
controller-runtime's ``manager.Manager``.

Starting: the health probe and metrics servers, then the webhook server, then the cache,
then the runnables that run on every replica (``add(..., needs_leader=False)``), then the
election. Controllers and leader-only runnables start once this replica leads (at once
without ``leader_election``) and are cancelled when it loses the Lease; it then stands again.

Stopping (``run()`` cancelled): ``/readyz`` fails at once (check ``shutdown``); the
every-replica runnables, then the controllers and leader-only runnables are cancelled and
awaited, all within ``graceful_shutdown_timeout`` seconds (a reconcile still running then is
cancelled, and logged once); the Lease is released; the cache stops; the webhook server
finishes the requests in flight; the metrics and probe servers stop last.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

from aiohttp import web
from prometheus_client import CollectorRegistry
from prometheus_client.registry import REGISTRY

from ..cache.cache import AnyKind, Cache
from ..metrics import register
from .controller import Controller, Reconcile
from .leader import LeaderElection, LostLeadershipError
from .metrics_server import metrics_routes
from .probes import Check, HealthCheckError, Probes
from .servers import HTTPServer, split_bind_address

if TYPE_CHECKING:
    from .webhooks import Mutate, Validate, WebhookServer


__all__ = ["LEADER_ELECTION_TIMEOUT", "Manager", "Runnable"]

_log = logging.getLogger("workloadbuilder.aio")

Runnable = Callable[[], Coroutine[Any, Any, object]]
"""A coroutine function the manager runs until the manager stops (it is then cancelled)."""

LEADER_ELECTION_TIMEOUT = 20.0
"""How long past ``lease_duration`` a leader that has not renewed stays live (the timeout
kube-controller-manager gives client-go's ``HealthzAdaptor``)."""


class Manager:
    """Run controllers and runnables on one shared cache, with probes, metrics and webhooks.

    ``namespace``: the controllers' and the cache's (``None``: every namespace). ``cache``: an
    ``aio.Cache`` to share (default: one made here holding the controllers' kinds; either way
    ``manager.cache`` is the one to pass to the helpers). ``leader_election``: an
    ``aio.LeaderElection``; without one this replica always leads. The bind addresses are
    ``host:port`` (port ``0``: a free port; ``None``: that server is off): metrics at
    ``GET /metrics``, probes at ``GET /healthz`` and ``GET /readyz``. ``registry``: the
    Prometheus registry served (default: ``prometheus_client``'s, where the SDK records).
    ``graceful_shutdown_timeout``: seconds a stop waits for runnables and reconciles.
    """

    def __init__(
        self,
        api_client: Any,
        *,
        namespace: str | None = None,
        cache: Cache | None = None,
        leader_election: LeaderElection | None = None,
        metrics_bind_address: str | None = "0.0.0.0:8080",
        health_probe_bind_address: str | None = "0.0.0.0:8081",
        webhook_bind_address: str | None = None,
        webhook_cert_dir: str | os.PathLike[str] | None = None,
        registry: CollectorRegistry | None = None,
        graceful_shutdown_timeout: float = 30.0,
    ) -> None:
        if graceful_shutdown_timeout < 0:
            raise ValueError(
                f"graceful_shutdown_timeout must not be negative, got {graceful_shutdown_timeout}"
            )
        for address, parameter in (
            (metrics_bind_address, "metrics_bind_address"),
            (health_probe_bind_address, "health_probe_bind_address"),
            (webhook_bind_address, "webhook_bind_address"),
        ):
            if address is not None:
                try:
                    split_bind_address(address)
                except ValueError as exc:
                    raise ValueError(f"{parameter}: {exc}") from None
        if webhook_bind_address is not None and webhook_cert_dir is None:
            raise ValueError("webhook_cert_dir is required with webhook_bind_address")
        self.api_client = api_client
        self.namespace = namespace
        self.leader_election = leader_election
        self.graceful_shutdown_timeout = graceful_shutdown_timeout
        self.registry = register(registry) if registry is not None else REGISTRY
        self.cache = (
            cache if cache is not None else Cache(api_client, namespace=namespace, kinds=())
        )
        self._own_cache = cache is None
        self.probes = Probes()
        self._servers: list[HTTPServer] = []
        self._health_server = self._server(
            health_probe_bind_address, "health probe server", self.probes.routes()
        )
        self._metrics_server = self._server(
            metrics_bind_address, "metrics server", metrics_routes(self.registry)
        )
        self._webhook_address = webhook_bind_address
        self._webhook_cert_dir = webhook_cert_dir
        self._webhooks: WebhookServer | None = None
        self._controllers: list[Controller] = []
        self._runnables: list[tuple[Runnable, bool]] = []
        self._running = False
        self._stopping = False
        self._stop_leading = asyncio.Event()
        self._leading = False
        self._deadline: float | None = None  # when a stop must be done (loop time)
        self.probes.add_check("readyz", "informer-sync", self._cache_synced)
        self.probes.add_check("readyz", "shutdown", self._not_stopping)
        if leader_election is not None:
            self.probes.add_check("healthz", "leaderElection", self._lease_renewed)

    def __repr__(self) -> str:
        return (
            f"Manager(controllers={[c.name for c in self._controllers]!r},"
            f" leading={self._leading}, running={self._running})"
        )

    def _server(
        self, address: str | None, what: str, routes: list[web.RouteDef]
    ) -> HTTPServer | None:
        if address is None:
            return None
        app = web.Application()
        app.add_routes(routes)
        server = HTTPServer(app, address, what)
        self._servers.append(server)
        return server

    # -- where it listens -----------------------------------------------------------------

    @property
    def metrics_url(self) -> str | None:
        """``http://host:port`` of the metrics server while it listens (``GET /metrics``)."""
        return self._metrics_server.url if self._metrics_server else None

    @property
    def health_url(self) -> str | None:
        """``http://host:port`` of the probe server while it listens (``/healthz``,
        ``/readyz``)."""
        return self._health_server.url if self._health_server else None

    @property
    def webhook_url(self) -> str | None:
        """``https://host:port`` of the webhook server while it listens."""
        return self._webhooks.url if self._webhooks is not None else None

    @property
    def leading(self) -> bool:
        """Whether this replica's controllers and leader-only runnables run now."""
        return self._leading

    # -- what it runs ---------------------------------------------------------------------

    def add_controller(
        self,
        kind: AnyKind,
        reconcile: Reconcile,
        *,
        name: str | None = None,
        workers: int = 4,
        **options: Any,
    ) -> Controller:
        """A controller of ``kind`` on the manager's cache and namespace, started when this
        replica leads; ``options`` are ``aio.Controller``'s (``resync_period``,
        ``rate_limiter``, ``sync_timeout``, ``metrics``). Names are unique per manager (they
        label the metrics)."""
        if self._running:
            raise RuntimeError("add controllers before run()")
        for taken in ("cache", "namespace", "leader_election", "drain_timeout"):
            if taken in options:
                raise TypeError(f"add_controller() takes no {taken}: the manager's is used")
        controller = Controller(
            self.api_client,
            kind,
            reconcile,
            namespace=self.namespace,
            workers=workers,
            cache=self.cache,
            drain_timeout=self.graceful_shutdown_timeout,
            name=name or "",
            **options,
        )
        if any(c.name == controller.name for c in self._controllers):
            raise ValueError(f"a controller named {controller.name!r} is already added: give name=")
        self.cache.informer(kind)  # listed when the cache starts, before the lead is taken
        self._controllers.append(controller)
        return controller

    def add(self, runnable: Runnable, *, needs_leader: bool = True) -> None:
        """Run ``await runnable()`` while the manager runs: only while this replica leads
        (``needs_leader``, controller-runtime's ``LeaderElectionRunnable``), else on every
        replica. It is cancelled when the manager stops (or the lead is lost); if it raises,
        the manager stops and ``run()`` raises that error."""
        if self._running:
            raise RuntimeError("add runnables before run()")
        self._runnables.append((runnable, needs_leader))

    def add_healthz_check(self, name: str, check: Check) -> None:
        """A liveness check at ``/healthz`` (and ``/healthz/<name>``): returns when healthy,
        raises (its message the reason) when not; sync or async."""
        self.probes.add_check("healthz", name, check)

    def add_readyz_check(self, name: str, check: Check) -> None:
        """A readiness check at ``/readyz`` (and ``/readyz/<name>``), as ``add_healthz_check``."""
        self.probes.add_check("readyz", name, check)

    def add_validating_webhook(self, path: str, validate: Validate) -> None:
        """Serve a validating admission webhook at ``path`` on the webhook server."""
        self._webhook_server().add_validating_webhook(path, validate)

    def add_mutating_webhook(self, path: str, mutate: Mutate) -> None:
        """Serve a mutating admission webhook at ``path`` on the webhook server."""
        self._webhook_server().add_mutating_webhook(path, mutate)

    def _webhook_server(self) -> WebhookServer:
        if self._webhooks is None:
            if self._webhook_address is None or self._webhook_cert_dir is None:
                raise ValueError("no webhook server: give the Manager webhook_bind_address=")
            from .webhooks import WebhookServer  # only when a webhook is configured

            self._webhooks = WebhookServer(
                self._webhook_address, self._webhook_cert_dir, registry=self.registry
            )
            self.probes.add_check("readyz", "webhook", self._webhook_serving)
        return self._webhooks

    # -- the checks -------------------------------------------------------------------------

    def _cache_synced(self) -> None:
        if not self.cache.started:
            raise HealthCheckError("the cache is not started")
        late = self.cache.unsynced
        if late:
            raise HealthCheckError(f"not synced yet: {', '.join(sorted(late))}")

    def _not_stopping(self) -> None:
        if self._stopping:
            raise HealthCheckError("the manager is shutting down")

    def _lease_renewed(self) -> None:
        assert self.leader_election is not None
        problem = self.leader_election.check(LEADER_ELECTION_TIMEOUT)
        if problem is not None:
            raise HealthCheckError(problem)

    def _webhook_serving(self) -> None:
        if self._webhooks is None or not self._webhooks.serving:
            raise HealthCheckError("the webhook server is not serving")

    # -- running ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Run until cancelled (then stop as the module says), or until a runnable raises
        (then stop and raise its error). One ``run()`` at a time."""
        if self._running:
            raise RuntimeError(f"{self!r} is already running: one run() at a time")
        self._running, self._stopping = True, False
        self._stop_leading = asyncio.Event()
        loop = asyncio.get_running_loop()
        started: list[HTTPServer] = []
        cache_started = False
        everywhere: list[asyncio.Task[object]] = []
        elect: asyncio.Task[None] | None = None
        try:
            for server in self._servers:
                await server.start()
                started.append(server)
            if self._webhooks is not None:
                await self._webhooks.start()
            if not self.cache.started:
                await self.cache.start()
                cache_started = True
            everywhere = [
                loop.create_task(runnable()) for runnable, leader in self._runnables if not leader
            ]
            elect = loop.create_task(self._elect())
            done, _ = await asyncio.wait([*everywhere, elect], return_when=asyncio.FIRST_EXCEPTION)
            _raise_first(done)
            await asyncio.Event().wait()  # the runnables returned: run until cancelled
        finally:
            await self._stop(everywhere, elect, cache_started, started)

    async def _stop(
        self,
        everywhere: list[asyncio.Task[object]],
        elect: asyncio.Task[None] | None,
        cache_started: bool,
        servers: list[HTTPServer],
    ) -> None:
        self._stopping = True
        loop = asyncio.get_running_loop()
        deadline = self._deadline = loop.time() + self.graceful_shutdown_timeout
        try:
            await _cancel_and_wait(everywhere, deadline, "runnable")
            if elect is not None:
                self._stop_leading.set()
                if not self._leading:
                    elect.cancel()  # still standing: stop trying
                await asyncio.wait([elect])
                if not elect.cancelled():
                    elect.exception()  # its error, if any, is run()'s: not raised here
            if cache_started:
                await self.cache.stop()
            if self._webhooks is not None:
                await self._webhooks.stop()
            for server in reversed(servers):
                await server.stop()
        finally:
            self._running, self._deadline = False, None
            _log.info("manager stopped")

    async def _elect(self) -> None:
        election = self.leader_election
        if election is None:
            await self._lead()
            return
        while not self._stop_leading.is_set():
            try:
                await election.run(self._lead)
            except LostLeadershipError:
                _log.warning(
                    "lost the lead of Lease %s/%s: standing again",
                    election.namespace,
                    election.name,
                )

    async def _lead(self) -> None:
        """While leading: the controllers and leader-only runnables, until the manager stops
        (or one raises); then stop them within the time left."""
        loop = asyncio.get_running_loop()
        self._leading = True
        tasks: list[asyncio.Task[object]] = [
            loop.create_task(controller.run()) for controller in self._controllers
        ]
        tasks += [loop.create_task(run()) for run, leader in self._runnables if leader]
        stop = loop.create_task(self._stop_leading.wait())
        try:
            pending: set[asyncio.Task[Any]] = {*tasks, stop}
            while not stop.done() and not _failed(tasks):
                _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            deadline = self._deadline or loop.time() + self.graceful_shutdown_timeout
            for controller in self._controllers:  # what is left of the stop's time
                controller.drain_timeout = round(max(0.0, deadline - loop.time()), 2)
            await _cancel_and_wait(tasks, deadline, "leader-only runnable")
            self._leading = False
        _raise_first(tasks)

    # -- a process's main ---------------------------------------------------------------------

    async def run_until_signal(self) -> None:
        """``run()`` until SIGTERM or SIGINT, then stop gracefully and return; a second signal
        exits at once (status 1), as controller-runtime's signal handler. For a process's
        ``main``: ``asyncio.run(main())`` where ``main`` makes the client, then awaits this."""
        loop = asyncio.get_running_loop()
        main = asyncio.current_task()
        assert main is not None
        signalled: list[int] = []

        def on_signal(number: int) -> None:
            signalled.append(number)
            if len(signalled) > 1:
                os._exit(1)
            _log.info("received %s: stopping", signal.Signals(number).name)
            main.cancel()

        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, on_signal, number)
        try:
            await self.run()
        except asyncio.CancelledError:
            if not signalled:
                raise
            main.uncancel()
        finally:
            for number in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(number)


def _failed(tasks: Iterable[asyncio.Task[Any]]) -> BaseException | None:
    """The error of the first of ``tasks`` that failed, if one did."""
    for task in tasks:
        if task.done() and not task.cancelled():
            error = task.exception()
            if error is not None:
                return error
    return None


def _raise_first(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Raise the error of the first of ``tasks`` that failed."""
    error = _failed(tasks)
    if error is not None:
        raise error


async def _cancel_and_wait(tasks: list[asyncio.Task[object]], deadline: float, what: str) -> None:
    """Cancel ``tasks`` and wait for them until ``deadline``; cancel again (and log once) the
    ones still running then."""
    pending = [task for task in tasks if not task.done()]
    for task in pending:
        task.cancel()
    if not pending:
        return
    left = max(0.0, deadline - asyncio.get_running_loop().time())
    # a controller bounds its own drain: give it a moment past the deadline to say so
    _, late = await asyncio.wait(pending, timeout=left + 1.0)
    if late:
        _log.warning(
            "%d %s(s) still running %gs after the stop began were cancelled",
            len(late),
            what,
            left,
        )
        for task in late:
            task.cancel()
        await asyncio.wait(late)
    for task in tasks:  # retrieve what each raised, so nothing is reported as never retrieved
        if task.done() and not task.cancelled():
            task.exception()
