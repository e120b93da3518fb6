"""MutatingAdmissionWebhook: the matching webhooks of the MutatingWebhookConfigurations, called
one after the other; each JSONPatch answer is applied to the object the next one sees, and the
result defaulted again. A webhook with ``reinvocationPolicy: IfNeeded`` is called once more
when a later webhook changed the object (``mutating/dispatcher.go``, ``reinvocationcontext.go``).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from workloadbuilder.testing import rules
from workloadbuilder.testing.apply.merge import JSONPatchError, copy_json, json_patch
from workloadbuilder.testing.common import errors
from workloadbuilder.testing.engine.admission.attributes import Attributes
from workloadbuilder.testing.engine.admission.webhooks.dispatch import Webhooks, denied, failed
from workloadbuilder.testing.engine.admission.webhooks.matching import Invocation

PLURAL = "mutatingwebhookconfigurations"


def _key(call: Invocation) -> str:
    return f"{call.configuration}/{call.hook.get('name', '')}"


class _Rounds:
    """Which reinvocable webhooks ran before the object last changed."""

    def __init__(self) -> None:
        self.last: Any = None
        self.previous: set[str] = set()
        self.again: set[str] = set()

    def changed(self) -> None:
        self.again |= self.previous
        self.previous = set()


class MutatingAdmissionWebhook:
    """The last mutating plugin: the cluster's mutating webhooks."""

    name = "MutatingAdmissionWebhook"

    def __init__(self, webhooks: Webhooks) -> None:
        self.webhooks = webhooks

    def admit(self, attrs: Attributes) -> None:
        calls = self.webhooks.invocations(PLURAL, attrs)
        if not calls:
            return
        rounds = attrs.state.setdefault(self.name, _Rounds())
        if attrs.reinvoking and rounds.last != attrs.obj:
            rounds.changed()  # other plugins changed the object since: the reinvocable run again
        try:
            for call in calls:
                if attrs.reinvoking and _key(call) not in rounds.again:
                    continue
                if self._call(call, attrs):
                    rounds.changed()
                    attrs.reinvoke = True
                if call.hook.get("reinvocationPolicy") == "IfNeeded":
                    rounds.previous.add(_key(call))
        finally:
            rounds.last = copy_json(attrs.obj)

    def _call(self, call: Invocation, attrs: Attributes) -> bool:
        """Call one webhook; whether its patch changed the object."""
        name = str(call.hook.get("name", ""))
        answer = self.webhooks.call(call, attrs, mutating=True)
        if answer is None:
            return False
        attrs.warnings += answer.warnings
        if not answer.allowed:
            raise denied(name, answer.status)
        if not answer.patch:
            return False
        try:
            operations = json.loads(base64.b64decode(answer.patch, validate=True))
        except (binascii.Error, ValueError) as exc:
            if call.hook.get("failurePolicy", "Fail") == "Ignore":
                return False
            raise failed(name, f"received undecodable patch in webhook response: {exc}") from None
        if not operations:
            return False
        if attrs.obj is None:
            raise errors.internal(
                f'admission webhook "{name}" attempted to modify the object, which is not '
                "supported for this operation"
            )
        try:
            patched = json_patch({**attrs.obj, "apiVersion": call.rt.api_version}, operations)
        except JSONPatchError as exc:
            raise errors.internal(str(exc)) from None
        if not isinstance(patched, dict):
            raise errors.internal(
                f'admission webhook "{name}" patched the object into a non-object'
            )
        patched["apiVersion"] = attrs.obj.get("apiVersion", patched.get("apiVersion"))
        rules.apply_defaults(attrs.rt.group, attrs.rt.kind, patched)
        if patched == attrs.obj:
            return False
        attrs.obj.clear()
        attrs.obj.update(patched)
        return True
