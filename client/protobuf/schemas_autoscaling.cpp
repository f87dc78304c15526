// autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscaler messages
// (k8s.io/api/autoscaling/v2/generated.proto and v1/generated.proto): `kubectl autoscale` sends
// them. Pointer fields and fields without omitempty keep their zero values (kEmitZero).
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {
namespace {

using K = FieldKind;

// kind and name have no omitempty; apiVersion does. The same message in v1 and v2.
constexpr FieldSpec kCrossVersionObjectReferenceFields[] = {
    scalar(1, "kind", K::kString, kEmitZero),
    scalar(2, "name", K::kString, kEmitZero),
    scalar(3, "apiVersion", K::kString),
};
const MessageSpec kCrossVersionObjectReference{"CrossVersionObjectReference",
                                               kCrossVersionObjectReferenceFields};

// The condition of both versions: type and status have no omitempty.
constexpr FieldSpec kConditionFields[] = {
    scalar(1, "type", K::kString, kEmitZero),  scalar(2, "status", K::kString, kEmitZero),
    scalar(3, "lastTransitionTime", K::kTime), scalar(4, "reason", K::kString),
    scalar(5, "message", K::kString),          scalar(6, "observedGeneration", K::kInt64),
};
const MessageSpec kCondition{"HorizontalPodAutoscalerCondition", kConditionFields};

// --- autoscaling/v2 ---

constexpr FieldSpec kMetricIdentifierFields[] = {
    scalar(1, "name", K::kString, kEmitZero),
    message(2, "selector", kLabelSelector),
};
const MessageSpec kMetricIdentifier{"MetricIdentifier", kMetricIdentifierFields};

constexpr FieldSpec kMetricTargetFields[] = {
    scalar(1, "type", K::kString, kEmitZero),
    scalar(2, "value", K::kQuantity),
    scalar(3, "averageValue", K::kQuantity),
    scalar(4, "averageUtilization", K::kInt32, kEmitZero),
};
const MessageSpec kMetricTarget{"MetricTarget", kMetricTargetFields};

constexpr FieldSpec kMetricValueStatusFields[] = {
    scalar(1, "value", K::kQuantity),
    scalar(2, "averageValue", K::kQuantity),
    scalar(3, "averageUtilization", K::kInt32, kEmitZero),
};
const MessageSpec kMetricValueStatus{"MetricValueStatus", kMetricValueStatusFields};

// Resource (1 name, 2 target) and ContainerResource (3 container) sources; their statuses have
// `current` at 2.
constexpr FieldSpec kResourceMetricSourceFields[] = {
    scalar(1, "name", K::kString, kEmitZero),
    message(2, "target", kMetricTarget),
};
const MessageSpec kResourceMetricSource{"ResourceMetricSource", kResourceMetricSourceFields};
constexpr FieldSpec kContainerResourceMetricSourceFields[] = {
    scalar(1, "name", K::kString, kEmitZero),
    message(2, "target", kMetricTarget),
    scalar(3, "container", K::kString, kEmitZero),
};
const MessageSpec kContainerResourceMetricSource{"ContainerResourceMetricSource",
                                                 kContainerResourceMetricSourceFields};
constexpr FieldSpec kResourceMetricStatusFields[] = {
    scalar(1, "name", K::kString, kEmitZero),
    message(2, "current", kMetricValueStatus),
};
const MessageSpec kResourceMetricStatus{"ResourceMetricStatus", kResourceMetricStatusFields};
constexpr FieldSpec kContainerResourceMetricStatusFields[] = {
    scalar(1, "name", K::kString, kEmitZero),
    message(2, "current", kMetricValueStatus),
    scalar(3, "container", K::kString, kEmitZero),
};
const MessageSpec kContainerResourceMetricStatus{"ContainerResourceMetricStatus",
                                                 kContainerResourceMetricStatusFields};

// Pods and External sources: metric (1), target (2); statuses: metric (1), current (2).
constexpr FieldSpec kMetricTargetSourceFields[] = {
    message(1, "metric", kMetricIdentifier),
    message(2, "target", kMetricTarget),
};
const MessageSpec kMetricTargetSource{"PodsMetricSource", kMetricTargetSourceFields};
constexpr FieldSpec kMetricCurrentStatusFields[] = {
    message(1, "metric", kMetricIdentifier),
    message(2, "current", kMetricValueStatus),
};
const MessageSpec kMetricCurrentStatus{"PodsMetricStatus", kMetricCurrentStatusFields};

constexpr FieldSpec kObjectMetricSourceFields[] = {
    message(1, "describedObject", kCrossVersionObjectReference),
    message(2, "target", kMetricTarget),
    message(3, "metric", kMetricIdentifier),
};
const MessageSpec kObjectMetricSource{"ObjectMetricSource", kObjectMetricSourceFields};
constexpr FieldSpec kObjectMetricStatusFields[] = {
    message(1, "metric", kMetricIdentifier),
    message(2, "current", kMetricValueStatus),
    message(3, "describedObject", kCrossVersionObjectReference),
};
const MessageSpec kObjectMetricStatus{"ObjectMetricStatus", kObjectMetricStatusFields};

constexpr FieldSpec kMetricSpecFields[] = {
    scalar(1, "type", K::kString, kEmitZero),
    message(2, "object", kObjectMetricSource),
    message(3, "pods", kMetricTargetSource),
    message(4, "resource", kResourceMetricSource),
    message(5, "external", kMetricTargetSource),
    message(7, "containerResource", kContainerResourceMetricSource),
};
const MessageSpec kMetricSpec{"MetricSpec", kMetricSpecFields};

constexpr FieldSpec kMetricStatusFields[] = {
    scalar(1, "type", K::kString, kEmitZero),
    message(2, "object", kObjectMetricStatus),
    message(3, "pods", kMetricCurrentStatus),
    message(4, "resource", kResourceMetricStatus),
    message(5, "external", kMetricCurrentStatus),
    message(7, "containerResource", kContainerResourceMetricStatus),
};
const MessageSpec kMetricStatus{"MetricStatus", kMetricStatusFields};

// value and periodSeconds have no omitempty.
constexpr FieldSpec kScalingPolicyFields[] = {
    scalar(1, "type", K::kString, kEmitZero),
    scalar(2, "value", K::kInt32, kEmitZero),
    scalar(3, "periodSeconds", K::kInt32, kEmitZero),
};
const MessageSpec kScalingPolicy{"HPAScalingPolicy", kScalingPolicyFields};

// stabilizationWindowSeconds and selectPolicy are pointers.
constexpr FieldSpec kScalingRulesFields[] = {
    scalar(1, "selectPolicy", K::kString, kEmitZero),
    message(2, "policies", kScalingPolicy, kRepeated),
    scalar(3, "stabilizationWindowSeconds", K::kInt32, kEmitZero),
    scalar(4, "tolerance", K::kQuantity),
};
const MessageSpec kScalingRules{"HPAScalingRules", kScalingRulesFields};

constexpr FieldSpec kBehaviorFields[] = {
    message(1, "scaleUp", kScalingRules),
    message(2, "scaleDown", kScalingRules),
};
const MessageSpec kBehavior{"HorizontalPodAutoscalerBehavior", kBehaviorFields};

// minReplicas is a pointer; maxReplicas has no omitempty.
constexpr FieldSpec kSpecV2Fields[] = {
    message(1, "scaleTargetRef", kCrossVersionObjectReference),
    scalar(2, "minReplicas", K::kInt32, kEmitZero),
    scalar(3, "maxReplicas", K::kInt32, kEmitZero),
    message(4, "metrics", kMetricSpec, kRepeated),
    message(5, "behavior", kBehavior),
};
const MessageSpec kSpecV2{"HorizontalPodAutoscalerSpec", kSpecV2Fields};

// observedGeneration is a pointer; desiredReplicas has no omitempty.
constexpr FieldSpec kStatusV2Fields[] = {
    scalar(1, "observedGeneration", K::kInt64, kEmitZero),
    scalar(2, "lastScaleTime", K::kTime),
    scalar(3, "currentReplicas", K::kInt32),
    scalar(4, "desiredReplicas", K::kInt32, kEmitZero),
    message(5, "currentMetrics", kMetricStatus, kRepeated),
    message(6, "conditions", kCondition, kRepeated),
};
const MessageSpec kStatusV2{"HorizontalPodAutoscalerStatus", kStatusV2Fields};

constexpr FieldSpec kHorizontalPodAutoscalerV2Fields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kSpecV2),
    message(3, "status", kStatusV2),
};

