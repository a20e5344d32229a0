// WatchJobs and WatchNodes: portals follow the cluster without polling. Each watch walks the
// snapshots the owner thread publishes (Controller::NextSnapshot) and sends what differs
// between the last one it sent from and the newest. Jobs are compared by record: snapshots
// share the records of unchanged jobs (and whole chunks of them), so only changed jobs are
// converted. A reader slower than the cluster skips snapshots instead of queueing them: a watch
// holds at most one snapshot's events, and memory does not grow with a stalled portal.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/rpc/status_convert.h"
#include "google/protobuf/util/message_differencer.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/server/proto_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::server {

class ControllerServiceImpl::WatchSlot {
 public:
  explicit WatchSlot(std::atomic<int>& watches) : watches_(watches) {
    taken_ = watches_.fetch_add(1) < kMaxWatches;
  }
  ~WatchSlot() { watches_.fetch_sub(1); }
  WatchSlot(const WatchSlot&) = delete;
  WatchSlot& operator=(const WatchSlot&) = delete;
  bool taken() const { return taken_; }

 private:
  std::atomic<int>& watches_;
  bool taken_ = false;
};

namespace {

using canopy::v1::WatchEventKind;
using google::protobuf::util::MessageDifferencer;

// How often a watch with nothing to send checks whether its caller went away.
constexpr absl::Duration kCancelCheck = absl::Milliseconds(500);

grpc::Status TooManyWatches() {
  return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                      absl::StrCat("canopyd already serves ", ControllerServiceImpl::kMaxWatches,
                                   " watches; close one, or poll ListJobs/ListNodes"));
}

grpc::Status Stopped() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "canopyd is stopping; watch again once it is back");
}

grpc::Status Gone() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the watcher stopped reading");
}

// Calls fn(before, after) for every job whose record differs between two snapshots, by
// ascending id; before is null for a job new in `after`, after null for one it no longer has.
template <typename Fn>
void ForEachChangedJob(const ClusterSnapshot& before, const ClusterSnapshot& after, Fn&& fn) {
  const size_t chunks = std::max(before.job_chunks.size(), after.job_chunks.size());
  static const JobChunk kEmpty;
  for (size_t k = 0; k < chunks; ++k) {
    const JobChunk* b = k < before.job_chunks.size() ? before.job_chunks[k].get() : nullptr;
    const JobChunk* a = k < after.job_chunks.size() ? after.job_chunks[k].get() : nullptr;
    if (a == b) {
      continue;
    }
    const std::vector<std::shared_ptr<const core::Job>>& bj = (b ? *b : kEmpty).jobs;
    const std::vector<std::shared_ptr<const core::Job>>& aj = (a ? *a : kEmpty).jobs;
    size_t i = 0;
    size_t j = 0;
    while (i < bj.size() || j < aj.size()) {
      if (j == aj.size() || (i < bj.size() && bj[i]->id.value() < aj[j]->id.value())) {
        fn(bj[i++].get(), nullptr);
      } else if (i == bj.size() || aj[j]->id.value() < bj[i]->id.value()) {
        fn(nullptr, aj[j++].get());
      } else {
        if (bj[i] != aj[j]) {
          fn(bj[i].get(), aj[j].get());
        }
        ++i;
        ++j;
      }
    }
  }
}

}  // namespace

