#include "ctl/sinfo/format.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::ctl::sinfo {
namespace {

struct FieldInfo {
  Field field;
  char letter;       // '\0': -O only
  const char* name;  // -O's name
  const char* header;
};

// Slurm 22.05's fields (sinfo/opts.c, print.c), in -o letter order.
constexpr FieldInfo kFields[] = {
    {Field::kAvail, 'a', "available", "AVAIL"},
    {Field::kFeaturesAct, 'b', "features_act", "ACTIVE_FEATURES"},
    {Field::kCpus, 'c', "cpus", "CPUS"},
    {Field::kDisk, 'd', "disk", "TMP_DISK"},
    {Field::kFreeMem, 'e', "freemem", "FREE_MEM"},
    {Field::kFeatures, 'f', "features", "AVAIL_FEATURES"},
    {Field::kGroups, 'g', "groups", "GROUPS"},
    {Field::kOversubscribe, 'h', "oversubscribe", "OVERSUBSCRIBE"},
    {Field::kTime, 'l', "time", "TIMELIMIT"},
    {Field::kMemory, 'm', "memory", "MEMORY"},
    {Field::kHostnames, 'n', "nodehost", "HOSTNAMES"},
    {Field::kNodeAddr, 'o', "nodeaddr", "NODE_ADDR"},
    {Field::kPriorityTier, 'p', "prioritytier", "PRIO_TIER"},
    {Field::kRoot, 'r', "root", "ROOT"},
    {Field::kSize, 's', "size", "JOB_SIZE"},
    {Field::kStateCompact, 't', "statecompact", "STATE"},
    {Field::kUser, 'u', "user", "USER"},
    {Field::kVersion, 'v', "version", "VERSION"},
    {Field::kWeight, 'w', "weight", "WEIGHT"},
    {Field::kSocketCoreThread, 'z', "socketcorethread", "S:C:T"},
    {Field::kNodesAi, 'A', "nodeai", "NODES(A/I)"},
    {Field::kMaxCpusPerNode, 'B', "maxcpuspernode", "MAX_CPUS_PER_NODE"},
    {Field::kCpusState, 'C', "cpusstate", "CPUS(A/I/O/T)"},
    {Field::kNodes, 'D', "nodes", "NODES"},
    {Field::kReason, 'E', "reason", "REASON"},
    {Field::kNodesAiot, 'F', "nodeaiot", "NODES(A/I/O/T)"},
    {Field::kGres, 'G', "gres", "GRES"},
    {Field::kTimestamp, 'H', "timestamp", "TIMESTAMP"},
    {Field::kPriorityJobFactor, 'I', "priorityjobfactor", "PRIO_JOB_FACTOR"},
    {Field::kDefaultTime, 'L', "defaulttime", "DEFAULTTIME"},
    {Field::kPreemptMode, 'M', "preemptmode", "PREEMPT_MODE"},
    {Field::kNodeList, 'N', "nodelist", "NODELIST"},
    {Field::kCpuLoad, 'O', "cpusload", "CPU_LOAD"},
    {Field::kPartition, 'P', "partition", "PARTITION"},
    {Field::kPartitionName, 'R', "partitionname", "PARTITION"},
    {Field::kAllocNodes, 'S', "allocnodes", "ALLOCNODES"},
    {Field::kStateLong, 'T', "statelong", "STATE"},
    {Field::kUserLong, 'U', "userlong", "USER"},
    {Field::kCluster, 'V', "cluster", "CLUSTER"},
    {Field::kSockets, 'X', "sockets", "SOCKETS"},
    {Field::kCores, 'Y', "cores", "CORES"},
    {Field::kThreads, 'Z', "threads", "THREADS"},
    {Field::kAllocMem, '\0', "allocmem", "ALLOCMEM"},
    {Field::kComment, '\0', "comment", "COMMENT"},
    {Field::kExtra, '\0', "extra", "EXTRA"},
    {Field::kGresUsed, '\0', "gresused", "GRES_USED"},
    {Field::kPort, '\0', "port", "PORT"},
    {Field::kStateComplete, '\0', "statecomplete", "STATECOMPLETE"},
};

Field FieldOfName(absl::string_view name) {
  if (absl::EqualsIgnoreCase(name, "share")) {  // the old name of OverSubscribe
    return Field::kOversubscribe;
  }
  for (const FieldInfo& f : kFields) {
    if (absl::EqualsIgnoreCase(name, f.name)) {
      return f.field;
    }
  }
  return Field::kInvalid;
}

// "%all": "%a|%b|...|%z|%A |%B |...|%Z " (the upper-case letters take " |" after them), of
// which the letters sinfo does not know are dropped silently.
void AppendAll(SinfoFormat& format) {
  auto add = [&format](char letter, absl::string_view suffix) {
    const Field field = FieldOfLetter(letter);
    if (field != Field::kInvalid) {
      format.columns.push_back(Column{field, 0, false, std::string(suffix), ""});
    }
  };
  for (char c = 'a'; c <= 'z'; ++c) {
    add(c, "|");
  }
  for (char c = 'A'; c <= 'Z'; ++c) {
    add(c, c == 'Z' ? " " : " |");
  }
}

}  // namespace

