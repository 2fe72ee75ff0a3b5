// The counter sampler of a batch run: starts the selected sources, samples them every
// period on one background thread and appends counters.csv rows on the run epoch (the
// TIMELINE's: µs since epoch_ns on CLOCK_MONOTONIC). All rows of one sampling round carry
// the round's timestamp, so t_us never decreases down the file; rates cover the interval
// since the previous round. A final round is taken at stop(), so the tail of a run is covered.
//
// status_json() is run.json's `counters`: every known source, used or unavailable with
// the reason ("switched off" for sources the selection left out).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "harness/counters/counters_csv.hpp"
#include "harness/counters/options.hpp"
#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

// One source per name of source_names(), in that order: the real ones for the selected
// names, UnavailableSource("switched off ...") for the others.
std::vector<std::unique_ptr<CounterSource>> make_sources(const CounterOptions& opts);

class CounterSampler {
 public:
  // Starts the sources (on this thread) and the sampling thread. counters.csv is created at
  // csv_path only when some source is used.
  CounterSampler(std::filesystem::path csv_path, std::int64_t epoch_ns, const CounterOptions& opts);
  CounterSampler(std::filesystem::path csv_path, std::int64_t epoch_ns, const CounterOptions& opts,
                 std::vector<std::unique_ptr<CounterSource>> sources);
  ~CounterSampler();
  CounterSampler(const CounterSampler&) = delete;
  CounterSampler& operator=(const CounterSampler&) = delete;

  // Takes a final round, joins the thread, stops the sources, closes the file. Idempotent.
  void stop();

  nlohmann::json status_json() const;
  bool writing() const { return csv_ != nullptr; }
  std::uint64_t rounds() const { return rounds_.load(); }
  std::uint64_t rows() const { return rows_.load(); }
  // CPU time of the sampling thread (all sources' sampling work: the probe's loop, reading
  // /proc, ...), the sampler's own cost; final after stop(). 0 when no thread ran.
  double thread_cpu_seconds() const { return static_cast<double>(thread_cpu_ns_.load()) * 1e-9; }
  // When the sources took their baseline, in µs on the run epoch: cumulative counters
  // (energy) are 0 there.
  std::int64_t start_us() const { return start_us_; }
  // {start_us, period_ms, rounds, rows, thread_cpu_s}: for run.json after stop().
  nlohmann::json activity_json() const;

 private:
  void run();
  void round(std::int64_t now_ns);

  std::filesystem::path path_;
  std::int64_t epoch_ns_;
  std::int64_t period_ns_;
  std::vector<std::unique_ptr<CounterSource>> sources_;
  std::vector<SourceStatus> statuses_;  // guarded by status_mutex_
  mutable std::mutex status_mutex_;
  std::unique_ptr<CountersCsv> csv_;
  std::vector<Reading> readings_;
  std::int64_t start_us_ = 0;
  std::int64_t last_t_us_ = -1, last_round_ns_ = 0;
  std::atomic<std::uint64_t> rounds_{0}, rows_{0};
  std::atomic<std::int64_t> thread_cpu_ns_{0};

  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stop_requested_ = false;  // guarded by wake_mutex_
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace prooflab::harness::counters
