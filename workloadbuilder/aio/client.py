"""``Client``: an ``ApiClient`` and a field manager, with the helpers as methods."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..api.scheduling_v1alpha3 import CompositePodGroup
from ..api.scheduling_v1beta1 import PodGroup
from ..builder import Builder
from ._groups import GroupLike
from ._resources import SchedulingObject
from ._transport import RetryPolicy
from .apply import DEFAULT_CONCURRENCY, apply
from .audit import Finding, audit
from .delete import PropagationPolicy, delete
from .diagnose import Verdict, diagnose
from .errors import ObjectRef
from .preflight import preflight
from .reconcile import ReconcileResult, reconcile
from .resize import resize
from .wait import wait_scheduled

__all__ = ["Client"]


class Client:
    """The module's coroutines bound to one ``api_client`` and ``field_manager``.

    ``Client(api, "my-operator")`` then ``await client.apply(objects)``; the functions stay
    the contract, this only saves passing the same arguments again.
    """

    def __init__(
        self, api_client: Any, field_manager: str, *, retry: RetryPolicy | None = None
    ) -> None:
        if not field_manager:
            raise ValueError("field_manager is required: name your controller (e.g. 'my-operator')")
        self.api_client = api_client
        self.field_manager = field_manager
        self.retry = retry

    def __repr__(self) -> str:
        return f"Client(field_manager={self.field_manager!r})"

    async def preflight(self, objects: Iterable[SchedulingObject | Mapping[str, Any]]) -> None:
        await preflight(self.api_client, objects, retry=self.retry)

    async def apply(
        self,
        objects: Iterable[SchedulingObject | Mapping[str, Any]],
        *,
        force: bool = False,
        dry_run: bool = False,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> list[SchedulingObject]:
        return await apply(
            self.api_client,
            objects,
            field_manager=self.field_manager,
            force=force,
            dry_run=dry_run,
            concurrency=concurrency,
            retry=self.retry,
        )

    async def resize(
        self,
        pod_group_or_name: PodGroup | Mapping[str, Any] | str,
        min_count: int,
        *,
        namespace: str | None = None,
    ) -> PodGroup:
        return await resize(
            self.api_client,
            pod_group_or_name,
            min_count,
            namespace=namespace,
            field_manager=self.field_manager,
            retry=self.retry,
        )

    async def delete(
        self,
        workload_or_objects: Any,
        *,
        namespace: str | None = None,
        propagation_policy: PropagationPolicy = "Background",
    ) -> list[ObjectRef]:
        return await delete(
            self.api_client,
            workload_or_objects,
            namespace=namespace,
            propagation_policy=propagation_policy,
            retry=self.retry,
        )

    async def reconcile(
        self, builder: Builder, *, new_execution: bool = True, adopt: bool = False
    ) -> ReconcileResult:
        return await reconcile(
            self.api_client,
            builder,
            field_manager=self.field_manager,
            new_execution=new_execution,
            adopt=adopt,
            retry=self.retry,
        )

    async def wait_scheduled(
        self, group: GroupLike, *, timeout: float
    ) -> PodGroup | CompositePodGroup:
        return await wait_scheduled(self.api_client, group, timeout=timeout, retry=self.retry)

    async def diagnose(self, group: GroupLike) -> Verdict:
        return await diagnose(self.api_client, group, retry=self.retry)

    async def audit(self, namespace: str) -> list[Finding]:
        return await audit(self.api_client, namespace, retry=self.retry)
