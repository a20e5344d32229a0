#include "ctl/sbatch/help.h"

#include <string>

#include "common/slurm/slurm_version.h"

namespace canopy::ctl::sbatch {
namespace {

// Slurm 22.05's sbatch --help (src/sbatch/opt.c, _help), less the lines of options Canopy's
// sbatch does not accept. Slurm prints the --hint line only with the task/affinity plugin.
constexpr char kHelp[] =
    "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n"
    "\n"
    "Parallel run options:\n"
    "  -a, --array=indexes         job array index values\n"
    "  -A, --account=name          charge job to specified account\n"
    "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
    "      --comment=name          arbitrary comment\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
    "      --deadline=time         remove the job if no ending possible before\n"
    "                              this deadline (start > (deadline - time[-min]))\n"
    "      --delay-boot=mins       delay boot for desired node features\n"
    "  -D, --chdir=directory       set working directory for batch script\n"
    "  -e, --error=err             file for batch script's standard error\n"
    "      --export[=names]        specify environment variables to export\n"
    "      --export-file=file|fd   specify environment variables file or file\n"
    "                              descriptor to export\n"
    "      --get-user-env          load environment from local cluster\n"
    "      --gid=group_id          group ID to run job as (user root only)\n"
    "      --gres=list             required generic resources\n"
    "  -H, --hold                  submit job in held state\n"
    "  -i, --input=in              file for batch script's standard input\n"
    "  -J, --job-name=jobname      name of job\n"
    "      --container             Path to OCI container bundle\n"
    "  -m, --distribution=type     distribution method for processes to nodes\n"
    "                              (type = block|cyclic|arbitrary)\n"
    "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
    "      --mail-user=user        who to send email notification for job state\n"
    "                              changes\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "      --nice[=value]          decrease scheduling priority by value\n"
    "      --no-requeue            if set, do not permit the job to be requeued\n"
    "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            file for batch script's standard output\n"
    "  -O, --overcommit            overcommit resources\n"
    "  -p, --partition=partition   partition requested\n"
    "      --parsable              outputs only the jobid and cluster name (if present),\n"
    "                              separated by semicolon, only on successful submission.\n"
    "      --propagate[=rlimits]   propagate all [or specific list of] rlimits\n"
    "  -q, --qos=qos               quality of service\n"
    "      --requeue               if set, permit the job to be requeued\n"
    "      --signal=[[R][B]:]num[@time] send signal when time limit within time seconds\n"
    "      --switches=max-switches{@max-time-to-wait}\n"
    "                              Optimum switches and max time to wait for optimum\n"
    "  -t, --time=minutes          time limit\n"
    "      --uid=user_id           user ID to run job as (user root only)\n"
    "  -W, --wait                  wait for completion of submitted job\n"
    "      --wckey=wckey           wckey to run job under\n"
    "      --wrap[=command string] wrap command string in a sh script and submit\n"
    "\n"
    "Constraint options:\n"
    "      --mem=MB                minimum amount of real memory\n"
    "      --reservation=name      allocate resources from named reservation\n"
    "  -w, --nodelist=hosts...     request a specific list of hosts\n"
    "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
    "\n"
    "Consumable resources related options:\n"
    "      --exclusive[=user]      allocate nodes in exclusive mode when\n"
    "                              cpu consumable resource is enabled\n"
    "      --exclusive[=mcs]       allocate nodes in exclusive mode when\n"
    "                              cpu consumable resource is enabled\n"
    "                              and mcs plugin is enabled\n"
    "\n"
    "Affinity/Multi-core options: (when the task/affinity plugin is enabled)\n"
    "      --hint=                 Bind tasks according to application hints\n"
    "                              (see \"--hint=help\" for options)\n"
    "\n"
    "GPU scheduling options:\n"
    "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"
    "  -G, --gpus=n                count of GPUs required for the job\n"
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

// Slurm 22.05's sbatch --usage (_usage), whole.
constexpr char kUsage[] =
    "Usage: sbatch [-N nnodes] [-n ntasks]\n"
    "              [-c ncpus] [-r n] [-p partition] [--hold] [--parsable] [-t minutes]\n"
    "              [-D path] [--no-kill] [--overcommit]\n"
    "              [--input file] [--output file] [--error file]\n"
    "              [--time-min=minutes] [--licenses=names] [--clusters=cluster_names]\n"
    "              [--chdir=directory] [--oversubscribe] [-m dist] [-J jobname]\n"
    "              [--verbose] [--gid=group] [--uid=user]\n"
    "              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type] [--mail-user=user] [--nice[=value]] [--wait]\n"
    "              [--requeue] [--no-requeue] [--ntasks-per-node=n] [--propagate]\n"
    "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
    "              [--network=type] [--mem-per-cpu=MB] [--qos=qos] [--gres=list]\n"
    "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
    "              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--gres-flags=opts]\n"
    "              [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
    "              [--core-spec=cores] [--thread-spec=threads]\n"
    "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "              [--array=index_values] [--profile=...] [--ignore-pbs] [--spread-job]\n"
    "              [--export[=names]] [--export-file=file|fd] [--delay-boot=mins]\n"
    "              [--use-min-nodes]\n"
    "              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "              [--gpus-per-node=n] [--gpus-per-socket=n]  [--gpus-per-task=n]\n"
    "              [--mem-per-gpu=MB]\n"
    "              executable [args...]\n";

}  // namespace

// Slurm 22.05's verify_hint text for "--hint=help".
std::string HintHelpText() {
  return "Application hint options:\n"
         "    --hint=             Bind tasks according to application hints\n"
         "        compute_bound   use all cores in each socket\n"
         "        memory_bound    use only one core in each socket\n"
         "        [no]multithread [don't] use extra threads with in-core multi-threading\n"
         "        help            show this help message\n";
}

std::string SbatchInfoText(slurm::InfoRequest request) {
  switch (request) {
    case slurm::InfoRequest::kHelp:
      return kHelp;
    case slurm::InfoRequest::kUsage:
      return kUsage;
    case slurm::InfoRequest::kVersion:
      return slurm::SlurmVersionLine("sbatch");
    case slurm::InfoRequest::kHintHelp:
      return HintHelpText();
    case slurm::InfoRequest::kCpuBindHelp:  // srun's (ctl/srun/help.h)
    case slurm::InfoRequest::kNone:
      return "";
  }
  return "";
}

}  // namespace canopy::ctl::sbatch
