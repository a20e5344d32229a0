// The option engine against glibc 2.36 getopt_long: expected texts are glibc's messages (after
// the program's "CMD: " prefix) and Slurm's hint line.
#include "common/slurm/getopt.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

enum class Opt { kNodes, kNtasks, kNtasksPerNode, kHold, kNice, kUser, kJobName, kVerbose };

constexpr OptionSpec kOptions[] = {
    {"nodes", 'N', ArgKind::kRequired, Opt::kNodes},
    {"ntasks", 'n', ArgKind::kRequired, Opt::kNtasks},
    {"ntasks-per-node", '\0', ArgKind::kRequired, Opt::kNtasksPerNode},
    {"hold", 'H', ArgKind::kNone, Opt::kHold},
    {"nice", '\0', ArgKind::kOptional, Opt::kNice},
    {"user", 'u', ArgKind::kRequired, Opt::kUser},
    {"users", '\0', ArgKind::kRequired, Opt::kUser},  // an alias: same id and kind
    {"", 'k', ArgKind::kOptional, Opt::kJobName},     // short-only, optional value
    {"verbose", 'v', ArgKind::kNone, Opt::kVerbose},
};
constexpr OptionTable kRequireOrder{"sbatch", Ordering::kRequireOrder, kOptions};
constexpr OptionTable kPermute{"squeue", Ordering::kPermute, kOptions};

const std::string kTry = "\nTry \"sbatch --help\" for more information";

// "N=2 H n=4 ... | operand operand" or the error message.
std::string Parse(const OptionTable& table, const std::vector<std::string>& args) {
  std::string seen;
  absl::StatusOr<std::vector<std::string>> operands =
      ParseCommandLine(table, args, [&](const OptionSpec& o, std::optional<absl::string_view> v) {
        absl::StrAppend(&seen, o.long_name.empty() ? std::string(1, o.short_name) : o.long_name,
                        v.has_value() ? absl::StrCat("=", *v) : "", " ");
        return absl::OkStatus();
      });
  if (!operands.ok()) {
    return std::string(operands.status().message());
  }
  absl::StrAppend(&seen, "|");
  for (const std::string& o : *operands) {
    absl::StrAppend(&seen, " ", o);
  }
  return seen;
}

TEST(GetoptTest, LongAndShortForms) {
  EXPECT_EQ(Parse(kRequireOrder, {"--nodes=2", "--ntasks", "4", "-N3", "-n", "5"}),
            "nodes=2 ntasks=4 nodes=3 ntasks=5 |");
  EXPECT_EQ(Parse(kRequireOrder, {"-HN2", "-Hv"}), "hold nodes=2 hold verbose |");
  EXPECT_EQ(Parse(kRequireOrder, {"--nodes="}), "nodes= |");
}

TEST(GetoptTest, RequiredValueIsTheNextArgumentEvenWithADash) {
  EXPECT_EQ(Parse(kRequireOrder, {"--user", "--hold", "-u", "-x", "-N", "--"}),
            "user=--hold user=-x nodes=-- |");
}

TEST(GetoptTest, OptionalValuesOnlyWithEqualsOrAttached) {
  EXPECT_EQ(Parse(kRequireOrder, {"--nice", "5"}), "nice | 5");
  EXPECT_EQ(Parse(kRequireOrder, {"--nice=5", "-k", "-kname", "-Hkx"}),
            "nice=5 k k=name hold k=x |");
  EXPECT_EQ(Parse(kRequireOrder, {"--nice="}), "nice= |");
}

TEST(GetoptTest, UniquePrefixesAreAccepted) {
  EXPECT_EQ(Parse(kRequireOrder, {"--no=2", "--ho", "--ntasks-p", "3", "--verb"}),
            "nodes=2 hold ntasks-per-node=3 verbose |");
  // Exact names win over longer ones they prefix.
  EXPECT_EQ(Parse(kRequireOrder, {"--ntasks=4"}), "ntasks=4 |");
  // Aliases (same id and kind) are not ambiguous; the first one is reported.
  EXPECT_EQ(Parse(kRequireOrder, {"--us=alice"}), "user=alice |");
}

TEST(GetoptTest, AmbiguousPrefixesListThePossibilities) {
  EXPECT_EQ(Parse(kRequireOrder, {"--n=2"}),
            "option '--n=2' is ambiguous; possibilities: '--nodes' '--ntasks' "
            "'--ntasks-per-node' '--nice'" +
                kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"--nt", "2"}),
            "option '--nt' is ambiguous; possibilities: '--ntasks' '--ntasks-per-node'" + kTry);
}

TEST(GetoptTest, Errors) {
  EXPECT_EQ(Parse(kRequireOrder, {"--bogus"}), "unrecognized option '--bogus'" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"--bogus=1"}), "unrecognized option '--bogus=1'" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"---hold"}), "unrecognized option '---hold'" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"-Z"}), "invalid option -- 'Z'" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"-HZ"}), "invalid option -- 'Z'" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"--nodes"}), "option '--nodes' requires an argument" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"--nod"}), "option '--nodes' requires an argument" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"-HN"}), "option requires an argument -- 'N'" + kTry);
  EXPECT_EQ(Parse(kRequireOrder, {"--ho=1"}), "option '--hold' doesn't allow an argument" + kTry);
  EXPECT_EQ(Parse(kPermute, {"--bogus"}),
            "unrecognized option '--bogus'\nTry \"squeue --help\" for more information");
}

TEST(GetoptTest, RequireOrderStopsAtTheFirstOperand) {
  EXPECT_EQ(Parse(kRequireOrder, {"-N", "2", "job.sh", "-H", "--bogus"}),
            "nodes=2 | job.sh -H --bogus");
  EXPECT_EQ(Parse(kRequireOrder, {"-H", "--", "-script", "a"}), "hold | -script a");
  EXPECT_EQ(Parse(kRequireOrder, {"-", "-H"}), "| - -H");
  EXPECT_EQ(Parse(kRequireOrder, {}), "|");
}

TEST(GetoptTest, PermuteMixesOptionsAndOperands) {
  EXPECT_EQ(Parse(kPermute, {"12", "-v", "5_3", "-u", "alice", "-", "--", "-H", "x"}),
            "verbose user=alice | 12 5_3 - -H x");
  EXPECT_EQ(Parse(kPermute, {"1", "--bogus", "2"}),
            "unrecognized option '--bogus'" + std::string("\nTry \"squeue --help\" for "
                                                          "more information"));
}

TEST(GetoptTest, HandlerErrorsStopParsingInOrder) {
  int calls = 0;
  absl::StatusOr<std::vector<std::string>> r =
      ParseCommandLine(kRequireOrder, {"-N", "bad", "--bogus"},
                       [&](const OptionSpec& o, std::optional<absl::string_view>) -> absl::Status {
                         ++calls;
                         EXPECT_EQ(o.IdAs<Opt>(), Opt::kNodes);
                         return absl::InvalidArgumentError("error: bad node count");
                       });
  EXPECT_EQ(r.status().message(), "error: bad node count");
  EXPECT_EQ(calls, 1);
}

TEST(GetoptTest, UsageError) {
  EXPECT_EQ(UsageError("sinfo", "unrecognized option 'x'").message(),
            "unrecognized option 'x'\nTry \"sinfo --help\" for more information");
  EXPECT_EQ(UsageError("sinfo", "x").code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace canopy::slurm
