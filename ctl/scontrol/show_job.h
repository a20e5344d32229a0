// `scontrol show job`'s record, in Slurm 22.05's layout (tests/data/slurm-reference: "scontrol
// show job 1220", "scontrol show job -o 1221"). Pure: the job, the present moment, the time
// zone and the owner's group name come in. Thread-safe.
//
// Fields Canopy does not have are printed as Slurm prints them for a job that does not use
// them (MCS_label=N/A, TimeMin=N/A, Deadline=N/A, Features=(null), ...). Known differences:
// QOS is "normal" when the job has an account and "(null)" otherwise (Canopy has no QOS);
// AllocNode:Sid is the submit host with session 0 (sbatch's session is not recorded); Command
// is (null) (the script's path is not kept, only its text); TRES lists cpu, mem (when asked
// for), node and billing (= cpu).
#pragma once

#include <string>

#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::scontrol {

struct ShowJobOptions {
  bool one_liner = false;  // -o: one line, fields separated by single spaces
  // -d: for a job holding nodes, JOB_GRES= and a line per group of alike nodes with its memory
  // and its GPUs' indexes ("Nodes=gpu[1-2] CPU_IDs=N/A Mem=0 GRES=gpu:4(IDX:0-3)"), after
  // Socks/Node=. CPU_IDs is N/A: the agent, not canopyd, picks a job's cores.
  bool details = false;
};

// One job's record, ending as Slurm ends it: "\n   \n\n" on several lines, " \n" on one.
std::string RenderJob(const canopy::v1::Job& job, absl::Time now, absl::TimeZone tz,
                      const std::string& group_name, const ShowJobOptions& options);

// Dependency=: the items not yet fulfilled, as common/slurm/dependency.h prints them.
std::string DependencyField(const canopy::v1::JobSpec& spec);

}  // namespace canopy::ctl::scontrol
