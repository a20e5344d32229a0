#include "ctl/srun/help.h"

#include <string>

#include "common/slurm/slurm_version.h"
#include "ctl/sbatch/help.h"

namespace canopy::ctl::srun {
namespace {

// Slurm 22.05's srun --help (src/srun/libsrun/opt.c, _help), less the lines of options Canopy's
// srun does not accept. Slurm prints the --cpu-bind and --hint lines only with the task/affinity
// plugin. (--uid, --gid, --open-mode, --test-only and --wait are not in Slurm's text either.)
constexpr char kHelp[] =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
    "executable(N) [args(N)...]\n"
    "\n"
    "Parallel run options:\n"
    "  -A, --account=name          charge job to specified account\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "      --comment=name          arbitrary comment\n"
    "      --container             Path to OCI container bundle\n"
    "      --deadline=time         remove the job if no ending possible before\n"
    "                              this deadline (start > (deadline - time[-min]))\n"
    "      --delay-boot=mins       delay boot for desired node features\n"
    "  -D, --chdir=path            change remote current working directory\n"
    "      --export=env_vars|NONE  environment variables passed to launcher with\n"
    "                              optional values or NONE (pass no variables)\n"
    "  -e, --error=err             location of stderr redirection\n"
    "      --gres=list             required generic resources\n"
    "      --jobid=id              run under already allocated job\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -l, --label                 prepend task number to lines of stdout/err\n"
    "  -m, --distribution=type     distribution method for processes to nodes\n"
    "                              (type = block|cyclic|arbitrary)\n"
    "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
    "      --mail-user=user        who to send email notification for job state\n"
    "                              changes\n"
    "      --mpi=type              type of MPI being used\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            location of stdout redirection\n"
    "  -O, --overcommit            overcommit resources\n"
    "      --overlap               Allow other steps to overlap this step\n"
    "  -p, --partition=partition   partition requested\n"
    "      --propagate[=rlimits]   propagate all [or specific list of] rlimits\n"
    "  -t, --time=minutes          time limit\n"
    "  -u, --unbuffered            do not line-buffer stdout/err\n"
    "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
    "  -W, --wait=sec              seconds to wait after first task exits\n"
    "                              before killing job\n"
    "      --wckey=wckey           wckey to run job under\n"
    "\n"
    "Constraint options:\n"
    "      --reservation=name      allocate resources from named reservation\n"
    "  -w, --nodelist=hosts...     request a specific list of hosts\n"
    "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
    "\n"
    "Consumable resources related options:\n"
    "      --exclusive[=user]      for job allocation, this allocates nodes in\n"
    "                              in exclusive mode\n"
    "                              for job steps, this is equivalent to --exact\n"
    "      --exclusive[=mcs]       allocate nodes in exclusive mode when\n"
    "                              cpu consumable resource is enabled\n"
    "                              and mcs plugin is enabled (--exact implied)\n"
    "                              or don't share CPUs for job steps\n"
    "\n"
    "Affinity/Multi-core options: (when the task/affinity plugin is enabled)\n"
    "      --cpu-bind=             Bind tasks to CPUs\n"
    "                              (see \"--cpu-bind=help\" for options)\n"
    "      --hint=                 Bind tasks according to application hints\n"
    "                              (see \"--hint=help\" for options)\n"
    "\n"
    "GPU scheduling options:\n"
    "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"
    "      --gpu-bind=...          task to gpu binding options\n"
    "      --gpus-per-node=n       number of GPUs required per allocated node\n"
    "      --gpus-per-task=n       number of GPUs required per spawned task\n"
    "      --mem-per-gpu=n         real memory required per allocated GPU\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n"
    "\n"
    "Other options:\n"
    "  -V, --version               output version information and exit\n"
    "\n";

// Slurm 22.05's srun --usage (_usage), whole.
constexpr char kUsage[] =
    "Usage: srun [-N nnodes] [-n ntasks] [-i in] [-o out] [-e err]\n"
    "            [-c ncpus] [-r n] [-p partition] [--hold] [-t minutes]\n"
    "            [-D path] [--immediate[=secs]] [--overcommit] [--overlap] [--no-kill]\n"
    "            [--oversubscribe] [--label] [--unbuffered] [-m dist] [-J jobname]\n"
    "            [--jobid=id] [--verbose] [--slurmd_debug=#] [--gres=list]\n"
    "            [-T threads] [-W sec] [--gres-flags=opts]\n"
    "            [--licenses=names] [--clusters=cluster_names]\n"
    "            [--qos=qos] [--time-min=minutes]\n"
    "            [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "            [--mpi=type] [--account=name] [--dependency=type:jobid[+time]]\n"
    "            [--kill-on-bad-exit] [--propagate[=rlimits] [--comment=name]\n"
    "            [--cpu-bind=...] [--mem-bind=...] [--network=type]\n"
    "            [--ntasks-per-node=n] [--ntasks-per-socket=n] [reservation=name]\n"
    "            [--ntasks-per-core=n] [--mem-per-cpu=MB] [--preserve-env]\n"
    "            [--profile=...] [--exact]\n"
    "            [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
    "            [--prolog=fname] [--epilog=fname]\n"
    "            [--task-prolog=fname] [--task-epilog=fname]\n"
    "            [--ctrl-comm-ifhn=addr] [--multi-prog] [--mcs-label=mcs]\n"
    "            [--cpu-freq=min[-max[:gov]]] [--power=flags] [--spread-job]\n"
    "            [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
    "            [--core-spec=cores] [--thread-spec=threads]\n"
    "            [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "            [--bcast=<dest_path>] [--bcast-exclude=<NONE|path1,...,pathN>]\n"
    "            [--send-libs[=y|n]] [--compress[=library]]\n"
    "            [--acctg-freq=<datatype>=<interval>] [--delay-boot=mins]\n"
    "            [-w hosts...] [-x hosts...] [--use-min-nodes]\n"
    "            [--het-group=value]\n"
    "            [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "            [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "            [--mem-per-gpu=MB]\n"
    "            executable [args...]\n";

// Slurm 22.05's slurm_print_cpu_bind_help text (with the task/affinity plugin).
std::string CpuBindHelpText() {
  return "CPU bind options:\n"
         "    --cpu-bind=         Bind tasks to CPUs\n"
         "        q[uiet]         quietly bind before task runs (default)\n"
         "        v[erbose]       verbosely report binding before task runs\n"
         "        no[ne]          don't bind tasks to CPUs (default)\n"
         "        rank            bind by task rank\n"
         "        map_cpu:<list>  specify a CPU ID binding for each task\n"
         "                        where <list> is <cpuid1>,<cpuid2>,...<cpuidN>\n"
         "        mask_cpu:<list> specify a CPU ID binding mask for each task\n"
         "                        where <list> is <mask1>,<mask2>,...<maskN>\n"
         "        rank_ldom       bind task by rank to CPUs in a NUMA locality domain\n"
         "        map_ldom:<list> specify a NUMA locality domain ID for each task\n"
         "                        where <list> is <ldom1>,<ldom2>,...<ldomN>\n"
         "        mask_ldom:<list>specify a NUMA locality domain ID mask for each task\n"
         "                        where <list> is <mask1>,<mask2>,...<maskN>\n"
         "        sockets         auto-generated masks bind to sockets\n"
         "        cores           auto-generated masks bind to cores\n"
         "        threads         auto-generated masks bind to threads\n"
         "        ldoms           auto-generated masks bind to NUMA locality domains\n"
         "        help            show this help message\n";
}

}  // namespace

std::string SrunInfoText(slurm::InfoRequest request) {
  switch (request) {
    case slurm::InfoRequest::kHelp:
      return kHelp;
    case slurm::InfoRequest::kUsage:
      return kUsage;
    case slurm::InfoRequest::kVersion:
      return slurm::SlurmVersionLine("srun");
    case slurm::InfoRequest::kHintHelp:
      return sbatch::HintHelpText();
    case slurm::InfoRequest::kCpuBindHelp:
      return CpuBindHelpText();
    case slurm::InfoRequest::kNone:
      return "";
  }
  return "";
}

}  // namespace canopy::ctl::srun
