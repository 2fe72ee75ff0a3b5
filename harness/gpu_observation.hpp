// What a batch run observes of the GPU beyond counters.csv (docs/gpu.md "Observability"):
// the CUPTI activity collector (cupti.csv) and NVTX ranges around the engine's stages. Built
// into whatever compiles harness/batch_runner.cpp: with the CUDA backend (PROOFLAB_HAVE_CUDA,
// from prooflab_gpu) it collects; without, it only says why not. Header-only so that both
// kinds of target (the prooflab binary, the CPU-only Python module) get their own.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/engine/config.hpp"
#include "core/trace/device_busy.hpp"
#include "core/trace/timeline.hpp"

#ifdef PROOFLAB_HAVE_CUDA
#include "gpu/observe/cupti_collector.hpp"
#include "gpu/observe/nvtx_ranges.hpp"
#endif

namespace prooflab::harness {

class GpuObservation {
 public:
  // Starts CUPTI (backend cuda and config key cupti on) before the engine runs, then the
  // NVTX listener when a tool receives NVTX (the collector, or nsys). Never throws for a
  // missing GPU or library: cupti_status() says why.
  GpuObservation(const engine::EngineConfig& cfg, const std::filesystem::path& run_dir,
                 trace::TimelineRecorder& timeline)
      : timeline_(timeline) {
#ifdef PROOFLAB_HAVE_CUDA
    if (cfg.backend != "cuda") {
      status_ = unavailable("the " + cfg.backend + " backend ran: no CUDA activity to collect");
    } else if (!cfg.cupti) {
      status_ = unavailable("switched off (config key cupti = off)");
    } else {
      cupti_ = std::make_unique<gpu::observe::CuptiCollector>(run_dir / "cupti.csv",
                                                              timeline.epoch_ns());
      status_ = cupti_->status_json();
    }
    if (gpu::observe::nvtx_tool_attached()) {
      nvtx_ = std::make_unique<gpu::observe::NvtxStageListener>();
      timeline_.set_stage_listener(nvtx_.get());
    }
#else
    (void)cfg;
    (void)run_dir;
    status_ =
        unavailable("this build has no CUDA backend (nvcc not found, or -DPROOFLAB_CUDA=OFF)");
#endif
  }
  ~GpuObservation() { stop(); }
  GpuObservation(const GpuObservation&) = delete;
  GpuObservation& operator=(const GpuObservation&) = delete;

  // After the engine has run (or failed): no more ranges, every CUPTI buffer delivered and
  // cupti.csv complete. Idempotent.
  void stop() {
    timeline_.set_stage_listener(nullptr);
#ifdef PROOFLAB_HAVE_CUDA
    if (cupti_) {
      cupti_->stop();
      status_ = cupti_->status_json();
    }
#endif
  }

  nlohmann::json cupti_status() const { return status_; }

  // After stop(): summary.json's kernel busy per device from the CUPTI kernels when they were
  // collected, else kernel_busy_source says why there is none (core/trace/device_busy.hpp).
  void add_kernel_busy(nlohmann::json& summary) const {
#ifdef PROOFLAB_HAVE_CUDA
    if (cupti_ && status_.value("status", "") == "used") {
      trace::add_kernel_busy(summary, cupti_->kernel_spans_ns());
      if (const std::uint64_t dropped = cupti_->dropped(); dropped > 0)
        summary["kernel_busy_source"] = "cupti; " + std::to_string(dropped) +
                                        " records dropped, so kernel busy is a lower bound";
      return;
    }
#endif
    summary["kernel_busy_source"] = "no CUPTI kernels: " + status_.value("reason", std::string("CUPTI did not run"));
  }
  // One line for stdout when CUPTI was tried (a cuda run with cupti on), else "".
  std::string summary() const {
#ifdef PROOFLAB_HAVE_CUDA
    if (cupti_) return cupti_->summary();
#endif
    return "";
  }

 private:
  static nlohmann::json unavailable(const std::string& why) {
    return {{"status", "unavailable"}, {"reason", why}};
  }

  trace::TimelineRecorder& timeline_;
  nlohmann::json status_;
#ifdef PROOFLAB_HAVE_CUDA
  std::unique_ptr<gpu::observe::CuptiCollector> cupti_;
  std::unique_ptr<gpu::observe::NvtxStageListener> nvtx_;
#endif
};

}  // namespace prooflab::harness
