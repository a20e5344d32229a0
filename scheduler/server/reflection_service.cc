#include "scheduler/server/reflection_service.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"

namespace canopy::server {
namespace {

namespace reflection = grpc::reflection::v1alpha;
using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptor;

void SetError(reflection::ServerReflectionResponse& response, grpc::StatusCode code,
              std::string message) {
  reflection::ErrorResponse* error = response.mutable_error_response();
  error->set_error_code(code);
  error->set_error_message(std::move(message));
}

// `file` and, before it, those of its imports (transitively) that were not sent yet.
void AddFile(const FileDescriptor* file, std::vector<std::string>& sent,
             reflection::FileDescriptorResponse& out) {
  if (std::find(sent.begin(), sent.end(), file->name()) != sent.end()) {
    return;
  }
  sent.push_back(file->name());
  for (int i = 0; i < file->dependency_count(); ++i) {
    AddFile(file->dependency(i), sent, out);
  }
  google::protobuf::FileDescriptorProto proto;
  file->CopyTo(&proto);
  proto.SerializeToString(out.add_file_descriptor_proto());
}

}  // namespace

reflection::ServerReflectionResponse ReflectionService::Answer(
    const reflection::ServerReflectionRequest& request, std::vector<std::string>& sent) const {
  const DescriptorPool& pool = *DescriptorPool::generated_pool();
  reflection::ServerReflectionResponse response;
  response.set_valid_host(request.host());
  *response.mutable_original_request() = request;
  const FileDescriptor* file = nullptr;
  std::string wanted;
  switch (request.message_request_case()) {
    case reflection::ServerReflectionRequest::kListServices:
      for (const std::string& name : services_) {
        response.mutable_list_services_response()->add_service()->set_name(name);
      }
      return response;
    case reflection::ServerReflectionRequest::kFileByFilename:
      wanted = absl::StrCat("file ", request.file_by_filename());
      file = pool.FindFileByName(request.file_by_filename());
      break;
    case reflection::ServerReflectionRequest::kFileContainingSymbol:
      wanted = absl::StrCat("symbol ", request.file_containing_symbol());
      file = pool.FindFileContainingSymbol(request.file_containing_symbol());
      break;
    case reflection::ServerReflectionRequest::kFileContainingExtension: {
      const reflection::ExtensionRequest& ext = request.file_containing_extension();
      wanted = absl::StrCat("extension ", ext.extension_number(), " of ", ext.containing_type());
      if (const auto* type = pool.FindMessageTypeByName(ext.containing_type())) {
        if (const auto* field = pool.FindExtensionByNumber(type, ext.extension_number())) {
          file = field->file();
        }
      }
      break;
    }
    case reflection::ServerReflectionRequest::kAllExtensionNumbersOfType: {
      const auto* type = pool.FindMessageTypeByName(request.all_extension_numbers_of_type());
      if (type == nullptr) {
        SetError(response, grpc::StatusCode::NOT_FOUND,
                 absl::StrCat("no message type ", request.all_extension_numbers_of_type()));
        return response;
      }
      std::vector<const google::protobuf::FieldDescriptor*> extensions;
      pool.FindAllExtensions(type, &extensions);
      reflection::ExtensionNumberResponse* numbers =
          response.mutable_all_extension_numbers_response();
      numbers->set_base_type_name(type->full_name());
      for (const auto* field : extensions) {
        numbers->add_extension_number(field->number());
      }
      return response;
    }
    case reflection::ServerReflectionRequest::MESSAGE_REQUEST_NOT_SET:
      SetError(response, grpc::StatusCode::INVALID_ARGUMENT,
               "the request names nothing to reflect on (set one of file_by_filename, "
               "file_containing_symbol, file_containing_extension, "
               "all_extension_numbers_of_type, list_services)");
      return response;
  }
  if (file == nullptr) {
    SetError(response, grpc::StatusCode::NOT_FOUND, absl::StrCat("no ", wanted, " here"));
    return response;
  }
  AddFile(file, sent, *response.mutable_file_descriptor_response());
  return response;
}

grpc::Status ReflectionService::Admit(grpc::ServerContext& context,
                                      const reflection::ServerReflectionRequest& first) const {
  using Access = config::ClusterConfig::ReflectionAccess;
  if (access_ == Access::kEveryone) {
    return grpc::Status::OK;
  }
  absl::StatusOr<lifecycle::Caller> caller = authenticator_->Authenticate(context, first);
  if (!caller.ok()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(caller.status().message()));
  }
  const std::shared_ptr<const grpc::AuthContext> tls = context.auth_context();
  if (caller->authenticated || (tls != nullptr && tls->IsPeerAuthenticated())) {
    return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                      "server reflection answers authenticated callers only: connect over "
                      "canopyd's unix socket (grpcurl -plaintext -unix <state_dir>/canopyd.sock "
                      "list) or with a client certificate of the site CA (grpcurl -cacert -cert "
                      "-key), or set grpc_reflection: everyone");
}

grpc::Status ReflectionService::ServerReflectionInfo(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<reflection::ServerReflectionResponse,
                             reflection::ServerReflectionRequest>* stream) {
  reflection::ServerReflectionRequest request;
  if (!stream->Read(&request)) {
    return grpc::Status::OK;  // the client closed without asking anything
  }
  if (grpc::Status admitted = Admit(*context, request); !admitted.ok()) {
    return admitted;
  }
  std::vector<std::string> sent;
  do {
    if (!stream->Write(Answer(request, sent))) {
      break;  // the client went away
    }
  } while (stream->Read(&request));
  return grpc::Status::OK;
}

}  // namespace canopy::server
