// sacctmgr add|modify|delete qos (qos_functions.c), planned (qos_change.h).
#include "ctl/sacctmgr/qos_change.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/slurm/limit_values.h"
#include "common/slurm/time_format.h"
#include "ctl/sacctmgr/qos_values.h"

namespace canopy::ctl::sacctmgr {
namespace {

using QosRequest = canopy::v1::UpdateQosRequest;

QosChangePlan Fail(std::string err) {
  QosChangePlan plan;
  plan.err = std::move(err);
  plan.exit_code = 1;
  return plan;
}

QosChangePlan Nothing(std::string out) {
  QosChangePlan plan;
  plan.out = std::move(out);
  plan.exit_code = 1;
  return plan;
}

bool Listed(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() ||
         std::find(list.begin(), list.end(), absl::AsciiStrToLower(value)) != list.end();
}

const canopy::v1::Qos* Find(const canopy::v1::ListQosResponse& answer, absl::string_view name) {
  for (const canopy::v1::Qos& q : answer.qos()) {
    if (absl::EqualsIgnoreCase(q.name(), name)) {
      return &q;
    }
  }
  return nullptr;
}

// The QOS the conditions select, in canopyd's order.
std::vector<const canopy::v1::Qos*> Targets(const Command& c,
                                            const canopy::v1::ListQosResponse& answer) {
  std::vector<const canopy::v1::Qos*> out;
  for (const canopy::v1::Qos& q : answer.qos()) {
    if (Listed(c.names, q.name()) && Listed(c.descriptions, q.description()) &&
        Listed(c.preempt_modes, PreemptModeText(q))) {
      out.push_back(&q);
    }
  }
  return out;
}

// Preempt= may only name QOS that exist (slurmdb_addto_qos_char_list); "" when it does.
std::string BadPreempt(const Command& c, const canopy::v1::ListQosResponse& answer) {
  const std::string* preempt = Setting(c, "Preempt");
  if (preempt == nullptr) {
    return "";
  }
  for (absl::string_view name : absl::StrSplit(*preempt, ',', absl::SkipWhitespace())) {
    if (!absl::ConsumePrefix(&name, "+")) {
      absl::ConsumePrefix(&name, "-");
    }
    if (name.empty() || name == "''" || Find(answer, name) != nullptr) {
      continue;
    }
    std::vector<std::string> valid;
    for (const canopy::v1::Qos& q : answer.qos()) {
      valid.push_back(q.name());
    }
    return absl::StrCat("sacctmgr: error: You gave a bad qos '", name, "'. Valid QOS's are ",
                        absl::StrJoin(valid, ","), "\n");
  }
  return "";
}

// A TRES setting as sacctmgr echoes it: Slurm's TRES order, memory in its largest exact unit.
std::string TresEcho(const std::string& value) {
  // -2 marks a TRES the value does not name.
  const slurm::TresLimits unset{.gpus = -2, .cpus = -2, .nodes = -2, .mem_mib = -2};
  absl::StatusOr<slurm::TresLimits> t = slurm::ParseTresLimits(value, unset);
  if (!t.ok()) {
    return value;  // checked when the words were read; not reached
  }
  const std::pair<const char*, int64_t> counts[] = {
      {"cpu", t->cpus}, {"mem", t->mem_mib}, {"node", t->nodes}, {"gres/gpu", t->gpus}};
  std::vector<std::string> items;
  for (const auto& [name, n] : counts) {
    if (n == -1) {
      items.push_back(absl::StrCat(name, "=-1"));
    } else if (n >= 0) {
      items.push_back(absl::StrCat(name, "=", n, std::string(name) == "mem" ? "M" : ""));
    }
  }
  return TresText(absl::StrJoin(items, ","));
}

std::string CountEcho(const std::string& value) { return value == "-1" ? "NONE" : value; }

// sacctmgr_print_qos_limits, for the settings Canopy serves, in its order and with its labels.
std::string LimitsEcho(const Command& c) {
  std::string text;
  auto line = [&](const char* key, const char* label, auto&& format) {
    if (const std::string* v = Setting(c, key); v != nullptr) {
      absl::StrAppend(&text, label, format(*v), "\n");
    }
  };
  line("GraceTime", "  GraceTime                = ", CountEcho);
  line("GrpJobs", "  GrpJobs                  = ", CountEcho);
  line("GrpTRES", "  GrpTRES                  = ", TresEcho);
  line("MaxJobsPerUser", "  MaxJobsPerUser = ", CountEcho);
  line("MaxTRESPerJob", "  MaxTRESPerJob            = ", TresEcho);
  line("MaxTRESPerUser", "  MaxTRESPerUser           = ", TresEcho);
  line("MaxWall", "  MaxWall                  = ", [](const std::string& v) {
    absl::StatusOr<absl::Duration> d = slurm::ParseSlurmDuration(v);
    return !d.ok() || *d == absl::InfiniteDuration() ? std::string("NONE")
                                                     : TimeText(absl::ToInt64Seconds(*d));
  });
  line("Preempt", "  Preempt                  = ", [](const std::string& v) { return v; });
  if (const std::string* mode = Setting(c, "PreemptMode");
      mode != nullptr && !mode->empty() && absl::AsciiStrToLower(*mode) != "cluster") {
    absl::StrAppend(&text, "  PreemptMode              = ", *mode, "\n");
  }
  line("Priority", "  Priority                 = ", [](const std::string& v) { return v; });
  return text;
}

void AddOptions(const Command& c, QosRequest& request) {
  for (const auto& [key, value] : c.settings) {
    canopy::v1::Attribute* option = request.add_options();
    option->set_key(key);
    option->set_value(value);
  }
}

QosChangePlan PlanAdd(const Command& c, const canopy::v1::ListQosResponse& answer) {
  if (c.names.empty()) {
    return Fail(" Need name of qos to add.\n");
  }
  if (std::string bad = BadPreempt(c, answer); !bad.empty()) {
    return Fail(std::move(bad));
  }
  QosRequest request;
  request.set_operation(QosRequest::OPERATION_ADD);
  std::string names;
  std::string description;
  for (const std::string& name : c.names) {
    if (Find(answer, name) != nullptr) {
      continue;  // already there: sacctmgr adds nothing for it
    }
    request.add_names(name);
    absl::StrAppend(&names, "  ", name, "\n");
    const std::string* given = Setting(c, "Description");
    description = given != nullptr ? *given : name;
  }
  if (request.names().empty()) {
    return Nothing(" Nothing new added.\n");
  }
  AddOptions(c, request);
  QosChangePlan plan;
  plan.out = absl::StrCat(" Adding QOS(s)\n", names, " Settings\n",
                          "  Description    = ", description, "\n", LimitsEcho(c));
  plan.request = std::move(request);
  return plan;
}

QosChangePlan PlanModify(const Command& c, const canopy::v1::ListQosResponse& answer) {
  if (!c.any_setting) {
    return Fail(" You didn't give me anything to set\n");
  }
  if (!c.any_condition) {
    return Fail(
        " You didn't set any conditions with 'WHERE'.\n Canopy does not modify every QOS at "
        "once; name them.\n");
  }
  if (std::string bad = BadPreempt(c, answer); !bad.empty()) {
    return Fail(std::move(bad));
  }
  const std::vector<const canopy::v1::Qos*> targets = Targets(c, answer);
  if (targets.empty()) {
    return Nothing(" Nothing modified\n");
  }
  QosRequest request;
  request.set_operation(QosRequest::OPERATION_MODIFY);
  QosChangePlan plan;
  plan.out = " Modified qos...\n";
  for (const canopy::v1::Qos* q : targets) {
    request.add_names(q->name());
    absl::StrAppend(&plan.out, "  ", q->name(), "\n");
  }
  AddOptions(c, request);
  plan.request = std::move(request);
  return plan;
}

// _isdefault: the associations whose DefaultQOS is one of `names`.
std::string DefaultQosLines(const std::vector<const canopy::v1::Qos*>& targets,
                            const AssociationView& view) {
  std::string lines;
  for (const Association* a : view.Hierarchical()) {
    const std::string def = AssociationView::Attribute(*a, "DefaultQOS");
    const bool deleted = std::any_of(targets.begin(), targets.end(), [&](const auto* q) {
      return absl::EqualsIgnoreCase(q->name(), def);
    });
    if (def.empty() || !deleted) {
      continue;
    }
    if (a->user().empty()) {
      absl::StrAppend(&lines, absl::StrFormat("  DefQOS = %-10s C = %-10s A = %-20s\n", def,
                                              view.cluster(), a->account()));
    } else {
      absl::StrAppend(&lines, absl::StrFormat("  DefQOS = %-10s C = %-10s A = %-20s U = %-9s\n",
                                              def, view.cluster(), a->account(), a->user()));
    }
  }
  return lines;
}

QosChangePlan PlanDelete(const Command& c, const canopy::v1::ListQosResponse& answer,
                         const AssociationView& view) {
  if (!c.any_condition) {
    return Fail(" No conditions given to remove, not executing.\n");
  }
  const std::vector<const canopy::v1::Qos*> targets = Targets(c, answer);
  if (targets.empty()) {
    return Nothing(" Nothing deleted\n");
  }
  for (const canopy::v1::Qos* q : targets) {
    if (q->name() == "normal") {
      return Fail(
          " QOS 'normal' cannot be deleted: it is the QOS of every job that names no other.\n");
    }
  }
  if (const std::string lines = DefaultQosLines(targets, view); !lines.empty()) {
    return Fail(absl::StrCat(" Associations listed below have these as their Default QOS.\n", lines,
                             " Please either remove the qos' listed above from list and "
                             "resubmit,\n or change the default qos to remove the qos.\n"
                             " Changes Discarded\n"));
  }
  QosRequest request;
  request.set_operation(QosRequest::OPERATION_DELETE);
  QosChangePlan plan;
  plan.out = " Deleting QOS(s)...\n";
  for (const canopy::v1::Qos* q : targets) {
    request.add_names(q->name());
    absl::StrAppend(&plan.out, "  ", q->name(), "\n");
  }
  plan.request = std::move(request);
  return plan;
}

}  // namespace

QosChangePlan PlanQosChange(const Command& command, const canopy::v1::ListQosResponse& qos,
                            const AssociationView& associations) {
  switch (command.verb) {
    case Verb::kAdd:
      return PlanAdd(command, qos);
    case Verb::kModify:
      return PlanModify(command, qos);
    case Verb::kDelete:
      return PlanDelete(command, qos, associations);
    default:
      return Fail("sacctmgr: error: not a change\n");
  }
}

}  // namespace canopy::ctl::sacctmgr
