// Test data: the accounting records of the cluster of tests/data/slurm-reference/accounting-
// outputs-22.05.txt (jobs 1202-1221 on gpu[001-016], recorded 2026-12-03T03:50:58Z), built as
// canopyd would answer ListAccounting, and the reference blocks themselves. Header-only, for the
// tests of this folder.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/sacct/options.h"

namespace canopy::ctl::sacct::testing {

using canopy::v1::AccountingRecord;
using canopy::v1::AccountingStep;
using canopy::v1::ListAccountingResponse;

// 2026-12-03 HH:MM:SS UTC on the wire.
inline google::protobuf::Timestamp At(int h, int m, int s) {
  google::protobuf::Timestamp t;
  t.set_seconds(absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(2026, 12, 3, h, m, s), absl::UTCTimeZone())));
  return t;
}

// The moment the reference was recorded: "now" of the parse and canopyd's server_time.
inline absl::Time RecordedAt() {
  return absl::FromCivil(absl::CivilSecond(2026, 12, 3, 3, 50, 58), absl::UTCTimeZone());
}

// A job of root in partition gpu, submitted at 03:48:34, not started.
inline AccountingRecord Record(uint32_t id, const std::string& name, const std::string& account,
                               canopy::v1::JobState state, int nodes = 1) {
  AccountingRecord rec;
  canopy::v1::Job* job = rec.mutable_job();
  job->set_job_id(id);
  job->set_state(state);
  job->set_reason("None");
  job->set_user_id(0);
  job->set_group_id(0);
  job->set_user_name("root");
  job->set_partition("gpu");
  job->set_qos("normal");
  job->set_priority(1000);
  *job->mutable_submit_time() = At(3, 48, 34);
  *job->mutable_eligible_time() = At(3, 48, 34);
  canopy::v1::JobSpec* spec = job->mutable_spec();
  spec->set_name(name);
  spec->set_account(account);
  spec->set_partition("gpu");
  spec->set_min_nodes(nodes);
  spec->set_work_dir("/tmp/refjobs");
  return rec;
}

// The job ran on `nodes` (one CPU each) from `start` to `end` (unset: still running).
inline void Ran(AccountingRecord& rec, const std::vector<std::string>& nodes,
                const google::protobuf::Timestamp& start,
                const google::protobuf::Timestamp* end = nullptr) {
  canopy::v1::Job* job = rec.mutable_job();
  for (const std::string& n : nodes) {
    job->add_nodes(n);
    job->add_cpus_allocated(1);
  }
  *job->mutable_start_time() = start;
  if (end != nullptr) {
    *job->mutable_end_time() = *end;
  }
}

inline AccountingStep* AddStep(AccountingRecord& rec, const std::string& id,
                               const std::string& name, canopy::v1::JobState state,
                               const std::vector<std::string>& nodes, int cpus,
                               const google::protobuf::Timestamp& start,
                               const google::protobuf::Timestamp* end = nullptr) {
  AccountingStep* step = rec.add_steps();
  step->set_step_id(id);
  step->set_name(name);
  step->set_state(state);
  for (const std::string& n : nodes) {
    step->add_nodes(n);
  }
  step->set_ncpus(cpus);
  step->set_ntasks(cpus);
  *step->mutable_start_time() = start;
  if (end != nullptr) {
    *step->mutable_end_time() = *end;
  }
  return step;
}

// A finished one-node batch job with its batch step, both in `state`.
inline AccountingRecord BatchJob(uint32_t id, const std::string& name, const std::string& account,
                                 canopy::v1::JobState state, const std::string& node) {
  AccountingRecord rec = Record(id, name, account, state);
  const google::protobuf::Timestamp start = At(3, 50, 16);
  const google::protobuf::Timestamp end = At(3, 50, 17);
  Ran(rec, {node}, start, &end);
  AddStep(rec, "batch", "batch", state, {node}, 1, start, &end);
  return rec;
}

inline AccountingRecord ArrayTask(uint32_t id, uint32_t array, uint32_t task) {
  AccountingRecord rec =
      BatchJob(id, "arr", "nlp", canopy::v1::JOB_STATE_COMPLETED, absl::StrCat("gpu00", task));
  rec.mutable_job()->set_array_job_id(array);
  rec.mutable_job()->set_array_task_id(task);
  rec.mutable_job()->mutable_spec()->set_array_spec("1-4%2");
  return rec;
}

inline AccountingRecord Cancelled(uint32_t id, const std::string& name, const std::string& account,
                                  int nodes) {
  AccountingRecord rec = Record(id, name, account, canopy::v1::JOB_STATE_CANCELLED, nodes);
  rec.set_cancelled_by_uid(0);
  *rec.mutable_job()->mutable_end_time() = At(3, 48, 40);
  return rec;
}

inline AccountingRecord Job1211() {
  AccountingRecord rec = Record(1211, "train4", "vision", canopy::v1::JOB_STATE_COMPLETED, 2);
  rec.mutable_job()->mutable_spec()->set_mem_per_node_mib(4096);
  rec.mutable_job()->mutable_time_limit()->set_seconds(600);
  const std::vector<std::string> nodes = {"gpu013", "gpu014"};
  const google::protobuf::Timestamp s = At(3, 50, 16), e = At(3, 50, 19), e1 = At(3, 50, 17);
  Ran(rec, nodes, s, &e);
  AddStep(rec, "batch", "batch", canopy::v1::JOB_STATE_COMPLETED, {"gpu013"}, 1, s, &e);
  AddStep(rec, "0", "hostname", canopy::v1::JOB_STATE_COMPLETED, nodes, 2, s, &s);
  AddStep(rec, "1", "sleep", canopy::v1::JOB_STATE_COMPLETED, nodes, 2, s, &e1);
  return rec;
}

