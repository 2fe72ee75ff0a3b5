#include "core/engine/config.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

namespace prooflab::engine {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& accepted) {
  throw ConfigError("config key '" + key + "': bad value '" + excerpt(value) + "' (accepted: " +
                    accepted + ")");
}

std::uint64_t parse_uint(const std::string& key, const std::string& v, std::uint64_t lo,
                         std::uint64_t hi) {
  const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (v.empty() || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
    bad(key, v, range);
  std::uint64_t x = 0;
  try {
    x = std::stoull(v);
  } catch (const std::exception&) {
    bad(key, v, range);
  }
  if (x < lo || x > hi) bad(key, v, range);
  return x;
}

bool parse_bool(const std::string& key, const std::string& v) {
  if (v == "on" || v == "true" || v == "1" || v == "yes") return true;
  if (v == "off" || v == "false" || v == "0" || v == "no") return false;
  bad(key, v, "on | off (or true | false)");
}

}  // namespace

ConfigError devices_not_visible(std::uint32_t requested, int visible) {
  return ConfigError("config key 'devices': " + std::to_string(requested) + " requested, but " +
                     std::to_string(visible) + " CUDA device(s) are visible (accepted: 1.." +
                     std::to_string(visible) + ")");
}

const char* to_string(LockPolicy p) {
  switch (p) {
    case LockPolicy::kSingle: return "single";
    case LockPolicy::kTwoLock: return "two_lock";
    case LockPolicy::kNone: return "none";
  }
  return "?";
}

const char* to_string(DeallocPolicy p) {
  switch (p) {
    case DeallocPolicy::kAsync: return "async";
    case DeallocPolicy::kSerialized: return "serialized";
    case DeallocPolicy::kInline: return "inline";
  }
  return "?";
}

const char* to_string(FinalizeMode m) {
  switch (m) {
    case FinalizeMode::kInline: return "inline";
    case FinalizeMode::kSplit: return "split";
  }
  return "?";
}

const char* to_string(G2MsmPlacement p) {
  switch (p) {
    case G2MsmPlacement::kCpu: return "cpu";
    case G2MsmPlacement::kGpu: return "gpu";
  }
  return "?";
}

std::uint64_t parse_bytes(const std::string& key, const std::string& value) {
  try {
    return text::parse_bytes(value);
  } catch (const text::ParseError& e) {
    throw ConfigError("config key '" + key + "': " + e.what());
  }
}

std::vector<std::string> EngineConfig::keys() {
  return {"circuit",     "constraints", "partitions",      "count",         "concurrency",
          "seed",        "verify",      "backend",         "lock_policy",   "dealloc_policy",
          "gpu_threads", "synth_threads", "device_threads", "throttle",
          "gpu_workers_per_device",     "devices",         "vram_limit",    "host_mem_budget",
          "partition_workers",          "synthesis_lookahead",              "max_gpu_queue_depth",
          "early_free",  "finalize",    "b_g2_msm",        "record",        "cupti"};
}

