// `scontrol show config` against the lines Slurm 22.05 printed
// (tests/data/slurm-reference/cli-outputs-22.05.txt, "scontrol show config"): short keys padded
// to 23 columns, longer ones printed whole, then a blank line and the controller's status.
#include "ctl/scontrol/show_config.h"

#include "absl/time/civil_time.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

TEST(ShowConfigTest, MatchesSlurmLayout) {
  canopy::v1::GetConfigResponse config;
  config.mutable_as_of()->set_seconds(absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(2026, 12, 2, 9, 43, 45), absl::UTCTimeZone())));
  config.set_hostname("vm");
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"AccountingStorageBackupHost", "(null)"},
           {"AccountingStorageHost", "localhost"},
           {"AcctGatherFilesystemType", "acct_gather_filesystem/none"},
           {"MinJobAge", "300 sec"},
           {"PowerPlugin", ""},
           {"SlurmctldHost[0]", "vm(localhost)"},
           {"JobCredentialPublicCertificate", "(null)"},
           {"X11Parameters", "(null)"},
       }) {
    canopy::v1::ConfigEntry* e = config.add_entries();
    e->set_key(key);
    e->set_value(value);
  }
  EXPECT_EQ(RenderConfig(config, absl::UTCTimeZone()),
            "Configuration data as of 2026-12-02T09:43:45\n"
            "AccountingStorageBackupHost = (null)\n"
            "AccountingStorageHost   = localhost\n"
            "AcctGatherFilesystemType = acct_gather_filesystem/none\n"
            "MinJobAge               = 300 sec\n"
            "PowerPlugin             = \n"
            "SlurmctldHost[0]        = vm(localhost)\n"
            "JobCredentialPublicCertificate = (null)\n"
            "X11Parameters           = (null)\n"
            "\n"
            "Slurmctld(primary) at vm is UP\n");
}

}  // namespace
}  // namespace canopy::ctl::scontrol
