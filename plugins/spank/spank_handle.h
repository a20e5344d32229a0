// The spank_t every hook gets: which host, plugin, hook and task the call is about. Defined in
// the global namespace because spank.h declares `typedef struct spank_handle *spank_t`.
#pragma once

#include <cstdint>

#include "plugins/spank/spank_host.h"

struct spank_handle {
  static constexpr uint32_t kMagic = 0x5ca11ab1;
  uint32_t magic = kMagic;  // checked by every API call: a stale or forged handle is BAD_ARG
  canopy::spank::SpankHost* host = nullptr;
  canopy::spank::SpankPlugin* plugin = nullptr;
  canopy::spank::Hook hook = canopy::spank::Hook::kInit;
  const canopy::spank::TaskItems* task = nullptr;  // task hooks only
};