void EngineConfig::set(const std::string& key, const std::string& v) {
  if (key == "circuit") {
    static const std::vector<std::string> ok = {"porep-like", "tiny", "sha256", "poseidon-merkle"};
    if (std::find(ok.begin(), ok.end(), v) == ok.end()) bad(key, v, "porep-like | tiny | sha256 | poseidon-merkle");
    circuit = v;
  } else if (key == "constraints") {
    constraints = parse_uint(key, v, 1, 1ull << 28);
  } else if (key == "partitions") {
    partitions = static_cast<std::uint32_t>(parse_uint(key, v, 1, 1000));
  } else if (key == "count") {
    count = static_cast<std::uint32_t>(parse_uint(key, v, 1, 1000000));
  } else if (key == "concurrency") {
    concurrency = static_cast<std::uint32_t>(parse_uint(key, v, 1, 10000));
  } else if (key == "seed") {
    seed = parse_uint(key, v, 0, ~0ull);
  } else if (key == "verify") {
    verify = parse_bool(key, v);
  } else if (key == "backend") {
    if (v != "cpu" && v != "cuda") bad(key, v, "cpu | cuda");
    backend = v;
  } else if (key == "lock_policy") {
    if (v == "single") lock_policy = LockPolicy::kSingle;
    else if (v == "two_lock") lock_policy = LockPolicy::kTwoLock;
    else if (v == "none") lock_policy = LockPolicy::kNone;
    else bad(key, v, "single | two_lock | none");
  } else if (key == "dealloc_policy") {
    if (v == "async") dealloc_policy = DeallocPolicy::kAsync;
    else if (v == "serialized") dealloc_policy = DeallocPolicy::kSerialized;
    else if (v == "inline") dealloc_policy = DeallocPolicy::kInline;
    else bad(key, v, "async | serialized | inline");
  } else if (key == "gpu_threads") {
    gpu_threads = static_cast<std::uint32_t>(parse_uint(key, v, 0, kMaxThreads));
  } else if (key == "synth_threads") {
    synth_threads = static_cast<std::uint32_t>(parse_uint(key, v, 0, kMaxThreads));
  } else if (key == "device_threads") {
    device_threads = static_cast<std::uint32_t>(parse_uint(key, v, 0, kMaxThreads));
  } else if (key == "throttle") {
    throttle = parse_bool(key, v);
  } else if (key == "gpu_workers_per_device") {
    gpu_workers_per_device = static_cast<std::uint32_t>(parse_uint(key, v, 1, 64));
  } else if (key == "devices") {
    devices = static_cast<std::uint32_t>(parse_uint(key, v, 1, 64));
  } else if (key == "vram_limit") {
    vram_limit = parse_bytes(key, v);
  } else if (key == "host_mem_budget") {
    host_mem_budget = parse_bytes(key, v);
  } else if (key == "partition_workers") {
    partition_workers = static_cast<std::uint32_t>(parse_uint(key, v, 1, 1024));
  } else if (key == "synthesis_lookahead") {
    synthesis_lookahead = static_cast<std::uint32_t>(parse_uint(key, v, 0, 4096));
  } else if (key == "max_gpu_queue_depth") {
    max_gpu_queue_depth = static_cast<std::uint32_t>(parse_uint(key, v, 0, 4096));
  } else if (key == "early_free") {
    early_free = parse_bool(key, v);
  } else if (key == "finalize") {
    if (v == "inline") finalize = FinalizeMode::kInline;
    else if (v == "split") finalize = FinalizeMode::kSplit;
    else bad(key, v, "inline | split");
  } else if (key == "b_g2_msm") {
    if (v == "cpu") b_g2_msm = G2MsmPlacement::kCpu;
    else if (v == "gpu") b_g2_msm = G2MsmPlacement::kGpu;
    else bad(key, v, "cpu | gpu");
  } else if (key == "record") {
    record = parse_bool(key, v);
  } else if (key == "cupti") {
    cupti = parse_bool(key, v);
  } else {
    std::string all;
    for (const auto& k : keys()) all += (all.empty() ? "" : ", ") + k;
    throw ConfigError("unknown config key '" + excerpt(key) + "' (known keys: " + all + ")");
  }
}

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
  if (b_g2_msm == G2MsmPlacement::kGpu && backend != "cuda")
    throw ConfigError("config: b_g2_msm = gpu needs backend = cuda (backend is '" + excerpt(backend) +
                      "'; accepted with it: b_g2_msm = cpu)");
}

nlohmann::json EngineConfig::to_json() const {
  return {{"circuit", circuit},
          {"constraints", constraints},
          {"partitions", partitions},
          {"count", count},
          {"concurrency", concurrency},
          {"seed", seed},
          {"verify", verify},
          {"backend", backend},
          {"lock_policy", to_string(lock_policy)},
          {"dealloc_policy", to_string(dealloc_policy)},
          {"gpu_threads", gpu_threads},
          {"synth_threads", synth_threads},
          {"device_threads", device_threads},
          {"throttle", throttle},
          {"gpu_workers_per_device", gpu_workers_per_device},
          {"devices", devices},
          {"vram_limit", vram_limit == 0 ? nlohmann::json(nullptr) : nlohmann::json(vram_limit)},
          {"host_mem_budget", host_mem_budget},
          {"partition_workers", partition_workers},
          {"synthesis_lookahead", synthesis_lookahead},
          {"max_gpu_queue_depth", max_gpu_queue_depth},
          {"early_free", early_free},
          {"finalize", to_string(finalize)},
          {"b_g2_msm", to_string(b_g2_msm)},
          {"record", record},
          {"cupti", cupti}};
}

}  // namespace prooflab::engine
