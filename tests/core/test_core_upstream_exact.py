"""Upstream-exact details of the declarative layer, each expectation taken from upstream.

Sources (kubernetes/apimachinery eed236ce, kubernetes/api 10b39a39):

- ``pkg/api/validate/content/kube.go`` ``IsLabelKey`` and ``content/dns.go`` ``IsDNS1123Label``
  (the messages), ``pkg/util/validation/validation_test.go`` ``TestIsDomainPrefixedKey``
  (full rendered vectors);
- ``scheduling/v1alpha3/zz_generated.validations.go``: the order of checks inside a claim
  (union, then ``name``, then each reference), the ``MaxItems(...).MarkShortCircuit()`` of
  ``topology``, field-by-field ratcheting and ``validate.Union``'s membership ratcheting
  (``pkg/api/validate/union.go``);
- ``pkg/runtime/schema/group_version_test.go`` ``TestGroupVersionParse`` (owner apiVersions).
"""

from __future__ import annotations

import pytest
from core_support import all_allowed, job_owner, rendered

from workloadbuilder import Builder, BuildError, BuildOptions, FieldPath, leaf
from workloadbuilder._formats import dns_label_errors, label_key_errors
from workloadbuilder.api.meta_v1 import OwnerReference
from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadPodGroupBasicSchedulingPolicy,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)
from workloadbuilder.item import (
    ConstraintsInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)

# content/kube.go: labelKeyErrMsg and labelKeyFmt, joined by content/errors.go RegexError.
LABEL_KEY_REGEX = "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'"
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and"
    " end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex"
    f" used for validation is {LABEL_KEY_REGEX})"
)
# validation_test.go TestIsDomainPrefixedKey "invalid key 2" (verbatim).
THREE_PARTS = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start"
    " and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc',"
    f" regex used for validation is {LABEL_KEY_REGEX}) with an optional DNS subdomain prefix"
    " and '/' (e.g. 'example.com/MyName')"
)
DNS_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and"
    " must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex"
    " used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("example/foo/bar", [THREE_PARTS]),  # TestIsDomainPrefixedKey "invalid key 2"
        ("/example/foo", [THREE_PARTS]),  # "invalid key 3"
        ("example.com/_e", [NAME_PART]),  # "invalid key 5"
        ("example.com/e?", [NAME_PART]),  # "invalid key 7"
        # IsLabelKey: an empty name part is both "non-empty" and the regex.
        ("example.com/", ["name part must be non-empty", NAME_PART]),
        ("/simple", ["prefix part must be non-empty"]),
    ],
)
def test_label_key_messages_are_apimachinerys_current_ones(key: str, expected: list[str]) -> None:
    assert label_key_errors(key) == expected


@pytest.mark.parametrize(
    "key",
    # content/kube_test.go TestIsLabelKey successCases
    [
        "simple",
        "1234",
        "now-with.dashes-and.dots/simple",
        "1.2.3.4/5678",
        "example.com/Uppercase_Is_OK_123",
        "a" * 63,
        "a" * 253 + "/" + "b" * 63,
    ],
)
def test_valid_label_keys(key: str) -> None:
    assert label_key_errors(key) == []


@pytest.mark.parametrize(
    "key",
    # content/kube_test.go TestIsLabelKey errorCases
    [
        "nospecialchars%^=@",
        "cantendwithadash-",
        "-cantstartwithadash-",
        "only/one/slash",
        "Example.com/abc",
        "example_com/abc",
        "example.com/",
        "/simple",
        "a" * 64,
        "a" * 254 + "/abc",
    ],
)
def test_invalid_label_keys(key: str) -> None:
    assert label_key_errors(key)


def test_a_subdomain_that_is_not_a_label_must_not_contain_dots() -> None:
    # content/dns.go IsDNS1123Label: a value matching the subdomain regex gets this message.
    assert dns_label_errors("a.b") == ["must not contain dots"]
    assert dns_label_errors("A.b") == [DNS_LABEL]
    assert dns_label_errors("a" * 30 + "." + "b" * 40) == [
        "must be no more than 63 bytes",
        "must not contain dots",
    ]


def test_dotted_names_in_validate() -> None:
    item = leaf(
        "a.b",
        path="spec.roles[0]",
        resource_claims=[{"name": "gpu.x", "resourceClaimName": "shared"}],
    )
    assert rendered(Builder(item, all_allowed(namespace="ml.prod")).validate()) == [
        'spec.roles[0].resourceClaims[0].name: Invalid value: "gpu.x": must not contain dots',
        'spec.roles[0]: Invalid value: "a.b": must not contain dots',
        'metadata.namespace: Invalid value: "ml.prod": must not contain dots',
    ]


def _claims_item(*claims: WorkloadPodGroupResourceClaim) -> WorkloadItem:
    return WorkloadItem(
        "w",
        path=FieldPath("spec"),
        input=WorkloadInput(
            resource_claims=ResourceClaimsInput(
                path_elements=("resourceClaims",), pod_group_data=claims
            )
        ),
    )


def test_claim_errors_in_generated_order() -> None:
    # Validate_WorkloadPodGroupResourceClaim: the union, then name, then the references.
    item = _claims_item(WorkloadPodGroupResourceClaim(name=""))
    options = all_allowed(check_api_server_rules=False)
    assert rendered(Builder(item, options).validate()) == [
        'spec.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`,'
        " `resourceClaimTemplateName`",
        "spec.resourceClaims[0].name: Required value",
    ]


