"""``webhook_configuration``: the ``admissionregistration.k8s.io/v1`` object for one webhook.

It names the webhook server's path as kube-apiserver calls it: through a Service (``service=
("namespace", "name")``, port 443 unless given) or a URL, trusted by a ``caBundle`` or by
cert-manager's CA injector (``cert_manager_certificate="namespace/name"``, the
``cert-manager.io/inject-ca-from`` annotation). Defaults are the API's own (``Fail``,
``Equivalent``, 10 s) written out, with ``sideEffects: None`` and
``admissionReviewVersions: [v1]`` (what ``WebhookServer`` reads).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["WebhookRule", "webhook_configuration"]


@dataclass(frozen=True, slots=True)
class WebhookRule:
    """Which requests a webhook is called for (``RuleWithOperations``)."""

    api_groups: Sequence[str]
    api_versions: Sequence[str]
    resources: Sequence[str]
    operations: Sequence[str] = ("CREATE", "UPDATE")
    scope: Literal["*", "Cluster", "Namespaced"] = "*"

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiGroups": list(self.api_groups),
            "apiVersions": list(self.api_versions),
            "operations": list(self.operations),
            "resources": list(self.resources),
            "scope": self.scope,
        }


def _client_config(
    path: str,
    service: tuple[str, str] | tuple[str, str, int] | None,
    url: str | None,
    ca_bundle: bytes | str | None,
) -> dict[str, Any]:
    if (service is None) == (url is None):
        raise ValueError("exactly one of url or service is required")
    config: dict[str, Any] = {}
    if url is not None:
        if not url.startswith("https://"):
            raise ValueError(f"url {url!r}: 'https' is the only allowed URL scheme")
        config = {"url": url.rstrip("/") + path}
    elif service is not None:
        port = service[2] if len(service) == 3 else 443
        config = {"service": {"namespace": service[0], "name": service[1], "path": path}}
        config["service"]["port"] = port
    if ca_bundle:
        pem = ca_bundle.encode() if isinstance(ca_bundle, str) else ca_bundle
        config["caBundle"] = base64.b64encode(pem).decode()
    return config


def webhook_configuration(
    kind: Literal["validating", "mutating"],
    *,
    name: str,
    webhook_name: str,
    path: str,
    rules: Sequence[WebhookRule],
    service: tuple[str, str] | tuple[str, str, int] | None = None,
    url: str | None = None,
    ca_bundle: bytes | str | None = None,
    cert_manager_certificate: str | None = None,
    failure_policy: Literal["Fail", "Ignore"] = "Fail",
    match_policy: Literal["Exact", "Equivalent"] = "Equivalent",
    side_effects: Literal["None", "NoneOnDryRun"] = "None",
    timeout_seconds: int = 10,
    namespace_selector: Mapping[str, Any] | None = None,
    object_selector: Mapping[str, Any] | None = None,
    reinvocation_policy: Literal["Never", "IfNeeded"] | None = None,
) -> dict[str, Any]:
    """A Validating- or MutatingWebhookConfiguration calling ``path`` of a ``WebhookServer``."""
    if kind not in ("validating", "mutating"):
        raise ValueError(f"kind {kind!r}: 'validating' or 'mutating'")
    if webhook_name.count(".") < 2:
        raise ValueError(
            f"webhook name {webhook_name!r}: should be a domain with at least three segments "
            "separated by dots"
        )
    if not path.startswith("/"):
        raise ValueError(f"path {path!r} must start with '/'")
    if not 1 <= timeout_seconds <= 30:
        raise ValueError("the timeout value must be between 1 and 30 seconds")
    if not rules:
        raise ValueError("rules: at least one rule is needed, or the webhook is never called")
    if reinvocation_policy is not None and kind == "validating":
        raise ValueError("reinvocation_policy is for mutating webhooks only")
    webhook: dict[str, Any] = {
        "name": webhook_name,
        "admissionReviewVersions": ["v1"],
        "clientConfig": _client_config(path, service, url, ca_bundle),
        "rules": [rule.to_dict() for rule in rules],
        "failurePolicy": failure_policy,
        "matchPolicy": match_policy,
        "sideEffects": side_effects,
        "timeoutSeconds": timeout_seconds,
        "namespaceSelector": dict(namespace_selector or {}),
        "objectSelector": dict(object_selector or {}),
    }
    if kind == "mutating":
        webhook["reinvocationPolicy"] = reinvocation_policy or "Never"
    metadata: dict[str, Any] = {"name": name}
    if cert_manager_certificate:
        metadata["annotations"] = {"cert-manager.io/inject-ca-from": cert_manager_certificate}
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration"
        if kind == "validating"
        else "MutatingWebhookConfiguration",
        "metadata": metadata,
        "webhooks": [webhook],
    }
