"""``aio.required_rules`` lists exactly what each verb sends: every rule is used by the verb's
scenario, and every request of it is allowed by a rule (derived as the authorizer would)."""

from __future__ import annotations

import pytest
from rbac_derive import derived_rules
from scenarios import SCENARIOS

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

NS = "ml-training"


@pytest.mark.parametrize("verb", sorted(SCENARIOS))
async def test_a_verbs_rules_are_what_it_sends(verb: str) -> None:
    async with FakeAPIServer(auto_create_namespaces=True) as server, server.api_client() as api:
        await SCENARIOS[verb].setup(api, server)
        before = len(server.requests)
        await SCENARIOS[verb].act(api, server)
        sent = server.requests[before:]
    expected = {(r["apiGroups"][0], r["resources"][0]): r["verbs"] for r in derived_rules(sent)}
    rules = aio.required_rules(verb, namespace=NS).rules
    assert {(r.api_groups[0], r.resources[0]): list(r.verbs) for r in rules} == expected


def test_every_verb_has_a_scenario() -> None:
    assert set(SCENARIOS) == set(aio.VERBS)


def test_an_unknown_verb_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown verb 'aply': known are .*apply"):
        aio.required_rules("aply", namespace=NS)


def test_the_documented_role_is_the_usual_verbs_rules() -> None:
    from test_apply_rbac import documented_role  # the Role docs/apply.md shows, checked there

    usual = ("preflight", "apply", "resize", "delete", "reconcile", "reconcile-job")
    rules = aio.required_rules(*usual, namespace=NS).rules
    assert [r.to_dict() for r in rules] == documented_role()["rules"]


@pytest.mark.parametrize("command", ["status", "inspect", "wait"])
def test_the_sdk_knows_its_own_verbs_only_not_the_command_lines_commands(command: str) -> None:
    """Commands are the CLI's (``cli/_permissions.py``); `wait` is no command at all."""
    with pytest.raises(ValueError, match=rf"unknown verb '{command}': known are apply, audit"):
        aio.required_rules(command, namespace="ml")
