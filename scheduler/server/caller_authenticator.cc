#include "scheduler/server/caller_authenticator.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/auth/call_signing.h"
#include "common/log/absl_format.h"
#include "common/os/user_info.h"
#include "spdlog/spdlog.h"

namespace canopy::server {

lifecycle::Caller CallerAuthenticator::FromUid(uint32_t uid, uint32_t gid, const char* via) const {
  lifecycle::Caller caller;
  caller.authenticated = true;
  caller.via = via;
  caller.uid = uid;
  caller.gid = gid;
  absl::StatusOr<os::UserInfo> user = users_.Find(uid);
  if (user.ok()) {
    caller.user_name = user->name;
    for (uint32_t g : user->groups) {
      if (g != caller.gid) {
        caller.groups.push_back(g);
      }
    }
  } else {
    caller.user_name = absl::StrCat(uid);  // like Slurm for a uid without a name
  }
  const std::vector<std::string>& operators = config_.operators;
  caller.is_operator =
      uid == 0 || uid == geteuid() ||
      std::find(operators.begin(), operators.end(), caller.user_name) != operators.end() ||
      (account_admin_ && account_admin_(caller.user_name));
  return caller;
}

absl::StatusOr<lifecycle::Caller> CallerAuthenticator::Authenticate(
    grpc::ServerContextBase& context, const google::protobuf::Message& request) const {
  lifecycle::Caller caller;
  if (std::optional<PeerCredentials> creds =
          peers_ != nullptr ? peers_->Lookup(context) : std::nullopt) {
    caller = FromUid(creds->uid, creds->gid, "unix socket");
  } else {
    absl::StatusOr<std::optional<auth::MungeIdentity>> munge =
        auth::VerifyCall(config_.security, context, request);
    if (!munge.ok()) {
      spdlog::warn("refused a {} from {}: {}", request.GetDescriptor()->name(), context.peer(),
                   munge.status().message());
      return munge.status();
    }
    if (munge->has_value()) {
      caller = FromUid((*munge)->uid, (*munge)->gid, "munge");
    } else {
      caller.user_name = "(anonymous)";
      caller.via = "anonymous";
    }
  }
  context.AddTrailingMetadata(kCallerMetadataKey,
                              caller.authenticated ? absl::StrCat(caller.user_name, " (uid ",
                                                                  caller.uid, ", ", caller.via, ")")
                                                   : std::string("anonymous"));
  return caller;
}

}  // namespace canopy::server
