#include "agent/gpu/xid_record.h"

#include "absl/strings/str_cat.h"

namespace canopy::agent::gpu {

void XidRecord::Add(int gpu, uint64_t xid) {
  ++counts_[gpu];
  if (!IsApplicationXid(xid)) {
    faults_.emplace(gpu, Describe(xid));  // the first fault is the one to report
  }
}

uint64_t XidRecord::count(int gpu) const {
  auto it = counts_.find(gpu);
  return it == counts_.end() ? 0 : it->second;
}

std::string XidRecord::fault(int gpu) const {
  auto it = faults_.find(gpu);
  return it == faults_.end() ? std::string() : it->second;
}

bool XidRecord::IsApplicationXid(uint64_t xid) {
  switch (xid) {
    case 13:
    case 31:
    case 43:
    case 45:
    case 68:
    case 109:
      return true;
    default:
      return false;
  }
}

std::string XidRecord::Describe(uint64_t xid) {
  const char* what = nullptr;
  switch (xid) {
    case 48:
      what = "double-bit ECC error";
      break;
    case 61:
    case 62:
      what = "internal micro-controller error";
      break;
    case 63:
      what = "ECC page retirement or row remapping recorded";
      break;
    case 64:
      what = "ECC page retirement or row remapping failed";
      break;
    case 74:
      what = "NVLink error";
      break;
    case 79:
      what = "GPU has fallen off the bus";
      break;
    case 92:
      what = "high single-bit ECC error rate";
      break;
    case 94:
      what = "contained ECC error";
      break;
    case 95:
      what = "uncontained ECC error";
      break;
    case 119:
    case 120:
      what = "GSP error";
      break;
    case 999:
      what = "unknown XID";
      break;
    default:
      break;
  }
  return what == nullptr ? absl::StrCat("XID ", xid) : absl::StrCat("XID ", xid, ": ", what);
}

}  // namespace canopy::agent::gpu
