// squeue's -o and -O languages, against what Slurm 22.05's squeue did with the same formats.
#include "ctl/squeue/format.h"

#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

TEST(SqueueFormatParseTest, LettersWidthsAlignmentAndSuffixes) {
  const ParsedFormat f = ParseFormat("abc%.18i %5j|%T", FormatKind::kJobs);
  EXPECT_TRUE(f.errors.empty());
  ASSERT_EQ(f.columns.size(), 4u);
  EXPECT_EQ(f.columns[0].text, "abc");
  EXPECT_EQ(f.columns[1].job_field->header, "JOBID");
  EXPECT_TRUE(f.columns[1].right);
  EXPECT_EQ(f.columns[1].width, 18);
  EXPECT_EQ(f.columns[1].suffix, " ");
  EXPECT_FALSE(f.columns[2].right);
  EXPECT_EQ(f.columns[2].width, 5);
  EXPECT_EQ(f.columns[2].suffix, "|");
  EXPECT_EQ(f.columns[3].job_field->header, "STATE");
}

// $ squeue -h -o '%i%%|%%%j|%'  ->  "squeue: error: Invalid job format specification: |",
// rows "3%|bigone|": runs of '%' separate pieces, an unknown piece prints itself.
TEST(SqueueFormatParseTest, PercentRunsAndUnknownPieces) {
  const ParsedFormat f = ParseFormat("%i%%|%%%j|%", FormatKind::kJobs);
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_EQ(f.errors[0], "Invalid job format specification: |");
  ASSERT_EQ(f.columns.size(), 3u);
  EXPECT_EQ(f.columns[1].text, "%|");
  EXPECT_EQ(f.columns[2].suffix, "|");
  // squeue has no '-': "%-5i" is reported and printed as it is.
  const ParsedFormat dash = ParseFormat("%-5i|%3.3i", FormatKind::kJobs);
  ASSERT_EQ(dash.errors.size(), 2u);
  EXPECT_EQ(dash.errors[0], "Invalid job format specification: -");
  EXPECT_EQ(dash.errors[1], "Invalid job format specification: .");
  EXPECT_EQ(dash.columns[0].text, "%-5i|");
  EXPECT_EQ(dash.columns[1].text, "%3.3i");
  // A trailing "%%" prints nothing.
  EXPECT_EQ(ParseFormat("%A %%", FormatKind::kJobs).columns.size(), 1u);
}

TEST(SqueueFormatParseTest, EveryDocumentedJobLetter) {
  for (char c : std::string("iAaFKjuUgtTMLlDCbRrPNSeVQqpvoZk")) {
    EXPECT_NE(JobFieldByLetter(c), nullptr) << c;
  }
  EXPECT_EQ(JobFieldByLetter('K')->header, "ARRAY_TASK_ID");
  EXPECT_EQ(JobFieldByLetter('F')->header, "ARRAY_JOB_ID");
  EXPECT_EQ(JobFieldByLetter('p')->header, "PRIORITY");
  EXPECT_EQ(JobFieldByLetter('o')->header, "COMMAND");
}

TEST(SqueueFormatParseTest, StepLettersAreFewer) {
  const ParsedFormat f = ParseFormat("%i %a|", FormatKind::kSteps);
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_EQ(f.errors[0], "Invalid job step format specification: a");
  EXPECT_EQ(f.columns[0].step_field->header, "STEPID");
  EXPECT_EQ(f.columns[1].text, "%a|");
}

TEST(SqueueLongFormatTest, NamesWidthsAlignmentAndSuffix) {
  const ParsedFormat f = ParseLongFormat("JobID:10,qos,name:.8|,TRES-PER-NODE", FormatKind::kJobs);
  EXPECT_TRUE(f.errors.empty());
  ASSERT_EQ(f.columns.size(), 4u);
  EXPECT_EQ(f.columns[0].job_field, JobFieldByLetter('A'));
  EXPECT_EQ(f.columns[0].width, 10);
  EXPECT_EQ(f.columns[1].job_field, JobFieldByLetter('q'));
  EXPECT_EQ(f.columns[1].width, 20);  // the default
  EXPECT_EQ(f.columns[2].job_field, JobFieldByLetter('j'));
  EXPECT_EQ(f.columns[2].width, 8);
  EXPECT_TRUE(f.columns[2].right);
  EXPECT_EQ(f.columns[2].suffix, "|");
  EXPECT_EQ(f.columns[3].job_field, JobFieldByLetter('b'));
}

// $ squeue -O jobid,bogus  ->  the error, then the JOBID column alone (exit 0).
TEST(SqueueLongFormatTest, UnknownNamesAreReportedAndLeftOut) {
  const ParsedFormat f = ParseLongFormat("jobid,bogus:5,Nodes,StepID", FormatKind::kJobs);
  EXPECT_EQ(f.columns.size(), 1u);
  EXPECT_EQ(f.errors, (std::vector<std::string>{"Invalid job format specification: bogus",
                                                "Invalid job format specification: Nodes",
                                                "Invalid job format specification: StepID"}));
  EXPECT_FALSE(ParseLongFormat("job", FormatKind::kJobs).errors.empty());  // no prefixes
  // Steps have their own names: "nodes" and "jobid" (JOB_ID), not "nodelist".
  const ParsedFormat steps = ParseLongFormat("nodes,jobid:8,nodelist", FormatKind::kSteps);
  ASSERT_EQ(steps.columns.size(), 2u);
  EXPECT_EQ(steps.columns[1].step_field->header, "JOB_ID");
  EXPECT_EQ(steps.errors,
            (std::vector<std::string>{"Invalid job step format specification: nodelist"}));
}

TEST(SqueueLongFormatTest, EveryJobNameHasAHeader) {
  for (const JobField& f : JobFields()) {
    EXPECT_TRUE(f.letter == 's' || !f.header.empty()) << f.names;
    EXPECT_TRUE(f.letter != '\0' || !f.names.empty()) << f.header;
  }
  EXPECT_EQ(JobFieldByName("SiblingsViableRaw")->header, "VIALBLE_SIBLINGS_RAW");
  EXPECT_EQ(JobFieldByName("shared"), JobFieldByName("OverSubscribe"));
  EXPECT_EQ(JobFieldByName("packjobid"), JobFieldByName("HetJobID"));
}

}  // namespace
}  // namespace canopy::ctl::squeue
