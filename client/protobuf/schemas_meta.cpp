// meta/v1 messages (k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto).
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {
namespace {

using K = FieldKind;

constexpr FieldSpec kOwnerReferenceFields[] = {
    scalar(1, "kind", K::kString),
    scalar(3, "name", K::kString),
    scalar(4, "uid", K::kString),
    scalar(5, "apiVersion", K::kString),
    scalar(6, "controller", K::kBool, kEmitZero),
    scalar(7, "blockOwnerDeletion", K::kBool, kEmitZero),
};
const MessageSpec kOwnerReference{"OwnerReference", kOwnerReferenceFields};

constexpr FieldSpec kManagedFieldsEntryFields[] = {
    scalar(1, "manager", K::kString),     scalar(2, "operation", K::kString),
    scalar(3, "apiVersion", K::kString),  scalar(4, "time", K::kTime),
    scalar(6, "fieldsType", K::kString),  scalar(7, "fieldsV1", K::kRawJson),
    scalar(8, "subresource", K::kString),
};
const MessageSpec kManagedFieldsEntry{"ManagedFieldsEntry", kManagedFieldsEntryFields};

constexpr FieldSpec kObjectMetaFields[] = {
    scalar(1, "name", K::kString),
    scalar(2, "generateName", K::kString),
    scalar(3, "namespace", K::kString),
    scalar(4, "selfLink", K::kString),
    scalar(5, "uid", K::kString),
    scalar(6, "resourceVersion", K::kString),
    scalar(7, "generation", K::kInt64),
    scalar(8, "creationTimestamp", K::kTime),
    scalar(9, "deletionTimestamp", K::kTime),
    scalar(10, "deletionGracePeriodSeconds", K::kInt64, kEmitZero),
    scalar(11, "labels", K::kStringMap),
    scalar(12, "annotations", K::kStringMap),
    message(13, "ownerReferences", kOwnerReference, kRepeated),
    scalar(14, "finalizers", K::kString, kRepeated),
    message(17, "managedFields", kManagedFieldsEntry, kRepeated),
};

constexpr FieldSpec kLabelSelectorRequirementFields[] = {
    scalar(1, "key", K::kString),
    scalar(2, "operator", K::kString),
    scalar(3, "values", K::kString, kRepeated),
};

constexpr FieldSpec kLabelSelectorFields[] = {
    scalar(1, "matchLabels", K::kStringMap),
    message(2, "matchExpressions", kLabelSelectorRequirement, kRepeated),
};

constexpr FieldSpec kPreconditionsFields[] = {
    scalar(1, "uid", K::kString, kEmitZero),
    scalar(2, "resourceVersion", K::kString, kEmitZero),
};
const MessageSpec kPreconditions{"Preconditions", kPreconditionsFields};

// Every field of DeleteOptions is a pointer or a list: a present zero (gracePeriodSeconds: 0,
// "delete now") means something.
constexpr FieldSpec kDeleteOptionsFields[] = {
    scalar(1, "gracePeriodSeconds", K::kInt64, kEmitZero),
    message(2, "preconditions", kPreconditions),
    scalar(3, "orphanDependents", K::kBool, kEmitZero),
    scalar(4, "propagationPolicy", K::kString, kEmitZero),
    scalar(5, "dryRun", K::kString, kRepeated),
    scalar(6, "ignoreStoreReadErrorWithClusterBreakingPotential", K::kBool, kEmitZero),
};

}  // namespace

const MessageSpec kObjectMeta{"ObjectMeta", kObjectMetaFields};
const MessageSpec kLabelSelectorRequirement{"LabelSelectorRequirement",
                                            kLabelSelectorRequirementFields};
const MessageSpec kLabelSelector{"LabelSelector", kLabelSelectorFields};
const MessageSpec kDeleteOptions{"DeleteOptions", kDeleteOptionsFields};

}  // namespace rg::client::protobuf
