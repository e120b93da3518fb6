"""The spec files' tests share the suite's oracles and the spec fuzzer's documents."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parents[1]
for _dir in (_TESTS, _TESTS / "cli"):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))
