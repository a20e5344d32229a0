// NameThisThread: names the calling thread for `top -H`, `ps -L`, perf and gdb, so that an admin
// can tell which of canopyd's threads is busy (the owner, the store writer, the backfill
// planner, ...). Linux keeps at most 15 characters; longer names are cut.
#pragma once

#include <pthread.h>

#include <string>

namespace canopy::os {

inline void NameThisThread(const std::string& name) {
  (void)pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace canopy::os
