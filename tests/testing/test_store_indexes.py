"""The store's indexes hold exactly what a scan of every object finds.

The stand-in controllers read them after every write (owners' dependents, uids, a
PodGroup's member pods) instead of scanning the store, so they must never go stale.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from property_bound import bounded

from workloadbuilder.testing.apply import managed
from workloadbuilder.testing.engine.controllers import Controllers
from workloadbuilder.testing.engine.objects import owner_uids, pod_group_of
from workloadbuilder.testing.store.store import GroupResource, Store, Stored

PODS = ("", "pods")
GROUPS = ("scheduling.k8s.io", "podgroups")
NAMES = ("a", "b", "c")
NAMESPACES = ("n1", "n2")


class _NoVerbs:
    def delete(self, *args: Any, **kwargs: Any) -> object:
        raise AssertionError("indexes only")

    def persist(self, *args: Any) -> None:
        raise AssertionError("indexes only")

    def any_version(self, resource: GroupResource) -> Any:
        raise AssertionError("indexes only")


def _object(
    resource: GroupResource, ns: str, name: str, owners: list[str], group: str | None, rv: int
) -> Stored:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "uid": f"{resource[1]}-{ns}-{name}-{rv % 2}",
        "resourceVersion": str(rv),
    }
    if owners:
        meta["ownerReferences"] = [
            {"uid": u, "name": u, "kind": "X", "apiVersion": "v1"} for u in owners
        ]
    obj: dict[str, Any] = {"metadata": meta}
    if group is not None:
        obj["spec"] = {"schedulingGroup": {"podGroupName": group}}
    return Stored(obj, managed.Entries())


_step = st.tuples(
    st.sampled_from([PODS, GROUPS]),
    st.sampled_from(NAMESPACES),
    st.sampled_from(NAMES),
    st.lists(st.sampled_from(["u1", "u2", "u3"]), max_size=2, unique=True),
    st.one_of(st.none(), st.sampled_from(NAMES)),
    st.booleans(),
)


@settings(max_examples=bounded(200), deadline=None)
@given(st.lists(_step, max_size=40), st.integers(min_value=0, max_value=40))
def test_indexes_match_a_full_scan(steps: list[Any], index_from: int) -> None:
    store = Store(history=100)
    controllers: Controllers | None = None
    for rv, (resource, ns, name, owners, group, remove) in enumerate(steps, start=1):
        if rv == index_from:  # indexes added to a store that already holds objects
            controllers = Controllers(store, _NoVerbs())
        if remove:
            store.remove(resource, (ns, name), _object(resource, ns, name, [], None, rv).obj)
        else:
            store.put(resource, (ns, name), _object(resource, ns, name, owners, group, rv))
    if controllers is None:
        controllers = Controllers(store, _NoVerbs())
    everything = [(r, s) for r in store.resources() for s in store.select(r, None)]
    for uid in ("u1", "u2", "u3"):
        expected = [(r, s) for r, s in everything if uid in owner_uids(s.obj)]
        assert store.indexed("owner-uid", uid) == expected
    for _resource, stored in everything:
        uid = stored.obj["metadata"]["uid"]
        assert store.indexed("uid", uid) == [
            (r, s) for r, s in everything if s.obj["metadata"]["uid"] == uid
        ]
        assert controllers.uid_exists(uid)
    assert not controllers.uid_exists("missing")
    for ns in NAMESPACES:
        for group in NAMES:
            expected = [
                (r, s)
                for r, s in everything
                if r == PODS
                and s.obj["metadata"]["namespace"] == ns
                and pod_group_of(s.obj) == group
            ]
            assert store.indexed("pod-group", (ns, group)) == expected
        for resource in (PODS, GROUPS):
            assert store.has_objects(resource, ns) == bool(store.select(resource, ns))
