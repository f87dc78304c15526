// core/v1 Pod messages: Pod, PodSpec, Container and what they embed, enough for the bodies kubectl
// and client-go write (`kubectl create deployment`, `kubectl run`). Not covered (skipped as
// unknown fields, so they are lost): affinity, security contexts, lifecycle hooks, DNS config,
// topology spread, ephemeral containers, resource claims, most volume types, pod conditions and
// container statuses.
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {
namespace {

using K = FieldKind;

// --- references and selectors used by env and volumes -------------------------------------
constexpr FieldSpec kObjectFieldSelectorFields[] = {
    scalar(1, "apiVersion", K::kString),
    scalar(2, "fieldPath", K::kString),
};
const MessageSpec kObjectFieldSelector{"ObjectFieldSelector", kObjectFieldSelectorFields};

constexpr FieldSpec kResourceFieldSelectorFields[] = {
    scalar(1, "containerName", K::kString),
    scalar(2, "resource", K::kString),
    scalar(3, "divisor", K::kQuantity),
};
const MessageSpec kResourceFieldSelector{"ResourceFieldSelector", kResourceFieldSelectorFields};

// ConfigMapKeySelector and SecretKeySelector share this layout; the embedded
// LocalObjectReference puts "name" into the selector's own JSON object.
constexpr FieldSpec kKeySelectorFields[] = {
    inlined(1, kLocalObjectReference),
    scalar(2, "key", K::kString),
    scalar(3, "optional", K::kBool, kEmitZero),
};
const MessageSpec kKeySelector{"KeySelector", kKeySelectorFields};

constexpr FieldSpec kEnvVarSourceFields[] = {
    message(1, "fieldRef", kObjectFieldSelector),
    message(2, "resourceFieldRef", kResourceFieldSelector),
    message(3, "configMapKeyRef", kKeySelector),
    message(4, "secretKeyRef", kKeySelector),
};
const MessageSpec kEnvVarSource{"EnvVarSource", kEnvVarSourceFields};

constexpr FieldSpec kEnvVarFields[] = {
    scalar(1, "name", K::kString),
    scalar(2, "value", K::kString),
    message(3, "valueFrom", kEnvVarSource),
};
const MessageSpec kEnvVar{"EnvVar", kEnvVarFields};

// ConfigMapEnvSource and SecretEnvSource.
constexpr FieldSpec kEnvSourceFields[] = {
    inlined(1, kLocalObjectReference),
    scalar(2, "optional", K::kBool, kEmitZero),
};
const MessageSpec kEnvSource{"EnvSource", kEnvSourceFields};

constexpr FieldSpec kEnvFromSourceFields[] = {
    scalar(1, "prefix", K::kString),
    message(2, "configMapRef", kEnvSource),
    message(3, "secretRef", kEnvSource),
};
const MessageSpec kEnvFromSource{"EnvFromSource", kEnvFromSourceFields};

// --- container ------------------------------------------------------------------------------
constexpr FieldSpec kContainerPortFields[] = {
    scalar(1, "name", K::kString),         scalar(2, "hostPort", K::kInt32),
    scalar(3, "containerPort", K::kInt32), scalar(4, "protocol", K::kString),
    scalar(5, "hostIP", K::kString),
};
const MessageSpec kContainerPort{"ContainerPort", kContainerPortFields};

constexpr FieldSpec kResourceRequirementsFields[] = {
    scalar(1, "limits", K::kQuantityMap),
    scalar(2, "requests", K::kQuantityMap),
};
const MessageSpec kResourceRequirements{"ResourceRequirements", kResourceRequirementsFields};

constexpr FieldSpec kVolumeMountFields[] = {
    scalar(1, "name", K::kString),
    scalar(2, "readOnly", K::kBool),
    scalar(3, "mountPath", K::kString),
    scalar(4, "subPath", K::kString),
    scalar(5, "mountPropagation", K::kString, kEmitZero),
    scalar(6, "subPathExpr", K::kString),
    scalar(7, "recursiveReadOnly", K::kString, kEmitZero),
};
const MessageSpec kVolumeMount{"VolumeMount", kVolumeMountFields};

constexpr FieldSpec kExecActionFields[] = {
    scalar(1, "command", K::kString, kRepeated),
};
const MessageSpec kExecAction{"ExecAction", kExecActionFields};

constexpr FieldSpec kHttpHeaderFields[] = {
    scalar(1, "name", K::kString),
    scalar(2, "value", K::kString, kEmitZero),
};
const MessageSpec kHttpHeader{"HTTPHeader", kHttpHeaderFields};

constexpr FieldSpec kHttpGetActionFields[] = {
    scalar(1, "path", K::kString),
    scalar(2, "port", K::kIntOrString),
    scalar(3, "host", K::kString),
    scalar(4, "scheme", K::kString),
    message(5, "httpHeaders", kHttpHeader, kRepeated),
};
const MessageSpec kHttpGetAction{"HTTPGetAction", kHttpGetActionFields};

constexpr FieldSpec kTcpSocketActionFields[] = {
    scalar(1, "port", K::kIntOrString),
    scalar(2, "host", K::kString),
};
const MessageSpec kTcpSocketAction{"TCPSocketAction", kTcpSocketActionFields};

constexpr FieldSpec kGrpcActionFields[] = {
    scalar(1, "port", K::kInt32, kEmitZero),
    scalar(2, "service", K::kString, kEmitZero),
};
const MessageSpec kGrpcAction{"GRPCAction", kGrpcActionFields};

constexpr FieldSpec kProbeHandlerFields[] = {
    message(1, "exec", kExecAction),
    message(2, "httpGet", kHttpGetAction),
    message(3, "tcpSocket", kTcpSocketAction),
    message(4, "grpc", kGrpcAction),
};
const MessageSpec kProbeHandler{"ProbeHandler", kProbeHandlerFields};

constexpr FieldSpec kProbeFields[] = {
    inlined(1, kProbeHandler),
    scalar(2, "initialDelaySeconds", K::kInt32),
    scalar(3, "timeoutSeconds", K::kInt32),
    scalar(4, "periodSeconds", K::kInt32),
    scalar(5, "successThreshold", K::kInt32),
    scalar(6, "failureThreshold", K::kInt32),
    scalar(7, "terminationGracePeriodSeconds", K::kInt64, kEmitZero),
};
const MessageSpec kProbe{"Probe", kProbeFields};

constexpr FieldSpec kContainerFields[] = {
    scalar(1, "name", K::kString),
    scalar(2, "image", K::kString),
    scalar(3, "command", K::kString, kRepeated),
    scalar(4, "args", K::kString, kRepeated),
    scalar(5, "workingDir", K::kString),
    message(6, "ports", kContainerPort, kRepeated),
    message(7, "env", kEnvVar, kRepeated),
    message(8, "resources", kResourceRequirements),
    message(9, "volumeMounts", kVolumeMount, kRepeated),
    message(10, "livenessProbe", kProbe),
    message(11, "readinessProbe", kProbe),
    scalar(13, "terminationMessagePath", K::kString),
    scalar(14, "imagePullPolicy", K::kString),
    scalar(16, "stdin", K::kBool),
    scalar(17, "stdinOnce", K::kBool),
    scalar(18, "tty", K::kBool),
    message(19, "envFrom", kEnvFromSource, kRepeated),
    scalar(20, "terminationMessagePolicy", K::kString),
    message(22, "startupProbe", kProbe),
    scalar(24, "restartPolicy", K::kString, kEmitZero),
};
const MessageSpec kContainer{"Container", kContainerFields};

// --- volumes --------------------------------------------------------------------------------
constexpr FieldSpec kKeyToPathFields[] = {
    scalar(1, "key", K::kString),
    scalar(2, "path", K::kString),
    scalar(3, "mode", K::kInt32, kEmitZero),
};
const MessageSpec kKeyToPath{"KeyToPath", kKeyToPathFields};

constexpr FieldSpec kHostPathVolumeSourceFields[] = {
    scalar(1, "path", K::kString),
    scalar(2, "type", K::kString, kEmitZero),
};
const MessageSpec kHostPathVolumeSource{"HostPathVolumeSource", kHostPathVolumeSourceFields};

constexpr FieldSpec kEmptyDirVolumeSourceFields[] = {
    scalar(1, "medium", K::kString),
    scalar(2, "sizeLimit", K::kQuantity),
};
const MessageSpec kEmptyDirVolumeSource{"EmptyDirVolumeSource", kEmptyDirVolumeSourceFields};

constexpr FieldSpec kSecretVolumeSourceFields[] = {
    scalar(1, "secretName", K::kString),
    message(2, "items", kKeyToPath, kRepeated),
    scalar(3, "defaultMode", K::kInt32, kEmitZero),
    scalar(4, "optional", K::kBool, kEmitZero),
};
const MessageSpec kSecretVolumeSource{"SecretVolumeSource", kSecretVolumeSourceFields};

constexpr FieldSpec kConfigMapVolumeSourceFields[] = {
    inlined(1, kLocalObjectReference),
    message(2, "items", kKeyToPath, kRepeated),
    scalar(3, "defaultMode", K::kInt32, kEmitZero),
    scalar(4, "optional", K::kBool, kEmitZero),
};
const MessageSpec kConfigMapVolumeSource{"ConfigMapVolumeSource", kConfigMapVolumeSourceFields};

constexpr FieldSpec kPersistentVolumeClaimVolumeSourceFields[] = {
    scalar(1, "claimName", K::kString),
    scalar(2, "readOnly", K::kBool),
};
const MessageSpec kPersistentVolumeClaimVolumeSource{"PersistentVolumeClaimVolumeSource",
                                                     kPersistentVolumeClaimVolumeSourceFields};

constexpr FieldSpec kVolumeSourceFields[] = {
    message(1, "hostPath", kHostPathVolumeSource),
    message(2, "emptyDir", kEmptyDirVolumeSource),
    message(6, "secret", kSecretVolumeSource),
    message(10, "persistentVolumeClaim", kPersistentVolumeClaimVolumeSource),
    message(19, "configMap", kConfigMapVolumeSource),
};
const MessageSpec kVolumeSource{"VolumeSource", kVolumeSourceFields};

constexpr FieldSpec kVolumeFields[] = {
    scalar(1, "name", K::kString),
    inlined(2, kVolumeSource),
};
const MessageSpec kVolume{"Volume", kVolumeFields};

// --- pod ------------------------------------------------------------------------------------
constexpr FieldSpec kTolerationFields[] = {
    scalar(1, "key", K::kString),
    scalar(2, "operator", K::kString),
    scalar(3, "value", K::kString),
    scalar(4, "effect", K::kString),
    scalar(5, "tolerationSeconds", K::kInt64, kEmitZero),
};
const MessageSpec kToleration{"Toleration", kTolerationFields};

// Pointer fields (kEmitZero): terminationGracePeriodSeconds, activeDeadlineSeconds,
// automountServiceAccountToken, priority, enableServiceLinks, preemptionPolicy,
// setHostnameAsFQDN, hostUsers, runtimeClassName.
constexpr FieldSpec kPodSpecFields[] = {
    message(1, "volumes", kVolume, kRepeated),
    message(2, "containers", kContainer, kRepeated),
    scalar(3, "restartPolicy", K::kString),
    scalar(4, "terminationGracePeriodSeconds", K::kInt64, kEmitZero),
    scalar(5, "activeDeadlineSeconds", K::kInt64, kEmitZero),
    scalar(6, "dnsPolicy", K::kString),
    scalar(7, "nodeSelector", K::kStringMap),
    scalar(8, "serviceAccountName", K::kString),
    scalar(9, "serviceAccount", K::kString),
    scalar(10, "nodeName", K::kString),
    scalar(11, "hostNetwork", K::kBool),
    scalar(12, "hostPID", K::kBool),
    scalar(13, "hostIPC", K::kBool),
    message(15, "imagePullSecrets", kLocalObjectReference, kRepeated),
    scalar(16, "hostname", K::kString),
    scalar(17, "subdomain", K::kString),
    scalar(19, "schedulerName", K::kString),
    message(20, "initContainers", kContainer, kRepeated),
    scalar(21, "automountServiceAccountToken", K::kBool, kEmitZero),
    message(22, "tolerations", kToleration, kRepeated),
    scalar(24, "priorityClassName", K::kString),
    scalar(25, "priority", K::kInt32, kEmitZero),
    scalar(27, "shareProcessNamespace", K::kBool, kEmitZero),
    scalar(29, "runtimeClassName", K::kString, kEmitZero),
    scalar(30, "enableServiceLinks", K::kBool, kEmitZero),
    scalar(31, "preemptionPolicy", K::kString, kEmitZero),
    scalar(35, "setHostnameAsFQDN", K::kBool, kEmitZero),
    scalar(37, "hostUsers", K::kBool, kEmitZero),
};
const MessageSpec kPodSpec{"PodSpec", kPodSpecFields};

constexpr FieldSpec kPodStatusFields[] = {
    scalar(1, "phase", K::kString),
    scalar(3, "message", K::kString),
    scalar(4, "reason", K::kString),
    scalar(5, "hostIP", K::kString),
    scalar(6, "podIP", K::kString),
    scalar(7, "startTime", K::kTime),
    scalar(9, "qosClass", K::kString),
    scalar(11, "nominatedNodeName", K::kString),
    scalar(17, "observedGeneration", K::kInt64),
};
const MessageSpec kPodStatus{"PodStatus", kPodStatusFields};

constexpr FieldSpec kPodFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kPodSpec),
    message(3, "status", kPodStatus),
};

constexpr FieldSpec kPodTemplateSpecFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kPodSpec),
};

}  // namespace

const MessageSpec kPod{"Pod", kPodFields};
const MessageSpec kPodTemplateSpec{"PodTemplateSpec", kPodTemplateSpecFields};

}  // namespace rg::client::protobuf
