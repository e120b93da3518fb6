# ruff: noqa: E501  (upstream's test tables, one case a line)
"""The RBAC room's parts against upstream's own test tables: request attributes
(``k8s.io/apiserver`` ``pkg/endpoints/request/requestinfo_test.go``: ``TestGetAPIRequestInfo``,
``TestGetNonAPIRequestInfo``, ``TestSelectorParsing``), rule matching (kubernetes
``plugin/pkg/auth/authorizer/rbac/rbac_test.go``: ``TestRuleMatches``, ``TestAuthorizer``) and
covering (``k8s.io/component-helpers`` ``policy_comparator_test.go``: ``TestCovers*``,
``TestNonResourceURLCovers``); the compact form of ``CompactString``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from workloadbuilder.testing.rbac.attributes import Attributes, request_attributes
from workloadbuilder.testing.rbac.authorizer import RBACAuthorizer
from workloadbuilder.testing.rbac.identity import UserInfo, token_user
from workloadbuilder.testing.rbac.policy import compact_string, rule_allows, uncovered
from workloadbuilder.testing.store.store import Store, Stored

ANYONE = UserInfo("u")

# method, url, verb, group, version, namespace, resource, subresource, name
REQUEST_INFO = [
    ("GET", "/api/v1/namespaces", "list", "", "v1", "", "namespaces", "", ""),
    ("GET", "/api/v1/namespaces/other", "get", "", "v1", "other", "namespaces", "", "other"),
    ("GET", "/api/v1/namespaces/other/pods", "list", "", "v1", "other", "pods", "", ""),
    ("GET", "/api/v1/namespaces/other/pods/foo", "get", "", "v1", "other", "pods", "", "foo"),
    ("HEAD", "/api/v1/namespaces/other/pods/foo", "get", "", "v1", "other", "pods", "", "foo"),
    ("GET", "/api/v1/pods", "list", "", "v1", "", "pods", "", ""),
    ("HEAD", "/api/v1/pods", "list", "", "v1", "", "pods", "", ""),
    ("GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy", "", "v1", "other", "pods", "", "foo"),
    ("GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource", "proxy", "", "v1", "other", "pods", "", "foo"),
    ("GET", "/api/v1/watch/pods", "watch", "", "v1", "", "pods", "", ""),
    ("GET", "/api/v1/pods?watch=true", "watch", "", "v1", "", "pods", "", ""),
    ("GET", "/api/v1/pods?watch=false", "list", "", "v1", "", "pods", "", ""),
    ("GET", "/api/v1/watch/namespaces/other/pods", "watch", "", "v1", "other", "pods", "", ""),
    ("GET", "/api/v1/namespaces/other/pods?watch=1", "watch", "", "v1", "other", "pods", "", ""),
    ("GET", "/api/v1/namespaces/other/pods?watch=0", "list", "", "v1", "other", "pods", "", ""),
    ("GET", "/api/v1/namespaces/other/pods/foo/status", "get", "", "v1", "other", "pods", "status", "foo"),
    ("GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get", "", "v1", "other", "pods", "proxy", "foo"),
    ("PUT", "/api/v1/namespaces/other/finalize", "update", "", "v1", "other", "namespaces", "finalize", "other"),
    ("PUT", "/api/v1/namespaces/other/status", "update", "", "v1", "other", "namespaces", "status", "other"),
    ("PATCH", "/api/v1/namespaces/other/pods/foo", "patch", "", "v1", "other", "pods", "", "foo"),
    ("DELETE", "/api/v1/namespaces/other/pods/foo", "delete", "", "v1", "other", "pods", "", "foo"),
    ("POST", "/api/v1/namespaces/other/pods", "create", "", "v1", "other", "pods", "", ""),
    ("DELETE", "/api/v1/nodes", "deletecollection", "", "v1", "", "nodes", "", ""),
    ("DELETE", "/api/v1/namespaces", "deletecollection", "", "v1", "", "namespaces", "", ""),
    ("DELETE", "/api/v1/namespaces/other/pods", "deletecollection", "", "v1", "other", "pods", "", ""),
    ("DELETE", "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "extensions", "v1", "other", "pods", "", ""),
    ("POST", "/apis/extensions/v1beta3/namespaces/other/pods", "create", "extensions", "v1beta3", "other", "pods", "", ""),
    # TestSelectorParsing
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1", "list", "group", "version", "", "resource", "", "name1"),
    ("GET", "/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1", "watch", "group", "version", "", "resource", "", "name1"),
    ("GET", "/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux", "list", "group", "version", "", "resource", "", ""),
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo", "list", "group", "version", "", "resource", "", ""),
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true", "watch", "group", "version", "", "resource", "", ""),
    ("DELETE", "/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux", "deletecollection", "group", "version", "", "resource", "", ""),
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar", "list", "group", "version", "", "resource", "", "foo"),
    ("GET", "/apis/group/version/resource/name?fieldSelector=foo=bar&labelSelector=foo=bar", "get", "group", "version", "", "resource", "", "name"),
    ("GET", "/apis/group/version/watch/resource?fieldSelector=metadata.name=foo", "watch", "group", "version", "", "resource", "", ""),
    ("GET", "/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo", "watch", "group", "version", "", "resource", "", "name"),
]  # fmt: skip


def _attrs(method: str, url: str) -> Attributes:
    from multidict import MultiDict
    from yarl import URL

    parsed = URL(url)
    return request_attributes(ANYONE, method, parsed.path, MultiDict(parsed.query))


@pytest.mark.parametrize("case", REQUEST_INFO, ids=lambda c: f"{c[0]} {c[1]}")
def test_request_attributes_as_the_request_info_factory(case: tuple[str, ...]) -> None:
    method, url, *expected = case
    got = _attrs(method, url)
    assert got.resource_request
    fields = [got.verb, got.api_group, got.api_version, got.namespace, got.resource]
    assert [*fields, got.subresource, got.name] == expected


@pytest.mark.parametrize(
    ("url", "resource_request"),
    [
        ("/api/version/resource", True),
        ("/apis/group/version/resource/name/subresource", True),
        ("/api/version/resource/name/subresource", True),
        ("/apis/batch/v1/job", True),
        ("/apis/batch/v1/job/foo", True),
        ("/apis/batch/v1/job/foo/scale", True),
        ("/not-api/version/resource", False),
        ("/apis/extensions/v1beta1", False),
        ("/apis/extensions/v1beta1/", False),
        ("/api/version", False),
        ("/api", False),
        ("/", False),
        ("", False),
        ("/apis/version/resource", False),
    ],
)
def test_non_resource_requests(url: str, resource_request: bool) -> None:
    got = request_attributes(ANYONE, "GET", url, {})
    assert got.resource_request is resource_request
    if not resource_request:
        assert (got.verb, got.path) == ("get", url)


def _resource(verb: str, group: str, resource: str, sub: str = "") -> Attributes:
    return Attributes(ANYONE, verb, True, api_group=group, resource=resource, subresource=sub)


def _url(verb: str, path: str) -> Attributes:
    return Attributes(ANYONE, verb, False, path=path)


def _rule(verbs: str, groups: str = "", resources: str = "", urls: str = "") -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs.split(",")}
    if groups:
        rule["apiGroups"] = groups.split(",")
    if resources:
        rule["resources"] = resources.split(",")
    if urls:
        rule["nonResourceURLs"] = urls.split(",")
    return rule


def _grid(rule: dict[str, Any], allowed: set[tuple[str, str, str]], sub: str = "") -> list[Any]:
    """Every verb1/2 x group1/2 x resource1/2 request, expected allowed when in ``allowed``."""
    return [
        (rule, _resource(v, g, r, sub), (v, g, r) in allowed)
        for v, g, r in itertools.product(("verb1", "verb2"), ("group1", "group2"), ("resource1", "resource2"))
    ]  # fmt: skip


RULE_MATCHES = [
    *_grid(_rule("*", "group1", "resource1"), {("verb1", "group1", "resource1"), ("verb2", "group1", "resource1")}),
    *_grid(_rule("verb1", "*", "resource1"), {("verb1", "group1", "resource1"), ("verb1", "group2", "resource1")}),
    *_grid(_rule("verb1", "group1", "*"), {("verb1", "group1", "resource1"), ("verb1", "group1", "resource2")}),
    *_grid(_rule("verb1,verb2", "group1,group2", "resource1,resource2"), set(itertools.product(("verb1", "verb2"), ("group1", "group2"), ("resource1", "resource2")))),
    (_rule("*", "*", "resource1/subresource1"), _resource("verb1", "group1", "resource1", "subresource1"), True),
    (_rule("*", "*", "resource1/subresource1"), _resource("verb1", "group2", "resource1", "subresource2"), False),
    (_rule("*", "*", "resource1/subresource1"), _resource("verb1", "group1", "resource2", "subresource1"), False),
    (_rule("*", "*", "resource1/subresource1"), _resource("verb2", "group1", "resource1", "subresource1"), True),
    *[(_rule("verb1", urls="*"), _url(v, p), v == "verb1") for v in ("verb1", "verb2") for p in ("/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one")],
    *[(_rule("verb1", urls="/foo/*"), _url("verb1", p), ok) for p, ok in [("/foo", False), ("/foo/bar", True), ("/foo/baz", True), ("/foo/bar/one", True), ("/foo/baz/one", True), ("/notfoo", False), ("/notfoo/bar", False), ("/notfoo/baz", False), ("/notfoo/bar/one", False), ("/notfoo/baz/one", False)]],
    *[(_rule("*", urls="/foo,/foo/bar/one"), _url(v, p), ok) for v in ("verb1", "verb2") for p, ok in [("/foo", True), ("/foo/bar", False), ("/foo/baz", False), ("/foo/bar/one", True), ("/foo/baz/one", False)]],
]  # fmt: skip


@pytest.mark.parametrize(("rule", "attrs", "allowed"), RULE_MATCHES)
def test_rule_matches(rule: dict[str, Any], attrs: Attributes, allowed: bool) -> None:
    assert rule_allows(attrs, rule) is allowed


def _store(*objects: tuple[str, str, dict[str, Any]]) -> Store:
    store = Store(100)
    for i, (plural, namespace, obj) in enumerate(objects):
        obj["metadata"] = {
            "name": f"o{i}",
            "namespace": namespace,
            "resourceVersion": str(i + 1),
            **obj.get("metadata", {}),
        }
        store.put(
            ("rbac.authorization.k8s.io", plural),
            (namespace, obj["metadata"]["name"]),
            Stored(obj, {}),
        )
    return store


def _subjects(*subjects: str) -> list[dict[str, str]]:
    return [dict(zip(("kind", "name"), s.split(":", 1), strict=True)) for s in subjects]


def test_the_authorizer_cases_of_upstream() -> None:
    store = _store(
        ("clusterroles", "", {"metadata": {"name": "admin"}, "rules": [_rule("*", "*", "*", "*")]}),
        ("rolebindings", "ns1", {"roleRef": {"kind": "ClusterRole", "name": "admin"}, "subjects": _subjects("User:admin", "Group:admins")}),
        ("clusterroles", "", {"metadata": {"name": "non-resource-url-getter"}, "rules": [_rule("get", urls="/apis")]}),
        ("clusterroles", "", {"metadata": {"name": "non-resource-url"}, "rules": [_rule("*", urls="/apis")]}),
        ("clusterroles", "", {"metadata": {"name": "non-resource-url-prefix"}, "rules": [_rule("get", urls="/apis/*")]}),
        ("clusterrolebindings", "", {"roleRef": {"kind": "ClusterRole", "name": "non-resource-url-getter"}, "subjects": _subjects("User:foo", "Group:bar")}),
        ("clusterrolebindings", "", {"roleRef": {"kind": "ClusterRole", "name": "non-resource-url"}, "subjects": _subjects("User:admin", "Group:admin")}),
        ("clusterrolebindings", "", {"roleRef": {"kind": "ClusterRole", "name": "non-resource-url-prefix"}, "subjects": _subjects("User:prefixed", "Group:prefixed")}),
    )  # fmt: skip
    authorizer = RBACAuthorizer(store)

    def resource(user: str, groups: str, verb: str, res: str, ns: str) -> bool:
        who = UserInfo(user, tuple(g for g in groups.split(",") if g))
        return authorizer.authorize(Attributes(who, verb, True, namespace=ns, resource=res)).allowed

    def path(user: UserInfo, verb: str, url: str) -> bool:
        return authorizer.authorize(Attributes(user, verb, False, path=url)).allowed

    assert resource("admin", "", "get", "Pods", "ns1")
    assert resource("admin", "group1", "watch", "Foobar", "ns1")
    assert resource("joe", "admins", "watch", "Foobar", "ns1")
    assert resource("joe", "group1,admins", "watch", "Foobar", "ns1")
    assert not resource("admin", "", "GET", "Pods", "ns2")
    assert not resource("admin", "admins", "GET", "Nodes", "")
    foo, bar, admin = UserInfo("foo"), UserInfo("", ("bar",)), UserInfo("admin")
    prefixed = UserInfo("prefixed")
    assert path(foo, "get", "/apis") and path(bar, "get", "/apis")
    assert path(admin, "watch", "/apis") and path(prefixed, "get", "/apis/v1/foobar")
    assert not path(foo, "watch", "/apis") and not path(bar, "get", "/api/v1")
    assert not path(admin, "get", "/api/v1") and not path(prefixed, "get", "/api/v1")


def test_service_account_subjects_default_to_the_bindings_namespace() -> None:
    account = token_user("system:serviceaccount:ns1:runner")
    store = _store(
        ("clusterroles", "", {"metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
        ("rolebindings", "ns1", {"roleRef": {"kind": "ClusterRole", "name": "r"}, "subjects": [{"kind": "ServiceAccount", "name": "runner"}]}),
        ("clusterrolebindings", "", {"roleRef": {"kind": "ClusterRole", "name": "r"}, "subjects": [{"kind": "ServiceAccount", "name": "runner"}]}),
    )  # fmt: skip
    get = Attributes(account, "get", True, resource="pods", namespace="ns1")
    assert RBACAuthorizer(store).authorize(get).allowed
    # a cluster binding's service account without a namespace matches no one
    elsewhere = Attributes(account, "get", True, resource="pods", namespace="ns2")
    assert not RBACAuthorizer(store).authorize(elsewhere).allowed


def _r(groups: str, verbs: str, resources: str, names: str = "") -> dict[str, Any]:
    rule: dict[str, Any] = {
        "apiGroups": groups.split(","),
        "verbs": verbs.split(","),
        "resources": resources.split(","),
    }
    if names:
        rule["resourceNames"] = names.split(",")
    return rule


COVERS = [
    ([_r("v1", "get", "builds")], [_r("v1", "get", "builds")], []),
    ([_r("v1", "get", "*/scale")], [_r("v1", "get", "foo/scale")], []),
    ([_r("v1", "delete", "deployments"), _r("v1", "delete", "builds"), _r("v1", "update", "builds,deployments")], [_r("v1", "delete,update", "builds,deployments")], []),
    ([_r("v1", "delete,update", "builds,deployments"), _r("v1", "delete", "pods")], [_r("v1", "delete,update", "builds,deployments,pods")], [_r("v1", "update", "pods")]),
    ([_r("*", "get", "roles")], [_r("group1,group2", "get", "roles")], []),
    ([_r("dummy-group", "get", "roles")], [_r("*", "get", "roles")], [_r("*", "get", "roles")]),
    ([_r("v1", "*", "roles")], [_r("v1", "watch,list", "roles")], []),
    ([_r("v1", "get,list,watch,create,update,delete,exec", "roles")], [_r("v1", "*", "roles")], [_r("v1", "*", "roles")]),
    ([_r("v1", "get", "*")], [_r("v1", "get", "resourcegroup:deployments")], []),
    ([_r("v1", "get", "roles,resourcegroup:deployments")], [_r("v1", "get", "*")], [_r("v1", "get", "*")]),
    ([_r("v1", "get", "pods")], [_r("v1", "get", "pods", "foo,bar")], []),
    ([_r("v1", "get", "pods", "foo,bar")], [_r("v1", "get", "pods")], [_r("v1", "get", "pods")]),
    ([{"nonResourceURLs": ["*"], "verbs": ["*"]}], [{"nonResourceURLs": ["/apis", "/apis/v1", "/"], "verbs": ["*"]}], []),
    ([{"nonResourceURLs": ["/apis/*"], "verbs": ["*"]}], [{"nonResourceURLs": ["/apis", "/apis/v1"], "verbs": ["get"]}], [{"nonResourceURLs": ["/apis"], "verbs": ["get"]}]),
    ([{"nonResourceURLs": ["/apis/*"], "verbs": ["*"]}], [{"nonResourceURLs": ["/apis/v1/foo", "/apis/v1"], "verbs": ["get"]}], []),
    ([_r("v1", "get", "builds")], [{**_r("v1", "get", "builds"), "nonResourceURLs": ["/apis"]}], [{"nonResourceURLs": ["/apis"], "verbs": ["get"]}]),
]  # fmt: skip


@pytest.mark.parametrize(("owner", "servant", "missing"), COVERS)
def test_covers(owner: list[Any], servant: list[Any], missing: list[Any]) -> None:
    assert uncovered(owner, servant) == missing


@pytest.mark.parametrize(
    ("owner", "requested", "covered"),
    [
        ("*", "", True), ("*", "/", True), ("*", "/api", True), ("/*", "", False),
        ("/*", "/", True), ("/*", "/foo", True), ("/api", "/api", True), ("/apis", "/api", False),
        ("/api/v1", "/api", False), ("/api/v1", "/api/v1", True), ("/api/*", "/api/v1", True),
        ("/api/*", "/api", False), ("/api/*/*", "/api/v1", False), ("/*/v1/*", "/api/v1", False),
    ],
)  # fmt: skip
def test_non_resource_url_covers(owner: str, requested: str, covered: bool) -> None:
    servant = [{"nonResourceURLs": [requested], "verbs": ["get"]}]
    assert (uncovered([{"nonResourceURLs": [owner], "verbs": ["get"]}], servant) == []) is covered


def test_compact_string() -> None:
    rule = {
        "apiGroups": [""],
        "resources": ["pods"],
        "resourceNames": ['a"b'],
        "verbs": ["get", "list"],
    }
    assert compact_string(rule) == (
        '{APIGroups:[""], Resources:["pods"], ResourceNames:["a\\"b"], Verbs:["get" "list"]}'
    )
    url = {"nonResourceURLs": ["/x"], "verbs": ["*"]}
    assert compact_string(url) == '{NonResourceURLs:["/x"], Verbs:["*"]}'
