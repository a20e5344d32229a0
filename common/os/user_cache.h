// UserCache: LookupUser (user_info.h) with a memory. canopyd names the caller of every RPC by
// uid, and each getpwuid_r + getgrouplist reads /etc/passwd and /etc/group again (or asks LDAP or
// sssd): at thousands of submissions a second that was a large share of the thread answering
// them (docs/performance.md). An account is remembered for `ttl`, so a changed name or group
// membership counts within that time (Slurm keeps group lists GroupUpdateTime, 600 s by
// default); failures are never remembered. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/os/user_info.h"

namespace canopy::os {

class UserCache {
 public:
  using Lookup = std::function<absl::StatusOr<UserInfo>(uint32_t uid)>;
  using Clock = std::function<absl::Time()>;

  // canopyd's: a minute.
  static constexpr absl::Duration kDefaultTtl = absl::Seconds(60);
  // Past this many accounts the cache starts again empty (a bound, not a working size).
  static constexpr size_t kMaxEntries = 65'536;

  explicit UserCache(absl::Duration ttl = kDefaultTtl, Lookup lookup = LookupUser,
                     Clock now = absl::Now)
      : ttl_(ttl), lookup_(std::move(lookup)), now_(std::move(now)) {}

  // LookupUser(uid), from memory when looked up less than `ttl` ago.
  absl::StatusOr<UserInfo> Find(uint32_t uid) const;

 private:
  struct Entry {
    UserInfo user;
    absl::Time expires;
  };
  const absl::Duration ttl_;
  const Lookup lookup_;
  const Clock now_;
  mutable absl::Mutex mu_;
  mutable absl::flat_hash_map<uint32_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace canopy::os
