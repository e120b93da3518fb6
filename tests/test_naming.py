"""Tests for workloadbuilder.naming: upstream vectors, truncation branches, validity properties.

Sources of the pinned vectors:
- WBN: the Go workloadbuilder naming test (package workloadbuilder, naming_test.go,
  TestGenerateWorkloadName / TestGeneratePodGroupName) of a component-helpers revision later
  than HEAD 1961876b, whose GenerateWorkloadName/GeneratePodGroupName moved the Job controller's
  helpers into the library "so that names already persisted do not change".
- KJCT: kubernetes/kubernetes pkg/controller/job/job_scheduling_manager_test.go
  (TestComputeWorkloadName, TestComputePodGroupName, TestComputePodGroupNameTruncation); those
  tests assert properties, not literal names.
"""

from __future__ import annotations

import random
import re
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder.naming import (
    _hash_suffix,
    _safe_encode,
    generate_pod_group_name,
    generate_workload_name,
)

DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def is_dns_subdomain(name: str) -> bool:
    return len(name) <= 253 and DNS1123_SUBDOMAIN.fullmatch(name) is not None


# ---------------------------------------------------------------- an independent model of upstream


def fnv32a(data: bytes) -> int:
    h = 2166136261
    for b in data:
        h ^= b
        h = (h * 16777619) % 2**32
    return h


def encode(n: int) -> str:
    return "".join("bcdfghjklmnpqrstvwxz2456789"[ord(c) % 27] for c in str(n))


def upstream_workload_name(owner: str, uid: str) -> str:
    h = encode(fnv32a(b"(types.UID)" + uid.encode()))
    return owner[: 253 - len(h) - 1] + "-" + h


def upstream_pod_group_name(wl: str, tpl: str) -> str:
    h = encode(fnv32a((wl + tpl).encode()))
    avail = 253 - len(h) - 2
    if len(wl) + len(tpl) > avail:
        half = avail // 2
        if len(wl) <= half:
            tpl = tpl[: avail - len(wl)]
        elif len(tpl) <= half:
            wl = wl[: avail - len(tpl)]
        else:
            wl, tpl = wl[: avail - half], tpl[:half]
    return f"{wl}-{tpl}-{h}"


# ---------------------------------------------------------------- vectors


def test_safe_encode_alphabet() -> None:
    # apimachinery rand.SafeEncodeString over decimal digits
    assert _safe_encode("0123456789") == "456789bcdf"


def test_workload_name_vector() -> None:
    # WBN "name is deterministic and preserves the existing format": job/uid-1 -> job-647cf7d9
    assert generate_workload_name("job", "uid-1") == "job-647cf7d9"
    # WBN "empty owner name" -> "647cf7d9": the hash alone is the hashed "(types.UID)uid-1"
    assert _hash_suffix(b"(types.UID)", b"uid-1") == "647cf7d9"


def test_pod_group_hash_vectors() -> None:
    # WBN "both names empty returns only the hash" -> 65bb57b6b5
    assert _hash_suffix(b"", b"") == "65bb57b6b5"
    # WBN "empty workload keeps the template name" -> template-5cbb944dc9
    assert _hash_suffix(b"", b"template") == "5cbb944dc9"
    # WBN "empty template keeps the workload name" -> workload-c5546b9dd
    assert _hash_suffix(b"workload", b"") == "c5546b9dd"
    # The hash covers the concatenation, so these non-empty splits share those hashes.
    assert generate_pod_group_name("temp", "late") == "temp-late-5cbb944dc9"
    assert generate_pod_group_name("work", "load") == "work-load-c5546b9dd"


def test_hash_of_the_uid_alone_would_differ() -> None:
    # Guard against hashing the bare UID: DeepHashObject hashes the spew rendering.
    assert _hash_suffix(b"", b"uid-1") != "647cf7d9"


def test_job_example_names() -> None:
    wl = generate_workload_name("trainer", "0e5c5a4e-4a6b-4a8f-9c77-6a2f3f3f1b11")
    assert wl == upstream_workload_name("trainer", "0e5c5a4e-4a6b-4a8f-9c77-6a2f3f3f1b11")
    assert wl.startswith("trainer-")
    pg = generate_pod_group_name(wl, "trainer-pgt-0")
    assert pg == upstream_pod_group_name(wl, "trainer-pgt-0")
    assert pg.startswith(wl + "-trainer-pgt-0-")


# ---------------------------------------------------------------- KJCT / WBN properties


@pytest.mark.parametrize(
    ("owner", "uid"),
    [("my-job", "uid-123"), ("a" * 300, "uid-long"), ("job" * 100, "uid-1")],
)
def test_workload_name_upstream_properties(owner: str, uid: str) -> None:
    name = generate_workload_name(owner, uid)
    assert len(name) <= 253
    assert len(name.split("-")) >= 2
    assert name == generate_workload_name(owner, uid)
    assert name != generate_workload_name(owner, "different-uid")
    assert name == upstream_workload_name(owner, uid)


