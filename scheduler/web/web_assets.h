// The web view's static files (scheduler/web/assets), built into canopyd by
// embed_web_assets.cmake: no files to install, no CDN to reach.
#pragma once

#include "absl/strings/string_view.h"

namespace canopy::web {

struct WebAsset {
  absl::string_view path;  // "/index.html", "/app.js", ...
  absl::string_view content_type;
  absl::string_view body;
};

// The asset served at `path` ("/" is "/index.html"), or nullptr.
const WebAsset* FindAsset(absl::string_view path);

}  // namespace canopy::web
