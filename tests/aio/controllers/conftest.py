"""Shared setup of the tests of ``workloadbuilder.aio``'s work queue and leader election."""

from __future__ import annotations

import sys
from pathlib import Path

for _dir in (Path(__file__).resolve().parents[2], Path(__file__).resolve().parent):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))
