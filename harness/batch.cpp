// `prooflab batch`: run the engine over `count` proofs with `concurrency` in flight, print
// one line per proof in the reference's style and the Batch Summary, write the run
// directory. Exit status non-zero when a proof failed or the run was interrupted.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>

#include "core/circuits/circuit.hpp"
#include "core/engine/cpu_backend.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/setup.hpp"
#include "harness/commands.hpp"
#include "harness/config_file.hpp"
#include "harness/param_cache.hpp"
#include "harness/provenance.hpp"

namespace prooflab::harness {
namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

std::string make_run_id(const engine::EngineConfig& cfg) {
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

void print_summary(const nlohmann::json& s, const std::filesystem::path& dir) {
  auto num = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0.0; };
  std::printf("\n=== Batch Summary ===\n");
  std::printf("total time: %.1f s\n", num(s["total_s"]));
  std::printf("completed: %d, failed: %d (of %d)%s\n", s["completed"].get<int>(),
              s["failed"].get<int>(), s["count"].get<int>(),
              s["interrupted"].get<bool>() ? ", INTERRUPTED" : "");
  for (const char* k : {"wall_s", "prove_s"})
    std::printf("%-6s avg %.1f s, min %.1f s, max %.1f s\n", k[0] == 'w' ? "wall:" : "prove:",
                num(s[k]["avg"]), num(s[k]["min"]), num(s[k]["max"]));
  std::printf("throughput: %.2f proofs/min (%.1f s/proof)\n", num(s["throughput_proofs_per_min"]),
              num(s["s_per_proof"]));
  std::printf("run directory: %s\n", dir.c_str());
}

}  // namespace

void add_batch_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("batch", "Prove a batch of proofs through the engine");
  struct Options {
    std::uint32_t count = 1, concurrency = 1;
    std::string config_file, out = "results/runs", run_id, param_dir;
    std::vector<std::string> sets;
    bool no_verify = false;
  };
  auto o = std::make_shared<Options>();
  auto* count_opt = cmd->add_option("--count", o->count, "proofs in the batch (c); default 1 or the config's");
  auto* conc_opt = cmd->add_option("--concurrency", o->concurrency, "proofs in flight (j); default 1 or the config's");
  cmd->add_option("--config", o->config_file, "engine config (TOML)");
  cmd->add_option("--set", o->sets, "override a config key: --set lock_policy=two_lock");
  cmd->add_flag("--no-verify", o->no_verify, "do not verify the proofs");
  cmd->add_option("--out", o->out, "parent directory of the run directory")->capture_default_str();
  cmd->add_option("--run-id", o->run_id, "run id (default: time, circuit, c, j)");
  cmd->add_option("--param-dir", o->param_dir, "parameter cache directory");
  cmd->callback([o, &app, count_opt, conc_opt] {
    engine::EngineConfig cfg;
    if (!o->config_file.empty()) apply_config_file(cfg, o->config_file);
    if (count_opt->count()) cfg.count = o->count;
    if (conc_opt->count()) cfg.concurrency = o->concurrency;
    apply_overrides(cfg, o->sets);
    if (o->no_verify) cfg.verify = false;
    cfg.validate();
    if (cfg.backend != "cpu")
      throw engine::ConfigError("config key 'backend': '" + cfg.backend +
                                "' is not available in this build yet (accepted: cpu)");

    parallel::ThreadPool setup_pool(0);
    const auto circuit = circuits::make_circuit(cfg.circuit, cfg.constraints, cfg.seed);
    std::printf("batch: %s; %u proofs x %u partitions, concurrency %u, lock=%s dealloc=%s "
                "gw=%u throttle=%s\n",
                circuit->describe().c_str(), cfg.count, cfg.partitions, cfg.concurrency,
                engine::to_string(cfg.lock_policy), engine::to_string(cfg.dealloc_policy),
                cfg.gpu_workers_per_device, cfg.throttle ? "on" : "off");
    const auto cs = circuits::synthesize_shape(*circuit, {.keep_annotations = false});
    const auto dir = o->param_dir.empty() ? default_param_dir() : std::filesystem::path(o->param_dir);
    const auto params = load_or_generate_params(dir, cfg.circuit, cfg.constraints, cs, setup_pool, true, std::nullopt);

    const std::string run_id = o->run_id.empty() ? make_run_id(cfg) : o->run_id;
    nlohmann::json meta = provenance(app);
    meta["run_id"] = run_id;
    meta["config"] = cfg.to_json();
    meta["gpu"] = nullptr;
    meta["counters"] = nlohmann::json::object();
    trace::RunDirectory run_dir(std::filesystem::path(o->out) / run_id, meta);
    trace::TimelineRecorder timeline(cfg.record ? run_dir.timeline_path() : std::filesystem::path());
    engine::CpuBackend backend(static_cast<int>(cfg.devices), cfg.vram_limit, cfg.device_threads);

    g_stop = false;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    const bool tty = isatty(STDERR_FILENO);
    engine::EngineInputs in{cfg, backend, params.pk, cs, timeline, &run_dir,
                            [&](const engine::JobReport& r, std::size_t done, std::size_t total) {
                              if (tty) std::fprintf(stderr, "\r\033[K");
                              if (r.ok)
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
                            &g_stop};
    const auto result = engine::run_batch(in);
    if (tty) std::fprintf(stderr, "\r\033[K");
    timeline.close();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    const bool failed = result.summary["failed"].get<int>() > 0;
    run_dir.finish(result.interrupted ? "interrupted" : (failed ? "failed" : "complete"), result.summary);
    print_summary(result.summary, run_dir.path());
    if (result.interrupted) throw std::runtime_error("interrupted: the run directory is marked interrupted");
    if (failed) throw std::runtime_error(std::to_string(result.summary["failed"].get<int>()) + " proofs failed");
  });
}

}  // namespace prooflab::harness
