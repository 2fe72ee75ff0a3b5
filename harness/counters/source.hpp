// A counter source: something the sampler reads once per period and turns into counters.csv
// rows (docs/counters.md). Each source says whether it is used and why not when it is not;
// run.json records that verbatim under `counters`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace prooflab::harness::counters {

struct SourceStatus {
  bool used = false;
  std::string reason;  // why unavailable; for a used source, what it measures and how

  static SourceStatus available(std::string what) { return {true, std::move(what)}; }
  static SourceStatus unavailable(std::string why) { return {false, std::move(why)}; }
  nlohmann::json to_json() const {
    return {{"status", used ? "used" : "unavailable"}, {"reason", reason}};
  }
};

// One counters.csv value; metric and unit are string literals or strings the source owns
// (no allocation per sample).
// source: the `source` column when it is not the source's name() (nvml writes one source per
// device, `nvml0`, `nvml1`, ...); it must live as long as the source.
struct Reading {
  const char* metric;
  double value;
  const char* unit;
  const char* source = nullptr;
};

// CLOCK_MONOTONIC in ns: the clock of the TIMELINE epoch (core/trace/timeline.hpp) and of CUPTI.
std::int64_t monotonic_ns();

class CounterSource {
 public:
  virtual ~CounterSource() = default;
  virtual const char* name() const = 0;
  // Opens the source and takes the baseline of its rates at now_ns. Called once, before
  // any sample(), on the thread that builds the sampler.
  virtual SourceStatus start(std::int64_t now_ns) = 0;
  // Appends the readings of the interval (previous call, now_ns]. Called on the sampler
  // thread, only while status().used.
  virtual void sample(std::int64_t now_ns, std::vector<Reading>& out) = 0;
  // Current status: a used source may become unavailable mid-run (the reason then says when).
  virtual SourceStatus status() const = 0;
  // Releases what start() opened; called once after the last sample().
  virtual void stop() {}
};

// A source that is known not to run, with the reason (switched off, no CUDA backend, ...).
class UnavailableSource final : public CounterSource {
 public:
  UnavailableSource(const char* name, std::string reason)
      : name_(name), reason_(std::move(reason)) {}
  const char* name() const override { return name_; }
  SourceStatus start(std::int64_t) override { return status(); }
  void sample(std::int64_t, std::vector<Reading>&) override {}
  SourceStatus status() const override { return SourceStatus::unavailable(reason_); }

 private:
  const char* name_;
  std::string reason_;
};

}  // namespace prooflab::harness::counters
