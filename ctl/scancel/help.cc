#include "ctl/scancel/help.h"

namespace canopy::ctl::scancel {

std::string ScancelHelp() {
  return "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n"
         "  -A, --account=account           act only on jobs charging this account\n"
         "  -b, --batch                     signal batch shell for specified job\n"
         "  -f, --full                      signal batch shell and all steps for specified job\n"
         "  -H, --hurry                     avoid burst buffer stage out\n"
         "  -i, --interactive               require response from user for each job\n"
         "  -M, --clusters                  clusters to issue commands to.\n"
         "                                  NOTE: SlurmDBD must be up.\n"
         "  -n, --name=job_name             act only on jobs with this name\n"
         "  -p, --partition=partition       act only on jobs in this partition\n"
         "  -Q, --quiet                     disable warnings\n"
         "  -q, --qos=qos                   act only on jobs with this quality of service\n"
         "  -R, --reservation=reservation   act only on jobs with this reservation\n"
         "      --sibling=cluster_name      remove an active sibling job from a federated job\n"
         "  -s, --signal=name | integer     signal to send to job, default is SIGKILL\n"
         "  -t, --state=states              act only on jobs in this state.  Valid job\n"
         "                                  states are PENDING, RUNNING and SUSPENDED\n"
         "  -u, --user=user_name            act only on jobs of this user\n"
         "  -V, --version                   output version information and exit\n"
         "  -v, --verbose                   verbosity level\n"
         "  -w, --nodelist                  act only on jobs on these nodes\n"
         "      --wckey=wckey               act only on jobs with this workload\n"
         "                                  charactization key\n"
         "\n"
         "Help options:\n"
         "  --help                          show this help message\n"
         "  --usage                         display brief usage message\n";
}

std::string ScancelUsage() {
  return "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
         "               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]\n"
         "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
         "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
         "               [job_id[_array_id][.step_id]]\n";
}

}  // namespace canopy::ctl::scancel
