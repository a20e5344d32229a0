// The answers callers wait for while their change is being saved. An OnceAnswer delivers one
// result to its callback, whichever comes first: the commit's outcome, the answer timeout
// (PendingAnswers), or canopyd stopping (its destructor). PendingAnswers holds the deadlines so
// that the owner thread can time out callers that do not block a thread of their own (gRPC's
// callback handlers), as a blocked caller's wait_for does.
// Owner-thread only, except where said otherwise. Internal to canopy_server.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace canopy::server {

// DEADLINE_EXCEEDED for a change not saved within `timeout`: what every caller hears.
absl::Status AnswerTimeoutError(absl::Duration timeout);

class ExpiringAnswer {
 public:
  virtual ~ExpiringAnswer() = default;
  virtual void TimeOut() = 0;
  virtual bool answered() const = 0;
};

template <typename T>
class OnceAnswer final : public ExpiringAnswer {
 public:
  OnceAnswer(std::function<void(absl::StatusOr<T>)> done, absl::Duration timeout)
      : done_(std::move(done)), timeout_(timeout) {}
  // Whoever drops the last reference without an answer (canopyd stopping with the command still
  // queued, or its commit never finished) still answers: a gRPC call must always end.
  ~OnceAnswer() override {
    Give(
        absl::UnavailableError("canopyd stopped before it could answer; check (squeue, sinfo) "
                               "whether the change was made before trying again"));
  }
  OnceAnswer(const OnceAnswer&) = delete;
  OnceAnswer& operator=(const OnceAnswer&) = delete;

  // The first call answers; later ones do nothing.
  void Give(absl::StatusOr<T> result) {
    if (done_ == nullptr) {
      return;
    }
    std::function<void(absl::StatusOr<T>)> done = std::move(done_);
    done_ = nullptr;
    done(std::move(result));
  }
  void TimeOut() override { Give(AnswerTimeoutError(timeout_)); }
  bool answered() const override { return done_ == nullptr; }

 private:
  std::function<void(absl::StatusOr<T>)> done_;
  const absl::Duration timeout_;
};

class PendingAnswers {
 public:
  // `answer` times out at `deadline` unless answered (and released) first. Deadlines come in
  // about the order they are added (one timeout for every caller, taken when the caller posted
  // its command), so Expire looks only at the front: a deadline behind a later one fires late
  // by the difference, which is how far apart two callers' posts were overtaken (microseconds).
  void Add(absl::Time deadline, std::weak_ptr<ExpiringAnswer> answer);
  // Times out every answer whose deadline is at or before `now`, and forgets the answered ones
  // at the front.
  void Expire(absl::Time now);
  // When Expire next has something to do; InfiniteFuture when nothing waits.
  absl::Time NextDeadline() const;
  size_t size() const { return waiting_.size(); }

 private:
  std::deque<std::pair<absl::Time, std::weak_ptr<ExpiringAnswer>>> waiting_;
};

}  // namespace canopy::server
