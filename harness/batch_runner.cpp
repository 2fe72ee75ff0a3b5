#include "harness/batch_runner.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <optional>
#include <random>

#include "core/circuits/circuit.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/setup.hpp"
#include "core/trace/cuzk_log_writer.hpp"
#include "core/io/atomic_file.hpp"
#include "harness/backend_factory.hpp"
#include "harness/counters/energy_summary.hpp"
#include "harness/counters/sampler.hpp"
#include "harness/cuzk_bench_output.hpp"
#include "harness/experiment/directory_names.hpp"
#include "harness/experiment/experiment_resume.hpp"
#include "harness/gpu_observation.hpp"
#include "harness/param_cache.hpp"
#include "harness/provenance.hpp"

namespace prooflab::harness {
namespace {

void print_summary(const nlohmann::json& s, const std::filesystem::path& dir) {
  auto num = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0.0; };
  std::printf("\n=== Batch Summary ===\n");
  std::printf("total time: %.1f s\n", num(s["total_s"]));
  std::printf("completed: %d, failed: %d (of %d)%s\n", s["completed"].get<int>(),
              s["failed"].get<int>(), s["count"].get<int>(),
              s["interrupted"].get<bool>() ? ", INTERRUPTED" : "");
  std::printf("wall:  avg %.1f s, min %.1f s, max %.1f s\n", num(s["wall_s"]["avg"]),
              num(s["wall_s"]["min"]), num(s["wall_s"]["max"]));
  std::printf("prove: avg %.1f s, min %.1f s, max %.1f s\n", num(s["prove_s"]["avg"]),
              num(s["prove_s"]["min"]), num(s["prove_s"]["max"]));
  std::printf("throughput: %.2f proofs/min (%.1f s/proof)\n", num(s["throughput_proofs_per_min"]),
              num(s["s_per_proof"]));
  std::printf("memory: peak RSS %.3f GiB (%s), peak charged host buffers %.3f GiB of a %.3f GiB budget\n",
              num(s["peak_rss_bytes"]) / (1ull << 30), s.value("peak_rss_scope", "?").c_str(),
              num(s["peak_host_charged_bytes"]) / (1ull << 30), num(s["host_mem_budget_bytes"]) / (1ull << 30));
  // Several devices: how the work spread over them (summary.json's devices block).
  const nlohmann::json devices = s.value("devices", nlohmann::json::object());
  if (devices.size() > 1) {
    std::string line;
    for (const auto& [d, dev] : devices.items()) {
      char text[96];
      std::snprintf(text, sizeof text, "%sdev%s %.1f %%", line.empty() ? "" : ", ", d.c_str(),
                    100 * num(dev["gpu_busy"]));
      line += text;
      if (dev["kernel_busy"].is_number()) {
        std::snprintf(text, sizeof text, " (kernels %.1f %%)", 100 * num(dev["kernel_busy"]));
        line += text;
      }
    }
    std::printf("GPU busy per device (lock held): %s\n", line.c_str());
  }
  const nlohmann::json e = s.value("energy", nlohmann::json::object());
  auto figure = [&](const char* key, const char* unit) {
    const auto it = e.find(key);
    if (it == e.end() || !it->is_number()) return std::string("n/a");
    char text[64];
    std::snprintf(text, sizeof text, "%.1f %s", it->get<double>(), unit);
    return std::string(text);
  };
  if (e.contains("error"))
    std::printf("energy: not computed: %s\n", e["error"].dump().c_str());
  else if (figure("gpu_j", "J") == "n/a" && figure("host_j", "J") == "n/a")
    std::printf("energy: not measured (summary.json energy.notes says why)\n");
  else
    std::printf("energy: %s per proof (GPU %s, host %s), %s average, %s\n",
                figure("j_per_proof", "J").c_str(), figure("gpu_j_per_proof", "J").c_str(),
                figure("host_j_per_proof", "J").c_str(), figure("avg_power_w", "W").c_str(),
                figure("proofs_per_kwh", "proofs/kWh").c_str());
  std::printf("run directory: %s\n", dir.c_str());
}

}  // namespace

std::string default_run_id(const engine::EngineConfig& cfg) {
  char ts[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(std::random_device{}() & 0xffff));
  return std::string(ts) + "-" + cfg.circuit + "-c" + std::to_string(cfg.count) + "-j" +
         std::to_string(cfg.concurrency) + "-" + suffix;
}

