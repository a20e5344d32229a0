// The site's SPANK plugins in a front end, as Slurm's sbatch and salloc (allocator context) and
// srun (local context) host them: loaded from the cluster config's plugstack.conf, their
// options offered on the command line, in #SBATCH lines and in --help, checked by the plugins'
// callbacks, and carried to the job in _SLURM_SPANK_OPTION_* variables, which the agent's task
// helper hands back to the plugins on the nodes. Plugins log as "PROG: error: ..." on stderr.
// Not thread-safe; one per process.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/slurm/getopt.h"
#include "plugins/spank/spank_host.h"

namespace canopy::ctl::client {

class FrontEndSpank {
 public:
  // Finds the config through $CANOPY_CONFIG or $SLURM_CONF (none, or no plugstack.conf beside
  // it: no plugins), loads the stack in `context` and runs slurm_spank_init. Errors in Slurm's
  // words: "Failed to initialize plugin stack" with the reason on the line before.
  static absl::StatusOr<std::unique_ptr<FrontEndSpank>> Start(const std::string& program,
                                                              spank_context_t context);
  // Runs slurm_spank_exit.
  ~FrontEndSpank();
  FrontEndSpank(const FrontEndSpank&) = delete;
  FrontEndSpank& operator=(const FrontEndSpank&) = delete;

  // The plugins' options for the command's getopt table.
  const std::vector<slurm::ExtraOption>& options() const { return options_; }
  // `help` with the plugins' options in it, where Slurm 22.05's command prints them: the block
  //   Options provided by plugins:
  //         --name=ARG              usage
  //   (a blank line)
  // just before the section that starts with `before` ("GPU scheduling options:" for sbatch and
  // srun, "Help options:" for salloc). Unchanged without plugin options.
  std::string WithPluginHelp(std::string help, absl::string_view before) const;
  // Gives the plugins their options: first SLURM_SPANK__SLURM_SPANK_OPTION_<plugin>_<name>
  // variables of `env`, then `given` (command line order), then runs slurm_spank_init_post_opt.
  // InvalidArgument in Slurm's words ("Invalid --NAME argument: VALUE", which the commands exit
  // 255 for), FailedPrecondition "Plugin stack post-option processing failed." (exit 1).
  absl::Status ApplyOptions(const std::vector<std::pair<std::string, std::string>>& given,
                            const std::map<std::string, std::string>& env);
  // The variables that carry the options set (_SLURM_SPANK_OPTION_...) and the plugins' job
  // control environment (common/slurm/job_environment.h) to the job.
  std::map<std::string, std::string> JobEnvironment() const;
  // srun, once it has an allocation and before it launches: slurm_spank_local_user_init with
  // the step's items. "Failure in local plugin stack" when a required plugin fails.
  absl::Status LocalUserInit(const spank::JobItems& items, const std::vector<std::string>& argv);

 private:
  FrontEndSpank(std::string program, std::unique_ptr<spank::SpankHost> host);

  const std::string program_;
  std::unique_ptr<spank::SpankHost> host_;
  std::vector<slurm::ExtraOption> options_;
};

}  // namespace canopy::ctl::client
