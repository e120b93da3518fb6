"""The minimal RBAC Role of docs/apply.md is what the helpers need: derived from every request
they make against the fake server, mapped to verbs as the API server's authorizer does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from apply_support import gang_pod_groups, release_builder, release_objects
from rbac_derive import derived_rules
from test_apply_reconcile_job import job

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

JOB = job()
DOC = Path(__file__).resolve().parents[3] / "docs" / "apply.md"


def documented_role() -> dict[str, Any]:
    text = DOC.read_text()
    match = re.search(r"<!-- rbac -->\s*```yaml\n(.*?)```", text, re.S)
    assert match, "docs/apply.md must carry the Role in a ```yaml block after <!-- rbac -->"
    role: dict[str, Any] = yaml.safe_load(match.group(1))
    return role


async def test_the_documented_role_is_what_the_helpers_use(fake_apiserver: FakeAPIServer) -> None:
    async with fake_apiserver.api_client() as api:
        await aio.preflight(api, [JOB])
        objects = release_objects()
        await aio.apply(api, objects, field_manager="ctl")
        await aio.resize(api, objects[2], 2)
        await aio.delete(api, objects[0])
        await aio.reconcile(api, release_builder(), field_manager="ctl")
        await aio.reconcile(api, release_builder(workers=3), field_manager="ctl")
        await aio.delete(api, gang_pod_groups(1))
        await aio.reconcile_job(api, fake_apiserver.create_object("batch", "v1", "jobs", JOB))
    role = documented_role()
    assert role["kind"] == "Role" and role["apiVersion"] == "rbac.authorization.k8s.io/v1"
    assert role["rules"] == derived_rules(fake_apiserver.requests)
