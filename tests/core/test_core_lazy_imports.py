"""``import workloadbuilder`` loads each of its parts on first use (PEP 562).

Whatever loads lazily still behaves as an ordinary attribute: ``from workloadbuilder import X``,
``workloadbuilder.X`` and ``dir()`` see every name of ``__all__``, and a misspelt name fails as
it does on any module.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap

import pytest

import workloadbuilder

# Not needed to validate, build and stamp: the Job integration, migration, the one-execution
# helpers, the spec files, the CLI, the async layer, the test server, the pydantic-error
# mapping (on errors only) and PyYAML (to_yaml only).
NOT_LOADED_BY_IMPORT = (
    "workloadbuilder.job",
    "workloadbuilder.migration",
    "workloadbuilder.runtime",
    "workloadbuilder.spec",
    "workloadbuilder.cli",
    "workloadbuilder.aio",
    "workloadbuilder.testing",
    "workloadbuilder.api.batch_v1",
    "workloadbuilder.api.core_v1",
    "workloadbuilder._pydantic_errors",
    "yaml",
)


def _fresh(code: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    return run.stdout


def _loaded_after(code: str) -> list[str]:
    return json.loads(_fresh(f"import json, sys\n{code}\nprint(json.dumps(list(sys.modules)))"))


def test_import_loads_no_part() -> None:
    loaded = _loaded_after("import workloadbuilder")
    assert [m for m in loaded if m.startswith("workloadbuilder.")] == []
    assert "pydantic" not in loaded


def test_first_use_loads_what_a_reconcile_loop_needs_and_leaves_the_rest_unloaded() -> None:
    loaded = _loaded_after(
        "import workloadbuilder as wb\nwb.Builder, wb.leaf, wb.gang, wb.generate_pod_group_name"
    )
    assert [m for m in NOT_LOADED_BY_IMPORT if m in loaded] == []
    for module in ("workloadbuilder.builder", "workloadbuilder.api.scheduling_v1beta1"):
        assert module in loaded


def test_a_pod_group_alone_loads_only_its_models() -> None:
    loaded = _loaded_after("from workloadbuilder.api.scheduling_v1beta1 import PodGroup")
    assert "workloadbuilder.api.scheduling_v1beta1" in loaded
    assert "workloadbuilder.api.scheduling_v1alpha3" not in loaded
    assert "workloadbuilder.builder" not in loaded


def _defining_module(name: str, value: object) -> str:
    """The module that defines ``value``: its ``__module__``, or for a constant or an alias the
    one submodule holding it in its own ``__all__``."""
    module = getattr(value, "__module__", None)
    if isinstance(module, str) and module.startswith("workloadbuilder."):
        return module
    owners = [
        m
        for m in (
            "workloadbuilder.job.annotations",
            "workloadbuilder.config",
            "workloadbuilder.api",
        )
        if name in importlib.import_module(m).__all__
    ]
    assert len(owners) == 1, (name, owners)
    return owners[0]


@pytest.mark.parametrize("name", workloadbuilder.__all__)
def test_every_name_is_its_defining_modules_object(name: str) -> None:
    value = getattr(workloadbuilder, name)
    if name == "api":
        assert value is importlib.import_module("workloadbuilder.api")
        return
    assert getattr(importlib.import_module(_defining_module(name, value)), name) is value


def test_every_name_resolves_in_a_fresh_interpreter_both_ways() -> None:
    out = _fresh(
        """
        import importlib, json, sys
        import workloadbuilder
        same = {}
        for name in workloadbuilder.__all__:
            attribute = getattr(workloadbuilder, name)
            imported = importlib.import_module("workloadbuilder").__dict__[name]
            namespace = {}
            exec(f"from workloadbuilder import {name}", namespace)
            same[name] = attribute is imported is namespace[name]
        print(json.dumps({"same": same, "dir": dir(workloadbuilder)}))
        """
    )
    result = json.loads(out)
    assert result["same"] == dict.fromkeys(workloadbuilder.__all__, True)
    assert set(workloadbuilder.__all__) <= set(result["dir"])


def test_dir_lists_every_name_before_any_is_loaded() -> None:
    listed = json.loads(
        _fresh("import json, workloadbuilder; print(json.dumps(dir(workloadbuilder)))")
    )
    assert set(workloadbuilder.__all__) <= set(listed)
    assert listed == sorted(listed)


def test_api_submodules_load_on_first_access() -> None:
    out = _fresh(
        """
        import sys
        import workloadbuilder.api as api
        before = "workloadbuilder.api.batch_v1" in sys.modules
        job_scheduling = api.batch_v1.JobSchedulingConfiguration
        print(before, job_scheduling.__module__, "core_v1" in dir(api))
        """
    )
    assert out.split() == ["False", "workloadbuilder.api.batch_v1", "True"]


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("workloadbuilder", "Bulder"),
        ("workloadbuilder", "job_bulder"),
        ("workloadbuilder.api", "batch_v2"),
    ],
)
def test_a_misspelt_name_fails_as_on_any_module(module: str, name: str) -> None:
    target = importlib.import_module(module)
    with pytest.raises(AttributeError) as caught:
        getattr(target, name)
    assert str(caught.value) == f"module {module!r} has no attribute {name!r}"
    assert caught.value.name == name
    assert caught.value.obj is target
    with pytest.raises(ImportError, match=f"cannot import name {name!r} from {module!r}"):
        exec(f"from {module} import {name}", {})
