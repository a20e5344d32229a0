// ListQos answers for the sacctmgr QOS tests: "normal" as every cluster has it (what the
// reference cluster of tests/data/slurm-reference/accounting-outputs-22.05.txt has), plus the
// QOS the tests add.
#pragma once

#include <string>

#include "canopy/v1/accounts.pb.h"

namespace canopy::ctl::sacctmgr {

inline canopy::v1::Qos* AddTestQos(canopy::v1::ListQosResponse& r, const std::string& name) {
  canopy::v1::Qos* q = r.add_qos();
  q->set_name(name);
  q->set_description(name == "normal" ? "Normal QOS default" : name);
  return q;
}

// "normal" only, as canopyd answers for a fresh cluster.
inline canopy::v1::ListQosResponse NormalOnly() {
  canopy::v1::ListQosResponse r;
  AddTestQos(r, "normal");
  return r;
}

// normal, then high (every limit set) and low, in canopyd's order.
inline canopy::v1::ListQosResponse ThreeQos() {
  canopy::v1::ListQosResponse r = NormalOnly();
  canopy::v1::Qos* high = AddTestQos(r, "high");
  high->set_priority(100);
  high->set_max_tres_per_user("cpu=512,mem=1048576M,gres/gpu=64");
  high->set_max_tres_per_job("node=2,gres/gpu=8");
  high->set_grp_tres("gres/gpu=128");
  high->set_max_jobs_per_user(4);
  high->set_grp_jobs(10);
  high->mutable_max_wall()->set_seconds(2 * 86400);
  high->add_preempt("low");
  high->add_preempt("normal");
  high->set_preempt_mode("REQUEUE");
  high->mutable_grace_time()->set_seconds(30);
  canopy::v1::Qos* low = AddTestQos(r, "low");
  low->set_preempt_mode("CANCEL");
  return r;
}

}  // namespace canopy::ctl::sacctmgr
