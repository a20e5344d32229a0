#include "agent/gpu/fake_gpu_provider.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"

namespace canopy::agent::gpu {
namespace {

TEST(FakeGpuProviderTest, StableDistinctUuidsPerNode) {
  FakeGpuProvider a("gpu001", {}), a2("gpu001", {}), b("gpu002", {});
  auto ga = a.Discover(), ga2 = a2.Discover(), gb = b.Discover();
  ASSERT_TRUE(ga.ok() && ga2.ok() && gb.ok());
  ASSERT_EQ(ga->size(), 8u);
  EXPECT_EQ(*ga, *ga2);
  EXPECT_NE((*ga)[0].uuid, (*gb)[0].uuid);
  EXPECT_NE((*ga)[0].uuid, (*ga)[1].uuid);
  EXPECT_TRUE((*ga)[3].healthy);
  EXPECT_EQ((*ga)[3].index, 3);
}

TEST(FakeGpuProviderTest, FaultsFileMarksGpusUnhealthyAndHeals) {
  const std::string path = ::testing::TempDir() + "/faults-" + std::to_string(getpid());
  {
    std::ofstream out(path);
    out << "# node index reason\n"
        << "gpu001 2 XID 79: GPU has fallen off the bus\n"
        << "gpu002 1 XID 48\n"
        << "gpu001 99 out of range is ignored\n"
        << "garbage\n";
  }
  FakeGpuOptions options;
  options.count = 4;
  options.faults_file = path;
  FakeGpuProvider p("gpu001", options);
  auto gpus = p.Discover();
  ASSERT_TRUE(gpus.ok());
  EXPECT_FALSE((*gpus)[2].healthy);
  EXPECT_EQ((*gpus)[2].health_reason, "XID 79: GPU has fallen off the bus");
  EXPECT_TRUE((*gpus)[1].healthy);
  // The metrics' figures: an idle GPU, and the injected XID counted.
  absl::StatusOr<std::vector<GpuTelemetry>> telemetry = p.Telemetry();
  ASSERT_TRUE(telemetry.ok());
  ASSERT_EQ(telemetry->size(), 4u);
  EXPECT_EQ((*telemetry)[2].xid_errors, 1);
  EXPECT_EQ((*telemetry)[1].xid_errors, 0);
  EXPECT_EQ((*telemetry)[3].temperature_celsius, 33);
  EXPECT_EQ((*telemetry)[0].memory_total_bytes, 81559.0 * 1024 * 1024);
  EXPECT_EQ((*telemetry)[0].utilization, 0);
  std::ofstream(path, std::ios::trunc) << "";
  gpus = p.Discover();
  ASSERT_TRUE(gpus.ok());
  EXPECT_TRUE((*gpus)[2].healthy);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace canopy::agent::gpu
