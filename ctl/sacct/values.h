// The values sacct derives from Canopy's job and step records, shared by the text fields
// (fields.cc) and --json (json.cc): TRES strings, memory units, elapsed times and limits, job
// ids, exit codes. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::sacct {

// The trackable resources of a job or step, as sacct's AllocTRES/ReqTRES list them.
struct Tres {
  int64_t billing = 0;  // billing = CPUs (Canopy has no TRESBillingWeights); 0 = not listed
  int64_t cpu = 0;
  int64_t gpus = 0;  // gres/gpu; 0 = not listed
  int64_t mem_mib = 0;
  bool mem_listed = false;  // jobs list mem only when known; steps always ("mem=0")
  int64_t nodes = 0;
};

// Slurm's convert_num_unit(CONVERT_NUM_UNIT_EXACT) on MiB: up a unit while it divides exactly
// ("8G" for 8192, "4000M", "1T"), "0" for zero; with `noconvert` always MiB ("8192M").
std::string MemString(int64_t mib, bool noconvert);

// "billing=2,cpu=2,gres/gpu=16,mem=8G,node=2": the names in alphabetical order, as sacct prints
// them.
std::string TresString(const Tres& tres, bool noconvert);

// What the job asked for (ReqTRES): CPUs of its tasks, --mem per node times its nodes (else the
// memory it was given), its nodes, --gpus-per-node times its nodes.
Tres JobRequestedTres(const canopy::v1::Job& job);
// What it was given (AllocTRES, AllocCPUS): the allocation of a started job; a job that never
// got nodes shows what it asks for (Slurm's AllocCPUS of a pending job), without memory.
Tres JobAllocatedTres(const canopy::v1::Job& job);
// A step's allocation: its CPUs, memory (0 = shares the job's), nodes and GPUs; no billing.
Tres StepTres(const canopy::v1::AccountingStep& step);

// Slurm's secs2time_str: "00:00:03", "01:02:03", "2-03:04:05".
std::string ElapsedString(int64_t seconds);
// Run time of the job: end - start once ended (COMPLETING included), `now` - start while
// running, 0 before it starts (and while pending again after a requeue).
int64_t JobElapsedSeconds(const canopy::v1::Job& job, absl::Time now);
// Of a step: likewise, from the step's own start and end.
int64_t StepElapsedSeconds(const canopy::v1::AccountingStep& step, absl::Time now);

// The limit in minutes, rounded up; -1 without a limit (UNLIMITED).
int64_t TimelimitMinutes(const canopy::v1::Job& job);
// Timelimit ("00:10:00", "1-00:00:00", "UNLIMITED") and TimelimitRaw ("10", "UNLIMITED").
std::string TimelimitString(const canopy::v1::Job& job);
std::string TimelimitRawString(const canopy::v1::Job& job);

// JobID of a job line: "1211", "1214_2", or with `pending_tasks` "1214_[2-4%2]".
std::string JobIdText(const canopy::v1::Job& job, const std::string& pending_tasks);
// JobIDRaw: the job's own id; a pending array remainder is its array's job id.
std::string JobIdRawText(const canopy::v1::Job& job, const std::string& pending_tasks);

// The throttle of an array ("2" of "1-4%2"); 0 when unthrottled or not an array.
int ArrayThrottle(const canopy::v1::Job& job);

// The job's reported node count: its nodes once allocated, else what it asks for.
int64_t JobNodeCount(const canopy::v1::Job& job);
// NodeList of a job: its nodes as a hostlist, "None assigned" before it has any (as slurmdbd
// records it).
std::string JobNodeList(const canopy::v1::Job& job);

// The Slurm state name; a job a user cancelled is "CANCELLED by UID" unless `plain`.
std::string JobStateText(const canopy::v1::AccountingRecord& record, bool plain);

// DerivedExitCode: the highest exit status among the srun steps (batch and extern excluded),
// compared as wait statuses (code << 8 | signal); {0, 0} without such steps.
struct ExitStatus {
  int code = 0;
  int signal = 0;
};
ExitStatus DerivedExit(const canopy::v1::AccountingRecord& record);

// The signal's short name ("KILL", "TERM"), or its number when unknown.
std::string SignalName(int signal);

}  // namespace canopy::ctl::sacct
