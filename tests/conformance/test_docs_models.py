"""The examples of ``docs/models.md`` run, in order, and say what the models do."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "models.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_models_doc_examples_run() -> None:
    blocks = FENCE.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    namespace: dict[str, object] = {"__name__": "docs_models"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"models.md[block {i}]", "exec"), namespace)
    assert namespace["back"] == namespace["pg"]
    assert str(namespace["text"]).startswith(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup"
    )
