"""On the test server's RBAC authorizer (kube-apiserver's rules), each verb's Role from
``aio.required_rules`` is enough for the verb, and taking away any one of its rules makes the
verb fail with the server's 403."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from apply_support import NS, release_objects
from scenarios import SCENARIOS, job

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.server import DEFAULT_RESOURCES, ResourceType

ACCOUNT = "operator"
USER = f"system:serviceaccount:{NS}:{ACCOUNT}"
RBAC = ("rbac.authorization.k8s.io", "v1")


async def run_as_account(verb: str, permissions: aio.Permissions) -> None:
    """Set the scenario up as the administrator, bind ``permissions`` to the account, run the
    verb as the account."""
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        async with server.api_client() as admin:
            await SCENARIOS[verb].setup(admin, server)
        role, binding = permissions.manifests(ACCOUNT)
        server.create_object(*RBAC, "roles", role)
        server.create_object(*RBAC, "rolebindings", binding)
        async with server.api_client(user=USER) as api:
            await SCENARIOS[verb].act(api, server)


@pytest.mark.parametrize("verb", sorted(SCENARIOS))
async def test_the_printed_role_is_enough(verb: str) -> None:
    await run_as_account(verb, aio.required_rules(verb, namespace=NS))


def _each_rule() -> list[Any]:
    return [
        pytest.param(verb, i, id=f"{verb}-{'/'.join(rule.resources)}")
        for verb in sorted(SCENARIOS)
        for i, rule in enumerate(aio.required_rules(verb, namespace=NS).rules)
    ]


@pytest.mark.parametrize(("verb", "index"), _each_rule())
async def test_without_any_one_rule_the_verb_is_refused(
    verb: str, index: int, caplog: pytest.LogCaptureFixture
) -> None:
    permissions = aio.required_rules(verb, namespace=NS)
    if permissions.rules[index].resources == ("events",) and verb.startswith("reconcile"):
        # Events are best effort (client-go's recorder): the reconcile goes on and says so.
        with caplog.at_level(logging.WARNING, logger="workloadbuilder.aio"):
            await run_as_account(verb, permissions.without(index))
        refused = [r for r in caplog.records if "could not record event" in r.getMessage()]
        assert refused and all("is forbidden" in r.getMessage() for r in refused)
        return
    with pytest.raises(Exception) as raised:
        await run_as_account(verb, permissions.without(index))
    chain: list[BaseException] = []
    exc: BaseException | None = raised.value
    while exc is not None:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__ or getattr(exc, "unread", None)
    assert any("is forbidden" in str(e) for e in chain), repr(raised.value)


async def test_an_event_the_server_refused_is_reported_as_not_recorded() -> None:
    without_events = aio.Permissions(
        ("reconcile_job",),
        tuple(
            r
            for r in aio.required_rules("reconcile_job", namespace=NS).rules
            if r.resources != ("events",)
        ),
        NS,
    )
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        role, binding = without_events.manifests(ACCOUNT)
        server.create_object(*RBAC, "roles", role)
        server.create_object(*RBAC, "rolebindings", binding)
        created = server.create_object("batch", "v1", "jobs", job())
        async with server.api_client(user=USER) as api:
            result = await aio.reconcile_job(api, created)
    # the Job controller's two events on a first sync (upstream-1.37.md, the Job controller)
    assert [e.reason for e in result.events] == ["WorkloadCreated", "PodGroupCreated"]
    assert not any(e.recorded for e in result.events)


async def test_preflight_names_every_missing_permission_at_once() -> None:
    apply_rules = aio.required_rules("preflight", "apply", namespace=NS)
    only_workloads = aio.Permissions(
        apply_rules.verbs,
        tuple(r for r in apply_rules.rules if r.resources in (("workloads",), ("jobs",))),
        NS,
    )
    objects = release_objects()
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        for permissions, account in ((apply_rules, "full"), (only_workloads, "partial")):
            role, binding = permissions.manifests(account, name=account)
            server.create_object(*RBAC, "roles", role)
            server.create_object(*RBAC, "rolebindings", binding)
        async with server.api_client(user=f"system:serviceaccount:{NS}:full") as api:
            await aio.preflight(api, objects, permissions=True)
        async with server.api_client(user=f"system:serviceaccount:{NS}:partial") as api:
            with pytest.raises(aio.MissingPermissionsError) as raised:
                await aio.preflight(api, objects, permissions=True)
    assert [r.to_dict() for r in raised.value.rules] == [
        {"apiGroups": ["scheduling.k8s.io"], "resources": [plural], "verbs": ["create", "patch"]}
        for plural in ("compositepodgroups", "podgroups")
    ]  # preflight's dry-run create of a PodGroup and apply's create and patch
    assert 'in the namespace "ml-training"' in str(raised.value)


CACHE_KINDS = ("Workload", "PodGroup")


async def run_narrow_cache(permissions: aio.Permissions) -> None:
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        role, binding = permissions.manifests(ACCOUNT)
        server.create_object(*RBAC, "roles", role)
        server.create_object(*RBAC, "rolebindings", binding)
        async with (
            server.api_client(user=USER) as api,
            aio.Cache(api, namespace=NS, kinds=CACHE_KINDS) as cache,
        ):
            await cache.synced(timeout=5)


async def test_a_cache_of_some_kinds_needs_only_theirs() -> None:
    narrow = aio.required_rules("cache", namespace=NS, cache_kinds=CACHE_KINDS)
    assert [r.resources for r in narrow.rules] == [("podgroups",), ("workloads",)]
    await run_narrow_cache(narrow)
    for index in range(len(narrow.rules)):
        with pytest.raises(aio.CacheSyncError, match="403"):
            await run_narrow_cache(narrow.without(index))


RUNS = ("training.example.com", "v1", "trainingruns")
TRAINING_RUN = aio.CustomResource(*RUNS, "TrainingRun")


async def run_custom_cache(permissions: aio.Permissions) -> None:
    runs = ResourceType(*RUNS[:2], "TrainingRun", RUNS[2])
    async with FakeAPIServer(
        authorization="RBAC", auto_create_namespaces=True, resources=[*DEFAULT_RESOURCES, runs]
    ) as server:
        role, binding = permissions.manifests(ACCOUNT)
        server.create_object(*RBAC, "roles", role)
        server.create_object(*RBAC, "rolebindings", binding)
        async with (
            server.api_client(user=USER) as api,
            aio.Cache(api, namespace=NS, kinds=(TRAINING_RUN, "Pod")) as cache,
        ):
            await cache.synced(timeout=5)


async def test_a_cache_of_a_custom_resource_needs_its_group_and_plural() -> None:
    rules = aio.required_rules("cache", namespace=NS, cache_kinds=[TRAINING_RUN, "Pod"])
    assert [(r.api_groups, r.resources, r.verbs) for r in rules.rules] == [
        (("",), ("pods",), ("list", "watch")),
        (("training.example.com",), ("trainingruns",), ("list", "watch")),
    ]
    by_name = aio.required_rules("cache", namespace=NS, cache_kinds=[TRAINING_RUN.name, "Pod"])
    assert by_name == rules
    await run_custom_cache(rules)
    with pytest.raises(aio.CacheSyncError, match="403"):
        await run_custom_cache(rules.without(1))


async def test_a_refused_watch_is_a_forbidden_error_naming_the_rule() -> None:
    listing_only = aio.Permissions(
        ("wait_scheduled",), (aio.Rule(("scheduling.k8s.io",), ("podgroups",), ("list",)),), NS
    )
    async with FakeAPIServer(authorization="RBAC", auto_create_namespaces=True) as server:
        async with server.api_client() as admin:
            await SCENARIOS["wait_scheduled"].setup(admin, server)
        role, binding = listing_only.manifests(ACCOUNT)
        server.create_object(*RBAC, "roles", role)
        server.create_object(*RBAC, "rolebindings", binding)
        async with server.api_client(user=USER) as api:
            with pytest.raises(aio.ForbiddenError) as raised:
                await aio.wait_scheduled(api, release_objects()[2], timeout=5)
    assert raised.value.rule is not None
    assert raised.value.rule.to_dict() == {
        "apiGroups": ["scheduling.k8s.io"],
        "resources": ["podgroups"],
        "verbs": ["watch"],
    }
    assert str(raised.value).startswith("watching PodGroup ml-training/")
