// The host-memory budget in bytes (cuzk's memory `total_budget`, cuzk-core/src/memory.rs),
// charged with each partition's real buffers.
//
// A partition is admitted by a reservation of its footprint — the buffers whose size the
// circuit shape fixes: a, b, c over the domain and the witness (input + aux assignment) —
// taken before its synthesis starts, all or nothing, so that partition workers holding
// part of a budget can never deadlock one another. Each buffer is then *charged* with its
// real size (vector capacity) when it is allocated, drawing first on the reservation, and
// released when it is freed: a freed buffer's bytes go back to the budget at once (early
// free of a, b, c lets the next partition in before the rest is deallocated). prep_msm's
// bitmaps and tails ("density"), whose size depends on the witness, are charged when made
// without waiting, so the charged total may exceed the budget by those of the partitions in
// flight (small: most scalars are 0 or 1). `peak_charged` is the high-water mark of the
// charged bytes — the partition buffers' share of the process's peak RSS.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "core/engine/config.hpp"

namespace prooflab::engine {

class HostMemoryBudget {
 public:
  explicit HostMemoryBudget(std::uint64_t total) : total_(total) {}
  HostMemoryBudget(const HostMemoryBudget&) = delete;
  HostMemoryBudget& operator=(const HostMemoryBudget&) = delete;

  // One partition's share: a reservation at construction, charges and releases after.
  // Destroying it releases whatever it still holds.
  class Account {
   public:
    Account() = default;
    Account(HostMemoryBudget& budget, std::uint64_t reservation);  // blocks until it fits
    Account(Account&& o) noexcept;
    Account& operator=(Account&& o) noexcept;
    ~Account();
    // A buffer of `bytes` was allocated / freed.
    void charge(std::uint64_t bytes);
    void release(std::uint64_t bytes);
    std::uint64_t charged() const { return charged_; }

   private:
    void close();
    HostMemoryBudget* budget_ = nullptr;
    std::uint64_t reserved_ = 0, charged_ = 0;  // reserved_: the part not yet charged
  };

  std::uint64_t total() const { return total_; }
  // Mirrors the charged bytes into `gauge` from now on (for a sampler on another thread).
  void set_gauge(std::atomic<std::uint64_t>* gauge);
  std::uint64_t charged() const;
  std::uint64_t peak_charged() const;
  // Bytes held: charged plus reserved-not-yet-charged; admission keeps it <= total.
  std::uint64_t held() const;

 private:
  void reserve(std::uint64_t n);
  void settle(std::uint64_t reserved_released, std::uint64_t charged_added, std::uint64_t charged_removed);

  const std::uint64_t total_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::uint64_t reserved_ = 0, charged_ = 0, peak_charged_ = 0;
  std::atomic<std::uint64_t>* gauge_ = nullptr;
};

// Bytes a partition reserves: the witness and, unless the device computes them
// (sparse_products = gpu: the host never holds them), a, b, c (32-byte Fr over the domain).
std::uint64_t partition_footprint_bytes(std::uint64_t domain_size, std::uint64_t witness_elements,
                                        Placement sparse_products);

// The budget for config value `configured` (0 = auto: the host's memory less 5 GiB, cuzk's
// total_budget = "auto" with its default safety_margin); throws ConfigError naming
// host_mem_budget when it cannot hold one partition's footprint.
std::uint64_t resolve_host_mem_budget(std::uint64_t configured, std::uint64_t footprint);

}  // namespace prooflab::engine
