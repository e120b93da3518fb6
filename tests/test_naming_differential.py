"""The naming hash, computed from a cached prefix state, equals the straight computation.

The reference is the straightforward definition (FNV-1a 32 over every byte of prefix and
rest, the decimal rendering mapped through rand.SafeEncodeString's alphabet), as the helpers
computed it before the prefix state was cached.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder import generate_pod_group_name, generate_workload_name
from workloadbuilder.naming import _hash_suffix, _safe_encode

_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def _straight_suffix(*chunks: bytes) -> str:
    h = 0x811C9DC5
    for byte in b"".join(chunks):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(_ALPHANUMS[ord(c) % len(_ALPHANUMS)] for c in str(h))


@given(st.binary(max_size=40), st.binary(max_size=40))
def test_suffix_equals_the_straight_hash(prefix: bytes, rest: bytes) -> None:
    assert _hash_suffix(prefix, rest) == _straight_suffix(prefix, rest)


@given(st.text(max_size=30))
def test_safe_encoding_of_any_text(text: str) -> None:
    assert _safe_encode(text) == "".join(_ALPHANUMS[ord(c) % len(_ALPHANUMS)] for c in text)


@given(st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=5), st.text(min_size=1))
def test_names_of_one_workload_end_in_the_straight_hash(templates: list[str], wl: str) -> None:
    for template in templates:  # the prefix state is reused from the second name on
        name = generate_pod_group_name(wl, template)
        assert name.endswith(_straight_suffix(wl.encode(), template.encode()))


@given(st.text(min_size=1, max_size=20), st.text(min_size=1, max_size=40))
def test_workload_names_end_in_the_straight_hash(owner: str, uid: str) -> None:
    name = generate_workload_name(owner, uid)
    assert name.endswith(_straight_suffix(b"(types.UID)", uid.encode()))
