"""The admission chain (``testing/engine/admission/``): its order and where it runs."""

from __future__ import annotations

import pytest

from tests.testing.server_helpers import pod
from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.common.errors import APIStatusError

ALL_ORDERED_PLUGINS = (
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    "Priority",
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "PodGroupProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "PodTopologyLabels",
    "PodGroupWorkloadExists",
    "NodeDeclaredFeatureValidator",
    "JobValidation",
    "PodResizeValidator",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
)
"""``AllOrderedPlugins`` of kubernetes ``pkg/kubeapiserver/options/plugins.go`` (the names its
comments give each ``PluginName``)."""


@pytest.mark.parametrize("auto_create", [False, True])
def test_the_chain_runs_in_kube_apiservers_order(auto_create: bool) -> None:
    names = FakeAPIServer(auto_create_namespaces=auto_create)._engine.admission.names
    assert names, "the chain has plugins"
    positions = [ALL_ORDERED_PLUGINS.index(n) for n in names]
    assert positions == sorted(positions), names
    assert ("NamespaceAutoProvision" in names) is auto_create


def test_admission_refuses_before_storage_finds_the_name_taken() -> None:
    """kube-apiserver's create handler runs the mutating admission before storage's create,
    which alone answers AlreadyExists: a pod the Priority plugin refuses is a 403 even when
    its name is taken (``k8s.io/apiserver/pkg/endpoints/handlers/create.go``)."""
    server = FakeAPIServer()
    server.create_object(
        "", "v1", "pods", {**pod("p"), "metadata": {"name": "p", "namespace": "default"}}
    )
    bad = pod("p")
    bad["metadata"]["namespace"] = "default"
    bad["spec"]["priorityClassName"] = "missing"
    with pytest.raises(APIStatusError) as refused:
        server.create_object("", "v1", "pods", bad)
    assert refused.value.code == 403
    assert "no PriorityClass with name missing was found" in refused.value.status["message"]
