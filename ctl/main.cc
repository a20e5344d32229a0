// canopyctl: Canopy's CLI. Installed under Slurm's command names too (sbatch, squeue, scontrol,
// ...) as links to this binary: the name it is called by picks the front end.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "common/os/release_mutexes.h"
#include "ctl/canopyctl/canopyctl.h"
#include "ctl/sacct/sacct.h"
#include "ctl/sacctmgr/sacctmgr.h"
#include "ctl/salloc/salloc.h"
#include "ctl/sattach/sattach.h"
#include "ctl/sbatch/sbatch.h"
#include "ctl/scancel/scancel.h"
#include "ctl/scontrol/scontrol.h"
#include "ctl/sinfo/sinfo.h"
#include "ctl/sprio/sprio.h"
#include "ctl/squeue/squeue.h"
#include "ctl/srun/srun.h"
#include "ctl/sshare/sshare.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CANOPY_SANITIZED_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CANOPY_SANITIZED_BUILD 1
#endif
#ifndef CANOPY_SANITIZED_BUILD
#define CANOPY_SANITIZED_BUILD 0
#endif

namespace {

// The front end `name` (the name this binary was called by) on `args`; its exit code.
int RunFrontEnd(const std::string& name, const std::vector<std::string>& args) {
  if (name == "scontrol") {
    return canopy::ctl::scontrol::RunScontrol(args, std::cout, std::cerr);
  }
  if (name == "sinfo") {
    return canopy::ctl::sinfo::RunSinfo(args, std::cout, std::cerr);
  }
  if (name == "sbatch") {
    return canopy::ctl::sbatch::RunSbatch(args, std::cin, std::cout, std::cerr);
  }
  if (name == "squeue") {
    return canopy::ctl::squeue::RunSqueue(args, std::cout, std::cerr);
  }
  if (name == "scancel") {
    return canopy::ctl::scancel::RunScancel(args, std::cout, std::cerr);
  }
  if (name == "srun") {
    return canopy::ctl::srun::RunSrun(args, "", std::cout, std::cerr);
  }
  if (name == "salloc") {
    return canopy::ctl::salloc::RunSalloc(args, std::cout, std::cerr);
  }
  if (name == "sattach") {
    return canopy::ctl::sattach::RunSattach(args, std::cout, std::cerr);
  }
  if (name == "sshare") {
    return canopy::ctl::sshare::RunSshare(args, std::cout, std::cerr);
  }
  if (name == "sprio") {
    return canopy::ctl::sprio::RunSprio(args, std::cout, std::cerr);
  }
  if (name == "sacctmgr") {
    return canopy::ctl::sacctmgr::RunSacctmgr(args, std::cout, std::cerr);
  }
  if (name == "sacct") {
    return canopy::ctl::sacct::RunSacct(args, std::cout, std::cerr);
  }
  if (name == "canopyctl") {
    return canopy::ctl::canopyctl::RunCanopyctl(args, std::cout, std::cerr);
  }
  std::cerr << name
            << ": this Canopy build answers to canopyctl, scontrol, sinfo, sbatch, squeue,"
               " scancel, srun, salloc, sattach, sshare, sprio, sacctmgr and sacct; '"
            << name << "' is not one of its front ends\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  canopy::os::SwitchOffMutexDeadlockDetection();
  std::string name = argv[0];
  if (const size_t slash = name.rfind('/'); slash != std::string::npos) {
    name = name.substr(slash + 1);
  }
  const int rc = RunFrontEnd(name, std::vector<std::string>(argv + 1, argv + argc));
#if CANOPY_SANITIZED_BUILD
  return rc;  // through exit(): the sanitizers' leak check runs there
#else
  // Everything the command did is done and its objects are gone; what is left is the global
  // teardown of gRPC (its threads) and protobuf: about 6 ms of a call that takes 20 here.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(rc);
#endif
}
