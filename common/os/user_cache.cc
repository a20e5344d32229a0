#include "common/os/user_cache.h"

#include <utility>

namespace canopy::os {

absl::StatusOr<UserInfo> UserCache::Find(uint32_t uid) const {
  const absl::Time now = now_();
  {
    absl::MutexLock lock(&mu_);
    if (auto it = entries_.find(uid); it != entries_.end() && now < it->second.expires) {
      return it->second.user;
    }
  }
  // Looked up outside the lock: a slow name service (LDAP) must not hold up other callers.
  absl::StatusOr<UserInfo> user = lookup_(uid);
  if (!user.ok()) {
    return user;
  }
  absl::MutexLock lock(&mu_);
  if (entries_.size() >= kMaxEntries) {
    entries_.clear();
  }
  entries_[uid] = Entry{*user, now + ttl_};
  return user;
}

}  // namespace canopy::os