// --- autoscaling/v1: one CPU target instead of metrics ---

constexpr FieldSpec kSpecV1Fields[] = {
    message(1, "scaleTargetRef", kCrossVersionObjectReference),
    scalar(2, "minReplicas", K::kInt32, kEmitZero),
    scalar(3, "maxReplicas", K::kInt32, kEmitZero),
    scalar(4, "targetCPUUtilizationPercentage", K::kInt32, kEmitZero),
};
const MessageSpec kSpecV1{"HorizontalPodAutoscalerSpec", kSpecV1Fields};

// currentReplicas and desiredReplicas have no omitempty in v1.
constexpr FieldSpec kStatusV1Fields[] = {
    scalar(1, "observedGeneration", K::kInt64, kEmitZero),
    scalar(2, "lastScaleTime", K::kTime),
    scalar(3, "currentReplicas", K::kInt32, kEmitZero),
    scalar(4, "desiredReplicas", K::kInt32, kEmitZero),
    scalar(5, "currentCPUUtilizationPercentage", K::kInt32, kEmitZero),
};
const MessageSpec kStatusV1{"HorizontalPodAutoscalerStatus", kStatusV1Fields};

constexpr FieldSpec kHorizontalPodAutoscalerV1Fields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kSpecV1),
    message(3, "status", kStatusV1),
};

}  // namespace

const MessageSpec kHorizontalPodAutoscalerV2{"HorizontalPodAutoscaler",
                                             kHorizontalPodAutoscalerV2Fields};
const MessageSpec kHorizontalPodAutoscalerV1{"HorizontalPodAutoscaler",
                                             kHorizontalPodAutoscalerV1Fields};

}  // namespace rg::client::protobuf
