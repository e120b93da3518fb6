"""A pod template as ``json.Marshal`` writes Kubernetes' internal ``core.PodTemplateSpec``.

Since 1.34 apimachinery renders a bad struct value in a field error as its JSON
(``field.Error.ErrorBody``). Validation runs on the *internal* types (``pkg/apis/core``), which
have no JSON tags: the keys are the Go field names in declaration order, every field is
written (no ``omitempty``), nil pointers, slices and maps are ``null``, map keys are sorted.
Embedded structs are flattened; the embedded ``metav1`` types keep their JSON tags.
So a Job's changed template is rendered in ``spec.template: Invalid value: {...}: field is
immutable`` as, e.g., ``{"labels":{...},"Spec":{"Volumes":null,"InitContainers":null,...}}``.

The layouts are those of 1.36.3's ``pkg/apis/core/types.go`` with 1.37's new fields
appended, as 1.37 appended them to the ``core/v1`` types. The conversion from ``v1``
(``pkg/apis/core/v1/conversion.go``) moves the pod's host namespace fields into its security
context, reads ``serviceAccount`` as ``serviceAccountName`` and drops the init-container
annotations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .gojson import marshal

__all__ = ["HOST_FIELDS", "LAYOUTS", "Field", "converted", "internal_json", "is_tagged", "layout"]

_CONTAINER: Final = (
    "Name Image Command:* Args:* WorkingDir Ports:[ContainerPort] EnvFrom:[EnvFromSource]"
    " Env:[EnvVar] Resources:ResourceRequirements ResizePolicy:[ContainerResizePolicy]"
    " RestartPolicy:* RestartPolicyRules:[ContainerRestartRule] VolumeMounts:[VolumeMount]"
    " VolumeDevices:[VolumeDevice] LivenessProbe:*Probe ReadinessProbe:*Probe"
    " StartupProbe:*Probe Lifecycle:*Lifecycle TerminationMessagePath"
    " TerminationMessagePolicy ImagePullPolicy SecurityContext:*SecurityContext Stdin:b"
    " StdinOnce:b TTY:b"
)
_HANDLER: Final = "Exec:*ExecAction HTTPGet:*HTTPGetAction TCPSocket:*TCPSocketAction"

# One entry per Go struct: its fields in declaration order. ``Name`` is a string (zero
# ``""``); ``Name:i`` an integer or int-or-string (zero ``0``); ``Name:b`` a bool;
# ``Name:q`` a ``resource.Quantity`` (zero ``"0"``); ``Name:*`` a pointer, slice or map of
# scalars (zero ``null``); ``Name:T``, ``Name:*T`` and ``Name:[T]`` a struct, a pointer to
# one and a slice of them; ``^T`` an embedded struct (``^T=key`` when v1 nests it under
# ``key``). ``Name=key`` gives the v1 JSON name where it is not the Go name's camel case.
# A layout starting with ``@`` is a ``metav1`` type: its tokens are JSON names, ``?`` marks
# ``omitempty`` and ``~`` ``omitempty`` on a pointer or ``omitzero`` (left out when null).
LAYOUTS: Final[dict[str, str]] = {
    "PodTemplateSpec": "^ObjectMeta=metadata Spec:PodSpec",
    "PodSpec": (
        "Volumes:[Volume] InitContainers:[Container] Containers:[Container]"
        " EphemeralContainers:[EphemeralContainer] RestartPolicy"
        " TerminationGracePeriodSeconds:* ActiveDeadlineSeconds:* DNSPolicy NodeSelector:*"
        " ServiceAccountName AutomountServiceAccountToken:* NodeName"
        " SecurityContext:*PodSecurityContext ImagePullSecrets:[LocalObjectReference]"
        " Hostname Subdomain SetHostnameAsFQDN:* Affinity:*Affinity SchedulerName"
        " Tolerations:[Toleration] HostAliases:[HostAlias] PriorityClassName Priority:*"
        " PreemptionPolicy:* DNSConfig:*PodDNSConfig ReadinessGates:[PodReadinessGate]"
        " RuntimeClassName:* Overhead:* EnableServiceLinks:*"
        " TopologySpreadConstraints:[TopologySpreadConstraint] OS:*PodOS"
        " SchedulingGates:[PodSchedulingGate] ResourceClaims:[PodResourceClaim]"
        " Resources:*ResourceRequirements HostnameOverride:*"
        " SchedulingGroup:*PodSchedulingGroup EvictionResponders:[EvictionResponder]"
    ),
    "Volume": "Name ^VolumeSource",
    "Container": _CONTAINER,
    "EphemeralContainer": "^EphemeralContainerCommon TargetContainerName",
    "EphemeralContainerCommon": _CONTAINER,
    "PodSecurityContext": (
        "HostNetwork:b HostPID:b HostIPC:b ShareProcessNamespace:* HostUsers:*"
        " SELinuxOptions:*SELinuxOptions WindowsOptions:*WindowsSecurityContextOptions"
        " RunAsUser:* RunAsGroup:* RunAsNonRoot:* SupplementalGroups:*"
        " SupplementalGroupsPolicy:* FSGroup:* FSGroupChangePolicy:* Sysctls:[Sysctl]"
        " SeccompProfile:*SeccompProfile AppArmorProfile:*AppArmorProfile"
        " SELinuxChangePolicy:*"
    ),
    "LocalObjectReference": "Name",
    "Affinity": (
        "NodeAffinity:*NodeAffinity PodAffinity:*PodAffinity PodAntiAffinity:*PodAntiAffinity"
    ),
    "Toleration": "Key Operator Value Effect TolerationSeconds:*",
    "HostAlias": "IP Hostnames:*",
    "PodDNSConfig": "Nameservers:* Searches:* Options:[PodDNSConfigOption]",
    "PodReadinessGate": "ConditionType",
    "TopologySpreadConstraint": (
        "MaxSkew:i TopologyKey WhenUnsatisfiable LabelSelector:*LabelSelector MinDomains:*"
        " NodeAffinityPolicy:* NodeTaintsPolicy:* MatchLabelKeys:*"
    ),
    "PodOS": "Name",
    "PodSchedulingGate": "Name",
    "PodResourceClaim": "Name ResourceClaimName:* ResourceClaimTemplateName:*",
    "ResourceRequirements": "Limits:* Requests:* Claims:[ResourceClaim]",
    "PodSchedulingGroup": "PodGroupName:*",
    "EvictionResponder": "Name Priority:*",
    "VolumeSource": (
        "HostPath:*HostPathVolumeSource EmptyDir:*EmptyDirVolumeSource"
        " GCEPersistentDisk:*GCEPersistentDiskVolumeSource"
        " AWSElasticBlockStore:*AWSElasticBlockStoreVolumeSource GitRepo:*GitRepoVolumeSource"
        " Secret:*SecretVolumeSource NFS:*NFSVolumeSource ISCSI:*ISCSIVolumeSource"
        " Glusterfs:*GlusterfsVolumeSource"
        " PersistentVolumeClaim:*PersistentVolumeClaimVolumeSource RBD:*RBDVolumeSource"
        " Quobyte:*QuobyteVolumeSource FlexVolume:*FlexVolumeSource Cinder:*CinderVolumeSource"
        " CephFS=cephfs:*CephFSVolumeSource Flocker:*FlockerVolumeSource"
        " DownwardAPI:*DownwardAPIVolumeSource FC:*FCVolumeSource"
        " AzureFile:*AzureFileVolumeSource ConfigMap:*ConfigMapVolumeSource"
        " VsphereVolume:*VsphereVirtualDiskVolumeSource AzureDisk:*AzureDiskVolumeSource"
        " PhotonPersistentDisk:*PhotonPersistentDiskVolumeSource"
        " Projected:*ProjectedVolumeSource PortworxVolume:*PortworxVolumeSource"
        " ScaleIO:*ScaleIOVolumeSource StorageOS=storageos:*StorageOSVolumeSource"
        " CSI:*CSIVolumeSource Ephemeral:*EphemeralVolumeSource Image:*ImageVolumeSource"
    ),
    "ContainerPort": "Name HostPort:i ContainerPort:i Protocol HostIP",
    "EnvFromSource": "Prefix ConfigMapRef:*ConfigMapEnvSource SecretRef:*SecretEnvSource",
    "EnvVar": "Name Value ValueFrom:*EnvVarSource",
    "ContainerResizePolicy": "ResourceName RestartPolicy",
    "ContainerRestartRule": "Action ExitCodes:*ContainerRestartRuleOnExitCodes",
    "VolumeMount": (
        "Name ReadOnly:b RecursiveReadOnly:* MountPath SubPath MountPropagation:* SubPathExpr"
        " BindMountOptions:*"
    ),
    "VolumeDevice": "Name DevicePath",
    "Probe": (
        "^ProbeHandler InitialDelaySeconds:i TimeoutSeconds:i PeriodSeconds:i"
        " SuccessThreshold:i FailureThreshold:i TerminationGracePeriodSeconds:*"
    ),
    "Lifecycle": "PostStart:*LifecycleHandler PreStop:*LifecycleHandler StopSignal:*",
    "SecurityContext": (
        "Capabilities:*Capabilities Privileged:* SELinuxOptions:*SELinuxOptions"
        " WindowsOptions:*WindowsSecurityContextOptions RunAsUser:* RunAsGroup:*"
        " RunAsNonRoot:* ReadOnlyRootFilesystem:* AllowPrivilegeEscalation:* ProcMount:*"
        " SeccompProfile:*SeccompProfile AppArmorProfile:*AppArmorProfile"
    ),
    "SELinuxOptions": "User Role Type Level",
    "WindowsSecurityContextOptions": (
        "GMSACredentialSpecName:* GMSACredentialSpec:* RunAsUserName:* HostProcess:*"
    ),
    "Sysctl": "Name Value",
    "SeccompProfile": "Type LocalhostProfile:*",
    "AppArmorProfile": "Type LocalhostProfile:*",
    "NodeAffinity": (
        "RequiredDuringSchedulingIgnoredDuringExecution:*NodeSelector"
        " PreferredDuringSchedulingIgnoredDuringExecution:[PreferredSchedulingTerm]"
    ),
    "PodAffinity": (
        "RequiredDuringSchedulingIgnoredDuringExecution:[PodAffinityTerm]"
        " PreferredDuringSchedulingIgnoredDuringExecution:[WeightedPodAffinityTerm]"
    ),
    "PodAntiAffinity": (
        "RequiredDuringSchedulingIgnoredDuringExecution:[PodAffinityTerm]"
        " PreferredDuringSchedulingIgnoredDuringExecution:[WeightedPodAffinityTerm]"
    ),
    "PodDNSConfigOption": "Name Value:*",
    "ResourceClaim": "Name Request",
    "HostPathVolumeSource": "Path Type:*",
    "EmptyDirVolumeSource": "Medium SizeLimit:* Mode:*",
    "GCEPersistentDiskVolumeSource": "PDName FSType Partition:i ReadOnly:b",
    "AWSElasticBlockStoreVolumeSource": "VolumeID FSType Partition:i ReadOnly:b",
    "GitRepoVolumeSource": "Repository Revision Directory",
    "SecretVolumeSource": ("SecretName Items:[KeyToPath] DefaultMode:* Optional:* DefaultUser:*"),
    "NFSVolumeSource": "Server Path ReadOnly:b",
    "ISCSIVolumeSource": (
        "TargetPortal IQN Lun:i ISCSIInterface FSType ReadOnly:b Portals:*"
        " DiscoveryCHAPAuth=chapAuthDiscovery:b SessionCHAPAuth=chapAuthSession:b"
        " SecretRef:*LocalObjectReference InitiatorName:*"
    ),
    "GlusterfsVolumeSource": "EndpointsName=endpoints Path ReadOnly:b",
    "PersistentVolumeClaimVolumeSource": "ClaimName ReadOnly:b",
    "RBDVolumeSource": (
        "CephMonitors=monitors:* RBDImage=image FSType RBDPool=pool RadosUser=user Keyring"
        " SecretRef:*LocalObjectReference ReadOnly:b"
    ),
    "QuobyteVolumeSource": "Registry Volume ReadOnly:b User Group Tenant",
    "FlexVolumeSource": "Driver FSType SecretRef:*LocalObjectReference ReadOnly:b Options:*",
    "CinderVolumeSource": "VolumeID FSType ReadOnly:b SecretRef:*LocalObjectReference",
    "CephFSVolumeSource": (
        "Monitors:* Path User SecretFile SecretRef:*LocalObjectReference ReadOnly:b"
    ),
    "FlockerVolumeSource": "DatasetName DatasetUUID",
    "DownwardAPIVolumeSource": "Items:[DownwardAPIVolumeFile] DefaultMode:* DefaultUser:*",
    "FCVolumeSource": "TargetWWNs:* Lun:* FSType ReadOnly:b WWIDs=wwids:*",
    "AzureFileVolumeSource": "SecretName ShareName ReadOnly:b",
    "ConfigMapVolumeSource": (
        "^LocalObjectReference Items:[KeyToPath] DefaultMode:* Optional:* DefaultUser:*"
    ),
    "VsphereVirtualDiskVolumeSource": "VolumePath FSType StoragePolicyName StoragePolicyID",
    "AzureDiskVolumeSource": (
        "DiskName DataDiskURI=diskURI CachingMode:* FSType:* ReadOnly:* Kind:*"
    ),
    "PhotonPersistentDiskVolumeSource": "PdID FSType",
    "ProjectedVolumeSource": "Sources:[VolumeProjection] DefaultMode:* DefaultUser:*",
    "PortworxVolumeSource": "VolumeID FSType ReadOnly:b",
    "ScaleIOVolumeSource": (
        "Gateway System SecretRef:*LocalObjectReference SSLEnabled:b ProtectionDomain"
        " StoragePool StorageMode VolumeName FSType ReadOnly:b"
    ),
    "StorageOSVolumeSource": (
        "VolumeName VolumeNamespace FSType ReadOnly:b SecretRef:*LocalObjectReference"
    ),
    "CSIVolumeSource": (
        "Driver ReadOnly:* FSType:* VolumeAttributes:* NodePublishSecretRef:*LocalObjectReference"
    ),
    "EphemeralVolumeSource": "VolumeClaimTemplate:*PersistentVolumeClaimTemplate",
    "ImageVolumeSource": "Reference PullPolicy",
    "ConfigMapEnvSource": "^LocalObjectReference Optional:*",
    "SecretEnvSource": "^LocalObjectReference Optional:*",
    "EnvVarSource": (
        "FieldRef:*ObjectFieldSelector ResourceFieldRef:*ResourceFieldSelector"
        " ConfigMapKeyRef:*ConfigMapKeySelector SecretKeyRef:*SecretKeySelector"
        " FileKeyRef:*FileKeySelector"
    ),
    "ContainerRestartRuleOnExitCodes": "Operator Values:*",
    "ProbeHandler": _HANDLER + " GRPC:*GRPCAction",
    "LifecycleHandler": _HANDLER + " Sleep:*SleepAction",
    "Capabilities": "Add:* Drop:*",
    "NodeSelector": "NodeSelectorTerms:[NodeSelectorTerm]",
    "PreferredSchedulingTerm": "Weight:i Preference:NodeSelectorTerm",
    "PodAffinityTerm": (
        "LabelSelector:*LabelSelector Namespaces:* TopologyKey"
        " NamespaceSelector:*LabelSelector MatchLabelKeys:* MismatchLabelKeys:*"
    ),
    "WeightedPodAffinityTerm": "Weight:i PodAffinityTerm:PodAffinityTerm",
    "KeyToPath": "Key Path Mode:* User:*",
    "DownwardAPIVolumeFile": (
        "Path FieldRef:*ObjectFieldSelector ResourceFieldRef:*ResourceFieldSelector Mode:* User:*"
    ),
    "VolumeProjection": (
        "Secret:*SecretProjection DownwardAPI:*DownwardAPIProjection"
        " ConfigMap:*ConfigMapProjection ServiceAccountToken:*ServiceAccountTokenProjection"
        " ClusterTrustBundle:*ClusterTrustBundleProjection"
        " PodCertificate:*PodCertificateProjection"
    ),
    "PersistentVolumeClaimTemplate": "^ObjectMeta=metadata Spec:PersistentVolumeClaimSpec",
    "ObjectFieldSelector": "APIVersion FieldPath",
    "ResourceFieldSelector": "ContainerName Resource Divisor:q",
    "ConfigMapKeySelector": "^LocalObjectReference Key Optional:*",
    "SecretKeySelector": "^LocalObjectReference Key Optional:*",
    "FileKeySelector": "VolumeName Path Key Optional:*",
    "ExecAction": "Command:*",
    "HTTPGetAction": "Path Port:i Host Scheme HTTPHeaders:[HTTPHeader] Protocol:*",
    "TCPSocketAction": "Port:i Host",
    "GRPCAction": "Port:i Service:* Mode:*",
    "SleepAction": "Seconds:i",
    "NodeSelectorTerm": (
        "MatchExpressions:[NodeSelectorRequirement] MatchFields:[NodeSelectorRequirement]"
    ),
    "SecretProjection": "^LocalObjectReference Items:[KeyToPath] Optional:*",
    "DownwardAPIProjection": "Items:[DownwardAPIVolumeFile]",
    "ConfigMapProjection": "^LocalObjectReference Items:[KeyToPath] Optional:*",
    "ServiceAccountTokenProjection": "Audience ExpirationSeconds:i Path User:*",
    "ClusterTrustBundleProjection": (
        "Name:* SignerName:* LabelSelector:*LabelSelector Optional:* Path User:*"
    ),
    "PodCertificateProjection": (
        "SignerName KeyType MaxExpirationSeconds:* CredentialBundlePath KeyPath"
        " CertificateChainPath UserAnnotations:* User:*"
    ),
    "PersistentVolumeClaimSpec": (
        "AccessModes:* Selector:*LabelSelector Resources:VolumeResourceRequirements"
        " VolumeName StorageClassName:* VolumeMode:* DataSource:*TypedLocalObjectReference"
        " DataSourceRef:*TypedObjectReference VolumeAttributesClassName:*"
    ),
    "HTTPHeader": "Name Value",
    "NodeSelectorRequirement": "Key Operator Values:*",
    "VolumeResourceRequirements": "Limits:* Requests:*",
    "TypedLocalObjectReference": "APIGroup:* Kind Name",
    "TypedObjectReference": "APIGroup:* Kind Name Namespace:*",
    # metav1 (k8s.io/apimachinery pkg/apis/meta/v1/types.go), JSON-tagged.
    "ObjectMeta": (
        "@name? generateName? namespace? selfLink? uid? resourceVersion? generation?"
        " creationTimestamp~ deletionTimestamp~ deletionGracePeriodSeconds~ labels?"
        " annotations? ownerReferences?:[OwnerReference] finalizers?"
        " managedFields?:[ManagedFieldsEntry]"
    ),
    "OwnerReference": "@apiVersion kind name uid controller~ blockOwnerDeletion~",
    "ManagedFieldsEntry": (
        "@manager? operation? apiVersion? time~ fieldsType? fieldsV1~:raw subresource?"
    ),
    "LabelSelector": "@matchLabels? matchExpressions?:[LabelSelectorRequirement]",
    "LabelSelectorRequirement": "@key operator values?",
}

_ZEROS: Final = {"": '""', "i": "0", "b": "false", "q": '"0"', "*": "null"}
_TOKEN: Final = re.compile(
    r"(?P<embed>\^)?(?P<name>\w+)(?P<omit>[?~])?(?:=(?P<key>\w+))?(?::(?P<kind>\S+))?"
)


@dataclass(frozen=True)
class Field:
    """One Go field: the key it is written under, the v1 key it is read from, its kind."""

    name: str
    key: str
    kind: str
    embedded: bool = False
    omit: str = ""


@dataclass(frozen=True)
class _Layout:
    tagged: bool
    fields: tuple[Field, ...]


def _camel(go_name: str) -> str:
    """The v1 JSON name of a Go field: its leading capitals lower-cased (``HTTPGet`` is
    ``httpGet``, ``IP`` is ``ip``)."""
    run = len(go_name) - len(go_name.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if run == len(go_name):
        return go_name.lower()
    cut = max(run - 1, 1)
    return go_name[:cut].lower() + go_name[cut:]


def _parse(spec: str) -> _Layout:
    tagged = spec.startswith("@")
    fields = []
    for token in spec.lstrip("@").split():
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise ValueError(f"bad layout token {token!r}")
        name, kind = match["name"], match["kind"] or ""
        if match["embed"]:
            fields.append(Field(name, match["key"] or "", name, embedded=True))
        else:
            key = match["key"] or (name if tagged else _camel(name))
            fields.append(Field(name, key, kind, omit=match["omit"] or ""))
    return _Layout(tagged, tuple(fields))


_PARSED: Final = {name: _parse(spec) for name, spec in LAYOUTS.items()}


def layout(type_name: str) -> tuple[Field, ...]:
    """The fields of an internal type, in declaration order."""
    return _PARSED[type_name].fields


_INIT_CONTAINER_ANNOTATIONS: Final = frozenset(
    {
        "pod.beta.kubernetes.io/init-containers",
        "pod.alpha.kubernetes.io/init-containers",
        "pod.beta.kubernetes.io/init-container-statuses",
        "pod.alpha.kubernetes.io/init-container-statuses",
    }
)
# v1 keeps these on the PodSpec; the internal type moves them into its security context.
HOST_FIELDS: Final = ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "hostUsers")


def _pod_template(template: dict[str, Any]) -> dict[str, Any]:
    meta = template.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("annotations"), dict):
        return template
    annotations = {
        k: v for k, v in meta["annotations"].items() if k not in _INIT_CONTAINER_ANNOTATIONS
    }
    return {**template, "metadata": {**meta, "annotations": annotations}}


def _pod_spec(spec: dict[str, Any]) -> dict[str, Any]:
    context = spec.get("securityContext")
    context = dict(context) if isinstance(context, dict) else {}
    for key in HOST_FIELDS:
        context[key] = spec.get(key)
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    return {**spec, "securityContext": context, "serviceAccountName": account}


_CONVERSIONS: Final[dict[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "PodTemplateSpec": _pod_template,
    "PodSpec": _pod_spec,
}


def is_tagged(type_name: str) -> bool:
    """Whether the type is a JSON-tagged ``metav1`` type (its fields named by their JSON)."""
    return _PARSED[type_name].tagged


def converted(type_name: str, value: dict[str, Any]) -> dict[str, Any]:
    """``value`` (v1 JSON) with the v1-to-internal conversion of its type applied, if any."""
    convert = _CONVERSIONS.get(type_name)
    return value if convert is None else convert(value)


def internal_json(type_name: str, value: Any) -> str:
    """``value`` (the ``v1`` JSON of ``type_name``, as stored) as ``json.Marshal`` writes the
    internal Go struct it converts to."""
    parts: list[str] = []
    _fields(type_name, value if isinstance(value, dict) else {}, parts)
    return "{" + ",".join(parts) + "}"


def _fields(type_name: str, value: dict[str, Any], parts: list[str]) -> None:
    value = converted(type_name, value)
    shape = _PARSED[type_name]
    for field in shape.fields:
        if field.embedded:
            inner = value.get(field.key) if field.key else value
            _fields(field.kind, inner if isinstance(inner, dict) else {}, parts)
            continue
        item = value.get(field.key)
        if _omitted(field.omit, item):
            continue
        name = field.key if shape.tagged else field.name
        parts.append(marshal(name) + ":" + _value(field.kind, item))


def _omitted(omit: str, item: Any) -> bool:
    if omit == "~":
        return item is None
    return omit == "?" and item in (None, "", 0, False, {}, [])


def _value(kind: str, item: Any) -> str:
    if kind in _ZEROS or kind == "raw":
        if item is None:
            return _ZEROS.get(kind, "null")
        return marshal(item, sort_keys=kind != "raw")
    pointer, listed = kind.startswith("*"), kind.startswith("[")
    type_name = kind.strip("*[]")
    if listed:
        if not isinstance(item, list):
            return "null" if item is None else marshal(item)
        return "[" + ",".join(internal_json(type_name, x) for x in item) + "]"
    if pointer and item is None:
        return "null"
    if item is not None and not isinstance(item, dict):
        return marshal(item)
    return internal_json(type_name, item)
