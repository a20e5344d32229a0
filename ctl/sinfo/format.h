// sinfo's output formats: the fields (a letter for -o, a name for -O, a header), and the two
// format languages as Slurm 22.05's sinfo reads them. Pure; thread-safe.
//
// -o/--format: literal text before the first '%' is a prefix of every line; then each piece
//   between '%' signs is "[.][size]LETTER[suffix]" ("%.6D" right-aligned in 6 columns, "%9P"
//   left-aligned, "%N" as wide as its value). Unlike squeue's, sinfo's reader knows no '-' or
//   '#' and no "%%": "%#P" is an invalid field, empty pieces are skipped. An invalid letter
//   prints "%PIECE" in its place and warns "Invalid node format specification: X".
//   "%all" (the whole string) is every field, '|'-separated.
// -O/--Format: comma-separated "NAME[:[.][size][suffix]]", names case-insensitive; no ":size"
//   means 20 columns, left-aligned, no suffix; size 0 means as wide as the value. An unknown name
//   prints only its suffix and warns "sinfo: error: Invalid job format specification: NAME".
//   "All" is "%all".
// Values wider than their column are cut to it, as Slurm does.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace canopy::ctl::sinfo {

enum class Field {
  kInvalid,
  kAvail,              // a  AVAIL              Available
  kFeaturesAct,        // b  ACTIVE_FEATURES    features_act
  kCpus,               // c  CPUS               CPUs
  kDisk,               // d  TMP_DISK           Disk
  kFreeMem,            // e  FREE_MEM           FreeMem
  kFeatures,           // f  AVAIL_FEATURES     Features
  kGroups,             // g  GROUPS             Groups
  kOversubscribe,      // h  OVERSUBSCRIBE      OverSubscribe, Share
  kTime,               // l  TIMELIMIT          Time
  kMemory,             // m  MEMORY             Memory
  kHostnames,          // n  HOSTNAMES          NodeHost
  kNodeAddr,           // o  NODE_ADDR          NodeAddr
  kPriorityTier,       // p  PRIO_TIER          PriorityTier
  kRoot,               // r  ROOT               Root
  kSize,               // s  JOB_SIZE           Size
  kStateCompact,       // t  STATE              StateCompact
  kUser,               // u  USER               User
  kVersion,            // v  VERSION            Version
  kWeight,             // w  WEIGHT             Weight
  kSocketCoreThread,   // z  S:C:T              SocketCoreThread
  kNodesAi,            // A  NODES(A/I)         NodeAI
  kMaxCpusPerNode,     // B  MAX_CPUS_PER_NODE  MaxCPUsPerNode
  kCpusState,          // C  CPUS(A/I/O/T)      CPUsState
  kNodes,              // D  NODES              Nodes
  kReason,             // E  REASON             Reason
  kNodesAiot,          // F  NODES(A/I/O/T)     NodeAIOT
  kGres,               // G  GRES               Gres
  kTimestamp,          // H  TIMESTAMP          TimeStamp
  kPriorityJobFactor,  // I  PRIO_JOB_FACTOR    PriorityJobFactor
  kDefaultTime,        // L  DEFAULTTIME        DefaultTime
  kPreemptMode,        // M  PREEMPT_MODE       PreemptMode
  kNodeList,           // N  NODELIST           NodeList
  kCpuLoad,            // O  CPU_LOAD           CPUsLoad
  kPartition,          // P  PARTITION          Partition
  kPartitionName,      // R  PARTITION          PartitionName
  kAllocNodes,         // S  ALLOCNODES         AllocNodes
  kStateLong,          // T  STATE              StateLong
  kUserLong,           // U  USER               UserLong
  kCluster,            // V  CLUSTER            Cluster
  kSockets,            // X  SOCKETS            Sockets
  kCores,              // Y  CORES              Cores
  kThreads,            // Z  THREADS            Threads
  kAllocMem,           //    ALLOCMEM           AllocMem
  kComment,            //    COMMENT            Comment
  kExtra,              //    EXTRA              Extra
  kGresUsed,           //    GRES_USED          GresUsed
  kPort,               //    PORT               Port
  kStateComplete,      //    STATECOMPLETE      StateComplete
};

// The column header of a field ("" for kInvalid).
absl::string_view FieldHeader(Field field);

// The field of an -o letter; kInvalid for a letter sinfo 22.05 does not know.
Field FieldOfLetter(char letter);

// One column of a format.
struct Column {
  Field field = Field::kInvalid;
  int width = 0;  // 0: as wide as the value
  bool right = false;
  std::string suffix;   // printed after the column
  std::string literal;  // kInvalid: printed instead of a value (and before the suffix)
};

struct SinfoFormat {
  std::string prefix;  // -o: printed at the start of every line
  std::vector<Column> columns;
  // The default formats size NODELIST (with -N) and PARTITION to their widest value, at least 9
  // columns (sinfo's node_field_flag / part_field_flag).
  bool size_node_list = false;
  bool size_partition = false;
};

struct ParsedFormat {
  SinfoFormat format;
  std::vector<std::string> warnings;  // lines for stderr, as Slurm words them
};

// -o's language.
ParsedFormat ParseFormat(absl::string_view format);
// -O's language.
ParsedFormat ParseLongFormat(absl::string_view format);

// The default formats Slurm 22.05 uses (in -O's language, as sinfo 22.05 itself keeps them).
inline constexpr char kDefaultFormat[] =
    "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0";
inline constexpr char kDefaultLongFormat[] =
    "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,oversubscribe:.8 ,groups:.10 "
    ",nodes:.6 ,statelong:.11 ,nodelist:0";
inline constexpr char kSummarizeFormat[] =
    "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0";
inline constexpr char kNodeFormat[] = "nodelist:0 ,nodes:.6 ,partition:.9 ,statecompact:6";
inline constexpr char kNodeLongFormat[] =
    "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,socketcorethread:.8 ,memory:.6 "
    ",disk:.8 ,weight:.6 ,features:.8 ,reason:20";
inline constexpr char kReasonFormat[] = "reason:20 ,user:9 ,timestamp:19 ,nodelist:0";
inline constexpr char kReasonLongFormat[] =
    "reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0";

}  // namespace canopy::ctl::sinfo
