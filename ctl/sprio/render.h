// sprio's output, as Slurm 22.05 prints it (tests/data/slurm-reference/accounting-outputs-
// 22.05.txt). Pure: RenderSprio turns a ListPrioritiesResponse into what sprio writes to stdout
// and stderr and its exit code, so tests compare it byte for byte with the reference.
// Thread-safe.
//
// Default columns: "%.15i %9r" (+ " %.8u" with -u) + " %.10Y %.10S" + one column per factor
// whose weight is not zero, in the order age, assoc, fair-share, job size, partition, QOS, TRES
// (with -n the normalized "%10a"-style columns); -l: every column.
// Fields of -o: %i job, %r partition, %u user, %o account, %n QOS name, %c cluster, %Y/%y
// priority, %S site, %A/%a age, %B/%b assoc, %F/%f fair-share, %J/%j job size, %P/%p partition
// factor, %Q/%q QOS factor, %N nice, %T/%t TRES (upper case weighted, lower case normalized:
// the weighted value over its weight, "%.7f"). An unknown letter is reported as sprio does
// ("sprio: error: Invalid job format specification: X") and left out with the text after it.
// Canopy has no site factor, association factor or TRES factors: those print 0 (or empty for
// TRES), and %c is empty.
#pragma once

#include <string>

#include "canopy/v1/accounts.pb.h"
#include "ctl/sprio/options.h"

namespace canopy::ctl::sprio {

struct SprioOutput {
  std::string out;
  std::string err;
  int exit_code = 0;
};

// Jobs selected by -j/-u/-p, by job id. With -w the header and the weights row only. A -j list
// matching no job prints "Unable to find jobs matching user/id(s) specified". When the answer
// says multifactor is off, sprio's error for priority/basic and exit code 1.
SprioOutput RenderSprio(const SprioOptions& options,
                        const canopy::v1::ListPrioritiesResponse& priorities);

}  // namespace canopy::ctl::sprio
