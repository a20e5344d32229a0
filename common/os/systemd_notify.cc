#include "common/os/systemd_notify.h"

#include <systemd/sd-daemon.h>

#include "absl/strings/str_cat.h"

namespace canopy::os {

void NotifyReady(const std::string& status) {
  (void)sd_notify(0, absl::StrCat("READY=1\nSTATUS=", status).c_str());
}

void NotifyReloading() {
  // RELOADING=1 then READY=1 once done: the reload re-executes the daemon, which says READY.
  (void)sd_notify(0, "RELOADING=1\nSTATUS=reloading the configuration");
}

void NotifyStopping() { (void)sd_notify(0, "STOPPING=1\nSTATUS=stopping"); }

absl::Duration WatchdogInterval() {
  uint64_t usec = 0;
  return sd_watchdog_enabled(0, &usec) > 0 ? absl::Microseconds(usec) : absl::ZeroDuration();
}

void NotifyWatchdog() { (void)sd_notify(0, "WATCHDOG=1"); }

}  // namespace canopy::os
