#include "ctl/sinfo/sort.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/hostlist.h"
#include "ctl/sinfo/fields.h"

namespace canopy::ctl::sinfo {
namespace {

struct SortKey {
  char letter;
  bool descending = false;
  bool configured_order = false;  // "#P"
};

std::vector<SortKey> ParseSort(absl::string_view sort) {
  std::vector<SortKey> keys;
  for (size_t i = 0; i < sort.size(); ++i) {
    const char c = sort[i];
    if (c == ',' || c == '#' || c == '+' || c == '-') {
      continue;
    }
    SortKey key{c};
    // The marks right before the letter apply to it ("-#P" or "#-P" alike).
    for (size_t j = i; j > 0 && (sort[j - 1] == '#' || sort[j - 1] == '+' || sort[j - 1] == '-');
         --j) {
      key.descending |= sort[j - 1] == '-';
      key.configured_order |= sort[j - 1] == '#';
    }
    keys.push_back(key);
  }
  return keys;
}

template <typename T>
int Compare(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// The smallest value over a row's nodes (0 for a row without nodes).
template <typename Get>
int64_t Min(const Row& row, Get get) {
  int64_t lo = std::numeric_limits<int64_t>::max();
  for (const NodeInfo* n : row.nodes) {
    lo = std::min<int64_t>(lo, get(*n->node));
  }
  return row.nodes.empty() ? 0 : lo;
}

// sort.c's node name order: at the first difference, digits compare as the numbers that start
// there, anything else as strings.
int CompareNames(const std::string& a, const std::string& b) {
  for (size_t i = 0;; ++i) {
    const char x = i < a.size() ? a[i] : '\0';
    const char y = i < b.size() ? b[i] : '\0';
    if (x == y) {
      if (x == '\0') {
        return 0;
      }
      continue;
    }
    if (absl::ascii_isdigit(x) && absl::ascii_isdigit(y)) {
      return Compare(std::atoll(a.c_str() + i), std::atoll(b.c_str() + i));
    }
    return Compare(a, b);
  }
}

std::string FirstNode(const Row& row) {
  std::vector<std::string> names;
  for (const NodeInfo* n : row.nodes) {
    names.push_back(n->node->name());
  }
  return names.empty() ? "" : slurm::SortHostlist(names).front();
}

int64_t Seconds(bool has, const google::protobuf::Duration& d) {
  // INFINITE (no limit) sorts after every limit, as Slurm's 0xffffffff does.
  return has ? absl::ToInt64Seconds(rpc::FromProtoDuration(d))
             : std::numeric_limits<int64_t>::max();
}

int CompareBy(const SortKey& key, const Row& a, const Row& b) {
  const FieldContext context;
  auto text = [&](Field f, const Row& r) {
    return r.nodes.empty() ? "" : FieldValue(f, r, context);
  };
  auto part = [](const Row& r) -> const canopy::v1::Partition* { return r.partition; };
  switch (key.letter) {
    case 'a':
      return Compare(part(a) && part(a)->up(), part(b) && part(b)->up());
    case 'A':
    case 'F': {
      auto alloc = [](const Row& r) {
        int64_t n = 0;
        for (const NodeInfo* i : r.nodes) {
          const uint32_t base = i->state & kStateBase;
          n += base == kStateAllocated || base == kStateMixed || (i->state & kFlagCompleting);
        }
        return n;
      };
      return Compare(alloc(a), alloc(b));
    }
    case 'b':
    case 'f':
      return Compare(text(Field::kFeatures, a), text(Field::kFeatures, b));
    case 'c':
      return Compare(Min(a, [](const auto& n) { return n.cpus(); }),
                     Min(b, [](const auto& n) { return n.cpus(); }));
    case 'D':
      return Compare(a.nodes.size(), b.nodes.size());
    case 'E':
      return Compare(text(Field::kReason, a), text(Field::kReason, b));
    case 'H': {
      auto when = [](const Row& r) {
        return r.nodes.empty() ? 0 : r.nodes.front()->node->reason_time().seconds();
      };
      return Compare(when(a), when(b));
    }
    case 'l':
      return Compare(Seconds(part(a) && part(a)->has_max_time(),
                             part(a) ? part(a)->max_time() : google::protobuf::Duration()),
                     Seconds(part(b) && part(b)->has_max_time(),
                             part(b) ? part(b)->max_time() : google::protobuf::Duration()));
    case 'm':
      return Compare(Min(a, [](const auto& n) { return n.real_memory_mib(); }),
                     Min(b, [](const auto& n) { return n.real_memory_mib(); }));
    case 'M':
      return Compare(part(a) ? part(a)->preempt_mode() : "",
                     part(b) ? part(b)->preempt_mode() : "");
    case 'n':
    case 'N':
    case 'o':
      return CompareNames(FirstNode(a), FirstNode(b));
    case 'p':
      return Compare(part(a) ? part(a)->priority_tier() : 0,
                     part(b) ? part(b)->priority_tier() : 0);
    case 'P':
    case 'R':
      if (key.configured_order) {
        return Compare(a.partition_index, b.partition_index);
      }
      return Compare(part(a) ? part(a)->name() : "", part(b) ? part(b)->name() : "");
    case 's': {
      auto size = [](const Row& r) {
        const int64_t max = r.partition ? r.partition->max_nodes() : 0;
        return max <= 0 ? std::numeric_limits<int64_t>::max() : max + 1;
      };
      return Compare(size(a), size(b));
    }
    case 'S':  // sort.c sorts 'S' by the partition's job priority factor
      return Compare(part(a) ? part(a)->priority_job_factor() : 0,
                     part(b) ? part(b)->priority_job_factor() : 0);
    case 't':
    case 'T': {
      auto state = [](const Row& r) { return r.nodes.empty() ? 0u : r.nodes.front()->state; };
      return Compare(state(a), state(b));
    }
    case 'u':
    case 'U':
      return Compare(text(Field::kUser, a), text(Field::kUser, b));
    case 'w':
      return Compare(Min(a, [](const auto& n) { return n.weight(); }),
                     Min(b, [](const auto& n) { return n.weight(); }));
    case 'X':
    case 'z': {
      const int by_sockets = Compare(Min(a, [](const auto& n) { return LayoutOf(n).sockets; }),
                                     Min(b, [](const auto& n) { return LayoutOf(n).sockets; }));
      if (key.letter == 'X' || by_sockets != 0) {
        return by_sockets;
      }
      const int by_cores = Compare(Min(a, [](const auto& n) { return LayoutOf(n).cores; }),
                                   Min(b, [](const auto& n) { return LayoutOf(n).cores; }));
      if (by_cores != 0) {
        return by_cores;
      }
      return Compare(Min(a, [](const auto& n) { return LayoutOf(n).threads; }),
                     Min(b, [](const auto& n) { return LayoutOf(n).threads; }));
    }
    case 'Y':
      return Compare(Min(a, [](const auto& n) { return LayoutOf(n).cores; }),
                     Min(b, [](const auto& n) { return LayoutOf(n).cores; }));
    case 'Z':
      return Compare(Min(a, [](const auto& n) { return LayoutOf(n).threads; }),
                     Min(b, [](const auto& n) { return LayoutOf(n).threads; }));
    default:
      // d, e, O, g, h, r, V: the same for every Canopy row (no disk, load or free memory
      // reported; fixed partition settings); other letters: sinfo does not sort by them.
      return 0;
  }
}

}  // namespace

void SortRows(absl::string_view sort, bool node_oriented, std::vector<Row>& rows) {
  if (sort.empty()) {
    sort = node_oriented ? "N" : "#P,-t";
  }
  const std::vector<SortKey> keys = ParseSort(sort);
  std::stable_sort(rows.begin(), rows.end(), [&keys](const Row& a, const Row& b) {
    for (const SortKey& key : keys) {
      const int c = CompareBy(key, a, b);
      if (c != 0) {
        return key.descending ? c > 0 : c < 0;
      }
    }
    return false;
  });
}

}  // namespace canopy::ctl::sinfo
