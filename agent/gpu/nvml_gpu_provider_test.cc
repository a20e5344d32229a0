// NvmlGpuProvider against a stand-in libnvidia-ml.so.1 (fake_nvml_library.cc), so the provider's
// use of NVML's C ABI, its XID event handling included, is checked on machines without a GPU.
// tests/device/gpu_node_check.sh runs the provider against a real driver where one is lent.
#include "agent/gpu/nvml_gpu_provider.h"

#include <dlfcn.h>

#include <cmath>

#include "agent/gpu/xid_record.h"
#include "gtest/gtest.h"

namespace canopy::agent::gpu {
namespace {

class NvmlGpuProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Loaded by path first; the provider's dlopen by soname then finds this copy.
    fake_ = dlopen(CANOPY_FAKE_NVML_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(fake_, nullptr) << dlerror();
    add_xid_ = reinterpret_cast<void (*)(unsigned, unsigned long long)>(
        dlsym(fake_, "canopy_fake_nvml_add_xid"));
    open_sets_ = reinterpret_cast<int (*)()>(dlsym(fake_, "canopy_fake_nvml_open_event_sets"));
    ASSERT_NE(add_xid_, nullptr);
    ASSERT_NE(open_sets_, nullptr);
  }
  void TearDown() override {
    if (fake_ != nullptr) {
      dlclose(fake_);
    }
  }

  void* fake_ = nullptr;
  void (*add_xid_)(unsigned, unsigned long long) = nullptr;
  int (*open_sets_)() = nullptr;
};

TEST_F(NvmlGpuProviderTest, DiscoversTheDriversGpus) {
  absl::StatusOr<std::unique_ptr<NvmlGpuProvider>> nvml = NvmlGpuProvider::Open();
  ASSERT_TRUE(nvml.ok()) << nvml.status();
  absl::StatusOr<std::vector<GpuDevice>> gpus = (*nvml)->Discover();
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[1].model, "NVIDIA H200");
  EXPECT_EQ((*gpus)[1].uuid, "GPU-fa4e0000-0000-0000-0000-000000000001");
  EXPECT_EQ((*gpus)[1].memory_mib, 143771);
  EXPECT_EQ((*gpus)[1].device_file, "/dev/nvidia1");
  EXPECT_TRUE((*gpus)[1].healthy);
}

TEST_F(NvmlGpuProviderTest, CountsXidEventsAndAFaultMakesTheGpuUnhealthy) {
  absl::StatusOr<std::unique_ptr<NvmlGpuProvider>> nvml = NvmlGpuProvider::Open();
  ASSERT_TRUE(nvml.ok()) << nvml.status();
  absl::StatusOr<std::vector<GpuTelemetry>> before = (*nvml)->Telemetry();
  ASSERT_TRUE(before.ok());
  EXPECT_EQ((*before)[0].xid_errors, 0);  // watched, none yet (not unknown)

  add_xid_(0, 13);  // an application's own fault: counted, GPU still fit
  add_xid_(1, 79);
  add_xid_(1, 48);
  absl::StatusOr<std::vector<GpuDevice>> gpus = (*nvml)->Discover();
  ASSERT_TRUE(gpus.ok());
  EXPECT_TRUE((*gpus)[0].healthy);
  EXPECT_FALSE((*gpus)[1].healthy);
  EXPECT_EQ((*gpus)[1].health_reason, "XID 79: GPU has fallen off the bus");

  absl::StatusOr<std::vector<GpuTelemetry>> after = (*nvml)->Telemetry();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)[0].xid_errors, 1);
  EXPECT_EQ((*after)[1].xid_errors, 2);
  EXPECT_DOUBLE_EQ((*after)[1].memory_total_bytes, 143771.0 * 1024 * 1024);

  // An XID is an event: the GPU stays unfit at later heartbeats, with no new event.
  gpus = (*nvml)->Discover();
  ASSERT_TRUE(gpus.ok());
  EXPECT_FALSE((*gpus)[1].healthy);
  EXPECT_EQ(open_sets_(), 1);
  nvml->reset();
  EXPECT_EQ(open_sets_(), 0);  // the provider frees its event set
}

TEST(XidRecordTest, ApplicationXidsAreCountedOnlyAndTheFirstFaultIsKept) {
  XidRecord xids;
  xids.Add(3, 31);
  xids.Add(3, 109);
  EXPECT_EQ(xids.count(3), 2u);
  EXPECT_EQ(xids.fault(3), "");
  xids.Add(3, 94);
  xids.Add(3, 79);
  EXPECT_EQ(xids.fault(3), "XID 94: contained ECC error");
  EXPECT_EQ(xids.count(3), 4u);
  EXPECT_EQ(xids.count(0), 0u);
  EXPECT_EQ(XidRecord::Describe(12345), "XID 12345");
  EXPECT_EQ(XidRecord::Describe(999), "XID 999: unknown XID");
}

}  // namespace
}  // namespace canopy::agent::gpu
