"""The webhook plugins: MutatingAdmissionWebhook and ValidatingAdmissionWebhook, calling the
webhooks of the stored ``admissionregistration.k8s.io/v1`` configurations."""

from workloadbuilder.testing.engine.admission.webhooks.dispatch import UserInfo, Webhooks
from workloadbuilder.testing.engine.admission.webhooks.mutating import MutatingAdmissionWebhook
from workloadbuilder.testing.engine.admission.webhooks.validating import (
    ValidatingAdmissionWebhook,
)

__all__ = ["MutatingAdmissionWebhook", "UserInfo", "ValidatingAdmissionWebhook", "Webhooks"]
