#include "ctl/sacctmgr/sacctmgr.h"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/slurm/sacctmgr_file.h"
#include "common/slurm/slurm_version.h"
#include "ctl/client/controller_client.h"
#include "ctl/sacctmgr/change.h"
#include "ctl/sacctmgr/command.h"
#include "ctl/sacctmgr/flat_file.h"
#include "ctl/sacctmgr/qos_change.h"
#include "ctl/sacctmgr/qos_show.h"
#include "ctl/sacctmgr/show.h"
#include "ctl/sacctmgr/view.h"

namespace canopy::ctl::sacctmgr {
namespace {

// sacctmgr's commit_check: the question, "(N/y): " until y, n or Enter, 30 seconds to answer,
// one key without Enter (the terminal leaves canonical mode meanwhile, as sacctmgr's
// _nonblock does). Only called when stdin is a terminal.
bool AskToCommit(std::ostream& out) {
  out << "Would you like to commit changes? (You have 30 seconds to decide)\n";
  termios saved{};
  const bool tty = tcgetattr(STDIN_FILENO, &saved) == 0;
  if (tty) {
    termios raw = saved;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSANOW, &raw);
  }
  char c = '\0';
  bool answered = true;
  while (c != 'Y' && c != 'y' && c != 'N' && c != 'n' && c != '\n') {
    if (c != '\0') {
      out << "Y or N please\n";
    }
    out << "(N/y): " << std::flush;
    pollfd fd{STDIN_FILENO, POLLIN, 0};
    if (poll(&fd, 1, 30'000) <= 0 || read(STDIN_FILENO, &c, 1) != 1) {
      answered = false;
      break;
    }
    out << "\n";
  }
  if (tty) {
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
  }
  if (!answered) {
    out << "timeout\n";
    return false;
  }
  return c == 'Y' || c == 'y';
}

bool Commit(const GlobalOptions& options, std::ostream& out) {
  // Without a terminal to ask on, sacctmgr would wait 30 s and discard; Canopy commits, as -i.
  if (options.immediate || isatty(STDIN_FILENO) == 0) {
    return true;
  }
  return AskToCommit(out);
}

// What sacctmgr prints when storing the change fails.
std::string Problem(const Command& c, absl::string_view message) {
  if (c.verb == Verb::kAdd) {
    return absl::StrCat(" Problem adding ",
                        c.entity == Entity::kAccount ? "accounts"
                        : c.entity == Entity::kQos   ? "QOS"
                                                     : "users",
                        ": ", message, "\n");
  }
  return absl::StrCat(" Error with request: ", message, "\n");
}

int Send(client::ControllerClient& client, const Invocation& inv,
         const std::vector<canopy::v1::UpdateAssociationsRequest>& requests, std::ostream& out,
         std::ostream& err) {
  if (!Commit(inv.options, out)) {
    out << " Changes Discarded\n";
    return 0;
  }
  for (const canopy::v1::UpdateAssociationsRequest& r : requests) {
    if (absl::StatusOr<canopy::v1::UpdateAssociationsResponse> done = client.UpdateAssociations(r);
        !done.ok()) {
      err << Problem(inv.command, done.status().message());
      return 1;
    }
  }
  return 0;
}

// show|add|modify|delete qos.
int RunQos(client::ControllerClient& client, const Invocation& inv, const AssociationView& view,
           std::ostream& out, std::ostream& err) {
  const Command& c = inv.command;
  absl::StatusOr<canopy::v1::ListQosResponse> qos = client.ListQos();
  if (!qos.ok()) {
    err << "sacctmgr: error: Problem talking to the database: " << qos.status().message() << "\n";
    return 1;
  }
  if (c.verb == Verb::kList) {
    absl::StatusOr<std::string> text = RenderShowQos(inv.options, c, *qos);
    if (!text.ok()) {
      err << text.status().message() << "\n";
      return 1;
    }
    out << *text;
    return 0;
  }
  const QosChangePlan plan = PlanQosChange(c, *qos, view);
  out << plan.out;
  err << plan.err;
  if (!plan.request.has_value()) {
    return plan.exit_code;
  }
  if (!Commit(inv.options, out)) {
    out << " Changes Discarded\n";
    return 0;
  }
  if (absl::StatusOr<canopy::v1::UpdateQosResponse> done = client.UpdateQos(*plan.request);
      !done.ok()) {
    err << Problem(c, done.status().message());
    return 1;
  }
  return 0;
}

int Dump(const Command& c, const AssociationView& view, std::ostream& out, std::ostream& err) {
  if (c.cluster != view.cluster()) {
    err << " Cluster " << c.cluster << " doesn't exist.\n";
    return 1;
  }
  std::string file = c.file;
  if (file.empty()) {
    file = absl::StrCat("./", c.cluster, ".cfg");
    out << " No filename given, using " << file << ".\n";
  }
  std::ofstream f(file);
  if (!f) {
    err << "Can't open file " << file << ", " << std::strerror(errno) << "\n";
    return 1;
  }
  f << kDumpHeader;
  for (const slurm::FlatFileRecord& r : DumpRecords(view)) {
    const std::string line = slurm::FormatFlatFileRecord(r);
    f << line << "\n";
    // sacctmgr logs each line with info(): on stderr, after its program name.
    err << "sacctmgr: " << line << "\n";
  }
  f.close();
  if (!f) {
    err << " Can't write to file " << file << "\n";
    return 1;
  }
  return 0;
}

int Load(client::ControllerClient& client, const Invocation& inv, const AssociationView& view,
         std::ostream& out, std::ostream& err) {
  const Command& c = inv.command;
  std::ifstream f(c.file);
  std::stringstream text;
  text << f.rdbuf();
  if (!f) {
    err << " Unable to read \"" << c.file << "\": " << std::strerror(errno) << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<slurm::FlatFileRecord>> records =
      slurm::ParseFlatFile(text.str(), c.file);
  if (!records.ok()) {
    err << " " << records.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<LoadPlan> plan = PlanLoad(*records, c.cluster, c.file, view);
  if (!plan.ok()) {
    err << plan.status().message() << "\n";
    return 1;
  }
  out << plan->preview;
  return Send(client, inv, {plan->request}, out, err);
}

}  // namespace

int RunSacctmgr(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  if (!inv.ok()) {
    err << inv.status().message() << "\n";
    return 1;
  }
  const Command& c = inv->command;
  if (inv->options.help || c.verb == Verb::kHelp) {
    out << SacctmgrUsage();
    return 0;
  }
  if (c.verb == Verb::kVersion) {
    out << slurm::SlurmVersionLine("sacctmgr");
    return 0;
  }
  const bool changes = c.verb == Verb::kAdd || c.verb == Verb::kModify || c.verb == Verb::kDelete ||
                       c.verb == Verb::kLoad;
  if (changes && inv->options.readonly) {
    err << "Can't run this command in readonly mode.\n";
    return 1;
  }
  absl::StatusOr<client::ControllerClient> client = client::ControllerClient::Connect("");
  absl::StatusOr<canopy::v1::ListAssociationsResponse> answer =
      client.ok() ? client->ListAssociations()
                  : absl::StatusOr<canopy::v1::ListAssociationsResponse>(client.status());
  if (!answer.ok()) {
    err << "sacctmgr: error: Problem talking to the database: " << answer.status().message()
        << "\n";
    return 1;
  }
  const AssociationView view(*answer);
  if (c.entity == Entity::kQos) {
    return RunQos(*client, *inv, view, out, err);
  }
  switch (c.verb) {
    case Verb::kList: {
      absl::StatusOr<std::string> text = RenderShow(inv->options, c, view);
      if (!text.ok()) {
        err << text.status().message() << "\n";
        return 1;
      }
      out << *text;
      return 0;
    }
    case Verb::kDump:
      return Dump(c, view, out, err);
    case Verb::kLoad:
      return Load(*client, *inv, view, out, err);
    default: {
      const ChangePlan plan = PlanChange(c, view);
      out << plan.out;
      err << plan.err;
      if (plan.requests.empty()) {
        return plan.exit_code;
      }
      return Send(*client, *inv, plan.requests, out, err);
    }
  }
}

std::string SacctmgrUsage() {
  return "sacctmgr [<OPTION>] [<COMMAND>]\n"
         "    Valid <OPTION> values are:\n"
         "     -h or --help: equivalent to \"help\" command\n"
         "     -i or --immediate: commit changes immediately (also when stdin is not a "
         "terminal)\n"
         "     -n or --noheader: no header will be added to the beginning of output\n"
         "     -p or --parsable: output will be '|' delimited with a '|' at the end\n"
         "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
         "     -r or --readonly: no modification can happen\n"
         "     -s or --associations: show the associations of accounts and users\n"
         "\n"
         "  Valid <COMMAND> values (Canopy serves accounts, users, associations and QOS):\n"
         "     add account NAMES [Parent=] [Fairshare=] [Description=] [Organization=] "
         "[limits]\n"
         "     add user NAMES Account=LIST [DefaultAccount=] [AdminLevel=] [Fairshare=] "
         "[limits]\n"
         "     list|show associations|accounts|users [where <SPECS>] [Format=] [WithAssoc]\n"
         "     modify account|user [where] <SPECS> set <SETTINGS>\n"
         "     delete account|user [where] <SPECS>\n"
         "     add qos NAMES [Description=] [Priority=] [GraceTime=] [GrpJobs=] [GrpTRES=]\n"
         "         [MaxJobsPerUser=] [MaxTRESPerJob=] [MaxTRESPerUser=] [MaxWall=] [Preempt=]\n"
         "         [PreemptMode=]\n"
         "     list|show qos [NAMES] [where <SPECS>] [Format=]\n"
         "     modify qos [where] <SPECS> set <SETTINGS>\n"
         "     delete qos [where] <SPECS>\n"
         "     dump <CLUSTER> [File=<FILENAME>]\n"
         "     load <FILE> [Cluster=<CLUSTER>] [Clean]\n"
         "     help, version\n";
}

}  // namespace canopy::ctl::sacctmgr
