// sattach's command line and texts, as recorded from Slurm 22.05's sattach.
#include "ctl/sattach/options.h"

#include "gtest/gtest.h"

namespace canopy::ctl::sattach {
namespace {

absl::StatusOr<SattachOptions> Parse(const std::vector<std::string>& args,
                                     SattachError* error = nullptr) {
  SattachError ignored;
  return ParseSattachArgs(args, error != nullptr ? error : &ignored);
}

TEST(SattachOptionsTest, StepAndFilters) {
  absl::StatusOr<SattachOptions> o = Parse({"-l", "--output-filter=1", "13.0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->job_id, 13u);
  EXPECT_EQ(o->step_id, 0u);
  EXPECT_TRUE(o->label);
  // The error filter follows the output filter unless given.
  EXPECT_EQ(o->error_filter, 1);
  EXPECT_TRUE(PassesFilter(*o, 1, true));
  EXPECT_FALSE(PassesFilter(*o, 0, false));
  o = Parse({"--error-filter=0", "13.2", "--layout", "-Q", "-vv"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->step_id, 2u);
  EXPECT_TRUE(PassesFilter(*o, 5, false));
  EXPECT_FALSE(PassesFilter(*o, 5, true));
  EXPECT_TRUE(o->layout);
  EXPECT_TRUE(o->quiet);
  EXPECT_EQ(o->verbose, 2);
}

TEST(SattachOptionsTest, SlurmsErrors) {
  SattachError e;
  EXPECT_FALSE(Parse({}, &e).ok());
  EXPECT_EQ(e.message, "too many parameters");
  EXPECT_TRUE(e.print_usage);
  EXPECT_FALSE(Parse({"1.0", "2.0"}, &e).ok());
  EXPECT_EQ(e.message, "too many parameters");
  for (const char* bad : {"abc", "13", "13.batch"}) {
    EXPECT_FALSE(Parse({bad}, &e).ok()) << bad;
    EXPECT_EQ(e.message, "Failed to parse stepid from command line options");
  }
  EXPECT_FALSE(Parse({"--output-filter=abc", "13.0"}, &e).ok());
  EXPECT_EQ(e.message, "Invalid numeric value \"abc\" for output-filter.");
  EXPECT_FALSE(e.print_usage);
  EXPECT_FALSE(Parse({"--bogus", "13.0"}, &e).ok());
  EXPECT_EQ(e.message,
            "unrecognized option '--bogus'\nTry \"sattach --help\" for more information");
}

TEST(SattachOptionsTest, HelpUsageVersion) {
  EXPECT_EQ(Parse({"--usage"})->info, Info::kUsage);
  EXPECT_EQ(Parse({"-h"})->info, Info::kHelp);
  EXPECT_EQ(Parse({"-V"})->info, Info::kVersion);
  EXPECT_EQ(SattachInfoText(Info::kUsage), "Usage: sattach [options] <jobid.stepid>\n");
  // Word for word what Slurm 22.05.8's sattach --help printed.
  EXPECT_EQ(SattachInfoText(Info::kHelp),
            "Usage: sattach [options] <jobid.stepid>\n"
            "      --input-filter=taskid  send stdin to only the specified task\n"
            "      --output-filter=taskid only print stdout from the specified task\n"
            "      --error-filter=taskid  only print stderr from the specified task\n"
            "  -l, --label        prepend task number to lines of stdout & stderr\n"
            "      --layout       print task layout info and exit (does not attach to tasks)\n"
            "  -Q, --quiet        quiet mode (suppress informational messages)\n"
            "  -v, --verbose      verbose mode (multiple -v's increase verbosity)\n"
            "  -V, --version      print the Slurm version and exit\n"
            "\n"
            "Help options:\n"
            "  -h, --help         print this help message\n"
            "  -u, --usage        print a brief usage message\n");
  EXPECT_EQ(SattachInfoText(Info::kVersion), "slurm 22.05.8 (Canopy's sattach)\n");
}

TEST(SattachOptionsTest, LayoutInSlurmsWords) {
  canopy::v1::AttachStepResponse step;
  step.add_nodes("gpu001");
  step.add_tasks_per_node(2);
  step.set_ntasks(2);
  EXPECT_EQ(
      LayoutText(step),
      "Job step layout:\n\t2 tasks, 1 nodes (gpu001)\n\n\tNode 0 (gpu001), 2 task(s): 0 1 \n");
  step.add_nodes("gpu002");
  step.add_tasks_per_node(1);
  step.set_ntasks(3);
  EXPECT_EQ(LayoutText(step),
            "Job step layout:\n\t3 tasks, 2 nodes (gpu[001-002])\n\n"
            "\tNode 0 (gpu001), 2 task(s): 0 1 \n\tNode 1 (gpu002), 1 task(s): 2 \n");
}

}  // namespace
}  // namespace canopy::ctl::sattach
