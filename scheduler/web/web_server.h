// WebServer: the live cluster view (docs/web.md). civetweb (Debian libcivetweb-dev, already
// under prometheus-cpp's exposer) serves, on its own threads, the page's static files built
// into the binary (web_assets.h) and the JSON API (web_api.h). Read-only and anonymous.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/server/controller_service.h"

struct mg_context;
struct mg_connection;

namespace canopy::web {

class WebServer {
 public:
  // Listens on `listen` ("HOST:PORT", port 0 = any free one). Unavailable, naming `field` and
  // the address, when it cannot. `service` must outlive the server.
  static absl::StatusOr<std::unique_ptr<WebServer>> Start(
      const std::string& field, const std::string& listen,
      const server::ControllerServiceImpl* service);
  ~WebServer();  // stops serving; waits for requests in progress
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  int port() const { return port_; }

 private:
  explicit WebServer(const server::ControllerServiceImpl* service) : service_(service) {}
  static int Handle(mg_connection* connection, void* self);

  const server::ControllerServiceImpl* const service_;
  mg_context* context_ = nullptr;
  int port_ = 0;
};

}  // namespace canopy::web