def test_a_too_long_topology_reports_only_too_many() -> None:
    # MaxItems(...).MarkShortCircuit(): the items are not validated.
    item = WorkloadItem(
        "w",
        path=FieldPath("spec"),
        input=WorkloadInput(
            constraints=ConstraintsInput(
                path_elements=("constraints",),
                pod_group_data=WorkloadPodGroupSchedulingConstraints(
                    topology=[TopologyConstraint(key=""), TopologyConstraint(key="-bad-")]
                ),
            )
        ),
    )
    options = all_allowed(check_api_server_rules=False)
    assert rendered(Builder(item, options).validate()) == [
        "spec.constraints.topology: Too many: 2: must have at most 1 item"
    ]


def _policy_item(policy: WorkloadPodGroupSchedulingPolicy) -> WorkloadItem:
    return WorkloadItem(
        "w",
        path=FieldPath("spec"),
        input=WorkloadInput(policy=PolicyInput(path_elements=("policy",), pod_group_data=policy)),
    )


def _both(count: int) -> WorkloadPodGroupSchedulingPolicy:
    return WorkloadPodGroupSchedulingPolicy(
        basic=WorkloadPodGroupBasicSchedulingPolicy(),
        gang=WorkloadPodGroupGangSchedulingPolicy(min_count=count),
    )


def test_a_union_whose_members_are_unchanged_is_not_checked_again() -> None:
    # union.go: on update, the same set of members set as before gives no error.
    options = all_allowed(check_api_server_rules=False)
    old, new = _policy_item(_both(2)), _policy_item(_both(3))
    assert Builder(new, options).validate(old_root=old) == []
    # ... but the changed minCount still is validated.
    assert rendered(Builder(_policy_item(_both(0)), options).validate(old_root=old)) == [
        "spec.policy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"
    ]
    # A union whose membership changes is checked.
    only_gang = WorkloadPodGroupSchedulingPolicy(
        gang=WorkloadPodGroupGangSchedulingPolicy(min_count=3)
    )
    assert rendered(Builder(new, options).validate(old_root=_policy_item(only_gang))) == [
        'spec.policy: Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`'
    ]


def test_claim_fields_ratchet_one_by_one() -> None:
    options = all_allowed(check_api_server_rules=False)
    stored = WorkloadPodGroupResourceClaim(
        name="gpu", resource_claim_name="Bad_Name", resource_claim_template_name="t"
    )
    # The invalid, unchanged reference and the unchanged union are not checked again ...
    changed = stored.model_copy(update={"resource_claim_template_name": "u"})
    assert Builder(_claims_item(changed), options).validate(old_root=_claims_item(stored)) == []
    # ... a changed one is.
    renamed_ref = stored.model_copy(update={"resource_claim_template_name": "U"})
    [err] = Builder(_claims_item(renamed_ref), options).validate(old_root=_claims_item(stored))
    assert err.field == "spec.resourceClaims[0].resourceClaimTemplateName"


def test_build_without_a_root_is_upstreams_message() -> None:
    # builder.go: compileWorkloadItemTree(nil) -> validateWorkloadItemTree: "cannot be nil".
    with pytest.raises(BuildError) as err:
        Builder(None, all_allowed()).build_workload()
    assert str(err.value) == "workload item cannot be nil"
    # validate.go: Validate with a nil root.
    assert rendered(Builder(None, all_allowed()).validate()) == [
        "<nil>: Invalid value: null: invalid builder: missing root WorkloadItem"
    ]


@pytest.mark.parametrize(
    ("api_version", "group"),
    # TestGroupVersionParse vectors, and ParseGroupVersion's "" and "/" special cases.
    [
        ("v1", ""),
        ("/v1", ""),
        ("v1/", "v1"),
        ("v1/a", "v1"),
        ("batch/", "batch"),
        ("/", ""),
        ("", ""),
    ],
)
def test_owner_api_version_parses_as_parse_group_version(api_version: str, group: str) -> None:
    owner = job_owner().model_copy(update={"api_version": api_version})
    workload = Builder(leaf("w"), all_allowed(owner=owner)).build_workload()
    assert workload.spec.controller_ref is not None
    assert workload.spec.controller_ref.api_group == group


def test_owner_api_version_with_two_slashes() -> None:
    owner = job_owner().model_copy(update={"api_version": "/v1/"})
    with pytest.raises(BuildError) as err:
        Builder(leaf("w"), all_allowed(owner=owner)).build_workload()
    # "invalid owner apiVersion %q: %w" around "unexpected GroupVersion string: /v1/".
    assert str(err.value) == 'invalid owner apiVersion "/v1/": unexpected GroupVersion string: /v1/'


def test_owner_reference_model_accepts_what_parse_group_version_accepts() -> None:
    assert OwnerReference(api_version="batch/", kind="Job", name="j", uid="u").api_version


def test_options_typed_owner_is_kept() -> None:
    assert BuildOptions(owner=job_owner()).owner == job_owner()


def test_a_template_validate_rejects_is_one_clean_build_error() -> None:
    # union.go: "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`"
    # is what the API server (and validate()) say; build_workload() says it in one line.
    item = leaf(
        "w",
        resource_claims=[
            {"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}
        ],
    )
    with pytest.raises(BuildError) as err:
        Builder(item, all_allowed()).build_workload()
    text = str(err.value)
    assert "\n" not in text and "pydantic" not in text and "http" not in text
    assert text.startswith('workload item "w" cannot be compiled')
    assert ": resourceClaims[0]: Invalid value: " in text
    assert text.endswith(
        ": must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`"
    )
    assert [e.field for e in err.value.errors] == ["resourceClaims[0]"]
