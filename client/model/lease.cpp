// Schema of the Lease projection.
#include "client/model/lease.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<LeaseSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&LeaseSpec::holder_identity>("holderIdentity"),
      field<&LeaseSpec::lease_duration_seconds>("leaseDurationSeconds"),
      field<&LeaseSpec::acquire_time>("acquireTime"),
      field<&LeaseSpec::renew_time>("renewTime"),
      field<&LeaseSpec::lease_transitions>("leaseTransitions"),
  };
  static constexpr StructDesc desc{"LeaseSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<Lease>) {
  static constexpr FieldDesc fields[] = {
      field<&Lease::metadata>("metadata", true),
      field<&Lease::spec>("spec"),
  };
  static constexpr StructDesc desc{"Lease", fields, "coordination.k8s.io/v1", "Lease"};
  return desc;
}

}  // namespace rg::client::detail
