"""ValidatingAdmissionWebhook: every matching webhook of the ValidatingWebhookConfigurations
is called (upstream calls them in parallel and reports the first error; here they are called
in order and the first error in that order is reported)."""

from __future__ import annotations

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.engine.admission.attributes import Attributes
from workloadbuilder.testing.engine.admission.webhooks.dispatch import Webhooks, denied

PLURAL = "validatingwebhookconfigurations"


class ValidatingAdmissionWebhook:
    """The last validating plugin: the cluster's validating webhooks."""

    name = "ValidatingAdmissionWebhook"

    def __init__(self, webhooks: Webhooks) -> None:
        self.webhooks = webhooks

    def validate(self, attrs: Attributes) -> None:
        first: errors.APIStatusError | None = None
        for call in self.webhooks.invocations(PLURAL, attrs):
            try:
                answer = self.webhooks.call(call, attrs, mutating=False)
            except errors.APIStatusError as exc:
                first = first or exc
                continue
            if answer is None:
                continue
            attrs.warnings += answer.warnings
            if not answer.allowed:
                first = first or denied(str(call.hook.get("name", "")), answer.status)
        if first is not None:
            raise first
