"""docs/job.md: its examples run, and it lists every message ``validate_job`` adds."""

from __future__ import annotations

import re
from pathlib import Path

DOC = (Path(__file__).resolve().parents[2] / "docs" / "job.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_the_first_example_runs() -> None:
    code = FENCE.findall(DOC)[0]
    exec(compile(code, "job.md[block 0]", "exec"), {"__name__": "docs_job_md"})


def test_every_message_of_the_job_rules_is_documented() -> None:
    for message in (
        "field cannot be set once created",
        "field cannot be cleared once set",
        "field is immutable",
        "must be less than or equal to 8 (the value specified for spec.parallelism)",
        "has 2 PodGroupTemplates, want exactly 1",
    ):
        assert message in DOC
