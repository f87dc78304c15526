// authentication.k8s.io/v1 TokenRequest, TokenReview and SelfSubjectReview, and
// authorization.k8s.io/v1 SubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview
// (k8s.io/api/authentication/v1 and authorization/v1 generated.proto).
#include "client/protobuf/schema.hpp"

namespace rg::client::protobuf {
namespace {

using K = FieldKind;

constexpr FieldSpec kBoundObjectReferenceFields[] = {
    scalar(1, "kind", K::kString),
    scalar(2, "apiVersion", K::kString),
    scalar(3, "name", K::kString),
    scalar(4, "uid", K::kString),
};
const MessageSpec kBoundObjectReference{"BoundObjectReference", kBoundObjectReferenceFields};

constexpr FieldSpec kTokenRequestSpecFields[] = {
    scalar(1, "audiences", K::kString, kRepeated),
    message(3, "boundObjectRef", kBoundObjectReference),
    scalar(4, "expirationSeconds", K::kInt64, kEmitZero),
};
const MessageSpec kTokenRequestSpec{"TokenRequestSpec", kTokenRequestSpecFields};

constexpr FieldSpec kTokenRequestStatusFields[] = {
    scalar(1, "token", K::kString),
    scalar(2, "expirationTimestamp", K::kTime),
};
const MessageSpec kTokenRequestStatus{"TokenRequestStatus", kTokenRequestStatusFields};

constexpr FieldSpec kTokenRequestFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kTokenRequestSpec),
    message(3, "status", kTokenRequestStatus),
};

// UserInfo.extra (map<string, ExtraValue>) is not covered; kubectl auth whoami sends an empty
// status anyway.
constexpr FieldSpec kUserInfoFields[] = {
    scalar(1, "username", K::kString),
    scalar(2, "uid", K::kString),
    scalar(3, "groups", K::kString, kRepeated),
};
const MessageSpec kUserInfo{"UserInfo", kUserInfoFields};

constexpr FieldSpec kTokenReviewSpecFields[] = {
    scalar(1, "token", K::kString),
    scalar(2, "audiences", K::kString, kRepeated),
};
const MessageSpec kTokenReviewSpec{"TokenReviewSpec", kTokenReviewSpecFields};

constexpr FieldSpec kTokenReviewStatusFields[] = {
    scalar(1, "authenticated", K::kBool),
    message(2, "user", kUserInfo),
    scalar(3, "error", K::kString),
    scalar(4, "audiences", K::kString, kRepeated),
};
const MessageSpec kTokenReviewStatus{"TokenReviewStatus", kTokenReviewStatusFields};

constexpr FieldSpec kTokenReviewFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kTokenReviewSpec),
    message(3, "status", kTokenReviewStatus),
};

constexpr FieldSpec kSelfSubjectReviewStatusFields[] = {
    message(1, "userInfo", kUserInfo),
};
const MessageSpec kSelfSubjectReviewStatus{"SelfSubjectReviewStatus",
                                           kSelfSubjectReviewStatusFields};

constexpr FieldSpec kSelfSubjectReviewFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "status", kSelfSubjectReviewStatus),
};

constexpr FieldSpec kFieldSelectorRequirementFields[] = {
    scalar(1, "key", K::kString),
    scalar(2, "operator", K::kString),
    scalar(3, "values", K::kString, kRepeated),
};
const MessageSpec kFieldSelectorRequirement{"FieldSelectorRequirement",
                                            kFieldSelectorRequirementFields};

constexpr FieldSpec kFieldSelectorAttributesFields[] = {
    scalar(1, "rawSelector", K::kString),
    message(2, "requirements", kFieldSelectorRequirement, kRepeated),
};
const MessageSpec kFieldSelectorAttributes{"FieldSelectorAttributes",
                                           kFieldSelectorAttributesFields};

constexpr FieldSpec kLabelSelectorAttributesFields[] = {
    scalar(1, "rawSelector", K::kString),
    message(2, "requirements", kLabelSelectorRequirement, kRepeated),
};
const MessageSpec kLabelSelectorAttributes{"LabelSelectorAttributes",
                                           kLabelSelectorAttributesFields};