grpc::Status ControllerServiceImpl::WatchJobs(grpc::ServerContext* context,
                                              const canopy::v1::WatchJobsRequest* request,
                                              grpc::ServerWriter<canopy::v1::JobEvent>* writer) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  const lifecycle::Caller& caller = *caller_or;
  if (grpc::Status denied = CheckPrivateJobs(caller); !denied.ok()) {
    return denied;
  }
  WatchSlot slot(watches_);
  if (!slot.taken()) {
    return TooManyWatches();
  }
  const JobSelection selection(request->job_ids(), request->user_name(), request->partition());
  const absl::Duration min_age = controller_->config().min_job_age;
  auto send = [&](WatchEventKind kind, canopy::v1::Job* job, absl::Time now) {
    canopy::v1::JobEvent event;
    event.set_kind(kind);
    if (job != nullptr) {
      event.mutable_job()->Swap(job);
    }
    *event.mutable_server_time() = rpc::ToProtoTime(now);
    return writer->Write(event);
  };

  std::shared_ptr<const ClusterSnapshot> sent = controller_->Snapshot();
  bool ok = true;
  sent->ForEachJob([&](const core::Job& job) {
    if (!ok || !selection.Matches(job) || !MaySee(caller, job) ||
        (core::IsTerminal(job.state) && sent->taken - job.end_time > min_age)) {
      return;
    }
    canopy::v1::Job record = ListRecord(caller, job, *sent);
    ok = send(canopy::v1::WATCH_EVENT_KIND_EXISTING, &record, sent->taken);
  });
  if (!ok || !send(canopy::v1::WATCH_EVENT_KIND_SYNCED, nullptr, sent->taken)) {
    return Gone();
  }
  spdlog::debug("WatchJobs for {} ({}) synced", caller.user_name, context->peer());

  while (!context->IsCancelled()) {
    std::shared_ptr<const ClusterSnapshot> next =
        controller_->NextSnapshot(sent.get(), kCancelCheck);
    if (next == sent) {
      if (controller_->Stopping()) {
        return Stopped();
      }
      continue;
    }
    ForEachChangedJob(*sent, *next, [&](const core::Job* before, const core::Job* after) {
      const core::Job& job = after != nullptr ? *after : *before;
      if (!ok || !selection.Matches(job) || !MaySee(caller, job)) {
        return;
      }
      if (after == nullptr) {
        canopy::v1::Job record = ListRecord(caller, *before, *sent);
        ok = send(canopy::v1::WATCH_EVENT_KIND_REMOVED, &record, next->taken);
        return;
      }
      canopy::v1::Job record = ListRecord(caller, *after, *next);
      // The owner thread republishes a record for changes a list does not show (e.g. the
      // scheduler's bookkeeping): the watcher hears only of what it would see.
      if (before != nullptr &&
          MessageDifferencer::Equals(record, ListRecord(caller, *before, *sent))) {
        return;
      }
      ok = send(canopy::v1::WATCH_EVENT_KIND_CHANGED, &record, next->taken);
    });
    if (!ok) {
      return Gone();
    }
    sent = std::move(next);
  }
  return grpc::Status(grpc::StatusCode::CANCELLED, "watch cancelled by the caller");
}

grpc::Status ControllerServiceImpl::WatchNodes(grpc::ServerContext* context,
                                               const canopy::v1::WatchNodesRequest* request,
                                               grpc::ServerWriter<canopy::v1::NodeEvent>* writer) {
  WatchSlot slot(watches_);
  if (!slot.taken()) {
    return TooManyWatches();
  }
  absl::StatusOr<NodeSelection> selection =
      NodeSelection::Parse(request->nodes(), request->partition());
  if (!selection.ok()) {
    return rpc::ToGrpcStatus(selection.status());
  }
  // What was last sent of each selected node, without its heartbeat time: a heartbeat alone
  // is no change a portal needs to hear of every 30 s per node.
  absl::flat_hash_map<uint32_t, canopy::v1::Node> last;
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  std::shared_ptr<const std::vector<state::NodeRecord>> sent_nodes;
  std::shared_ptr<const std::vector<state::NodeUse>> sent_use;
  WatchEventKind kind = canopy::v1::WATCH_EVENT_KIND_EXISTING;
  while (!context->IsCancelled()) {
    if (snap->nodes != sent_nodes || snap->node_use != sent_use) {
      for (const state::NodeRecord& node : *snap->nodes) {
        if (!selection->Matches(node.name, node_partitions_[node.id.value()])) {
          continue;
        }
        canopy::v1::NodeEvent event;
        event.set_kind(kind);
        *event.mutable_node() = NodeToProto(
            node, snap->UseOf(node.id), snap->config->nodes[node.id.value()],
            node_partitions_[node.id.value()], *snap->topology, snap->LastHeard(node.id));
        canopy::v1::Node compared = event.node();
        compared.clear_last_heartbeat();
        canopy::v1::Node& previous = last[node.id.value()];
        if (kind != canopy::v1::WATCH_EVENT_KIND_EXISTING &&
            MessageDifferencer::Equals(previous, compared)) {
          continue;
        }
        previous = std::move(compared);
        *event.mutable_server_time() = rpc::ToProtoTime(snap->taken);
        if (!writer->Write(event)) {
          return Gone();
        }
      }
      sent_nodes = snap->nodes;
      sent_use = snap->node_use;
    }
    if (kind == canopy::v1::WATCH_EVENT_KIND_EXISTING) {
      canopy::v1::NodeEvent synced;
      synced.set_kind(canopy::v1::WATCH_EVENT_KIND_SYNCED);
      *synced.mutable_server_time() = rpc::ToProtoTime(snap->taken);
      if (!writer->Write(synced)) {
        return Gone();
      }
      kind = canopy::v1::WATCH_EVENT_KIND_CHANGED;
    }
    std::shared_ptr<const ClusterSnapshot> next =
        controller_->NextSnapshot(snap.get(), kCancelCheck);
    if (next == snap && controller_->Stopping()) {
      return Stopped();
    }
    snap = std::move(next);
  }
  return grpc::Status(grpc::StatusCode::CANCELLED, "watch cancelled by the caller");
}

}  // namespace canopy::server
