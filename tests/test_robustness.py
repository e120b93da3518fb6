"""Any JSON value thrown at the public parsing surface gives a documented error, never a crash.

* every model's ``model_validate`` and ``from_server``: an instance or a pydantic
  ``ValidationError`` (whose every error has a location);
* ``job_builder``: a ``Builder`` or ``BuildError`` / ``ValueError`` / ``TypeError``, whatever
  the shape of the Job's ``spec`` and ``template``; when it builds, ``validate()`` returns an
  ``ErrorList`` and ``build_workload()`` a Workload or a ``BuildError``.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from pydantic import ValidationError

from workloadbuilder import BuildError, ErrorList, job_builder
from workloadbuilder.api import (
    K8sModel,
    batch_v1,
    core_v1,
    meta_v1,
    scheduling_v1alpha3,
    scheduling_v1beta1,
)

MODELS = sorted(
    {
        cls
        for module in (batch_v1, core_v1, meta_v1, scheduling_v1alpha3, scheduling_v1beta1)
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, K8sModel) and cls is not K8sModel
    },
    key=lambda c: (c.__module__, c.__name__),
)

_KEYS = st.sampled_from(
    ["metadata", "spec", "name", "schedulingPolicy", "gang", "basic", "minCount",
     "minGroupCount", "topology", "key", "resourceClaims", "podGroupTemplates",
     "compositePodGroupTemplates", "disruptionMode", "all", "single", "uid", "namespace",
     "scheduling", "parallelism", "template", "status", "conditions", "labels", ""]
)  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=10),
    st.sampled_from(["", "2026-09-20T10:00:00Z", "9999-99-99T99:99:99Z", "\ud800", "1"]),
)
JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(_KEYS, st.text(max_size=6)), inner, max_size=4),
    ),
    max_leaves=25,
)
SETTINGS = settings(
    max_examples=bounded(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.__module__[16:]}.{m.__name__}")
@SETTINGS
@given(value=JSON)
def test_model_validate_gives_an_instance_or_a_located_validation_error(
    model: type[K8sModel], value: Any
) -> None:
    for parse in (model.model_validate, model.from_server):
        try:
            parsed = parse(value)
        except ValidationError as exc:
            assert exc.errors(), exc
            continue
        assert isinstance(parsed, model)
        assert isinstance(parsed.to_dict(), dict)


def _job_builder_outcome(spec: Any, meta: dict[str, Any]) -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}
    try:
        builder = job_builder(job)
    except (BuildError, ValueError, TypeError) as exc:
        assert str(exc)
        return
    assert isinstance(builder.validate(), ErrorList)
    try:
        builder.build_workload()
    except BuildError as exc:
        assert str(exc)


_META = st.fixed_dictionaries(
    {"name": st.just("job"), "uid": st.just("u")}, optional={"namespace": JSON}
)


@SETTINGS
@given(
    spec=st.dictionaries(_KEYS, JSON, max_size=4),
    scheduling=JSON,
    template=st.fixed_dictionaries({}, optional={"spec": st.dictionaries(_KEYS, JSON, max_size=3)}),
    meta=_META,
)
def test_job_builder_on_any_job_spec_gives_documented_errors(
    spec: dict[str, Any], scheduling: Any, template: Any, meta: dict[str, Any]
) -> None:
    _job_builder_outcome({**spec, "scheduling": scheduling, "template": template}, meta)


@SETTINGS
@given(
    spec=st.one_of(
        st.floats(),
        st.lists(JSON, max_size=2),
        st.builds(lambda t: {"template": t}, st.one_of(st.booleans(), st.integers())),
    ),
    meta=_META,
)
def test_job_builder_on_a_job_whose_spec_is_not_an_object(spec: Any, meta: dict[str, Any]) -> None:
    _job_builder_outcome(spec, meta)
