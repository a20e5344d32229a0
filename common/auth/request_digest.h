// The payload of a request's MUNGE credential: what binds a credential to one request.
//
//   "canopy-rpc-1 <request message type> <SHA-256 of its deterministic serialization, hex>"
//
// Every Canopy RPC has a request type of its own, so the type names the method. The client
// computes it from the request it sends and canopyd from the request it parsed; both serialize
// deterministically, so map order cannot differ. A credential captured off the wire therefore
// vouches for that exact request only, and munged refuses to decode it a second time.
#pragma once

#include <string>

#include "google/protobuf/message.h"

namespace canopy::auth {

std::string RequestDigest(const google::protobuf::Message& request);

}  // namespace canopy::auth