def test_long_owner_name_is_truncated_to_the_limit() -> None:
    name = generate_workload_name("a" * 300, "uid-long")
    assert name == "a" * 242 + "-799bb5c8bd"
    assert len(name) == 253


@pytest.mark.parametrize(
    ("wl", "tpl"),
    [
        ("my-workload", "my-template"),
        ("w" * 250, "tpl"),
        ("wl", "t" * 250),
        ("w" * 200, "t" * 200),
        ("workload" * 40, "template" * 40),
        ("workload", "template" * 40),
        ("workload" * 40, "template"),
    ],
)
def test_pod_group_name_upstream_properties(wl: str, tpl: str) -> None:
    name = generate_pod_group_name(wl, tpl)
    assert len(name) <= 253
    assert len(name.split("-")) >= 3
    assert name == generate_pod_group_name(wl, tpl)
    assert name != generate_pod_group_name(wl, "other-template")
    assert name == upstream_pod_group_name(wl, tpl)


def test_no_truncation_when_it_fits() -> None:
    assert generate_pod_group_name("my-workload", "my-template") == (
        "my-workload-my-template-67bd6bbcc4"
    )


def test_truncation_short_workload_keeps_it_whole() -> None:
    # len(wl) <= half: the template gets the rest of the room
    name = generate_pod_group_name("wl", "t" * 250)
    assert name == "wl-" + "t" * 239 + "-5c9dbd8778"
    assert len(name) == 253


def test_truncation_short_template_keeps_it_whole() -> None:
    # len(tpl) <= half: the workload gets the rest; this hash has 9 characters (avail 242)
    name = generate_pod_group_name("w" * 250, "tpl")
    assert name == "w" * 239 + "-tpl-5598d65b5"
    assert len(name) == 253


def test_truncation_template_exactly_half() -> None:
    # avail = 241, half = 120: a 120-character template is kept whole
    name = generate_pod_group_name("w" * 200, "t" * 120)
    assert name == "w" * 121 + "-" + "t" * 120 + "-68d5689f77"


def test_truncation_both_long_split_evenly_workload_gets_the_odd_one() -> None:
    name = generate_pod_group_name("w" * 200, "t" * 200)
    assert name == "w" * 121 + "-" + "t" * 120 + "-6f9f45db49"
    name2 = generate_pod_group_name("w" * 121, "t" * 200)
    assert name2 == "w" * 121 + "-" + "t" * 120 + "-69db4cc754"


def test_truncation_exact_fit_is_untouched() -> None:
    wl, tpl = "w" * 141, "t" * 100  # 241 == avail for a 10-character hash
    h = _hash_suffix(wl.encode(), tpl.encode())
    assert len(h) == 10
    assert generate_pod_group_name(wl, tpl) == f"{wl}-{tpl}-{h}"


# ---------------------------------------------------------------- where upstream would be invalid


def test_trailing_dash_at_the_cut_is_kept_because_it_is_valid() -> None:
    owner = "a" * 243 + "-bcd"  # hash of uid-1 has 8 characters: prefix room is 244
    name = generate_workload_name(owner, "uid-1")
    assert name == "a" * 243 + "--647cf7d9"
    assert name == upstream_workload_name(owner, "uid-1")
    assert is_dns_subdomain(name)


def test_trailing_dot_at_the_cut_is_dropped() -> None:
    owner = "a" * 243 + ".bcd"
    assert not is_dns_subdomain(upstream_workload_name(owner, "uid-1"))
    assert generate_workload_name(owner, "uid-1") == "a" * 243 + "-647cf7d9"


def test_pod_group_dot_at_the_cut_is_dropped() -> None:
    wl = "w" * 120 + "." + "w" * 100
    tpl = "t" * 119 + "." + "t" * 100
    upstream = upstream_pod_group_name(wl, tpl)
    assert not is_dns_subdomain(upstream)
    ours = generate_pod_group_name(wl, tpl)
    h = _hash_suffix(wl.encode(), tpl.encode())
    # upstream keeps wl[:121] == "w"*120 + "." and tpl[:120] == "t"*119 + "."
    assert upstream == "w" * 120 + ".-" + "t" * 119 + ".-" + h
    assert ours == "w" * 120 + "-" + "t" * 119 + "-" + h
    assert is_dns_subdomain(ours)