absl::string_view FieldHeader(Field field) {
  for (const FieldInfo& f : kFields) {
    if (f.field == field) {
      return f.header;
    }
  }
  return "";
}

Field FieldOfLetter(char letter) {
  if (letter == '\0') {
    return Field::kInvalid;
  }
  for (const FieldInfo& f : kFields) {
    if (f.letter == letter) {
      return f.field;
    }
  }
  return Field::kInvalid;
}

ParsedFormat ParseFormat(absl::string_view format) {
  ParsedFormat parsed;
  if (absl::EqualsIgnoreCase(format, "%all")) {
    AppendAll(parsed.format);
    return parsed;
  }
  const size_t first = format.find('%');
  parsed.format.prefix = std::string(format.substr(0, first));
  if (first == absl::string_view::npos) {
    return parsed;
  }
  for (absl::string_view piece : absl::StrSplit(format.substr(first), '%', absl::SkipEmpty())) {
    Column column;
    size_t i = 0;
    if (piece[i] == '.') {
      column.right = true;
      ++i;
    }
    while (i < piece.size() && absl::ascii_isdigit(piece[i])) {
      column.width = column.width * 10 + (piece[i++] - '0');
    }
    const char letter = i < piece.size() ? piece[i++] : '\0';
    column.field = FieldOfLetter(letter);
    if (column.field == Field::kInvalid) {
      // Slurm prints the whole piece back, '%' and all, and names the letter.
      column.width = 0;
      column.literal = absl::StrCat("%", piece);
      parsed.warnings.push_back(absl::StrCat("Invalid node format specification: ",
                                             absl::string_view(&letter, letter ? 1 : 0)));
    } else {
      column.suffix = std::string(piece.substr(i));
    }
    parsed.format.columns.push_back(std::move(column));
  }
  return parsed;
}

ParsedFormat ParseLongFormat(absl::string_view format) {
  ParsedFormat parsed;
  for (absl::string_view token : absl::StrSplit(format, ',', absl::SkipEmpty())) {
    Column column;
    absl::string_view name = token;
    if (const size_t colon = token.find(':'); colon != absl::string_view::npos) {
      name = token.substr(0, colon);
      absl::string_view spec = token.substr(colon + 1);
      if (absl::ConsumePrefix(&spec, ".")) {
        column.right = true;
      }
      size_t i = 0;
      while (i < spec.size() && absl::ascii_isdigit(spec[i])) {
        column.width = column.width * 10 + (spec[i++] - '0');
      }
      column.suffix = std::string(spec.substr(i));
    } else {
      column.width = 20;
    }
    if (absl::EqualsIgnoreCase(name, "all")) {
      AppendAll(parsed.format);
      continue;
    }
    column.field = FieldOfName(name);
    if (column.field == Field::kInvalid) {
      column.width = 0;
      parsed.warnings.push_back(
          absl::StrCat("sinfo: error: Invalid job format specification: ", name));
    }
    parsed.format.columns.push_back(std::move(column));
  }
  return parsed;
}

}  // namespace canopy::ctl::sinfo
