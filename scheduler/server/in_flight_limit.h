// InFlightLimit: a bound on calls that hold no thread while they wait (gRPC's callback API), so
// that no thread pool bounds them: each holds a token from TryTake() until it is answered, and
// past the maximum TryTake() says no. Thread-safe; must outlive its tokens.
#pragma once

#include <atomic>
#include <memory>

namespace canopy::server {

class InFlightLimit {
 public:
  explicit InFlightLimit(int max) : max_(max) {}
  InFlightLimit(const InFlightLimit&) = delete;
  InFlightLimit& operator=(const InFlightLimit&) = delete;

  void set_max(int max) { max_ = max; }
  int max() const { return max_; }
  int in_flight() const { return count_; }

  // Counts a call in until the last copy of the token goes; null when `max` are in already.
  std::shared_ptr<const void> TryTake() {
    // Compare-and-swap rather than add-then-undo, so that in_flight() never counts a refused call.
    int count = count_.load();
    do {
      if (count >= max_) {
        return nullptr;
      }
    } while (!count_.compare_exchange_weak(count, count + 1));
    // Points at the limit (never deleted through it): a null token would read as refused.
    return std::shared_ptr<const void>(this, [this](const void*) { count_.fetch_sub(1); });
  }

 private:
  std::atomic<int> max_;
  std::atomic<int> count_{0};
};

}  // namespace canopy::server