namespace {

// The run directory out_parent/run_id, checked before any work: the id stays under
// out_parent, and an earlier run there is kept unless the caller asked to replace it.
std::filesystem::path fresh_run_dir(const BatchRunOptions& opts, const std::string& run_id) {
  check_run_id(run_id);
  const auto dir = opts.out_parent / run_id;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return dir;
  if (!std::filesystem::is_directory(dir, ec))
    throw std::runtime_error("run directory " + dir.string() + " exists and is not a directory");
  if (std::filesystem::is_empty(dir, ec)) return dir;
  if (!opts.replace_existing) {
    const RunOnDisk there = inspect_run_dir(dir, nlohmann::json::object());  // only its status
    throw std::runtime_error(
        "run directory " + dir.string() + " already holds " +
        (there.exists() ? "a run (status " + there.status + ")" : std::string("files")) +
        "; choose another --run-id, or pass --force to replace it");
  }
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

BatchRunOutcome run_batch_to_directory(const engine::EngineConfig& cfg, const BatchRunOptions& opts) {
  cfg.validate();
  opts.counters.validate();
  const bool cuzk_format = opts.log_format == LogFormat::kCuzk;
  if (cuzk_format && !cfg.record)
    throw engine::ConfigError("--log-format cuzk writes the TIMELINE in the reference format, so it needs "
                              "record = on (got off)");
  const std::string run_id = opts.run_id.empty() ? default_run_id(cfg) : opts.run_id;
  const auto run_path = fresh_run_dir(opts, run_id);
  // Before anything is written: a backend this build or machine lacks leaves no run directory.
  std::unique_ptr<engine::Backend> backend_owner = make_backend(cfg);
  parallel::ThreadPool setup_pool(0);
  const auto circuit = circuits::make_circuit(cfg.circuit, cfg.constraints, cfg.seed);
  CuzkBenchOutput cuzk_bench;
  if (opts.print_jobs && cuzk_format) cuzk_bench.print_header(cfg);
  if (opts.print_jobs && !cuzk_format)
    std::printf("batch: %s; %u proofs x %u partitions, concurrency %u, lock=%s dealloc=%s "
                "pw=%u gw=%u finalize=%s early_free=%s throttle=%s\n",
                circuit->describe().c_str(), cfg.count, cfg.partitions, cfg.concurrency,
                engine::to_string(cfg.lock_policy), engine::to_string(cfg.dealloc_policy),
                cfg.partition_workers, cfg.gpu_workers_per_device, engine::to_string(cfg.finalize),
                cfg.early_free ? "on" : "off", cfg.throttle ? "on" : "off");
  const auto cs = circuits::synthesize_shape(*circuit, {.keep_annotations = false});
  engine::check_config_for_circuit(cfg, cs);  // e.g. a host budget below one partition: no run directory
  const auto dir = opts.param_dir.empty() ? default_param_dir() : opts.param_dir;
  const auto params =
      load_or_generate_params(dir, cfg.circuit, cfg.constraints, cs, setup_pool, true, std::nullopt, cfg.h_basis);
  // The backend may hold on to the key (resident copies, page-locked host vectors): it goes
  // before the parameters do, on every path out of here.
  struct ReleaseBackendFirst {
    std::unique_ptr<engine::Backend>& backend;
    ~ReleaseBackendFirst() { backend.reset(); }
  } release_backend_first{backend_owner};

  nlohmann::json meta = provenance();
  meta["run_id"] = run_id;
  meta["config"] = cfg.to_json();
  meta["gpu"] = gpu_metadata(cfg);
  meta["counters"] = nlohmann::json::object();
  meta["counter_sampling"] = opts.counters.to_json();
  trace::RunDirectory run_dir(run_path, meta);
  std::optional<trace::CuzkLogWriter> cuzk_log;  // before `timeline`: alive for its last flush
  trace::TimelineRecorder timeline(cfg.record ? run_dir.timeline_path() : std::filesystem::path());
  if (cuzk_format) {
    cuzk_log.emplace(STDERR_FILENO, run_id,
                     trace::CuzkLogLayout{cfg.devices, cfg.gpu_workers_per_device, cfg.partitions,
                                          cfg.lock_policy == engine::LockPolicy::kTwoLock},
                     timeline.epoch_ns());
    timeline.set_record_sink(&*cuzk_log);
  }
  // CUPTI activity into cupti.csv and NVTX ranges around the stages, on the TIMELINE's epoch.
  GpuObservation gpu_observation(cfg, run_dir.path(), timeline);
  // On the TIMELINE's epoch, so counters.csv and timeline.csv share one time axis.
  // The engine's charged host bytes, which it keeps current and the host_memory source samples.
  std::atomic<std::uint64_t> host_charged{0};
  counters::CounterOptions counter_options = opts.counters;
  counter_options.host_charged = &host_charged;
  counters::CounterSampler sampler(run_dir.path() / "counters.csv", timeline.epoch_ns(), counter_options);
  auto counter_status = [&] {
    nlohmann::json j = sampler.status_json();
    j["cupti"] = gpu_observation.cupti_status();
    return j;
  };
  run_dir.set_metadata("counters", counter_status());
  nlohmann::json sampling = opts.counters.to_json();
  sampling["start_us"] = sampler.start_us();
  run_dir.set_metadata("counter_sampling", sampling);
  engine::Backend& backend = *backend_owner;

  const bool tty = opts.print_jobs && !cuzk_format && isatty(STDERR_FILENO);  // stderr is the log in cuzk format
  engine::EngineInputs in{cfg, backend, params.pk, cs, timeline, &run_dir,
                          [&](const engine::JobReport& r, std::size_t done, std::size_t total) {
                            if (!opts.print_jobs) return;
                            if (tty) std::fprintf(stderr, "\r\033[K");
                            if (cuzk_format) {
                              timeline.flush();  // the job's records reach the writer, its GPU time is whole
                              cuzk_bench.print_completion(r, total, cuzk_log->gpu_compute_ms(r.job));
                            } else if (r.ok)
                              std::printf("[%zu/%zu] COMPLETED — %.1fs (prove=%.0f ms, queue=%.0f ms)\n",
                                          done, total, r.wall_s, r.prove_s * 1e3, r.queue_s * 1e3);
                            else
                              std::printf("[%zu/%zu] FAILED — %.1fs: %s\n", done, total, r.wall_s,
                                          r.reason.c_str());
                            std::fflush(stdout);
                            if (tty) {
                              const int width = 40, filled = static_cast<int>(width * done / total);
                              std::fprintf(stderr, "[%s%s] %zu/%zu", std::string(filled, '#').c_str(),
                                           std::string(width - filled, '.').c_str(), done, total);
                            }
                          },
                          opts.stop, &host_charged};
  // The energy window: the engine's run, as this thread sees it (it contains the window of
  // summary.total_s, and the engine's set-up of its thread pools).
  const std::int64_t run_start_us = timeline.now_us();
  auto result = engine::run_batch(in);
  const std::int64_t run_end_us = timeline.now_us();
  gpu_observation.stop();  // every CUPTI buffer delivered: cupti.csv is complete
  gpu_observation.add_kernel_busy(result.summary);
  sampler.stop();
  // From here on a file that cannot be written (a full disk) fails the run with the reason
  // instead of ending it with an exception that leaves run.json "running".
  std::vector<std::string> write_errors;
  auto keep_metadata = [&](const std::string& key, const nlohmann::json& value) {
    try {
      run_dir.set_metadata(key, value);
    } catch (const io::FileWriteError& e) {
      write_errors.push_back(e.what());
    }
  };
  keep_metadata("counters", counter_status());  // a source may have stopped mid-run
  sampling.update(sampler.activity_json());  // rounds, rows and the sampler's own CPU time
  keep_metadata("counter_sampling", sampling);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (opts.print_jobs && !gpu_observation.summary().empty())
    std::printf("%s\n", gpu_observation.summary().c_str());
  timeline.close();
  try {
    std::vector<std::string> warnings;  // run.json still says "running": a cut-off line is dropped
    const auto csv = run_dir.path() / "counters.csv";
    const auto samples = std::filesystem::exists(csv)
                             ? trace_export::read_counters_csv(csv, false, warnings)
                             : std::vector<trace_export::CounterSample>{};
    result.summary["energy"] = counters::energy_summary(
        samples, {sampler.start_us(), run_start_us, run_end_us,
                  result.summary["completed"].get<std::uint64_t>()});
  } catch (const std::exception& e) {  // the proofs are done: say why, keep the summary
    result.summary["energy"] = {{"error", e.what()}};
  }
  for (const std::string& e : {timeline.write_error(), run_dir.stages_error()})
    if (!e.empty()) write_errors.push_back("cannot write " + e);
  BatchRunOutcome out;
  out.run_dir = run_dir.path();
  out.summary = result.summary;
  const int failed = result.summary["failed"].get<int>();
  out.status = result.interrupted ? "interrupted" : (failed > 0 ? "failed" : "complete");
  out.status = run_dir.finish(out.status, result.summary, &write_errors);
  for (const auto& e : write_errors) out.error += (out.error.empty() ? "" : "; ") + e;
  if (failed > 0)
    out.error = std::to_string(failed) + " proofs failed" + (out.error.empty() ? "" : "; " + out.error);
  if (opts.print_summary && cuzk_format) {
    cuzk_bench.print_summary(result.summary);
    std::printf("run directory: %s\n", run_dir.path().c_str());
  } else if (opts.print_summary) {
    print_summary(result.summary, run_dir.path());
  }
  return out;
}

}  // namespace prooflab::harness
