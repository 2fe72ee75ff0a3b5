#include "core/engine/config.hpp"

#include "core/engine/knobs.hpp"

namespace prooflab::engine {

ConfigError devices_not_visible(std::uint32_t requested, int visible) {
  return ConfigError("config key 'devices': " + std::to_string(requested) + " requested, but " +
                     std::to_string(visible) + " CUDA device(s) are visible (accepted: 1.." +
                     std::to_string(visible) + ")");
}

std::vector<std::string> EngineConfig::keys() {
  std::vector<std::string> out;
  for (const auto& k : knobs()) out.emplace_back(k.name);
  return out;
}

void EngineConfig::set(const std::string& key, const std::string& value) { knob(key).set(*this, value); }

void EngineConfig::validate() const {
  // set() refuses 0; a field assigned directly must not reach the engine as 0 either (a
  // concurrency of 0 would never submit a job).
  if (count == 0 || concurrency == 0)
    throw ConfigError("config: count (" + std::to_string(count) + ") and concurrency (" +
                      std::to_string(concurrency) + ") must be at least 1");
  if (devices == 0 || gpu_workers_per_device == 0)
    throw ConfigError("config: devices (" + std::to_string(devices) + ") and gpu_workers_per_device (" +
                      std::to_string(gpu_workers_per_device) + ") must be at least 1");
  if (concurrency > count)
    throw ConfigError("config: concurrency (" + std::to_string(concurrency) +
                      ") must not exceed count (" + std::to_string(count) + ")");
  if (b_g2_msm == Placement::kGpu && backend != "cuda")
    throw ConfigError("config: b_g2_msm = gpu needs backend = cuda (got backend = " + backend + ")");
  if (sparse_products == Placement::kGpu && backend != "cuda")
    throw ConfigError("config: sparse_products = gpu needs backend = cuda (got backend = " + backend +
                      ")");
  if (prep_msm == Placement::kGpu && backend != "cuda")
    throw ConfigError("config: prep_msm = gpu needs backend = cuda (got backend = " + backend + ")");
  if (pin_uploads && backend != "cuda")
    throw ConfigError("config: pin_uploads = on needs backend = cuda (got backend = " + backend + ")");
  if (fixed_base_h && backend != "cuda")
    throw ConfigError("config: fixed_base_h = on needs backend = cuda (got backend = " + backend + ")");
  if (overlap_batch_add && backend != "cuda")
    throw ConfigError("config: overlap_batch_add = on needs backend = cuda (got backend = " + backend + ")");
  if (tails_beside_h && backend != "cuda")
    throw ConfigError("config: tails_beside_h = on needs backend = cuda (got backend = " + backend + ")");
  if (batch_add_tables != BatchAddTables::kOff && backend != "cuda")
    throw ConfigError(std::string("config: batch_add_tables = ") + to_string(batch_add_tables) +
                      " needs backend = cuda (got backend = " + backend + ")");
  // The device classifies the witness that sparse_products = gpu uploads (docs/engine.md,
  // "prep_msm on the device").
  if (prep_msm == Placement::kGpu && sparse_products != Placement::kGpu)
    throw ConfigError("config: prep_msm = gpu needs sparse_products = gpu (the witness it classifies "
                      "is on the device only then; got sparse_products = cpu)");
}

nlohmann::json EngineConfig::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& k : knobs()) out[std::string(k.name)] = k.json(*this);
  return out;
}

}  // namespace prooflab::engine
