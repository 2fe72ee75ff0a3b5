// Which engine::Backend a run uses, from the config's `backend` key: "cpu" (every build) or
// "cuda" (a build with the CUDA backend, on a machine with a visible device). The one place
// the harness decides it, so `batch`, `run`, `matrix`, `sweep` and `prove` agree.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "core/engine/backend.hpp"
#include "core/engine/config.hpp"

namespace prooflab::harness {

// True when this build has the CUDA backend compiled in (PROOFLAB_HAVE_CUDA).
bool build_has_cuda();

// The backend for cfg.backend, over cfg.devices devices with cfg.vram_limit (and, for the CPU
// backend, cfg.device_threads). Throws engine::ConfigError naming the key for a backend this
// build lacks ('cuda' without CUDA) or more devices than are visible, and std::runtime_error
// with the CUDA runtime's reason when CUDA is built but no device is usable.
std::unique_ptr<engine::Backend> make_backend(const engine::EngineConfig& cfg);

// Before any run of an experiment starts: throws engine::ConfigError (devices_not_visible) when
// cfg is a CUDA config asking for more devices than are visible. Checks nothing where no device
// is visible or the build has no CUDA (make_backend then gives the reason, at that run).
void check_devices_visible(const engine::EngineConfig& cfg);

// run.json's "gpu" (docs/run-directory.md): null for the CPU backend; for CUDA the first device
// used — name, sms, mem_bytes, driver, runtime, compute_capability, clock_mhz — and "devices",
// the same for each of the cfg.devices devices used. Never throws for a missing device: then
// {"error": <the runtime's reason>}.
nlohmann::json gpu_metadata(const engine::EngineConfig& cfg);

}  // namespace prooflab::harness
