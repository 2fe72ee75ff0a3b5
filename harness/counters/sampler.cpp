#include "harness/counters/sampler.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "harness/counters/bandwidth_probe.hpp"
#include "harness/counters/energy_nvml_source.hpp"
#include "harness/counters/energy_perf_power_source.hpp"
#include "harness/counters/host_memory_source.hpp"
#include "harness/counters/likwid_source.hpp"
#include "harness/counters/nvml_source.hpp"
#include "harness/counters/perf_uncore_source.hpp"
#include "harness/counters/proc_source.hpp"

namespace prooflab::harness::counters {

std::int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::vector<std::unique_ptr<CounterSource>> make_sources(const CounterOptions& opts) {
  std::vector<std::unique_ptr<CounterSource>> out;
  for (const auto& name : source_names()) {
    if (!opts.sources.count(name)) {  // name.c_str() lives as long as source_names()
      out.push_back(std::make_unique<UnavailableSource>(
          name.c_str(), "switched off (--counters " + opts.selection + ")"));
      continue;
    }
    if (name == "probe")
      out.push_back(std::make_unique<BandwidthProbe>(opts.probe_bytes, opts.probe_ring_bytes));
    if (name == "proc") out.push_back(std::make_unique<ProcSource>("/proc", opts.proc_pid));
    if (name == "likwid") {
      LikwidOptions lo;
      lo.init_timeout_s = opts.likwid_init_timeout_s;
      out.push_back(std::make_unique<LikwidSource>(lo));
    }
    if (name == "perf_uncore") out.push_back(std::make_unique<PerfUncoreSource>());
    if (name == "nvml") out.push_back(std::make_unique<NvmlSource>());
    if (name == "gpu_energy") out.push_back(std::make_unique<NvmlEnergySource>());
    if (name == "host_energy") out.push_back(std::make_unique<PerfPowerEnergySource>());
    if (name == "host_memory") out.push_back(std::make_unique<HostMemorySource>(opts.host_charged));
  }
  return out;
}

CounterSampler::CounterSampler(std::filesystem::path csv_path, std::int64_t epoch_ns,
                               const CounterOptions& opts)
    : CounterSampler(std::move(csv_path), epoch_ns, opts, make_sources(opts)) {}

CounterSampler::CounterSampler(std::filesystem::path csv_path, std::int64_t epoch_ns,
                               const CounterOptions& opts,
                               std::vector<std::unique_ptr<CounterSource>> sources)
    : path_(std::move(csv_path)),
      epoch_ns_(epoch_ns),
      period_ns_(static_cast<std::int64_t>(opts.period_ms) * 1'000'000),
      sources_(std::move(sources)) {
  opts.validate();
  bool any_used = false;
  const std::int64_t now = monotonic_ns();
  last_round_ns_ = now;
  start_us_ = std::max<std::int64_t>((now - epoch_ns_) / 1000, 0);
  for (auto& s : sources_) {
    SourceStatus st;
    try {
      st = s->start(now);
    } catch (const std::exception& e) {
      st = SourceStatus::unavailable(std::string("failed to start: ") + e.what());
    }
    any_used = any_used || st.used;
    statuses_.push_back(std::move(st));
  }
  if (!any_used || path_.empty()) {
    for (std::size_t i = 0; i < sources_.size(); ++i)
      if (statuses_[i].used) sources_[i]->stop();
    stopped_ = true;
    return;
  }
  csv_ = std::make_unique<CountersCsv>(path_);
  thread_ = std::thread([this] { run(); });
}

CounterSampler::~CounterSampler() { stop(); }

void CounterSampler::round(std::int64_t now_ns) {
  const std::int64_t t_us = std::max<std::int64_t>((now_ns - epoch_ns_) / 1000, 0);
  // Never two rounds on one timestamp, nor a rate over less than a millisecond.
  if (t_us <= last_t_us_ || now_ns - last_round_ns_ < 1'000'000) return;
  last_t_us_ = t_us;
  last_round_ns_ = now_ns;
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    if (!statuses_[i].used) continue;  // only this thread changes statuses_ while running
    readings_.clear();
    sources_[i]->sample(now_ns, readings_);
    for (const auto& r : readings_)
      if (csv_->append(t_us, r.source ? r.source : sources_[i]->name(), r.metric, r.value, r.unit))
        rows_.fetch_add(1);
    const SourceStatus st = sources_[i]->status();
    if (!st.used) {
      std::lock_guard lock(status_mutex_);
      statuses_[i] = st;
    }
  }
  csv_->flush();
  rounds_.fetch_add(1);
}

void CounterSampler::run() {
  // A source that writes to a pipe (the likwid helper) must not take the process down.
  sigset_t pipe_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, nullptr);

  std::int64_t next = monotonic_ns() + period_ns_;
  std::unique_lock lock(wake_mutex_);
  for (;;) {
    const std::int64_t wait_ns = next - monotonic_ns();
    if (wait_ns > 0 &&
        wake_.wait_for(lock, std::chrono::nanoseconds(wait_ns), [&] { return stop_requested_; }))
      break;
    if (stop_requested_) break;
    if (monotonic_ns() < next) continue;  // woken early
    lock.unlock();
    round(monotonic_ns());
    lock.lock();
    // Stay on the period grid; after a stall, skip the missed rounds rather than bursting.
    next += period_ns_;
    const std::int64_t now = monotonic_ns();
    if (next <= now) next = now + period_ns_;
  }
  lock.unlock();
  round(monotonic_ns());  // the tail of the run
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  thread_cpu_ns_ = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void CounterSampler::stop() {
  if (stopped_) return;
  {
    std::lock_guard lock(wake_mutex_);
    stop_requested_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (std::size_t i = 0; i < sources_.size(); ++i)
    if (statuses_[i].used) sources_[i]->stop();
  csv_.reset();
  stopped_ = true;
}

nlohmann::json CounterSampler::activity_json() const {
  return {{"start_us", start_us_},
          {"period_ms", period_ns_ / 1'000'000},
          {"rounds", rounds()},
          {"rows", rows()},
          {"thread_cpu_s", thread_cpu_seconds()}};
}

nlohmann::json CounterSampler::status_json() const {
  std::lock_guard lock(status_mutex_);
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < sources_.size(); ++i) j[sources_[i]->name()] = statuses_[i].to_json();
  return j;
}

}  // namespace prooflab::harness::counters
