// Conversions between accounts.proto and the fair-share core: associations, sacctmgr's edits,
// sshare's rows and sprio's factors. Pure functions; thread-safe.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/accounts.pb.h"
#include "scheduler/core/job.h"
#include "scheduler/fairshare/association_edit.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/lifecycle/accounting.h"

namespace canopy::server {

canopy::v1::Association ToProto(const fairshare::AssociationSpec& spec);
fairshare::AssociationSpec FromProto(const canopy::v1::Association& association);
// InvalidArgument for OPERATION_UNSPECIFIED or an unknown value.
absl::StatusOr<fairshare::AssociationEdit> FromProto(
    canopy::v1::UpdateAssociationsRequest::Operation operation);

// Every association's row, tree pre-order (root first, children in configuration order).
canopy::v1::GetSharesResponse SharesToProto(const lifecycle::Accounting& accounting);

// A pending job's factors as sprio shows them, computed at `now`.
canopy::v1::JobPriority PriorityToProto(const core::Job& job,
                                        const lifecycle::Accounting& accounting, absl::Time now);

}  // namespace canopy::server
