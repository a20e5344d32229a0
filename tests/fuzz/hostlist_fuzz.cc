// Fuzz target: hostlist expressions ("gpu[001-016]"), as -w/-x, scontrol and slurm.conf give
// them. An expansion that succeeds must compress back to an expression naming the same hosts.
#include <cstdlib>

#include "common/slurm/hostlist.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = canopy::fuzz::AsStdText(data, size);
  absl::StatusOr<std::vector<std::string>> hosts = canopy::slurm::ExpandHostlist(text);
  if (!hosts.ok()) {
    return 0;
  }
  std::vector<std::string> sorted = canopy::slurm::SortHostlist(*hosts);
  if (sorted.size() != hosts->size()) {
    std::abort();  // sorting keeps every host, duplicates included
  }
  const std::string compressed = canopy::slurm::CompressHostlist(*hosts);
  absl::StatusOr<std::vector<std::string>> again = canopy::slurm::ExpandHostlist(compressed);
  // Host names of letters, digits, '.', '_' and '-' must round-trip through the compressed
  // form whenever that form expands at all (a name with a 19-digit number does not).
  bool plain_names = true;
  for (const std::string& host : *hosts) {
    plain_names = plain_names && !host.empty() &&
                  host.find_first_not_of(
                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789._-") == std::string::npos;
  }
  if (plain_names && again.ok() && *again != *hosts) {
    std::abort();
  }
  return 0;
}