constexpr FieldSpec kResourceAttributesFields[] = {
    scalar(1, "namespace", K::kString),
    scalar(2, "verb", K::kString),
    scalar(3, "group", K::kString),
    scalar(4, "version", K::kString),
    scalar(5, "resource", K::kString),
    scalar(6, "subresource", K::kString),
    scalar(7, "name", K::kString),
    message(8, "fieldSelector", kFieldSelectorAttributes),
    message(9, "labelSelector", kLabelSelectorAttributes),
};
const MessageSpec kResourceAttributes{"ResourceAttributes", kResourceAttributesFields};

constexpr FieldSpec kNonResourceAttributesFields[] = {
    scalar(1, "path", K::kString),
    scalar(2, "verb", K::kString),
};
const MessageSpec kNonResourceAttributes{"NonResourceAttributes", kNonResourceAttributesFields};

constexpr FieldSpec kSelfSubjectAccessReviewSpecFields[] = {
    message(1, "resourceAttributes", kResourceAttributes),
    message(2, "nonResourceAttributes", kNonResourceAttributes),
};
const MessageSpec kSelfSubjectAccessReviewSpec{"SelfSubjectAccessReviewSpec",
                                               kSelfSubjectAccessReviewSpecFields};

// allowed has no omitempty: it is always in the JSON.
constexpr FieldSpec kSubjectAccessReviewStatusFields[] = {
    scalar(1, "allowed", K::kBool, kEmitZero),
    scalar(2, "reason", K::kString),
    scalar(3, "evaluationError", K::kString),
    scalar(4, "denied", K::kBool),
};
const MessageSpec kSubjectAccessReviewStatus{"SubjectAccessReviewStatus",
                                             kSubjectAccessReviewStatusFields};

constexpr FieldSpec kSelfSubjectAccessReviewFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kSelfSubjectAccessReviewSpec),
    message(3, "status", kSubjectAccessReviewStatus),
};

// SubjectAccessReviewSpec.extra (map<string, ExtraValue>, 5) is not covered, as UserInfo's.
constexpr FieldSpec kSubjectAccessReviewSpecFields[] = {
    message(1, "resourceAttributes", kResourceAttributes),
    message(2, "nonResourceAttributes", kNonResourceAttributes),
    scalar(3, "user", K::kString),
    scalar(4, "groups", K::kString, kRepeated),
    scalar(6, "uid", K::kString),
};
const MessageSpec kSubjectAccessReviewSpec{"SubjectAccessReviewSpec",
                                           kSubjectAccessReviewSpecFields};

constexpr FieldSpec kSubjectAccessReviewFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kSubjectAccessReviewSpec),
    message(3, "status", kSubjectAccessReviewStatus),
};

// kubectl auth can-i --list sends a status too (resourceRules = 1, ...); a request's status is
// ignored, so only metadata and spec are read.
constexpr FieldSpec kSelfSubjectRulesReviewSpecFields[] = {
    scalar(1, "namespace", K::kString),
};
const MessageSpec kSelfSubjectRulesReviewSpec{"SelfSubjectRulesReviewSpec",
                                              kSelfSubjectRulesReviewSpecFields};

constexpr FieldSpec kSelfSubjectRulesReviewFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kSelfSubjectRulesReviewSpec),
};

}  // namespace

const MessageSpec kTokenRequest{"TokenRequest", kTokenRequestFields};
const MessageSpec kTokenReview{"TokenReview", kTokenReviewFields};
const MessageSpec kSelfSubjectReview{"SelfSubjectReview", kSelfSubjectReviewFields};
const MessageSpec kSubjectAccessReview{"SubjectAccessReview", kSubjectAccessReviewFields};
const MessageSpec kSelfSubjectAccessReview{"SelfSubjectAccessReview",
                                           kSelfSubjectAccessReviewFields};
const MessageSpec kSelfSubjectRulesReview{"SelfSubjectRulesReview", kSelfSubjectRulesReviewFields};

}  // namespace rg::client::protobuf
