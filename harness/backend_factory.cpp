#include "harness/backend_factory.hpp"

#include <string>

#include "core/engine/cpu_backend.hpp"
#ifdef PROOFLAB_HAVE_CUDA
#include "gpu/device_info.hpp"
#include "gpu/backend/cuda_backend.hpp"
#endif

namespace prooflab::harness {
namespace {

[[maybe_unused]] std::string cuda_version(int v) {
  // The runtime's encoding: 1000·major + 10·minor (12080 = 12.8).
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

bool build_has_cuda() {
#ifdef PROOFLAB_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

std::unique_ptr<engine::Backend> make_backend(const engine::EngineConfig& cfg) {
  if (cfg.backend == "cpu")
    return std::make_unique<engine::CpuBackend>(static_cast<int>(cfg.devices), cfg.vram_limit,
                                                cfg.device_threads);
  if (cfg.backend == "cuda") {
#ifdef PROOFLAB_HAVE_CUDA
    return std::make_unique<gpu::engine::CudaBackend>(
        static_cast<int>(cfg.devices), cfg.vram_limit,
        gpu::engine::CudaBackend::Options{.fixed_base_h = cfg.fixed_base_h,
                                          .overlap_batch_add = cfg.overlap_batch_add,
                                          .b_g2_on_device = cfg.b_g2_msm == engine::Placement::kGpu,
                                          .tails_beside_h = cfg.tails_beside_h,
                                          .batch_add_group = engine::batch_add_group(cfg.batch_add_tables)});
#else
    throw engine::ConfigError(
        "config key 'backend': 'cuda' needs a build with CUDA (nvcc was not found or "
        "PROOFLAB_CUDA=OFF)");
#endif
  }
  throw engine::ConfigError("config key 'backend': '" + cfg.backend +
                            "' is not a backend (accepted: cpu | cuda)");
}

void check_devices_visible(const engine::EngineConfig& cfg) {
#ifdef PROOFLAB_HAVE_CUDA
  if (cfg.backend != "cuda") return;
  const auto devices = gpu::list_devices();
  if (!devices.empty() && cfg.devices > devices.size())
    throw engine::devices_not_visible(cfg.devices, static_cast<int>(devices.size()));
#else
  (void)cfg;
#endif
}

nlohmann::json gpu_metadata(const engine::EngineConfig& cfg) {
  if (cfg.backend != "cuda") return nullptr;
#ifdef PROOFLAB_HAVE_CUDA
  std::string why;
  const auto devices = gpu::list_devices(&why);
  if (devices.empty()) return {{"error", why}};
  nlohmann::json out, used = nlohmann::json::array();
  for (const auto& d : devices) {
    if (d.index >= static_cast<int>(cfg.devices)) break;
    used.push_back({{"index", d.index},
                    {"name", d.name},
                    {"sms", d.sm_count},
                    {"mem_bytes", d.memory_bytes},
                    {"compute_capability", std::to_string(d.compute_major) + "." +
                                               std::to_string(d.compute_minor)},
                    {"clock_mhz", d.clock_khz / 1000},
                    {"driver", cuda_version(d.driver_version)},
                    {"runtime", cuda_version(d.runtime_version)},
                    {"uuid", d.uuid}});
  }
  if (used.empty()) return {{"error", "no CUDA device among the first " + std::to_string(cfg.devices)}};
  out = used.front();
  out.erase("index");
  out["devices"] = used;
  return out;
#else
  return {{"error", "this build has no CUDA backend"}};
#endif
}

}  // namespace prooflab::harness
