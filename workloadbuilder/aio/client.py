"""``Client``: one client core (an ``ApiClient``, a field manager, the retry policy, the
discovery cache, the counters), with the helpers as methods."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from .cache.cache import Cache
from .observe.audit import audit
from .observe.diagnose import diagnose
from .observe.read import list_objects, read_object
from .observe.wait import wait_scheduled
from .wire.transport import RetryPolicy, Transport
from .writes.apply import apply
from .writes.delete import delete
from .writes.preflight import preflight
from .writes.reconcile import reconcile
from .writes.reconcile_job import reconcile_job
from .writes.resize import resize

__all__ = ["Client"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _Method(Generic[_P, _R]):
    """A helper as a method of ``Client``: the client goes in as its ``api_client``; every other
    parameter (and its type) is the helper's own."""

    def __init__(self, helper: Callable[Concatenate[Any, _P], Awaitable[_R]]) -> None:
        self.helper = helper
        self.__doc__ = helper.__doc__  # help(Client) shows the helper's own

    @overload
    def __get__(self, client: None, owner: type[Any]) -> _Method[_P, _R]: ...
    @overload
    def __get__(self, client: Client, owner: type[Any]) -> Callable[_P, Awaitable[_R]]: ...
    def __get__(
        self, client: Client | None, owner: type[Any]
    ) -> _Method[_P, _R] | Callable[_P, Awaitable[_R]]:
        if client is None:
            return self
        return partial(self.helper, client)


class Client:
    """The module's coroutines bound to one client core.

    ``Client(api, "my-operator")`` then ``await client.apply(objects)``: each method is the
    function of the same name with this client as its ``api_client``, its other parameters
    unchanged; ``field_manager`` defaults to the client's. The client keeps what discovery
    learned (``preflight`` asks the cluster once per client), the retry policy (``retry``;
    ``None``: the one current at each call, see ``default_retry``; a call's own ``retry=``
    wins for that call) and counts what went on the wire (``requests``, ``retries``). Every
    function also takes the ``Client`` itself as its ``api_client``. With ``cache`` (an
    ``aio.Cache``), every method that reads does so through it unless given its own
    ``cache=``.
    """

    def __init__(
        self,
        api_client: Any,
        field_manager: str,
        *,
        retry: RetryPolicy | None = None,
        cache: Cache | None = None,
    ) -> None:
        self.api_client = api_client
        """The ``ApiClient`` requests go through."""
        if cache is not None and not isinstance(cache, Cache):
            raise TypeError(f"cache must be an aio.Cache, not {type(cache).__name__}")
        self.cache = cache
        """The ``aio.Cache`` the methods read through (``None``: the live API)."""
        self.transport = Transport(api_client, retry)
        """The client core: field manager, retry policy, discovery cache, counters."""
        self.field_manager = field_manager

    def __repr__(self) -> str:
        return f"Client(field_manager={self.field_manager!r})"

    @property
    def field_manager(self) -> str:
        """Who this client writes as."""
        return self.transport.resolve_field_manager(None)

    @field_manager.setter
    def field_manager(self, value: str) -> None:
        if not value:
            raise ValueError("field_manager is required: name your controller (e.g. 'my-operator')")
        self.transport.field_manager = value

    @property
    def retry(self) -> RetryPolicy | None:
        """The client's retry policy (``None``: the one current at each call)."""
        return self.transport.own_retry

    @retry.setter
    def retry(self, value: RetryPolicy | None) -> None:
        self.transport.own_retry = value

    @property
    def requests(self) -> int:
        """Requests sent through this client so far (each try counts)."""
        return self.transport.counters.requests

    @property
    def retries(self) -> int:
        """Retries made so far (after 429, 5xx, dropped connections, timeouts)."""
        return self.transport.counters.retries

    preflight = _Method(preflight)
    """``aio.preflight`` with this client as ``api_client``."""
    apply = _Method(apply)
    """``aio.apply`` with this client as ``api_client``."""
    resize = _Method(resize)
    """``aio.resize`` with this client as ``api_client``."""
    delete = _Method(delete)
    """``aio.delete`` with this client as ``api_client``."""
    reconcile = _Method(reconcile)
    """``aio.reconcile`` with this client as ``api_client``."""
    reconcile_job = _Method(reconcile_job)
    """``aio.reconcile_job`` with this client as ``api_client``."""
    wait_scheduled = _Method(wait_scheduled)
    """``aio.wait_scheduled`` with this client as ``api_client``."""
    diagnose = _Method(diagnose)
    """``aio.diagnose`` with this client as ``api_client``."""
    audit = _Method(audit)
    """``aio.audit`` with this client as ``api_client``."""
    read_object = _Method(read_object)
    """``aio.read_object`` with this client as ``api_client``."""
    list_objects = _Method(list_objects)
    """``aio.list_objects`` with this client as ``api_client``."""
