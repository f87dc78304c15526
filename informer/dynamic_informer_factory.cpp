// The dynamic informers' managedFields-dropping transform (see dynamic_informer_factory.hpp).
#include "informer/dynamic_informer_factory.hpp"

namespace rg::informer {

std::shared_ptr<const client::Unstructured> drop_managed_fields(
    std::shared_ptr<const client::Unstructured> object) {
  const auto* metadata = object->object().if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object() ||
      !metadata->get_object().contains("managedFields")) {
    return object;
  }
  auto copy = std::make_shared<client::Unstructured>(*object);
  copy->object()["metadata"].get_object().erase("managedFields");
  return copy;
}

}  // namespace rg::informer
