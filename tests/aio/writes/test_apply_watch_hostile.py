"""``wait_scheduled``'s watch against a server that streams garbage, events about other
objects, oversize events, or ends every watch at once.

Nothing escapes as a raw exception: a line that cannot be followed makes the client read the
state again (a list), an event about another object is skipped (the field selector is not
trusted, as client-go's informers do not trust a server's filtering either), each with a log
line; and re-watches are paced.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from apply_support import NS
from hostile_servers import Hostile, kubeconfig, serve

from workloadbuilder import aio

NAME = "pg-0000"


def group(name: str = NAME, *, scheduled: bool = False, rv: str = "10") -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": NS, "resourceVersion": rv},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
    }
    if scheduled:
        doc["status"] = {
            "conditions": [
                {
                    "type": "PodGroupInitiallyScheduled",
                    "status": "True",
                    "reason": "Scheduled",
                    "message": "",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
            ]
        }
    return doc


def event(kind: str, obj: Any) -> bytes:
    return json.dumps({"type": kind, "object": obj}).encode() + b"\n"


class Script:
    """List answers and watch streams, one per request in order; the last one repeats."""

    def __init__(self, lists: list[dict[str, Any]], watches: list[list[bytes]]) -> None:
        self.lists, self.watches = lists, watches
        self.listed = self.watched = 0

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        if request.query.get("watch") != "true":
            self.listed += 1
            item = self.lists[min(self.listed, len(self.lists)) - 1]
            meta = {"resourceVersion": item["metadata"]["resourceVersion"]}
            return web.json_response({"kind": "PodGroupList", "metadata": meta, "items": [item]})
        self.watched += 1
        lines = self.watches[min(self.watched, len(self.watches)) - 1]
        response = web.StreamResponse()
        response.content_type = "application/json"
        await response.prepare(request)
        for line in lines:
            await response.write(line)
        await response.write_eof()
        return response


async def wait(tmp_path: Path, server: Hostile, timeout: float = 10) -> Any:
    client = await aio.new_client(kubeconfig(tmp_path, server.url))
    try:
        return await aio.wait_scheduled(client, group(), timeout=timeout)
    finally:
        await client.close()


OVERSIZE = event("MODIFIED", {**group(), "padding": "x" * (5 << 20)})  # over 4 MiB

# (id, the first watch's lines, what the log says)
UNFOLLOWABLE: list[tuple[str, list[bytes], str]] = [
    ("not JSON", [b"<html>502 Bad Gateway</html>\n"], "a line that is not a watch event"),
    ("a JSON list", [b"[1, 2]\n"], "a line that is not a watch event: '[1, 2]'"),
    ("a JSON string", [b'"MODIFIED"\n'], "a line that is not a watch event"),
    ("an object that is not an object", [event("MODIFIED", "pg-0000")], "not a watch event"),
    ("an unknown type", [event("EXPLODED", group())], "not a watch event"),
    ("larger than the line limit", [OVERSIZE], "an event larger than the client's line limit"),
    # ObjectMeta is an object, resourceVersion a string, conditions a list of objects (1.37)
    ("metadata that is not an object", [event("MODIFIED", {"metadata": "pg-a"})],
     "a MODIFIED event whose object.metadata is a JSON string, not an object"),
    ("a resourceVersion that is a number",
     [event("MODIFIED", {**group(), "metadata": {"name": NAME, "resourceVersion": 11}})],
     "object.metadata.resourceVersion is a JSON integer, not a string"),
    ("a condition that is not an object",
     [event("MODIFIED", {**group(), "status": {"conditions": ["True"]}})],
     "object.status.conditions[0] is a JSON string, not an object"),
    ("a bookmark whose metadata is a list", [event("BOOKMARK", {"metadata": ["10"]})],
     "a BOOKMARK event whose object.metadata is a JSON list, not an object"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("lines", "logged"), [u[1:] for u in UNFOLLOWABLE], ids=[u[0] for u in UNFOLLOWABLE]
)
async def test_a_line_that_cannot_be_followed_is_logged_and_the_state_read_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, lines: list[bytes], logged: str
) -> None:
    caplog.set_level(logging.WARNING, "workloadbuilder.aio")
    script = Script([group(), group(scheduled=True, rv="12")], [lines])
    async with serve(script) as server:
        found = await wait(tmp_path, server)
    assert found.metadata.name == NAME and found.metadata.resource_version == "12"
    assert script.listed == 2  # read again after the line it could not follow
    assert any(logged in r.getMessage() for r in caplog.records)


async def test_an_event_about_another_object_is_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "workloadbuilder.aio")
    other = group("pg-other", scheduled=True, rv="11")  # the server ignored the field selector
    ours = group(scheduled=True, rv="12")
    script = Script([group()], [[event("MODIFIED", other), event("MODIFIED", ours)]])
    async with serve(script) as server:
        found = await wait(tmp_path, server)
    assert found.metadata.name == NAME and found.metadata.resource_version == "12"
    assert script.listed == 1
    assert any(
        "skipped a MODIFIED event about another object (pg-other)" in r.getMessage()
        for r in caplog.records
    )


async def test_a_list_holding_another_object_is_not_taken_as_ours(tmp_path: Path) -> None:
    script = Script([group("pg-other", scheduled=True)], [[event("MODIFIED", group(rv="13"))]])
    async with serve(script) as server:
        with pytest.raises(aio.NotScheduledError) as caught:
            await wait(tmp_path, server, timeout=1)
    assert caught.value.exists  # ours was seen (by its event), unscheduled
    assert caught.value.status is None


async def test_an_error_event_with_a_garbage_code_is_a_typed_error(tmp_path: Path) -> None:
    status = {"kind": "Status", "code": "teapot", "message": "no", "reason": "Weird"}
    script = Script([group()], [[event("ERROR", status)]])
    async with serve(script) as server:
        with pytest.raises(aio.APIError, match="watching PodGroup ml-training/pg-0000 failed: no"):
            await wait(tmp_path, server)


@pytest.mark.parametrize(
    ("lines", "most"),
    [
        ([event("BOOKMARK", {"metadata": {"resourceVersion": "10"}})], 22),  # floor: 0.05s apart
        ([], 6),  # nothing at all: 0.05s, 0.1s, 0.2s, 0.4s, 0.8s apart
    ],
    ids=["a bookmark, then the end", "the end at once"],
)
async def test_watches_the_server_ends_at_once_are_paced(
    tmp_path: Path, lines: list[bytes], most: int
) -> None:
    script = Script([group()], [lines])
    async with serve(script) as server:
        with pytest.raises(aio.NotScheduledError):
            await wait(tmp_path, server, timeout=1)
    assert 3 <= script.watched <= most  # a bare loop watches hundreds of times a second


async def test_an_event_about_an_object_of_another_kind_is_skipped(tmp_path: Path) -> None:
    workload = {**group(scheduled=True, rv="11"), "kind": "Workload"}  # our name, not our kind
    script = Script([group()], [[event("MODIFIED", workload)]])
    async with serve(script) as server:
        with pytest.raises(aio.NotScheduledError):
            await wait(tmp_path, server, timeout=0.5)
