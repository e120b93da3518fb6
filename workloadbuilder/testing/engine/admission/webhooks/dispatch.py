"""Calling one webhook and what its failures become (``k8s.io/apiserver``
``pkg/admission/plugin/webhook/{validating,mutating}/dispatcher.go`` and ``errors``).

A dry run calls only webhooks whose ``sideEffects`` are ``None`` or ``NoneOnDryRun``; any other
is a 400 ``admission webhook "x" does not support dry run``. A webhook that cannot be called
(unreachable, timed out, a bad answer) fails the request as a 500
``Internal error occurred: failed calling webhook "x": ...`` under ``failurePolicy: Fail`` and
is skipped under ``Ignore``. A denial is the webhook's own status (code at least 400) with the
message ``admission webhook "x" denied the request: <message>``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import Registry
from workloadbuilder.testing.engine.admission.attributes import Attributes
from workloadbuilder.testing.engine.admission.webhooks import client, matching, review
from workloadbuilder.testing.store.store import Store

UserInfo = Callable[[], dict[str, Any]]
"""The ``userInfo`` of the request being admitted."""
DEFAULT_TIMEOUT: Final = 10


def denied(name: str, status: dict[str, Any] | None) -> errors.APIStatusError:
    """``ToStatusErr``: the webhook's status, worded as kube-apiserver words a denial."""
    result = dict(status or {})
    code = result.get("code")
    state = result.get("status")
    denied_by = f'admission webhook "{name}" denied the request'
    if result.get("message"):
        message = f"{denied_by}: {result['message']}"
    elif result.get("reason"):
        message = f"{denied_by}: {result['reason']}"
    else:
        message = f"{denied_by} without explanation"
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": result.get("metadata") if isinstance(result.get("metadata"), dict) else {},
        "status": "Failure" if state in (None, "", "Success") else state,
        "message": message,
    }
    if result.get("reason"):
        body["reason"] = result["reason"]
    if isinstance(result.get("details"), dict):
        body["details"] = result["details"]
    body["code"] = code if isinstance(code, int) and code >= 400 else 400
    return errors.APIStatusError(body)


def failed(name: str, reason: str) -> errors.APIStatusError:
    """A webhook that could not be called, failing closed."""
    return errors.internal(f'failed calling webhook "{name}": {reason}')


class Webhooks:
    """What both webhook plugins share: the stored configurations, the service map and the
    requester's identity."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        services: Mapping[str, str],
        user: UserInfo,
    ) -> None:
        self.store, self.registry, self.services, self.user = store, registry, services, user

    def invocations(self, plural: str, attrs: Attributes) -> list[matching.Invocation]:
        """The webhooks of ``plural`` configurations that ``attrs`` calls, in order."""
        found = []
        for configuration, hook in matching.configured(self.store, plural):
            call = matching.invocation(configuration, hook, attrs, self.store, self.registry)
            if call is not None:
                found.append(call)
        return found

    def call(
        self, call: matching.Invocation, attrs: Attributes, *, mutating: bool
    ) -> review.Answer | None:
        """The webhook's verified answer; ``None`` when it could not be called and its
        ``failurePolicy`` is ``Ignore``; else the request's error."""
        hook = call.hook
        name = str(hook.get("name", ""))
        try:
            if attrs.dry_run:
                side_effects = hook.get("sideEffects")
                if side_effects is None:
                    raise client.CallError("Webhook SideEffects is nil")
                if side_effects not in ("None", "NoneOnDryRun"):
                    raise errors.bad_request(f'admission webhook "{name}" does not support dry run')
            uid, body = review.request(attrs, call, self.user(), mutating=mutating)
            timeout = hook.get("timeoutSeconds")
            answer = client.post(
                hook.get("clientConfig") or {},
                self.services,
                json.dumps(body).encode(),
                timeout if isinstance(timeout, int) else DEFAULT_TIMEOUT,
            )
            return review.verify(uid, answer, mutating=mutating)
        except client.CallError as exc:
            if hook.get("failurePolicy", "Fail") == "Ignore":
                return None
            raise failed(name, str(exc)) from None
