// Every knob of the proving engine, explicit and validated (DESIGN.md §2 "Engine model").
// Keys are set by name from experiment files and `--set key=value`; an unknown key or a bad
// value is an error naming the key, the value and what is accepted. Each knob is declared
// once, in the table of core/engine/knobs.hpp; set, to_json and keys come from it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/groth16/h_basis.hpp"

namespace prooflab::engine {

// The engine's enum knobs. Each enum's value names (what `set` accepts and to_json writes)
// are declared once, beside it, in enumerator order.
enum class LockPolicy { kSingle, kTwoLock, kNone };
enum class DeallocPolicy { kAsync, kSerialized, kInline };
enum class FinalizeMode { kInline, kSplit };
// Where a stage that can run on either side runs: the host (the reference's choice) or the
// device, inside the GPU phase (backend cuda only). Knobs b_g2_msm (the G2 query's batch
// addition and tail MSM), sparse_products (A·w, B·w, C·w of synthesis) and prep_msm (the
// split of the queries' scalars into zeros, ones and tails).
enum class Placement { kCpu, kGpu };
// The tables the batch additions of L, A and B_G1 run over (backend cuda): none, pairs of bases
// or groups of 4 (gpu/msm/group_table.hpp). Knob batch_add_tables.
enum class BatchAddTables { kOff, kPairs, kQuads };

template <class Enum>
struct EnumNames;
template <>
struct EnumNames<LockPolicy> {
  static constexpr std::array<std::string_view, 3> names = {"single", "two_lock", "none"};
};
template <>
struct EnumNames<DeallocPolicy> {
  static constexpr std::array<std::string_view, 3> names = {"async", "serialized", "inline"};
};
template <>
struct EnumNames<FinalizeMode> {
  static constexpr std::array<std::string_view, 2> names = {"inline", "split"};
};
template <>
struct EnumNames<Placement> {
  static constexpr std::array<std::string_view, 2> names = {"cpu", "gpu"};
};
template <>
struct EnumNames<BatchAddTables> {
  static constexpr std::array<std::string_view, 3> names = {"off", "pairs", "quads"};
};

template <>
struct EnumNames<groth16::HBasis> {
  static constexpr std::array<std::string_view, 3> names = {
      groth16::h_basis_name(groth16::HBasis::kMonomial), groth16::h_basis_name(groth16::HBasis::kCosetLagrange),
      groth16::h_basis_name(groth16::HBasis::kCosetFoldedC)};
};

// The bases per group of a batch addition's table: 1 (none), 2 or 4.
constexpr unsigned batch_add_group(BatchAddTables t) {
  return t == BatchAddTables::kQuads ? 4 : t == BatchAddTables::kPairs ? 2 : 1;
}

// The value's name; a C string, for printf (the names are literals).
template <class Enum>
  requires requires { EnumNames<Enum>::names; }
const char* to_string(Enum e) {
  return EnumNames<Enum>::names.at(static_cast<std::size_t>(e)).data();
}

// The most threads any pool may have (config keys and --threads options alike): far above a
// real host, far below what exhausts a machine's task limit.
inline constexpr std::uint32_t kMaxThreads = 4096;

class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct EngineConfig {
  // The workload.
  std::string circuit = "porep-like";
  std::uint64_t constraints = 1 << 12;
  std::uint32_t partitions = 10;
  std::uint32_t count = 1;        // proofs in the batch (c)
  std::uint32_t concurrency = 1;  // proofs in flight at once (j)
  std::uint64_t seed = 0;         // witness seed: partition p of job j uses seed + 1000·j + p
  bool verify = true;             // verify every proof
  // The system under study.
  std::string backend = "cpu";    // cpu | cuda
  LockPolicy lock_policy = LockPolicy::kSingle;
  DeallocPolicy dealloc_policy = DeallocPolicy::kAsync;
  std::uint32_t gpu_threads = 0;             // groth16 pool (b_g2_msm); 0 = all cores
  std::uint32_t synth_threads = 0;           // synthesis pool; 0 = all cores
  std::uint32_t device_threads = 0;          // CPU backend: threads of the emulated GPU; 0 = all
  bool throttle = false;                     // synthesis yields while b_g2_msm runs
  std::uint32_t gpu_workers_per_device = 2;  // gw
  std::uint32_t devices = 1;
  std::uint64_t vram_limit = 0;       // bytes of usable device memory; 0 = the device's own
  std::uint64_t host_mem_budget = 0;  // bytes of partition buffers in memory; 0 = auto
  // Phase 12 of the reference (docs/engine.md, "Synthesis and memory"):
  std::uint32_t partition_workers = 2;    // pw: partitions synthesized at once
  std::uint32_t synthesis_lookahead = 0;  // synthesized partitions allowed to wait; 0 = pw
  std::uint32_t max_gpu_queue_depth = 0;  // dispatch pacer target; 0 = unlimited
  bool early_free = false;                // free a, b, c when the GPU phase has consumed them
  FinalizeMode finalize = FinalizeMode::kInline;  // split: b_g2_msm + epilogue on a finalizer
  Placement b_g2_msm = Placement::kCpu;         // where the G2 tail MSM of B runs
  Placement sparse_products = Placement::kCpu;  // where A·w, B·w, C·w are computed
  Placement prep_msm = Placement::kCpu;         // where the MSM plan is made
  bool pin_uploads = false;  // page-lock stage()'s host inputs before the GPU lock (CUDA)
  bool fixed_base_h = false;  // the MSM of H over a fixed-base table of the H query (CUDA)
  bool overlap_batch_add = false;  // the batch additions beside the tail MSMs (CUDA)
  bool tails_beside_h = false;     // the batch additions and tail MSMs beside H (CUDA)
  BatchAddTables batch_add_tables = BatchAddTables::kOff;  // the batch additions' tables (CUDA)
  groth16::HBasis h_basis = groth16::HBasis::kMonomial;  // the key's H query basis (setup)
  bool record = true;                 // write the TIMELINE (off: measure its cost)
  bool cupti = true;                  // CUDA backend: CUPTI activity + NVTX ranges into cupti.csv

  // Sets one knob from text; throws ConfigError naming the key and accepted values.
  void set(const std::string& key, const std::string& value);
  // Cross-field checks (e.g. concurrency <= count); throws ConfigError.
  void validate() const;
  nlohmann::json to_json() const;
  static std::vector<std::string> keys();  // in the table's order
};

// The error for `devices` above the devices a backend can see, named by key with both counts
// (the CUDA backend's constructor, and the harness's check of every run of an experiment
// before the first one starts).
ConfigError devices_not_visible(std::uint32_t requested, int visible);

}  // namespace prooflab::engine
