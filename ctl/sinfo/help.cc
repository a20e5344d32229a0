#include "ctl/sinfo/help.h"

#include "common/slurm/slurm_version.h"

namespace canopy::ctl::sinfo {
namespace {

// Slurm 22.05.8's sinfo --help, byte for byte (tabs included).
constexpr char kHelp[] =
    "Usage: sinfo [OPTIONS]\n"
    "  -a, --all                  show all partitions (including hidden and those\n"
    "\t\t\t     not accessible)\n"
    "  -d, --dead                 show only non-responding nodes\n"
    "  -e, --exact                group nodes only on exact match of configuration\n"
    "      --federation           Report federated information if a member of one\n"
    "  -h, --noheader             no headers on output\n"
    "  --hide                     do not show hidden or non-accessible partitions\n"
    "  -i, --iterate=seconds      specify an iteration period\n"
    "      --json                 Produce JSON output\n"
    "      --local                show only local cluster in a federation.\n"
    "                             Overrides --federation.\n"
    "  -l, --long                 long output - displays more information\n"
    "  -M, --clusters=names       clusters to issue commands to. Implies --local.\n"
    "                             NOTE: SlurmDBD must be up.\n"
    "  -n, --nodes=NODES          report on specific node(s)\n"
    "  --noconvert                don't convert units from their original type\n"
    "\t\t\t     (e.g. 2048M won't be converted to 2G).\n"
    "  -N, --Node                 Node-centric format\n"
    "  -o, --format=format        format specification\n"
    "  -O, --Format=format        long format specification\n"
    "  -p, --partition=PARTITION  report on specific partition\n"
    "  -r, --responding           report only responding nodes\n"
    "  -R, --list-reasons         list reason nodes are down or drained\n"
    "  -s, --summarize            report state summary only\n"
    "  -S, --sort=fields          comma separated list of fields to sort on\n"
    "  -t, --states=node_state    specify the what states of nodes to view\n"
    "  -T, --reservation          show only reservation information\n"
    "  -v, --verbose              verbosity level\n"
    "  -V, --version              output version information and exit\n"
    "      --yaml                 Produce YAML output\n"
    "\n"
    "Help options:\n"
    "  --help                     show this help message\n"
    "  --usage                    display brief usage message\n";

// Slurm 22.05.8's sinfo --usage.
constexpr char kUsage[] =
    "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
    "             [-S fields] [-o format] [-O Format] [--federation] [--local]\n";

}  // namespace

std::string SinfoInfoText(SinfoInfo info) {
  switch (info) {
    case SinfoInfo::kHelp:
      return kHelp;
    case SinfoInfo::kUsage:
      return kUsage;
    case SinfoInfo::kVersion:
      return slurm::SlurmVersionLine("sinfo");
    case SinfoInfo::kNone:
      return "";
  }
  return "";
}

}  // namespace canopy::ctl::sinfo
