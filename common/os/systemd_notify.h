// What a daemon tells systemd when it runs as a Type=notify unit (sd_notify(3), libsystemd):
// ready (with a status line), reloading, stopping, and watchdog keep-alives. Outside systemd
// ($NOTIFY_SOCKET unset) every call does nothing. Thread-safe.
#pragma once

#include <string>

#include "absl/time/time.h"

namespace canopy::os {

void NotifyReady(const std::string& status);
void NotifyReloading();
void NotifyStopping();
// How often systemd wants a keep-alive (WatchdogSec=); zero when it does not watch.
absl::Duration WatchdogInterval();
void NotifyWatchdog();

}  // namespace canopy::os
