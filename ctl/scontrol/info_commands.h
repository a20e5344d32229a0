// scontrol's read-only commands against canopyd (the thin part; the records are rendered by
// show_node.h, show_partition.h, show_config.h and show_steps.h): show node, show partition,
// show config, show reservation and show steps. Output and exit codes follow Slurm 22.05:
// "not found" messages go to stdout and exit 1 (left out with -Q), a failed request prints
// "slurm_load_... error: REASON" on stderr and exits 1. Thread-compatible.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::scontrol {

struct InfoOptions {
  bool one_liner = false;  // -o
  bool quiet = false;      // -Q: no "not found" lines
};

// show node [NAME|HOSTLIST]: every node, or each listed node in the order written ("Node X not
// found" for each unknown one; "unable to parse node list X" on stderr for a bad list).
int ShowNodes(const std::vector<std::string>& args, const InfoOptions& options, std::ostream& out,
              std::ostream& err);

// show partition [NAME] ("Partition X not found").
int ShowPartitions(const std::vector<std::string>& args, const InfoOptions& options,
                   std::ostream& out, std::ostream& err);

// show config.
int ShowConfig(std::ostream& out, std::ostream& err);

// show reservation [NAME]: Canopy has no reservations ("No reservations in the system", exit 0;
// "Reservation X not found", exit 1).
int ShowReservations(const std::vector<std::string>& args, const InfoOptions& options,
                     std::ostream& out);

// show steps [JOBID[_TASK][.STEPID]]: the running srun steps ("No job steps in the system",
// "Job step X.Y not found"; an unknown job is "slurm_get_job_steps error: Invalid job id
// specified").
int ShowSteps(const std::vector<std::string>& args, const InfoOptions& options, std::ostream& out,
              std::ostream& err);

}  // namespace canopy::ctl::scontrol
