"""The review APIs: ``authorization.k8s.io/v1`` SelfSubjectAccessReview, SubjectAccessReview
and SelfSubjectRulesReview, and ``authentication.k8s.io/v1`` SelfSubjectReview. Each is a
create that stores nothing and answers the request with its ``status`` filled in.
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.rbac.attributes import Attributes
from workloadbuilder.testing.rbac.authorizer import RBACAuthorizer
from workloadbuilder.testing.rbac.identity import UserInfo
from workloadbuilder.testing.rules.errors import invalid

AUTHORIZATION: Final = "authorization.k8s.io"
AUTHENTICATION: Final = "authentication.k8s.io"
REVIEW_RESOURCES: Final = (
    ResourceType(AUTHENTICATION, "v1", "SelfSubjectReview", "selfsubjectreviews", False),
    ResourceType(AUTHORIZATION, "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", False),
    ResourceType(AUTHORIZATION, "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", False),
    ResourceType(AUTHORIZATION, "v1", "SubjectAccessReview", "subjectaccessreviews", False),
)
REVIEW_GROUPS: Final = frozenset({AUTHORIZATION, AUTHENTICATION})


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _attributes(user: UserInfo, spec: dict[str, Any], kind: str) -> Attributes:
    resource = _map(spec.get("resourceAttributes"))
    non_resource = _map(spec.get("nonResourceAttributes"))
    if resource and non_resource:
        detail = "cannot be specified in combination with resourceAttributes"
        cause = invalid("spec.nonResourceAttributes", non_resource, detail).to_cause()
        raise errors.invalid(kind, AUTHORIZATION, "", [cause])
    if not resource and not non_resource:
        detail = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
        cause = invalid("spec.resourceAttributes", None, detail).to_cause()
        raise errors.invalid(kind, AUTHORIZATION, "", [cause])
    if non_resource:
        return Attributes(
            user, str(non_resource.get("verb", "")), False, path=str(non_resource.get("path", ""))
        )
    return Attributes(
        user,
        str(resource.get("verb", "")),
        True,
        api_group=str(resource.get("group", "")),
        api_version=str(resource.get("version", "")),
        namespace=str(resource.get("namespace", "")),
        resource=str(resource.get("resource", "")),
        subresource=str(resource.get("subresource", "")),
        name=str(resource.get("name", "")),
    )


def _decision(authorizer: RBACAuthorizer, attrs: Attributes) -> dict[str, Any]:
    decision = authorizer.authorize(attrs)
    status: dict[str, Any] = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    return status


def _rules_status(authorizer: RBACAuthorizer, user: UserInfo, namespace: str) -> dict[str, Any]:
    """As the RBAC authorizer's ``RulesFor``: a rule with resources is a resource rule, one
    with URLs a non-resource rule (a rule may be both); never ``incomplete``, but the roles
    it could not read are the ``evaluationError``."""
    rules, problems = authorizer.rules_for(user, namespace)
    resource: list[dict[str, Any]] = []
    non_resource: list[dict[str, Any]] = []
    for rule in rules:
        verbs = {"verbs": rule.get("verbs") or []}
        if rule.get("resources"):
            resource.append({**verbs, **_only(rule, "apiGroups", "resources", "resourceNames")})
        if rule.get("nonResourceURLs"):
            non_resource.append({**verbs, **_only(rule, "nonResourceURLs")})
    status: dict[str, Any] = {
        "resourceRules": resource,
        "nonResourceRules": non_resource,
        "incomplete": False,
    }
    if problems:
        joined = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
        status["evaluationError"] = joined
    return status


def _only(rule: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: rule[k] for k in keys if rule.get(k)}


def review(
    authorizer: RBACAuthorizer, rt: ResourceType, user: UserInfo, body: dict[str, Any]
) -> dict[str, Any]:
    """The answer to a review ``body`` sent by ``user`` (its ``spec`` and, but for
    SubjectAccessReview, the requester's own identity)."""
    spec = _map(body.get("spec"))
    metadata = {**_map(body.get("metadata"))}
    metadata.setdefault("creationTimestamp", None)
    out: dict[str, Any] = {"kind": rt.kind, "apiVersion": rt.api_version, "metadata": metadata}
    if rt.kind != "SelfSubjectReview":
        out["spec"] = spec
    if rt.kind == "SelfSubjectReview":
        out["status"] = {"userInfo": user.to_dict()}
    elif rt.kind == "SelfSubjectAccessReview":
        out["status"] = _decision(authorizer, _attributes(user, spec, rt.kind))
    elif rt.kind == "SelfSubjectRulesReview":
        if not spec.get("namespace"):
            raise errors.bad_request("no namespace on request")
        out["status"] = _rules_status(authorizer, user, str(spec["namespace"]))
    else:
        subject = _subject(spec, rt.kind)
        out["status"] = _decision(authorizer, _attributes(subject, spec, rt.kind))
    return out


def _subject(spec: dict[str, Any], kind: str) -> UserInfo:
    name = spec.get("user")
    groups = spec.get("groups")
    if not name and not groups:
        cause = invalid(
            "spec.user", str(name or ""), "at least one of user or group must be specified"
        )
        raise errors.invalid(kind, AUTHORIZATION, "", [cause.to_cause()])
    listed = tuple(str(g) for g in groups) if isinstance(groups, list) else ()
    return UserInfo(str(name or ""), listed, str(spec.get("uid", "")))