inline AccountingRecord Job1212() {
  AccountingRecord rec = Record(1212, "failer", "nlp", canopy::v1::JOB_STATE_FAILED);
  rec.mutable_job()->mutable_spec()->set_mem_per_node_mib(4096);
  rec.mutable_job()->set_exit_code(3);
  const google::protobuf::Timestamp s = At(3, 50, 16);
  Ran(rec, {"gpu015"}, s, &s);
  AddStep(rec, "batch", "batch", canopy::v1::JOB_STATE_FAILED, {"gpu015"}, 1, s, &s)
      ->set_exit_code(3);
  return rec;
}

inline std::vector<AccountingRecord> Array1214() {
  return {ArrayTask(1217, 1214, 1), ArrayTask(1218, 1214, 2), ArrayTask(1219, 1214, 3),
          ArrayTask(1214, 1214, 4)};
}

// Every job, in the order Slurm listed them in `sacct`.
inline ListAccountingResponse ReferenceCluster() {
  ListAccountingResponse r;
  r.mutable_server_time()->set_seconds(absl::ToUnixSeconds(RecordedAt()));
  const auto add = [&r](const AccountingRecord& rec) { *r.add_records() = rec; };
  add(Cancelled(1202, "train4", "vision", 2));
  add(Cancelled(1203, "failer", "nlp", 1));
  add(Cancelled(1204, "cancelme", "vision", 1));
  AccountingRecord a1 = ArrayTask(1206, 1205, 1), a2 = ArrayTask(1205, 1205, 2);
  add(a1);
  add(a2);
  AccountingRecord blocker = Record(1210, "blocker", "vision", canopy::v1::JOB_STATE_RUNNING, 12);
  std::vector<std::string> twelve;
  for (int i = 1; i <= 12; ++i) {
    twelve.push_back(absl::StrCat(i < 10 ? "gpu00" : "gpu0", i));
  }
  Ran(blocker, twelve, At(3, 50, 16));
  AddStep(blocker, "batch", "batch", canopy::v1::JOB_STATE_RUNNING, {"gpu001"}, 1, At(3, 50, 16));
  add(blocker);
  add(Job1211());
  add(Job1212());
  add(Cancelled(1213, "cancelme", "vision", 1));
  AccountingRecord bigwait = Record(1215, "bigwait", "vision", canopy::v1::JOB_STATE_COMPLETED, 16);
  std::vector<std::string> sixteen = twelve;
  for (int i = 13; i <= 16; ++i) {
    sixteen.push_back(absl::StrCat("gpu0", i));
  }
  const google::protobuf::Timestamp s = At(3, 50, 20), e = At(3, 50, 30);
  Ran(bigwait, sixteen, s, &e);
  AddStep(bigwait, "batch", "batch", canopy::v1::JOB_STATE_COMPLETED, {"gpu001"}, 1, s, &e);
  add(bigwait);
  add(BatchJob(1216, "dep", "nlp", canopy::v1::JOB_STATE_COMPLETED, "gpu016"));
  for (const AccountingRecord& task : Array1214()) {
    add(task);
  }
  AccountingRecord big2 = Record(1220, "bigwait2", "vision", canopy::v1::JOB_STATE_PENDING, 16);
  big2.mutable_job()->set_reason("Resources");
  add(big2);
  AccountingRecord small = Record(1221, "small", "nlp", canopy::v1::JOB_STATE_PENDING);
  small.mutable_job()->set_reason("Priority");
  add(small);
  return r;
}

// The records of `all` whose job id is one of `ids` (canopyd's -j filter).
inline ListAccountingResponse Only(const ListAccountingResponse& all,
                                   const std::vector<uint32_t>& ids) {
  ListAccountingResponse r;
  *r.mutable_server_time() = all.server_time();
  for (const AccountingRecord& rec : all.records()) {
    for (uint32_t id : ids) {
      if (rec.job().job_id() == id || rec.job().array_job_id() == id) {
        *r.add_records() = rec;
        break;
      }
    }
  }
  return r;
}

// The environment of the reference run: root, UTC, at 03:50:58; root is uid 0.
inline SacctEnvironment ReferenceEnvironment() {
  SacctEnvironment env;
  env.now = RecordedAt();
  env.tz = absl::UTCTimeZone();
  env.uid = 0;
  env.lookup_user = [](const std::string& name) -> std::optional<uint32_t> {
    if (name == "root") {
      return 0;
    }
    if (name == "alice") {
      return 1000;
    }
    return std::nullopt;
  };
  return env;
}

// What Slurm printed for "$ COMMAND" in the reference file (up to its "[exit N]" line).
inline std::string ReferenceOutput(const std::string& file, const std::string& command) {
  std::ifstream in(absl::StrCat(CANOPY_SOURCE_DIR, "/tests/data/slurm-reference/", file));
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const std::string marker = absl::StrCat("$ ", command, "\n");
  const size_t at = all.find(marker);
  if (at == std::string::npos) {
    return "<not in the reference>";
  }
  const size_t begin = at + marker.size();
  return all.substr(begin, all.find("[exit", begin) - begin);
}

}  // namespace canopy::ctl::sacct::testing
