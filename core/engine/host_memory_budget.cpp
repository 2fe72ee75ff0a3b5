#include "core/engine/host_memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <string>
#include <utility>

#include "core/engine/config.hpp"
#include "core/field/fr.hpp"

namespace prooflab::engine {

HostMemoryBudget::Account::Account(HostMemoryBudget& budget, std::uint64_t reservation)
    : budget_(&budget), reserved_(reservation) {
  budget.reserve(reservation);
}

HostMemoryBudget::Account::Account(Account&& o) noexcept
    : budget_(std::exchange(o.budget_, nullptr)), reserved_(o.reserved_), charged_(o.charged_) {}

HostMemoryBudget::Account& HostMemoryBudget::Account::operator=(Account&& o) noexcept {
  if (this != &o) {
    close();
    budget_ = std::exchange(o.budget_, nullptr);
    reserved_ = o.reserved_;
    charged_ = o.charged_;
  }
  return *this;
}

HostMemoryBudget::Account::~Account() { close(); }

void HostMemoryBudget::Account::close() {
  if (!budget_) return;
  budget_->settle(reserved_, 0, charged_);
  budget_ = nullptr;
}

void HostMemoryBudget::Account::charge(std::uint64_t bytes) {
  assert(budget_);
  const std::uint64_t from_reservation = std::min(bytes, reserved_);
  reserved_ -= from_reservation;
  charged_ += bytes;
  budget_->settle(from_reservation, bytes, 0);
}

void HostMemoryBudget::Account::release(std::uint64_t bytes) {
  assert(budget_ && bytes <= charged_);
  charged_ -= bytes;
  budget_->settle(0, 0, bytes);
}

void HostMemoryBudget::reserve(std::uint64_t n) {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return reserved_ + charged_ + n <= total_; });
  reserved_ += n;
}

void HostMemoryBudget::settle(std::uint64_t reserved_released, std::uint64_t charged_added,
                              std::uint64_t charged_removed) {
  {
    std::lock_guard lock(m_);
    reserved_ -= reserved_released;
    charged_ += charged_added;
    charged_ -= charged_removed;
    peak_charged_ = std::max(peak_charged_, charged_);
    if (gauge_) gauge_->store(charged_, std::memory_order_relaxed);
  }
  cv_.notify_all();
}

void HostMemoryBudget::set_gauge(std::atomic<std::uint64_t>* gauge) {
  std::lock_guard lock(m_);
  gauge_ = gauge;
  if (gauge_) gauge_->store(charged_, std::memory_order_relaxed);
}

std::uint64_t HostMemoryBudget::charged() const {
  std::lock_guard lock(m_);
  return charged_;
}

std::uint64_t HostMemoryBudget::peak_charged() const {
  std::lock_guard lock(m_);
  return peak_charged_;
}

std::uint64_t HostMemoryBudget::held() const {
  std::lock_guard lock(m_);
  return charged_ + reserved_;
}

std::uint64_t partition_footprint_bytes(std::uint64_t domain_size, std::uint64_t witness_elements,
                                        Placement sparse_products) {
  const std::uint64_t abc = sparse_products == Placement::kCpu ? 3 * domain_size : 0;
  return (abc + witness_elements) * sizeof(field::Fr);
}

std::uint64_t resolve_host_mem_budget(std::uint64_t configured, std::uint64_t footprint) {
  constexpr std::uint64_t kSafetyMargin = 5ull << 30;
  std::uint64_t budget = configured;
  std::string how = std::to_string(configured) + " bytes";
  if (configured == 0) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    const std::uint64_t mem = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    budget = mem > kSafetyMargin ? mem - kSafetyMargin : 0;
    how = "0 (auto: host memory " + std::to_string(mem) + " bytes less 5 GiB = " + std::to_string(budget) + " bytes)";
  }
  if (budget < footprint)
    throw ConfigError("config key 'host_mem_budget': " + how + " is below one partition's footprint of " +
                      std::to_string(footprint) + " bytes (a, b, c and the witness); accepted: at least " +
                      std::to_string(footprint) + " bytes, or 0 = auto");
  return budget;
}

}  // namespace prooflab::engine
