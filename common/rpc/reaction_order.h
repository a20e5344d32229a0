#pragma once

// gRPC runs a callback reactor's reactions in an order of its own: the next OnReadDone only
// after the previous one has started the next read, and OnDone after every other reaction has
// returned. It keeps that order with atomics inside libgrpc, which ThreadSanitizer cannot see
// when gRPC is not built with it (Debian's is not), so TSan takes the reactor's own members for
// shared between those reactions. These two calls tell TSan about that order and nothing else:
// a reaction hands the reactor over (HandOver) before it starts the operation whose reaction
// comes next, and that reaction, or OnDone, takes it over (TakeOver) first. Outside TSan builds
// they compile to nothing. See docs/reliability.md (ThreadSanitizer).

#if defined(__SANITIZE_THREAD__)
#define CANOPY_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CANOPY_TSAN 1
#endif
#endif

#ifdef CANOPY_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace canopy::rpc {

// `key` names the order: the address of what the ordered reactions share (e.g. the read buffer).
inline void ReactionHandOver([[maybe_unused]] const void* key) {
#ifdef CANOPY_TSAN
  __tsan_release(const_cast<void*>(key));
#endif
}

inline void ReactionTakeOver([[maybe_unused]] const void* key) {
#ifdef CANOPY_TSAN
  __tsan_acquire(const_cast<void*>(key));
#endif
}

}  // namespace canopy::rpc