@pytest.mark.parametrize(
    ("owner", "expected_prefix"),
    [
        ("MyJob", "myjob"),
        ("my_job", "my-job"),
        ("-job", "job"),
        ("job.", "job"),
        ("a..b", "a.b"),
        ("a.-b", "a.b"),
        ("jöb", "j-b"),
        ("Ünïcode.Ñame", "n-code.ame"),
    ],
)
def test_invalid_owner_names_are_sanitized(owner: str, expected_prefix: str) -> None:
    assert not is_dns_subdomain(upstream_workload_name(owner, "uid-1"))
    assert generate_workload_name(owner, "uid-1") == f"{expected_prefix}-647cf7d9"


def test_owner_name_without_any_usable_character_gives_the_hash() -> None:
    assert generate_workload_name("___", "uid-1") == "647cf7d9"
    assert generate_workload_name("...", "uid-1") == "647cf7d9"


def test_invalid_pod_group_parts_are_sanitized() -> None:
    h = _hash_suffix(b"My_Workload", b".Tpl")
    assert generate_pod_group_name("My_Workload", ".Tpl") == f"my-workload-tpl-{h}"
    h2 = _hash_suffix(b"___", b"tpl")
    assert generate_pod_group_name("___", "tpl") == f"tpl-{h2}"
    h3 = _hash_suffix(b"wl", b"...")
    assert generate_pod_group_name("wl", "...") == f"wl-{h3}"
    h4 = _hash_suffix(b"--", b"__")
    assert generate_pod_group_name("--", "__") == h4


def test_non_ascii_uid_is_hashed_as_utf8() -> None:
    expected = encode(fnv32a(b"(types.UID)" + "üid".encode()))
    assert generate_workload_name("job", "üid") == f"job-{expected}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", "uid"), "owner_name must not be empty"),
        (("job", ""), "owner_uid must not be empty"),
    ],
)
def test_workload_name_rejects_empty(args: tuple[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_workload_name(*args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", "tpl"), "workload_name must not be empty"),
        (("wl", ""), "template_name must not be empty"),
    ],
)
def test_pod_group_name_rejects_empty(args: tuple[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_pod_group_name(*args)


def test_rejects_non_str() -> None:
    with pytest.raises(TypeError):
        generate_workload_name("job", uuid.UUID(int=1))  # type: ignore[arg-type]


# ---------------------------------------------------------------- properties

_subdomain_label = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?", fullmatch=True)
_subdomains = st.lists(_subdomain_label, min_size=1, max_size=20).map(".".join)
_any_names = st.text(min_size=1, max_size=300)
_uids = st.text(min_size=1, max_size=60)


@given(owner=_any_names, uid=_uids)
def test_workload_name_always_valid_and_deterministic(owner: str, uid: str) -> None:
    name = generate_workload_name(owner, uid)
    assert is_dns_subdomain(name)
    assert name == generate_workload_name(owner, uid)
    upstream = upstream_workload_name(owner, uid)
    if is_dns_subdomain(upstream):
        assert name == upstream


@given(wl=_any_names, tpl=_any_names)
def test_pod_group_name_always_valid_and_deterministic(wl: str, tpl: str) -> None:
    name = generate_pod_group_name(wl, tpl)
    assert is_dns_subdomain(name)
    assert name == generate_pod_group_name(wl, tpl)
    upstream = upstream_pod_group_name(wl, tpl)
    if is_dns_subdomain(upstream):
        assert name == upstream


@given(owner=_subdomains, uid=_uids)
def test_valid_short_owner_names_match_upstream(owner: str, uid: str) -> None:
    if len(owner) <= 242:  # room left by the longest (10-character) hash
        assert generate_workload_name(owner, uid) == upstream_workload_name(owner, uid)


@given(wl=_subdomains, tpl=_subdomain_label)
def test_valid_names_match_upstream(wl: str, tpl: str) -> None:
    upstream = upstream_pod_group_name(wl, tpl)
    name = generate_pod_group_name(wl, tpl)
    assert is_dns_subdomain(name)
    if is_dns_subdomain(upstream):
        assert name == upstream


@given(
    wl=st.from_regex(r"[a-z0-9]{1,300}", fullmatch=True),
    tpl=st.from_regex(r"[a-z0-9]{1,300}", fullmatch=True),
)
def test_alphanumeric_names_always_match_upstream(wl: str, tpl: str) -> None:
    assert generate_pod_group_name(wl, tpl) == upstream_pod_group_name(wl, tpl)
    assert generate_workload_name(wl, tpl) == upstream_workload_name(wl, tpl)


def test_distinct_uids_give_distinct_names() -> None:
    rng = random.Random(1337)
    uids = {str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(5000)}
    names = {generate_workload_name("trainer", uid) for uid in uids}
    assert len(names) == len(uids)


def test_distinct_templates_give_distinct_pod_group_names() -> None:
    wl = generate_workload_name("trainer", "0e5c5a4e-4a6b-4a8f-9c77-6a2f3f3f1b11")
    names = {generate_pod_group_name(wl, f"role-{i}") for i in range(2000)}
    assert len(names) == 2000
