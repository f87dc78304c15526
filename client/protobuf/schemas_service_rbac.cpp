// core/v1 Service (k8s.io/api/core/v1/generated.proto) and the rbac.authorization.k8s.io/v1
// kinds (k8s.io/api/rbac/v1/generated.proto): what `kubectl create service|role|clusterrole|
// rolebinding|clusterrolebinding` and `kubectl expose` send through typed clients.
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {
namespace {

using K = FieldKind;

constexpr FieldSpec kServicePortFields[] = {
    scalar(1, "name", K::kString),    scalar(2, "protocol", K::kString),
    scalar(3, "port", K::kInt32),     scalar(4, "targetPort", K::kIntOrString),
    scalar(5, "nodePort", K::kInt32), scalar(6, "appProtocol", K::kString),
};
const MessageSpec kServicePort{"ServicePort", kServicePortFields};

constexpr FieldSpec kClientIPConfigFields[] = {
    scalar(1, "timeoutSeconds", K::kInt32, kEmitZero),
};
const MessageSpec kClientIPConfig{"ClientIPConfig", kClientIPConfigFields};

constexpr FieldSpec kSessionAffinityConfigFields[] = {
    message(1, "clientIP", kClientIPConfig),
};
const MessageSpec kSessionAffinityConfig{"SessionAffinityConfig", kSessionAffinityConfigFields};

// allocateLoadBalancerNodePorts, ipFamilyPolicy, internalTrafficPolicy and
// trafficDistribution are pointers: a present zero value is kept.
constexpr FieldSpec kServiceSpecFields[] = {
    message(1, "ports", kServicePort, kRepeated),
    scalar(2, "selector", K::kStringMap),
    scalar(3, "clusterIP", K::kString),
    scalar(4, "type", K::kString),
    scalar(5, "externalIPs", K::kString, kRepeated),
    scalar(7, "sessionAffinity", K::kString),
    scalar(8, "loadBalancerIP", K::kString),
    scalar(9, "loadBalancerSourceRanges", K::kString, kRepeated),
    scalar(10, "externalName", K::kString),
    scalar(11, "externalTrafficPolicy", K::kString),
    scalar(12, "healthCheckNodePort", K::kInt32),
    scalar(13, "publishNotReadyAddresses", K::kBool),
    message(14, "sessionAffinityConfig", kSessionAffinityConfig),
    scalar(17, "ipFamilyPolicy", K::kString, kEmitZero),
    scalar(18, "clusterIPs", K::kString, kRepeated),
    scalar(19, "ipFamilies", K::kString, kRepeated),
    scalar(20, "allocateLoadBalancerNodePorts", K::kBool, kEmitZero),
    scalar(21, "loadBalancerClass", K::kString, kEmitZero),
    scalar(22, "internalTrafficPolicy", K::kString, kEmitZero),
    scalar(23, "trafficDistribution", K::kString, kEmitZero),
};
const MessageSpec kServiceSpec{"ServiceSpec", kServiceSpecFields};

// Service.status is the server's (load balancer ingress, conditions): not decoded.
constexpr FieldSpec kServiceFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kServiceSpec),
};

constexpr FieldSpec kPolicyRuleFields[] = {
    scalar(1, "verbs", K::kString, kRepeated),
    scalar(2, "apiGroups", K::kString, kRepeated),
    scalar(3, "resources", K::kString, kRepeated),
    scalar(4, "resourceNames", K::kString, kRepeated),
    scalar(5, "nonResourceURLs", K::kString, kRepeated),
};
const MessageSpec kPolicyRule{"PolicyRule", kPolicyRuleFields};

constexpr FieldSpec kAggregationRuleFields[] = {
    message(1, "clusterRoleSelectors", kLabelSelector, kRepeated),
};
const MessageSpec kAggregationRule{"AggregationRule", kAggregationRuleFields};

constexpr FieldSpec kSubjectFields[] = {
    scalar(1, "kind", K::kString),
    scalar(2, "apiGroup", K::kString),
    scalar(3, "name", K::kString),
    scalar(4, "namespace", K::kString),
};
const MessageSpec kSubject{"Subject", kSubjectFields};

constexpr FieldSpec kRoleRefFields[] = {
    scalar(1, "apiGroup", K::kString),
    scalar(2, "kind", K::kString),
    scalar(3, "name", K::kString),
};
const MessageSpec kRoleRef{"RoleRef", kRoleRefFields};

constexpr FieldSpec kRoleFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "rules", kPolicyRule, kRepeated),
};

constexpr FieldSpec kClusterRoleFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "rules", kPolicyRule, kRepeated),
    message(3, "aggregationRule", kAggregationRule),
};

constexpr FieldSpec kBindingFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "subjects", kSubject, kRepeated),
    message(3, "roleRef", kRoleRef),
};

}  // namespace

const MessageSpec kService{"Service", kServiceFields};
const MessageSpec kRole{"Role", kRoleFields};
const MessageSpec kClusterRole{"ClusterRole", kClusterRoleFields};
const MessageSpec kRoleBinding{"RoleBinding", kBindingFields};
const MessageSpec kClusterRoleBinding{"ClusterRoleBinding", kBindingFields};

}  // namespace rg::client::protobuf
