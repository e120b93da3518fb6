"""Under ``WORKLOADBUILDER_POLYAXON_ENV`` (``.ci/run``'s Polyaxon environment) a skip here is a
failure: these tests exist to run beside Polyaxon and its kubernetes<37."""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

REQUIRED = bool(os.environ.get("WORKLOADBUILDER_POLYAXON_ENV"))


def _fail_skips(report: Any) -> None:
    if REQUIRED and report.skipped:
        report.outcome = "failed"
        report.longrepr = (
            f"skipped in the Polyaxon environment, where it must run: {report.longrepr}"
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    report = yield
    _fail_skips(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    report = yield
    _fail_skips(report)
    return report
