// squeue --help, --usage and --version.
#include "ctl/squeue/help.h"

#include "common/slurm/slurm_version.h"

namespace canopy::ctl::squeue {
namespace {

// Slurm 22.05's squeue --help, less --yaml (Canopy has no YAML output).
constexpr char kHelp[] =
    "Usage: squeue [OPTIONS]\n"
    "  -A, --account=account(s)        comma separated list of accounts\n"
    "\t\t\t\t  to view, default is all accounts\n"
    "  -a, --all                       display jobs in hidden partitions\n"
    "      --array-unique              display one unique pending job array\n"
    "                                  element per line\n"
    "      --federation                Report federated information if a member\n"
    "                                  of one\n"
    "  -h, --noheader                  no headers on output\n"
    "      --hide                      do not display jobs in hidden partitions\n"
    "  -i, --iterate=seconds           specify an interation period\n"
    "  -j, --job=job(s)                comma separated list of jobs IDs\n"
    "                                  to view, default is all\n"
    "      --json                      Produce JSON output\n"
    "      --local                     Report information only about jobs on the\n"
    "                                  local cluster. Overrides --federation.\n"
    "  -l, --long                      long report\n"
    "  -L, --licenses=(license names)  comma separated list of license names to view\n"
    "  -M, --clusters=cluster_name     cluster to issue commands to.  Default is\n"
    "                                  current cluster.  cluster with no name will\n"
    "                                  reset to default. Implies --local.\n"
    "  -n, --name=job_name(s)          comma separated list of job names to view\n"
    "      --noconvert                 don't convert units from their original type\n"
    "                                  (e.g. 2048M won't be converted to 2G).\n"
    "  -o, --format=format             format specification\n"
    "  -O, --Format=format             format specification\n"
    "  -p, --partition=partition(s)    comma separated list of partitions\n"
    "\t\t\t\t  to view, default is all partitions\n"
    "  -q, --qos=qos(s)                comma separated list of qos's\n"
    "\t\t\t\t  to view, default is all qos's\n"
    "  -R, --reservation=name          reservation to view, default is all\n"
    "  -r, --array                     display one job array element per line\n"
    "      --sibling                   Report information about all sibling jobs\n"
    "                                  on a federated cluster. Implies --federation.\n"
    "  -s, --step=step(s)              comma separated list of job steps\n"
    "\t\t\t\t  to view, default is all\n"
    "  -S, --sort=fields               comma separated list of fields to sort on\n"
    "      --start                     print expected start times of pending jobs\n"
    "  -t, --states=states             comma separated list of states to view,\n"
    "\t\t\t\t  default is pending and running,\n"
    "\t\t\t\t  '--states=all' reports all states\n"
    "  -u, --user=user_name(s)         comma separated list of users to view\n"
    "      --name=job_name(s)          comma separated list of job names to view\n"
    "  -v, --verbose                   verbosity level\n"
    "  -V, --version                   output version information and exit\n"
    "  -w, --nodelist=hostlist         list of nodes to view, default is \n"
    "\t\t\t\t  all nodes\n"
    "\n"
    "Help options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief summary of squeue options\n";

// Slurm 22.05's squeue --usage, whole; squeue also prints it after "Unrecognized option".
constexpr char kUsage[] =
    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
    "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
    "              [--reservation reservation] [--sort fields] [--start]\n"
    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
    "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
    "\t      [-ahjlrsv]\n";

}  // namespace

std::string SqueueHelp() { return kHelp; }
std::string SqueueUsage() { return kUsage; }
std::string SqueueVersion() { return slurm::SlurmVersionLine("squeue"); }

}  // namespace canopy::ctl::squeue
