// The web view's JSON API (docs/web.md): GET /api/v1/... answered from the controller's latest
// snapshot through the same reads as the gRPC API, printed as JSON by protobuf (the .proto
// documents every field). Callers are anonymous: under PrivateData=jobs the jobs are withheld,
// as from an anonymous gRPC caller. Thread-safe; no HTTP here, so it is tested directly.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "scheduler/server/controller_service.h"

namespace canopy::web {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// Answers GET `path` (without the query string), e.g. "/api/v1/jobs" or "/api/v1/jobs/12".
HttpAnswer AnswerApi(absl::string_view path, const server::ControllerServiceImpl& service);

}  // namespace canopy::web
