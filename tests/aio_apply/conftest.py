"""Shared setup of the tests of ``workloadbuilder.aio``'s apply, resize, delete and reconcile."""

from __future__ import annotations

import sys
from pathlib import Path

for _dir in (Path(__file__).resolve().parents[1], Path(__file__).resolve().parent):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))
