// Strong integer identifiers (JobId, NodeId, SwitchId, ...).
//
// A StrongId wraps a dense index or a number so that a NodeId can never be passed where a
// SwitchId is expected. Value type, trivially copyable, thread-compatible. The default-constructed
// id is invalid (value kInvalid) and compares below every valid id.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>

namespace canopy::core {

template <typename Tag, typename Rep = int32_t>
class StrongId {
 public:
  using ValueType = Rep;
  static constexpr Rep kInvalid = std::numeric_limits<Rep>::max();

  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep value) : value_(value) {}

  constexpr Rep value() const { return value_; }
  constexpr bool valid() const { return value_ != kInvalid; }

  friend constexpr auto operator<=>(StrongId, StrongId) = default;

  template <typename H>
  friend H AbslHashValue(H h, StrongId id) {
    return H::combine(std::move(h), id.value_);
  }
  friend std::ostream& operator<<(std::ostream& os, StrongId id) {
    return id.valid() ? (os << id.value_) : (os << "<invalid>");
  }

 private:
  Rep value_ = kInvalid;
};

}  // namespace canopy::core

template <typename Tag, typename Rep>
struct std::hash<canopy::core::StrongId<Tag, Rep>> {
  size_t operator()(canopy::core::StrongId<Tag, Rep> id) const {
    return std::hash<Rep>()(id.value());
  }
};
