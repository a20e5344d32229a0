// The reference cluster of tests/data/slurm-reference/accounting-outputs-22.05.txt as canopyd's
// ListAssociations answers it: cluster "anchor", accounts nlp (Fairshare=30) and vision (70)
// under root with Description/Organization attributes, user root in root, nlp and vision.
#pragma once

#include "canopy/v1/accounts.pb.h"

namespace canopy::ctl::sacctmgr {

inline canopy::v1::Association* AddTestAssociation(canopy::v1::ListAssociationsResponse& r,
                                                   const std::string& account,
                                                   const std::string& user, int64_t shares) {
  canopy::v1::Association* a = r.add_associations();
  a->set_account(account);
  a->set_user(user);
  a->set_shares(shares);
  auto attr = [&](const std::string& k, const std::string& v) {
    canopy::v1::Attribute* at = a->add_attributes();
    at->set_key(k);
    at->set_value(v);
  };
  if (user.empty()) {
    attr("Description", account);
    attr("Organization", "lab");
  } else {
    attr("DefaultAccount", "root");
    attr("AdminLevel", "Administrator");
  }
  return a;
}

// In the order canopyd keeps them (each parent before its children), not sacctmgr's.
inline canopy::v1::ListAssociationsResponse ReferenceCluster() {
  canopy::v1::ListAssociationsResponse r;
  r.set_cluster_name("anchor");
  AddTestAssociation(r, "root", "root", 1);
  AddTestAssociation(r, "nlp", "", 30);
  AddTestAssociation(r, "vision", "", 70);
  AddTestAssociation(r, "vision", "root", 1);
  AddTestAssociation(r, "nlp", "root", 1);
  return r;
}

}  // namespace canopy::ctl::sacctmgr
