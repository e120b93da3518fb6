"""Suite-wide settings and fixtures (tests/README.md): the hypothesis profiles
(``property_bound.py``): the README's run draws at most 40 examples a property (``bounded``),
under CI (``CI`` set) the same examples every run (``ci``), with ``--hypothesis-profile
thorough`` each test's own count; ``run_tmp_path`` and ``mypy_cache``, shared by the run's
workers; the modules with a ``slow`` test scheduled first."""

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("bounded", max_examples=40)
settings.register_profile(
    "ci",
    settings.get_profile("bounded"),
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
)
settings.register_profile("thorough", max_examples=300)
settings.load_profile("ci" if os.environ.get("CI") else "bounded")


@pytest.fixture(scope="session")
def run_tmp_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of this run, shared by its xdist workers (each has a temp root inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def mypy_cache(run_tmp_path: Path) -> Path:
    """mypy's cache of this run: the package is checked once, each test's files on top of it."""
    return run_tmp_path / "mypy-cache"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules that hold ``slow`` tests first, most of them first, then the others in their
    order: xdist hands out whole modules in this order (``--no-loadscope-reorder``), so that
    none of the long ones starts last and holds one worker while the others are done."""
    slow = Counter(item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.nodeid.split("::")[0]])
