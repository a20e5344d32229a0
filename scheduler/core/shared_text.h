// Shared<T>: the large, never-edited texts of a job (its batch script and exported environment)
// held once however many records copy them: every task of an array, the published snapshot, a
// LaunchJob's record. Copying a Shared copies a pointer; assigning a new value replaces it.
//
// The bytes of every live value are counted process-wide (SharedTextBytes()), each shared value
// once, so canopyd can bound what users' scripts and environments hold in its memory
// (submit_limits.h).
//
// Immutable after construction; copies may be used from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace canopy::core {

// Bytes of script and environment held by all live Shared values of this process.
int64_t SharedTextBytes();

namespace internal {
std::atomic<int64_t>& SharedTextCounter();
inline int64_t TextBytes(const std::string& s) { return static_cast<int64_t>(s.size()); }
inline int64_t TextBytes(const std::map<std::string, std::string>& env) {
  // Each entry's text, and roughly what a map node costs around it.
  int64_t bytes = 0;
  for (const auto& [key, value] : env) {
    bytes += static_cast<int64_t>(key.size() + value.size()) + 64;
  }
  return bytes;
}
}  // namespace internal

template <typename T>
class Shared {
 public:
  Shared() = default;
  // Implicit, so `spec.script = "..."` reads as it did when the field was a plain string.
  Shared(T value) {  // NOLINT(google-explicit-constructor)
    const int64_t bytes = internal::TextBytes(value);
    if (bytes == 0) {
      return;  // the empty value needs no allocation
    }
    auto owned = std::make_unique<const T>(std::move(value));
    // Counted once the value exists (a failed allocation counts nothing); from here the deleter
    // takes the bytes off again, even if the shared_ptr's own allocation fails.
    internal::SharedTextCounter().fetch_add(bytes, std::memory_order_relaxed);
    value_ = std::shared_ptr<const T>(owned.release(), [bytes](const T* p) {
      internal::SharedTextCounter().fetch_sub(bytes, std::memory_order_relaxed);
      delete p;
    });
  }
  // From what makes a T ("text" for a script).
  template <typename U>
  requires(std::is_convertible_v<U&&, T> && !std::is_same_v<std::decay_t<U>, T> &&
           !std::is_same_v<std::decay_t<U>, Shared>) Shared(U&& value)
      : Shared(T(std::forward<U>(value))) {}  // NOLINT(google-explicit-constructor)

  const T& get() const { return value_ != nullptr ? *value_ : Empty(); }
  operator const T&() const { return get(); }  // NOLINT(google-explicit-constructor)
  const T* operator->() const { return &get(); }
  bool empty() const { return get().empty(); }
  size_t size() const { return get().size(); }
  auto begin() const { return get().begin(); }
  auto end() const { return get().end(); }
  // True when both are the same allocation (tests: an array's tasks share one).
  bool SharesWith(const Shared& other) const { return value_ == other.value_; }
  // How many copies share this value (0 for the empty value): a cache keeps its copy only
  // while another holder does.
  long use_count() const { return value_.use_count(); }  // NOLINT(runtime/int): shared_ptr's

  friend bool operator==(const Shared& a, const Shared& b) {
    return a.value_ == b.value_ || a.get() == b.get();
  }
  template <typename U>
  requires(!std::is_same_v<U, Shared>) friend bool operator==(const Shared& a, const U& b) {
    return a.get() == b;
  }

 private:
  static const T& Empty() {
    static const T* const empty = new T();
    return *empty;
  }
  std::shared_ptr<const T> value_;
};

using SharedText = Shared<std::string>;
using SharedEnvironment = Shared<std::map<std::string, std::string>>;

}  // namespace canopy::core
