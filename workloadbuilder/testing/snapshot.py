"""A syrupy extension that stores our objects as readable YAML snapshots.

Use it in a controller's tests::

    import pytest
    from workloadbuilder.testing.snapshot import WorkloadSnapshotExtension

    @pytest.fixture
    def snapshot(snapshot):
        return snapshot.use_extension(WorkloadSnapshotExtension)

    def test_reconcile_creates_the_gang(snapshot):
        assert my_controller.objects_for(run) == snapshot

Each snapshot is one ``.yaml`` file under ``__snapshots__/<test module>/``; update them with
syrupy's own ``pytest --snapshot-update``. The compared value is a model, a dict, a list of
them, a :class:`~workloadbuilder.Builder`, a tree or a loaded spec (their
:func:`~workloadbuilder.testing.fixtures.fixture_dicts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from workloadbuilder.api.sdk import K8sModel
from workloadbuilder.builder import Builder
from workloadbuilder.item import WorkloadItem
from workloadbuilder.spec import LoadedSpec

from .fixtures import fixture_dicts, to_yaml

__all__ = ["WorkloadSnapshotExtension", "serialize"]


def serialize(data: Any) -> str:
    """The YAML stream a snapshot holds for ``data``."""
    if isinstance(data, (Builder, WorkloadItem, LoadedSpec)):
        return to_yaml(fixture_dicts(data))
    if isinstance(data, (K8sModel, Mapping)):
        return to_yaml([data])
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return to_yaml(data)
    raise TypeError(
        "a workload snapshot holds Kubernetes objects: a model, a dict, a list of them, a"
        f" Builder, a tree or a loaded spec, not {type(data).__name__}"
    )


class WorkloadSnapshotExtension(SingleFileSnapshotExtension):
    """Snapshots as ``.yaml`` files: one document per object, keys in API order."""

    file_extension = "yaml"
    _write_mode = WriteMode.TEXT

    def serialize(self, data: Any, **_: Any) -> str:
        return serialize(data)
