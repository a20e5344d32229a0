// TLS for the step I/O channel (agents -> srun's or sattach's StepIo server), which carries
// tasks' output and stdin across hosts.
//
// srun has no certificate of the site's, so when the cluster runs TLS it makes a throwaway
// self-signed one for the step and sends it, with the step's secret token, through canopyd
// (over its own TLS) to the agents: the StepIo token is then
//
//   "<random token>\n-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n"
//
// and each agent trusts exactly that certificate for that connection (pinned), under the name
// kStepIoName. Without TLS the token is the random token alone and the channel is plain.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace canopy::auth {

inline constexpr char kStepIoName[] = "canopy-step-io";

struct StepIoServerTls {
  std::string token;  // the random token followed by the certificate: give it to CreateStep
  std::shared_ptr<grpc::ServerCredentials> credentials;
};

// A fresh P-256 key and a self-signed certificate for kStepIoName (valid for 30 days), and the
// token that carries it. Internal error if OpenSSL fails.
absl::StatusOr<StepIoServerTls> MakeStepIoServerTls(const std::string& random_token);

// The credentials an agent dials the StepIo server at with `token`: TLS pinned to the
// certificate in it, or insecure when it has none; `args` gets the name to check.
std::shared_ptr<grpc::ChannelCredentials> StepIoChannelCredentials(const std::string& token,
                                                                   grpc::ChannelArguments& args);

}  // namespace canopy::auth
