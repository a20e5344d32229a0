// Shared<T>'s process-wide byte count (shared_text.h).
#include "scheduler/core/shared_text.h"

namespace canopy::core {
namespace internal {

std::atomic<int64_t>& SharedTextCounter() {
  static std::atomic<int64_t> bytes{0};
  return bytes;
}

}  // namespace internal

int64_t SharedTextBytes() { return internal::SharedTextCounter().load(std::memory_order_relaxed); }

}  // namespace canopy::core
