// apps/v1 Deployment messages (k8s.io/api/apps/v1/generated.proto) and policy/v1 Eviction and
// PodDisruptionBudget
// (k8s.io/api/policy/v1/generated.proto), the workload writes kubectl sends.
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {
namespace {

using K = FieldKind;

constexpr FieldSpec kRollingUpdateDeploymentFields[] = {
    scalar(1, "maxUnavailable", K::kIntOrString),
    scalar(2, "maxSurge", K::kIntOrString),
};
const MessageSpec kRollingUpdateDeployment{"RollingUpdateDeployment",
                                           kRollingUpdateDeploymentFields};

constexpr FieldSpec kDeploymentStrategyFields[] = {
    scalar(1, "type", K::kString),
    message(2, "rollingUpdate", kRollingUpdateDeployment),
};
const MessageSpec kDeploymentStrategy{"DeploymentStrategy", kDeploymentStrategyFields};

// replicas, revisionHistoryLimit and progressDeadlineSeconds are pointers: 0 is meaningful.
constexpr FieldSpec kDeploymentSpecFields[] = {
    scalar(1, "replicas", K::kInt32, kEmitZero),
    message(2, "selector", kLabelSelector),
    message(3, "template", kPodTemplateSpec),
    message(4, "strategy", kDeploymentStrategy),
    scalar(5, "minReadySeconds", K::kInt32),
    scalar(6, "revisionHistoryLimit", K::kInt32, kEmitZero),
    scalar(7, "paused", K::kBool),
    scalar(9, "progressDeadlineSeconds", K::kInt32, kEmitZero),
    scalar(10, "podReplacementPolicy", K::kString, kEmitZero),
};
const MessageSpec kDeploymentSpec{"DeploymentSpec", kDeploymentSpecFields};

constexpr FieldSpec kDeploymentConditionFields[] = {
    scalar(1, "type", K::kString),         scalar(2, "status", K::kString),
    scalar(4, "reason", K::kString),       scalar(5, "message", K::kString),
    scalar(6, "lastUpdateTime", K::kTime), scalar(7, "lastTransitionTime", K::kTime),
};
const MessageSpec kDeploymentCondition{"DeploymentCondition", kDeploymentConditionFields};

constexpr FieldSpec kDeploymentStatusFields[] = {
    scalar(1, "observedGeneration", K::kInt64),
    scalar(2, "replicas", K::kInt32),
    scalar(3, "updatedReplicas", K::kInt32),
    scalar(4, "availableReplicas", K::kInt32),
    scalar(5, "unavailableReplicas", K::kInt32),
    message(6, "conditions", kDeploymentCondition, kRepeated),
    scalar(7, "readyReplicas", K::kInt32),
    scalar(8, "collisionCount", K::kInt32, kEmitZero),
    scalar(9, "terminatingReplicas", K::kInt32, kEmitZero),
};
const MessageSpec kDeploymentStatus{"DeploymentStatus", kDeploymentStatusFields};

constexpr FieldSpec kDeploymentFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kDeploymentSpec),
    message(3, "status", kDeploymentStatus),
};

// kubectl drain evicts pods with this.
constexpr FieldSpec kEvictionFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "deleteOptions", kDeleteOptions),
};

// kubectl create pdb sends this. The status's disruptedPods (2) and conditions (7) are not
// read: a create or update request's status is reset by the server anyway.
constexpr FieldSpec kPodDisruptionBudgetSpecFields[] = {
    scalar(1, "minAvailable", K::kIntOrString),
    message(2, "selector", kLabelSelector),
    scalar(3, "maxUnavailable", K::kIntOrString),
    scalar(4, "unhealthyPodEvictionPolicy", K::kString),
};
const MessageSpec kPodDisruptionBudgetSpec{"PodDisruptionBudgetSpec",
                                           kPodDisruptionBudgetSpecFields};

// The counts have no omitempty: they are always in the JSON.
constexpr FieldSpec kPodDisruptionBudgetStatusFields[] = {
    scalar(1, "observedGeneration", K::kInt64),
    scalar(3, "disruptionsAllowed", K::kInt32, kEmitZero),
    scalar(4, "currentHealthy", K::kInt32, kEmitZero),
    scalar(5, "desiredHealthy", K::kInt32, kEmitZero),
    scalar(6, "expectedPods", K::kInt32, kEmitZero),
};
const MessageSpec kPodDisruptionBudgetStatus{"PodDisruptionBudgetStatus",
                                             kPodDisruptionBudgetStatusFields};

constexpr FieldSpec kPodDisruptionBudgetFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kPodDisruptionBudgetSpec),
    message(3, "status", kPodDisruptionBudgetStatus),
};

}  // namespace

const MessageSpec kDeployment{"Deployment", kDeploymentFields};
const MessageSpec kEviction{"Eviction", kEvictionFields};
const MessageSpec kPodDisruptionBudget{"PodDisruptionBudget", kPodDisruptionBudgetFields};

}  // namespace rg::client::protobuf
