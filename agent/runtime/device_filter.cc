#include "agent/runtime/device_filter.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {
namespace {

constexpr size_t kMaxDenied = 1000;

bpf_insn Insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn insn;
  std::memset(&insn, 0, sizeof(insn));
  insn.code = code;
  insn.dst_reg = dst & 0xf;
  insn.src_reg = src & 0xf;
  insn.off = off;
  insn.imm = imm;
  return insn;
}

// dst = *(u32 *)(r1 + off): a field of struct bpf_cgroup_dev_ctx.
bpf_insn LoadContextWord(uint8_t dst, int16_t off) {
  return Insn(BPF_LDX | BPF_MEM | BPF_W, dst, BPF_REG_1, off, 0);
}
bpf_insn JumpIfNotEqual(uint8_t reg, int32_t value, int16_t skip) {
  return Insn(BPF_JMP | BPF_JNE | BPF_K, reg, 0, skip, value);
}
bpf_insn Return(int32_t value) { return Insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, value); }
bpf_insn Exit() { return Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

// r2 = device type, r3 = major, r4 = minor; a block of four instructions per denied device
// (return 0: refused); fall through to return 1 (allowed).
std::vector<bpf_insn> Program(const std::vector<DeviceNumber>& denied) {
  std::vector<bpf_insn> p;
  p.push_back(LoadContextWord(BPF_REG_2, offsetof(bpf_cgroup_dev_ctx, access_type)));
  p.push_back(Insn(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff));  // the type half
  p.push_back(LoadContextWord(BPF_REG_3, offsetof(bpf_cgroup_dev_ctx, major)));
  p.push_back(LoadContextWord(BPF_REG_4, offsetof(bpf_cgroup_dev_ctx, minor)));
  p.push_back(
      JumpIfNotEqual(BPF_REG_2, BPF_DEVCG_DEV_CHAR, static_cast<int16_t>(4 * denied.size())));
  for (const DeviceNumber& d : denied) {
    p.push_back(JumpIfNotEqual(BPF_REG_3, static_cast<int32_t>(d.major), 3));
    p.push_back(JumpIfNotEqual(BPF_REG_4, static_cast<int32_t>(d.minor), 2));
    p.push_back(Return(0));
    p.push_back(Exit());
  }
  p.push_back(Return(1));
  p.push_back(Exit());
  return p;
}

long Bpf(int command, bpf_attr& attr) { return syscall(SYS_bpf, command, &attr, sizeof(attr)); }

absl::Status BpfError(absl::string_view step, int error, absl::string_view detail = "") {
  std::string message = absl::StrCat(step, ": ", std::strerror(error));
  if (!detail.empty()) {
    absl::StrAppend(&message, " (", detail, ")");
  }
  if (error == EPERM || error == EACCES || error == ENOSYS) {
    return absl::FailedPreconditionError(
        absl::StrCat(message,
                     "; GPU device files cannot be confined here (the agent needs root, or "
                     "CAP_BPF and CAP_SYS_ADMIN, and a kernel with cgroup device programs)"));
  }
  return absl::InternalError(message);
}

}  // namespace

absl::Status AttachDeviceFilter(const std::string& cgroup_dir,
                                const std::vector<DeviceNumber>& denied) {
  if (denied.empty()) {
    return absl::OkStatus();
  }
  if (denied.size() > kMaxDenied) {
    return absl::InvalidArgumentError(
        absl::StrCat(denied.size(), " devices to refuse; at most ", kMaxDenied));
  }
  const std::vector<bpf_insn> program = Program(denied);
  static constexpr char kLicense[] = "Apache-2.0";
  bpf_attr load;
  std::memset(&load, 0, sizeof(load));
  load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  load.insns = reinterpret_cast<uint64_t>(program.data());
  load.insn_cnt = static_cast<uint32_t>(program.size());
  load.license = reinterpret_cast<uint64_t>(kLicense);
  // No verifier log: a log that fills up fails the load (ENOSPC) however valid the program,
  // and it grows with every device refused. Asked for only to say why a load failed.
  const os::UniqueFd prog(static_cast<int>(Bpf(BPF_PROG_LOAD, load)));
  if (!prog.valid()) {
    const int error = errno;
    std::string log(64 * 1024, '\0');
    load.log_buf = reinterpret_cast<uint64_t>(log.data());
    load.log_size = static_cast<uint32_t>(log.size());
    load.log_level = 1;
    const os::UniqueFd again(static_cast<int>(Bpf(BPF_PROG_LOAD, load)));
    log.resize(std::strlen(log.c_str()));
    return BpfError("loading the device program", error, log.substr(0, 2000));
  }
  const os::UniqueFd dir(open(cgroup_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    return absl::InternalError(absl::StrCat("open ", cgroup_dir, ": ", std::strerror(errno)));
  }
  bpf_attr attach;
  std::memset(&attach, 0, sizeof(attach));
  attach.target_fd = static_cast<uint32_t>(dir.get());
  attach.attach_bpf_fd = static_cast<uint32_t>(prog.get());
  attach.attach_type = BPF_CGROUP_DEVICE;
  attach.attach_flags = BPF_F_ALLOW_MULTI;
  if (Bpf(BPF_PROG_ATTACH, attach) != 0) {
    return BpfError(absl::StrCat("attaching the device program to ", cgroup_dir), errno);
  }
  return absl::OkStatus();  // the cgroup holds the program now; our descriptor may go
}

absl::StatusOr<DeviceNumber> CharDeviceOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  if (!S_ISCHR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(path, " is not a character device"));
  }
  return DeviceNumber{major(st.st_rdev), minor(st.st_rdev)};
}

}  // namespace canopy::agent::runtime
