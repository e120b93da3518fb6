"""The documentation's examples run, and the rule table lists every message validate() emits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(name: str) -> list[str]:
    return FENCE.findall((DOCS / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["builder.md", "validation.md"])
def test_code_blocks_run_in_order(name: str) -> None:
    found = blocks(name)
    assert found, f"{name} has no python examples"
    namespace: dict[str, object] = {"__name__": f"docs_{name.replace('.', '_')}"}
    for i, code in enumerate(found):
        try:
            exec(compile(code, f"{name}[block {i}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            raise AssertionError(f"{name} block {i} failed: {exc!r}\n{code}") from exc


MESSAGES = [
    # entry and tree check
    "cannot validate a builder constructed from an existing workload",
    "invalid builder: missing root WorkloadItem",
    "old root name %q does not match new root name %q",
    "workload item name cannot be empty",
    "duplicate workload item name %q: template names must be unique across the Workload",
    "composite workload item %q sets leaf building block: ",
    "leaf workload item %q sets composite building block: ",
    # declarative validation of the blocks
    "must specify one of: ",
    "must specify exactly one of: ",
    "must be greater than or equal to 1",
    "must be less than or equal to 2147483647",
    "must have at most 1 item",
    "must be no more than 63 bytes",
    "must be no more than 253 bytes",
    "a lowercase RFC 1123 label must consist of",
    "a lowercase RFC 1123 subdomain must consist of",
    "name part must consist of alphanumeric characters",
    "a valid label key must consist of alphanumeric characters",
    "must not contain dots",
    "prefix part ",
    "name part must be non-empty",
    "name part must be no more than 63 bytes",
    # allow-lists and the cross rule
    "basic scheduling policy is not supported by this controller",
    "gang scheduling policy is not supported by this controller",
    "the disruptionMode `single` is not supported by this controller",
    "the disruptionMode `all` is not supported by this controller",
    "the disruptionMode `all` is not supported with the Basic scheduling policy",
    # resolution and the API server's rules
    "resolving workload item %q: ",
    "gang scheduling requires minCount to be set after resolution",
    "gang scheduling requires minGroupCount to be set after resolution",
    "must have at most 4 items",
    "must have at most 8 items",
    "maximum template hierarchy depth is 4",
    "all priority and priorityClassName values must be identical, detected multiple values",
    "unexpected validation failure: ",
    # counts that can never be met, and several roots
    "the gang can never form",
    "it can never be met",
    "a Workload holds either podGroupTemplates or compositePodGroupTemplates, not both",
]


def test_every_message_is_in_the_rule_table() -> None:
    text = (DOCS / "validation.md").read_text(encoding="utf-8")
    missing = [
        m for m in MESSAGES if m.replace("%q", '"x"').strip() not in text and m.strip() not in text
    ]
    assert not missing, f"docs/validation.md does not list: {missing}"


def test_messages_are_the_modules() -> None:
    """The list above is what the modules contain (so the table check is not vacuous)."""
    sources = "".join(
        (Path(__file__).resolve().parents[2] / "workloadbuilder" / f).read_text(encoding="utf-8")
        for f in (
            "validation.py",
            "_declarative.py",
            "_formats.py",
            "builder.py",
            "field.py",
            "counts.py",
            "roots.py",
        )
    )
    for message in MESSAGES:
        fragment = message.split("%q")[0].strip() or message.split("%q")[1].strip()
        fragment = fragment.split("`")[0].split(" 1")[0].split(" 2147")[0].split(" 4")[0]
        fragment = fragment.split(" 8")[0].split(" 63")[0].split(" 253")[0]
        assert fragment[:25] in sources, message
