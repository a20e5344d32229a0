// Kept for tests/integration, which includes this path and names ctl::ControllerClient; the
// client lives in ctl/client/controller_client.h. Remove once those tests include that header.
#pragma once

#include "ctl/client/controller_client.h"

namespace canopy::ctl {

using client::ControllerClient;

}  // namespace canopy::ctl
