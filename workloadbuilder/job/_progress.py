"""How much of a Job is left to run, as the Job controller counts it for a gang's size.

Near the end of a Job fewer pods remain than ``parallelism``; a gang whose ``minCount``
defaulted to ``parallelism`` would then wait forever for members that are never created. The
Job controller shrinks such a gang to the work left: ``completions`` minus the succeeded pods
and, for an Indexed Job, minus the indexes that failed for good (``status.failedIndexes``), at
least 1. An explicit ``minCount`` and a work-queue Job (no ``completions``) are left alone.
"""

from __future__ import annotations

import re

from ._read import JobView

__all__ = ["gang_size", "index_count"]

_INT = re.compile(r"[+-]?[0-9]+")
_INT64 = 2**63


def _atoi(text: str) -> int | None:
    """Go's ``strconv.Atoi``: an optional sign and decimal digits, within int64."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if -_INT64 <= value < _INT64 else None


def index_count(indexes: str, completions: int) -> int:
    """How many indexes ``indexes`` (``"1-2,7"``) holds below ``completions``, read as the Job
    controller reads ``status.failedIndexes``: a malformed interval is skipped, the first
    interval starting at ``completions`` or beyond ends the list, a range is cut there."""
    total = 0
    for interval in indexes.split(",") if indexes else ():
        limits = interval.split("-")
        first = _atoi(limits[0])
        if first is None:
            continue
        if first >= completions:
            break
        last = first
        if len(limits) > 1:
            upper = _atoi(limits[1])
            if upper is None:
                continue
            last = min(upper, completions - 1)
        total += max(0, last - first + 1)
    return total


def gang_size(view: JobView) -> int | None:
    """The ``parallelism`` a gang without an explicit ``minCount`` is sized from now: the
    Job's parallelism (unset: 1), but no more than the work left (at least 1). ``None`` when
    the Job says nothing (no ``parallelism``, no ``completions``)."""
    spec, status = view.job_spec, view.job_status
    if spec.completions is None:
        return spec.parallelism
    left = spec.completions - (status.succeeded or 0)
    if spec.completion_mode == "Indexed" and status.failed_indexes:
        left -= index_count(status.failed_indexes, spec.completions)
    return min(max(1, 1 if spec.parallelism is None else spec.parallelism), max(1, left))
