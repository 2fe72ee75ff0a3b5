// The host-memory budget (core/engine/host_memory_budget.hpp): admission by reservation,
// charges of real buffers, early release, the peak, and the start-up check.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "core/engine/config.hpp"
#include "core/engine/host_memory_budget.hpp"

namespace {

using prooflab::engine::ConfigError;
using prooflab::engine::HostMemoryBudget;

TEST(HostMemoryBudget, ChargesDrawOnTheReservationAndThePeakIsTheChargedHighWaterMark) {
  HostMemoryBudget budget(1000);
  {
    HostMemoryBudget::Account a(budget, 600);
    EXPECT_EQ(budget.held(), 600u);
    a.charge(400);  // from the reservation: held unchanged
    EXPECT_EQ(budget.held(), 600u);
    EXPECT_EQ(budget.charged(), 400u);
    a.charge(300);  // 200 more from the reservation, 100 beyond it
    EXPECT_EQ(budget.held(), 700u);
    a.release(500);
    EXPECT_EQ(budget.charged(), 200u);
    EXPECT_EQ(budget.peak_charged(), 700u);
  }
  EXPECT_EQ(budget.held(), 0u);  // the account gave back what it still had
  EXPECT_EQ(budget.charged(), 0u);
  EXPECT_EQ(budget.peak_charged(), 700u);
}

TEST(HostMemoryBudget, AReservationWaitsUntilAnEarlyReleaseMakesRoom) {
  HostMemoryBudget budget(1000);
  HostMemoryBudget::Account first(budget, 800);
  first.charge(800);
  std::atomic<bool> admitted{false};
  std::thread second([&] {
    HostMemoryBudget::Account a(budget, 500);
    admitted = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(admitted) << "admitted 500 bytes next to 800 of 1000";
  first.release(600);  // a, b, c freed early: 200 bytes still charged
  second.join();
  EXPECT_TRUE(admitted);
}

TEST(HostMemoryBudget, ABudgetBelowOnePartitionIsAnErrorNamingTheKeyAndTheFootprint) {
  const std::uint64_t footprint =
      prooflab::engine::partition_footprint_bytes(1 << 10, 700, prooflab::engine::Placement::kCpu);
  EXPECT_EQ(footprint, (3u * 1024 + 700) * 32);
  EXPECT_EQ(prooflab::engine::resolve_host_mem_budget(footprint, footprint), footprint);
  try {
    prooflab::engine::resolve_host_mem_budget(footprint - 1, footprint);
    FAIL();
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("config key 'host_mem_budget': " + std::to_string(footprint - 1) + " bytes"),
              std::string::npos) << what;
    EXPECT_NE(what.find("footprint of " + std::to_string(footprint) + " bytes"), std::string::npos) << what;
  }
  // 0 = auto: the host's memory less 5 GiB.
  const std::uint64_t mem = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  if (mem > (5ull << 30) + footprint)
    EXPECT_EQ(prooflab::engine::resolve_host_mem_budget(0, footprint), mem - (5ull << 30));
}

// sparse_products = gpu: the host never holds a, b, c, so a partition reserves its witness
// alone (3 × 32 × n bytes less: 384 MiB at n = 2^22).
TEST(HostMemoryBudget, TheFootprintFollowsWhereTheSparseProductsRun) {
  using prooflab::engine::Placement;
  using prooflab::engine::partition_footprint_bytes;
  EXPECT_EQ(partition_footprint_bytes(1 << 10, 700, Placement::kGpu), 700u * 32);
  EXPECT_EQ(partition_footprint_bytes(1 << 22, 0, Placement::kCpu) -
                partition_footprint_bytes(1 << 22, 0, Placement::kGpu),
            384ull << 20);
  EXPECT_EQ(partition_footprint_bytes(1 << 22, 5, Placement::kGpu), 5u * 32);
}

}  // namespace
