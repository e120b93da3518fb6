"""Defaults and validation of ``admissionregistration.k8s.io/v1`` Validating- and
MutatingWebhookConfigurations (kubernetes ``pkg/apis/admissionregistration/v1/defaults.go``,
``pkg/apis/admissionregistration/validation/validation.go`` and ``k8s.io/apiserver``
``pkg/util/webhook/validation.go``), with upstream's messages.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit

from .common import Errs, Obj, items, mapping
from .errors import child, duplicate, index, invalid, not_supported, required
from .formats import dns_subdomain
from .rbac import validate_label_selector

ADMISSION_GROUP: Final = "admissionregistration.k8s.io"
WEBHOOK_KINDS: Final = frozenset({"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"})
REVIEW_VERSIONS: Final = ("v1", "v1beta1")
"""``AcceptedAdmissionReviewVersions``."""
_FAILURE_POLICIES: Final = ["Fail", "Ignore"]
_MATCH_POLICIES: Final = ["Equivalent", "Exact"]
_NO_SIDE_EFFECTS: Final = ["None", "NoneOnDryRun"]
_OPERATIONS: Final = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
_REINVOCATION: Final = ["IfNeeded", "Never"]
_SCOPES: Final = ["*", "Cluster", "Namespaced"]
_URL_FORM: Final = "; desired format: https://host[/path]"


def default_webhooks(kind: str, obj: Obj) -> None:
    """``SetDefaults_ValidatingWebhook`` / ``SetDefaults_MutatingWebhook``, ``SetDefaults_Rule``
    and ``SetDefaults_ServiceReference``."""
    for hook in items(obj.get("webhooks")):
        if not isinstance(hook, dict):
            continue
        hook.setdefault("failurePolicy", "Fail")
        hook.setdefault("matchPolicy", "Equivalent")
        hook.setdefault("namespaceSelector", {})
        hook.setdefault("objectSelector", {})
        hook.setdefault("timeoutSeconds", 10)
        if kind == "MutatingWebhookConfiguration":
            hook.setdefault("reinvocationPolicy", "Never")
        for rule in items(hook.get("rules")):
            if isinstance(rule, dict):
                rule.setdefault("scope", "*")
        service = mapping(mapping(hook.get("clientConfig")).get("service"))
        if service:
            service.setdefault("port", 443)


def _strings(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _fully_qualified(path: str, name: Any) -> Errs:
    if not isinstance(name, str) or not name:
        return [required(path)]
    problems = dns_subdomain(name)
    if problems:
        return [invalid(path, name, ",".join(problems))]
    if len(name.split(".")) < 3:
        return [
            invalid(path, name, "should be a domain with at least three segments separated by dots")
        ]
    return []


def _wildcard_list(path: str, values: list[Any], what: str) -> Errs:
    errs: Errs = []
    if not values:
        errs.append(required(path))
    if len(values) > 1 and "*" in values:
        errs.append(invalid(path, values, f"if '*' is present, must not specify other {what}"))
    return errs


def _resources(path: str, resources: list[Any]) -> Errs:
    errs: Errs = [] if resources else [required(path)]
    with_wild_sub: set[str] = set()
    with_wild_res: set[str] = set()
    double = single = plain = False
    for i, entry in enumerate(resources):
        if not entry:
            errs.append(required(index(path, i)))
            continue
        text = str(entry)
        double = double or text == "*/*"
        single = single or text == "*"
        if "/" not in text:
            plain = text != "*"
            continue
        res, sub = text.split("/", 1)
        if res in with_wild_sub:
            errs.append(
                invalid(index(path, i), text, f"if '{res}/*' is present, must not specify {text}")
            )
        if sub in with_wild_res:
            errs.append(
                invalid(index(path, i), text, f"if '*/{sub}' is present, must not specify {text}")
            )
        if sub == "*":
            with_wild_sub.add(res)
        if res == "*":
            with_wild_res.add(sub)
    if len(resources) > 1 and double:
        errs.append(
            invalid(path, resources, "if '*/*' is present, must not specify other resources")
        )
    if single and plain:
        errs.append(
            invalid(
                path,
                resources,
                "if '*' is present, must not specify other resources without subresources",
            )
        )
    return errs


def _rule(rule: Obj, path: str) -> Errs:
    operations = _strings(rule.get("operations"))
    errs = _wildcard_list(child(path, "operations"), operations, "operations")
    for i, op in enumerate(operations):
        if op not in _OPERATIONS:
            errs.append(not_supported(index(child(path, "operations"), i), op, _OPERATIONS))
    errs += _wildcard_list(child(path, "apiGroups"), _strings(rule.get("apiGroups")), "API groups")
    versions = _strings(rule.get("apiVersions"))
    errs += _wildcard_list(child(path, "apiVersions"), versions, "API versions")
    errs += [
        required(index(child(path, "apiVersions"), i)) for i, v in enumerate(versions) if v == ""
    ]
    errs += _resources(child(path, "resources"), _strings(rule.get("resources")))
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        errs.append(not_supported(child(path, "scope"), scope, _SCOPES))
    return errs


def _url(path: str, url: str) -> Errs:
    try:
        parts = urlsplit(url)
        host = parts.netloc.rsplit("@", 1)[-1]
    except ValueError as exc:
        return [required(path, f"url must be a valid URL: {exc}{_URL_FORM}")]
    errs: Errs = []
    if parts.scheme != "https":
        errs.append(
            invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + _URL_FORM)
        )
    if not host:
        errs.append(invalid(path, host, "host must be specified" + _URL_FORM))
    if "@" in parts.netloc:
        errs.append(
            invalid(
                path, parts.netloc.rsplit("@", 1)[0], "user information is not permitted in the URL"
            )
        )
    if parts.fragment:
        errs.append(invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errs.append(invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errs


def _service(path: str, service: Obj) -> Errs:
    errs: Errs = []
    if not service.get("name"):
        errs.append(required(child(path, "name")))
    if not service.get("namespace"):
        errs.append(required(child(path, "namespace")))
    port = service.get("port", 443)
    if not isinstance(port, int) or not 1 <= port <= 65535:
        errs.append(
            invalid(
                child(path, "port"),
                port,
                "port is not valid: must be between 1 and 65535, inclusive",
            )
        )
    url_path = service.get("path")
    if isinstance(url_path, str) and url_path not in ("", "/") and not url_path.startswith("/"):
        errs.append(invalid(child(path, "path"), url_path, "must start with a '/'"))
    return errs


def _client_config(path: str, config: Obj) -> Errs:
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [required(path, "exactly one of url or service is required")]
    if url is not None:
        return _url(child(path, "url"), str(url))
    return _service(child(path, "service"), mapping(service))


def _webhook(kind: str, hook: Obj, path: str, *, no_side_effects: bool) -> Errs:
    errs = _fully_qualified(child(path, "name"), hook.get("name"))
    for i, rule in enumerate(items(hook.get("rules"))):
        errs += _rule(mapping(rule), index(child(path, "rules"), i))
    for field, allowed in (("failurePolicy", _FAILURE_POLICIES), ("matchPolicy", _MATCH_POLICIES)):
        value = hook.get(field)
        if value is not None and value not in allowed:
            errs.append(not_supported(child(path, field), value, allowed))
    side_effects = hook.get("sideEffects")
    allowed_effects = (
        _NO_SIDE_EFFECTS if no_side_effects else ["None", "NoneOnDryRun", "Some", "Unknown"]
    )
    if side_effects is None:
        errs.append(
            required(
                child(path, "sideEffects"), "must specify one of " + ", ".join(allowed_effects)
            )
        )
    elif side_effects not in allowed_effects:
        errs.append(not_supported(child(path, "sideEffects"), side_effects, allowed_effects))
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        errs.append(
            invalid(
                child(path, "timeoutSeconds"),
                timeout,
                "the timeout value must be between 1 and 30 seconds",
            )
        )
    for selector in ("namespaceSelector", "objectSelector"):
        if isinstance(hook.get(selector), dict):
            errs += validate_label_selector(hook[selector], child(path, selector))
    reinvocation = hook.get("reinvocationPolicy")
    mutating = kind == "MutatingWebhookConfiguration"
    if mutating and reinvocation is not None and reinvocation not in _REINVOCATION:
        errs.append(not_supported(child(path, "reinvocationPolicy"), reinvocation, _REINVOCATION))
    return errs + _client_config(child(path, "clientConfig"), mapping(hook.get("clientConfig")))


def _review_versions(path: str, versions: list[Any], *, require_known: bool) -> Errs:
    if not versions:
        return [required(path, "must specify one of " + ", ".join(REVIEW_VERSIONS))]
    errs: Errs = []
    seen: set[Any] = set()
    for i, version in enumerate(versions):
        if version in seen:
            errs.append(invalid(index(path, i), version, "duplicate version"))
        seen.add(version)
    if require_known and not any(v in REVIEW_VERSIONS for v in versions):
        errs.append(
            invalid(path, versions, "must include at least one of " + ", ".join(REVIEW_VERSIONS))
        )
    return errs


def _all_without_side_effects(hooks: list[Any]) -> bool:
    return all(mapping(h).get("sideEffects") in _NO_SIDE_EFFECTS for h in hooks)


def validate_webhooks(kind: str, obj: Obj, old: Obj | None) -> Errs:
    """The webhooks of a configuration (its metadata is checked as every object's). On an
    update the rules an old object already broke are relaxed, as upstream's ``...Update``."""
    old_hooks = items(old.get("webhooks")) if old is not None else None
    no_side_effects = old_hooks is None or _all_without_side_effects(old_hooks)
    require_known = old_hooks is None or all(
        not _strings(mapping(h).get("admissionReviewVersions"))
        or any(v in REVIEW_VERSIONS for v in _strings(mapping(h).get("admissionReviewVersions")))
        for h in old_hooks
    )
    old_names = [mapping(h).get("name") for h in old_hooks or []]
    unique = old_hooks is None or len(old_names) == len(set(map(str, old_names)))
    errs: Errs = []
    names: set[str] = set()
    for i, hook in enumerate(items(obj.get("webhooks"))):
        path = index("webhooks", i)
        hook = mapping(hook)
        errs += _webhook(kind, hook, path, no_side_effects=no_side_effects)
        errs += _review_versions(
            child(path, "admissionReviewVersions"),
            _strings(hook.get("admissionReviewVersions")),
            require_known=require_known,
        )
        name = hook.get("name")
        if unique and isinstance(name, str) and name:
            if name in names:
                errs.append(duplicate(child(path, "name"), name))
            names.add(name)
    return errs
