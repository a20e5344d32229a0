// canopyctl install-links (install_links.h).
#include "ctl/canopyctl/install_links.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace canopy::ctl::canopyctl {
namespace {

constexpr char kInstallLinksUsage[] = "usage: canopyctl install-links [--force] DIR";

absl::Status SystemError(const std::string& what, const std::error_code& ec) {
  return absl::InternalError(absl::StrCat(what, ": ", ec.message()));
}

}  // namespace

absl::Status ParseInstallLinksArgs(const std::vector<std::string>& args,
                                   InstallLinksOptions& options) {
  for (const std::string& a : args) {
    if (a == "--force" || a == "-f") {
      options.force = true;
    } else if (!a.empty() && a[0] == '-') {
      return absl::InvalidArgumentError(
          absl::StrCat("canopyctl install-links: unknown option '", a, "'\n", kInstallLinksUsage));
    } else if (options.dir.empty()) {
      options.dir = a;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("canopyctl install-links: one directory only (got '", options.dir, "' and '",
                       a, "')\n", kInstallLinksUsage));
    }
  }
  if (options.dir.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("canopyctl install-links: which directory?\n", kInstallLinksUsage));
  }
  return absl::OkStatus();
}

absl::Status InstallLinks(const InstallLinksOptions& options, std::ostream& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(options.dir, ec)) {
    return absl::NotFoundError(absl::StrCat(options.dir, " is not a directory (create it first)"));
  }
  for (const char* name : kSlurmFrontEnds) {
    const fs::path link = fs::path(options.dir) / name;
    const fs::file_status status = fs::symlink_status(link, ec);
    if (fs::is_symlink(status)) {
      if (fs::read_symlink(link, ec) == fs::path(options.target) && !ec) {
        out << link.string() << " -> " << options.target << " (already)\n";
        continue;
      }
    } else if (fs::exists(status)) {
      if (!options.force) {
        return absl::FailedPreconditionError(
            absl::StrCat(link.string(),
                         " exists and is not a link (Slurm's own command?); move it away or "
                         "pass --force to replace it"));
      }
    }
    // A new link under a temporary name, renamed over the old one: the command is never
    // missing, even for a job that starts while the links are being replaced.
    const fs::path temp = fs::path(options.dir) / absl::StrCat(".", name, ".canopy-new");
    fs::remove(temp, ec);
    fs::create_symlink(options.target, temp, ec);
    if (ec) {
      return SystemError(absl::StrCat("creating ", temp.string()), ec);
    }
    fs::rename(temp, link, ec);
    if (ec) {
      fs::remove(temp, ec);
      return SystemError(absl::StrCat("replacing ", link.string()), ec);
    }
    out << link.string() << " -> " << options.target << "\n";
  }
  return absl::OkStatus();
}

}  // namespace canopy::ctl::canopyctl
