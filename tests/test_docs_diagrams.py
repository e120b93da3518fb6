"""The site's diagrams are the files their generator writes, and every page shows them as files."""

from __future__ import annotations

import importlib.util
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "generate_diagrams", ROOT / "docs" / "generate_diagrams.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_each_diagram_is_what_the_generator_draws() -> None:
    for name, text in _generator().rendered().items():
        path = ROOT / "docs" / "diagrams" / name
        assert path.read_text(encoding="utf-8") == text, "run: python docs/generate_diagrams.py"
        root = ET.fromstring(text)  # well-formed XML, an SVG with a title for screen readers
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.find("{http://www.w3.org/2000/svg}title") is not None


def test_no_page_needs_a_script_to_draw_a_diagram() -> None:
    shown: set[str] = set()
    for page in (ROOT / "docs").glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert "```mermaid" not in text, page.name
        shown |= set(re.findall(r"\]\(diagrams/([\w-]+\.svg)\)", text))
    assert shown == set(_generator().DIAGRAMS), "a diagram is drawn but shown nowhere, or missing"
