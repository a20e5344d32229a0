// EventQueue and SimClock: the simulator's notion of time.
//
// Events are ordered by (time, seq): seq is the insertion counter, so events at the same time
// come out in the order they were scheduled and a run is deterministic. SimClock is a
// core::Clock the simulator advances to each event's time (the FakeClock of the simulator).
// Not thread-safe.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/clock.h"
#include "scheduler/core/ids.h"

namespace canopy::sim {

enum class EventKind {
  kSubmit,       // a trace job is submitted; index = trace index
  kAgentReport,  // a simulated agent reports on a job; index = SimulatedAgents report slot
  kTick,         // the lifecycle has a deadline due (time limit, launch timeout, ...)
  kNodeFail,     // index = NodeId
  kNodeRepair,   // index = NodeId
};

struct Event {
  absl::Time time;
  uint64_t seq = 0;
  EventKind kind = EventKind::kSubmit;
  int64_t index = 0;
};

class EventQueue {
 public:
  void Push(absl::Time time, EventKind kind, int64_t index = 0) {
    heap_.push(Event{time, next_seq_++, kind, index});
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.top(); }
  Event Pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t next_seq_ = 0;
};

class SimClock final : public core::Clock {
 public:
  explicit SimClock(absl::Time start) : now_(start) {}
  absl::Time Now() const override { return now_; }
  // Time never goes backwards; an earlier time is ignored.
  void AdvanceTo(absl::Time t) {
    if (t > now_) {
      now_ = t;
    }
  }

 private:
  absl::Time now_;
};

}  // namespace canopy::sim
