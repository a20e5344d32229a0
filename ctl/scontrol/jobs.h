// scontrol's job commands, run against canopyd (the thin part: words in job_words.h, the record
// in show_job.h): show job, hold, uhold, release, requeue, requeuehold, top, suspend, resume,
// update job.
// Errors go to `err` one line per job, as "<Slurm's reason> for job <ID>", and make the
// command exit 1. Thread-compatible.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "ctl/scontrol/options.h"

namespace canopy::ctl::scontrol {

// show job [ID]: every job (as squeue lists them), or one job (an array's id: all its tasks);
// `details` is -d (ShowJobOptions::details).
int ShowJobs(const std::vector<std::string>& args, bool one_liner, bool details, std::ostream& out,
             std::ostream& err);

// hold, uhold, release, requeue, requeuehold JOB_LIST.
int ControlJobs(Command command, const std::vector<std::string>& args, std::ostream& err);

// top JOB_LIST: the first listed ends up first.
int TopJobs(const std::vector<std::string>& args, std::ostream& err);

// suspend|resume JOB_LIST: Canopy does not suspend jobs. Each job gets what Slurm 22.05 prints
// when its controller answers ESLURM_NOT_SUPPORTED: "Requested operation not supported on this
// system for job ID" (stderr, exit 1; nothing with -Q). canopyd is not asked.
int SuspendJobs(const std::vector<std::string>& args, bool quiet, std::ostream& err);

// update job ID KEY=VALUE...
int UpdateJob(const std::vector<std::string>& args, std::ostream& err);

}  // namespace canopy::ctl::scontrol
