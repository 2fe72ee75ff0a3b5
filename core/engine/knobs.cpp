#include "core/engine/knobs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <type_traits>

#include "core/circuits/circuit.hpp"
#include "core/text/parse.hpp"

namespace prooflab::engine {
namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

[[noreturn]] void bad(const Knob& k, const std::string& value) {
  throw ConfigError("config key '" + std::string(k.name) + "': bad value '" + text::excerpt(value) +
                    "' (accepted: " + k.accepted() + ")");
}

std::uint64_t parse_uint(const Knob& k, const std::string& v) {
  if (v.empty() ||
      !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
    bad(k, v);
  std::uint64_t x = 0;
  try {
    x = std::stoull(v);
  } catch (const std::exception&) {
    bad(k, v);
  }
  if (x < k.lo || x > k.hi) bad(k, v);
  return x;
}

bool parse_bool(const Knob& k, const std::string& v) {
  if (v == "on" || v == "true" || v == "1" || v == "yes") return true;
  if (v == "off" || v == "false" || v == "0" || v == "no") return false;
  bad(k, v);
}

std::uint64_t parse_bytes(const Knob& k, const std::string& v) {
  try {
    return text::parse_bytes(v);
  } catch (const text::ParseError& e) {
    throw ConfigError("config key '" + std::string(k.name) + "': " + e.what());
  }
}

std::size_t value_index(const Knob& k, const std::string& v) {
  const auto it = std::find(k.values.begin(), k.values.end(), v);
  if (it == k.values.end()) bad(k, v);
  return static_cast<std::size_t>(it - k.values.begin());
}

// The table's rows, one constructor per kind, so that each row reads as its declaration.
template <class U>
Knob uint_knob(std::string_view name, U EngineConfig::*member, std::uint64_t lo, std::uint64_t hi,
               std::string_view doc, std::string_view cuzk, const char* cell_prefix) {
  static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t>);
  return {.name = name,
          .kind = KnobKind::kUint,
          .member = member,
          .lo = lo,
          .hi = hi,
          .doc = doc,
          .cuzk = cuzk,
          .cell_prefix = cell_prefix};
}

Knob bool_knob(std::string_view name, bool EngineConfig::*member, std::string_view doc,
               std::string_view cuzk) {
  return {.name = name, .kind = KnobKind::kBool, .member = member, .doc = doc, .cuzk = cuzk};
}

Knob bytes_knob(std::string_view name, std::uint64_t EngineConfig::*member, std::string_view doc,
                std::string_view cuzk, const char* cell_prefix, bool json_null_when_zero) {
  return {.name = name,
          .kind = KnobKind::kBytes,
          .member = member,
          .doc = doc,
          .cuzk = cuzk,
          .cell_prefix = cell_prefix,
          .json_null_when_zero = json_null_when_zero};
}

// A string member restricted to `values` (the circuit and backend names).
Knob choice_knob(std::string_view name, std::string EngineConfig::*member,
                 std::span<const std::string_view> values, std::string_view doc,
                 std::string_view cuzk, const char* cell_prefix) {
  return {.name = name,
          .kind = KnobKind::kEnum,
          .member = member,
          .values = values,
          .doc = doc,
          .cuzk = cuzk,
          .cell_prefix = cell_prefix};
}

// An enum-class member; its values are EnumNames<E>::names, enumerator i named names[i].
template <auto Member>
Knob enum_knob(std::string_view name, std::string_view doc, std::string_view cuzk,
               const char* cell_prefix) {
  using E = std::remove_cvref_t<decltype(std::declval<EngineConfig&>().*Member)>;
  const EnumMember access{[](const EngineConfig& c) { return static_cast<std::size_t>(c.*Member); },
                          [](EngineConfig& c, std::size_t i) { c.*Member = static_cast<E>(i); }};
  return {.name = name,
          .kind = KnobKind::kEnum,
          .member = access,
          .values = EnumNames<E>::names,
          .doc = doc,
          .cuzk = cuzk,
          .cell_prefix = cell_prefix};
}

constexpr std::array<std::string_view, 2> kBackends = {"cpu", "cuda"};

// The cuzk column names files of filecoin-project/curio extern/cuzk: config.rs =
// cuzk-core/src/config.rs, engine.rs = cuzk-core/src/engine.rs, cuzk-bench = cuzk-bench/src/
// main.rs, cuzk-project.md the authors' write-up (Phases and Interventions). "none" where
// prooflab's knob has no counterpart there.
std::vector<Knob> make_table() {
  using C = EngineConfig;
  return {
      choice_knob("circuit", &C::circuit, circuits::circuit_names(),
                  "the benchmark circuit each partition proves",
                  "cuzk-bench batch -t (porep, snap, wpost, winning: the real circuits)", ""),
      uint_knob(
          "constraints", &C::constraints, 1, 1ull << 28,
          "target constraints per partition (the circuit pads to about this; tiny ignores it)",
          "none: fixed by the proof type (about 2^27 for a 32 GiB PoRep partition)", "n"),
      uint_knob("partitions", &C::partitions, 1, 1000, "partitions per proof",
                "none: fixed by the proof type (10 for a 32 GiB PoRep)", "p"),
      uint_knob("count", &C::count, 1, 1000000, "proofs in the batch (c)",
                "cuzk-bench batch -c / --count", "c"),
      uint_knob("concurrency", &C::concurrency, 1, 10000, "proofs in flight at once (j)",
                "cuzk-bench batch -j / --concurrency", "j"),
      uint_knob("seed", &C::seed, 0, ~0ull,
                "witness seed: partition p of job j uses seed + 1000 j + p",
                "none: cuzk proves the C1 output it is given", "seed"),
      bool_knob("verify", &C::verify, "verify every proof", "none"),
      choice_knob("backend", &C::backend, kBackends,
                  "cpu: the emulated device (every build); cuda: the GPUs (a CUDA build)",
                  "none: cuzk always proves on CUDA (supraseal-c2)", ""),
      enum_knob<&C::lock_policy>(
          "lock_policy", "the GPU interlock: one lock per device, two (compute + memory), or none",
          "single = the per-GPU gpu_mtx (Phase 8); two_lock = Phase 10's compute_mtx + mem_mtx "
          "(explored, abandoned: cuzk-project.md)",
          ""),
      enum_knob<&C::dealloc_policy>(
          "dealloc_policy",
          "host-buffer free: detached threads / detached behind one mutex (I1) / on the worker",
          "async = cuzk's detached dealloc threads; serialized = Intervention 1's dealloc_mtx "
          "(cuzk-project.md)",
          ""),
      uint_knob("gpu_threads", &C::gpu_threads, 0, kMaxThreads,
                "threads of the groth16 pool that runs b_g2_msm (I2); 0 = all cores",
                "[gpus] gpu_threads (config.rs; the daemon passes it as CUZK_GPU_THREADS)", "gt"),
      uint_knob("synth_threads", &C::synth_threads, 0, kMaxThreads,
                "threads of the synthesis pool; 0 = all cores",
                "[synthesis] threads (config.rs; 0 there = half the CPUs)", "st"),
      uint_knob("device_threads", &C::device_threads, 0, kMaxThreads,
                "CPU backend: threads of each emulated device; 0 = all cores",
                "none: the emulated device is prooflab's", "dt"),
      bool_knob("throttle", &C::throttle,
                "synthesis's sparse products sleep 200 us between row chunks while any b_g2_msm runs (I3); the witness is not throttled",
                "Intervention 3's membw_throttle flag (cuzk-project.md)"),
      uint_knob("gpu_workers_per_device", &C::gpu_workers_per_device, 1, 64,
                "GPU workers per device (gw)", "[gpus] gpu_workers_per_device (config.rs)", "gw"),
      uint_knob("devices", &C::devices, 1, 64,
                "devices the GPU workers use (backend cuda: at most the visible GPUs)",
                "[gpus] devices (config.rs: a list of ordinals, empty = all)", "dev"),
      bytes_knob("vram_limit", &C::vram_limit,
                 "usable device memory; 0 = the device's (CPU backend: 16 GiB)", "none", "vram",
                 true),
      bytes_knob("host_mem_budget", &C::host_mem_budget,
                 "bytes of partition host buffers at once; 0 = the host's memory less 5 GiB",
                 "[memory] total_budget (config.rs; \"auto\" = MemTotal less safety_margin 5GiB)",
                 "hmem", false),
      uint_knob(
          "partition_workers", &C::partition_workers, 1, 1024,
          "partitions synthesized at once (pw)",
          "[pipeline] max_parallel_synthesis (config.rs; older [synthesis] partition_workers)",
          "pw"),
      uint_knob("synthesis_lookahead", &C::synthesis_lookahead, 0, 4096,
                "synthesized partitions allowed to wait in the GPU queue; 0 = pw",
                "[pipeline] synthesis_lookahead (config.rs)", "la"),
      uint_knob("max_gpu_queue_depth", &C::max_gpu_queue_depth, 0, 4096,
                "dispatch pacer: start a synthesis only while waiting + synthesizing < N; 0 = off",
                "[pipeline] max_gpu_queue_depth (config.rs)", "qd"),
      bool_knob("early_free", &C::early_free,
                "free the host a, b, c as soon as the GPU phase has consumed them",
                "Phase 12's prove_start clearing prover.a/b/c (always on; cuzk-project.md)"),
      enum_knob<&C::finalize>(
          "finalize", "split: b_g2_msm, epilogue and dealloc on a finalizer, the GPU worker loops",
          "split = Phase 12's generate_groth16_proofs_start_c / finalize_groth16_proof_c; "
          "inline = CUZK_DISABLE_SPLIT_PROVE=1 (engine.rs)",
          nullptr),
      enum_knob<&C::b_g2_msm>("b_g2_msm", "where the G2 tail MSM of B runs",
                              "none: supraseal runs it on the CPU", nullptr),
      enum_knob<&C::sparse_products>(
          "sparse_products",
          "where synthesis's A·w, B·w, C·w are computed: the synthesis pool, or the device in "
          "the GPU phase (the matrices resident, the witness uploaded)",
          "none: cuzk computes them on the CPU in synthesis (bellperson's ProvingAssignment)",
          nullptr),
      enum_knob<&C::prep_msm>(
          "prep_msm",
          "where the MSM plan (each query's scalars split into zeros, ones and tails) is made: "
          "the partition worker, or the device at the start of the GPU phase from the uploaded "
          "witness (needs sparse_products = gpu)",
          "none: supraseal splits the scalars on the CPU, one thread per circuit", nullptr),
      bool_knob("pin_uploads", &C::pin_uploads,
                "backend cuda: page-lock the host inputs the GPU phase uploads (the witness, or a, b, c, "
                "and with prep_msm = cpu the plan's bitmaps and tails) before the GPU lock, unlock them "
                "after it (HOST_PIN / HOST_UNPIN)",
                "none"),
      bool_knob("fixed_base_h", &C::fixed_base_h,
                "backend cuda: the MSM of H in the fixed-base mode, over a table of the H query's "
                "2^(c·w)-multiples built on the device by a key's first GPU phase and kept in the "
                "query's place (~11x its memory)",
                "none: supraseal's MSM of H is a plain Pippenger over the resident query"),
      bool_knob("overlap_batch_add", &C::overlap_batch_add,
                "backend cuda: the batch additions of L, A and B_G1 on a stream of their own while the "
                "tail MSMs run (a resident key whose tails run at once); BATCH_ADD then marks when the "
                "batch additions end, TAIL_MSM when the tails have",
                "none: supraseal runs the batch additions before the tail MSMs"),
      bool_knob("tails_beside_h", &C::tails_beside_h,
                "backend cuda: the batch additions and tail MSMs of L, A and B_G1 on streams of their "
                "own while H runs (a resident key whose tails run at once); NTT_H then marks when H's "
                "MSM ends, BATCH_ADD and TAIL_MSM what was left of the others after it",
                "none: supraseal runs them after the MSM of H"),
      enum_knob<&C::batch_add_tables>(
          "batch_add_tables",
          "backend cuda: the batch additions of L, A and B_G1 over tables of their queries' groups of "
          "bases (built on the device with a key's first GPU phase and kept beside it): pairs (P_2j + "
          "P_2j+1, half a query's memory each) or quads (the 11 sums of two or more of 4 bases, 2.75x a "
          "query's memory each); one addition per group with any scalar one",
          "none: supraseal adds every base whose scalar is one", nullptr),
      enum_knob<&C::h_basis>(
          "h_basis",
          "the basis of the key's H query (core/groth16/h_basis.hpp), chosen at setup: monomial "
          "(tau^i Z(tau)/delta, the prover's seventh transform turns h back into coefficients) or "
          "coset (the Lagrange basis of the coset the prover evaluates on: the MSM takes a*b - c "
          "there, six transforms) or coset_fold_c (coset with C's share folded into L and a point "
          "per input: no C*w is computed, four transforms); each a parameter file of its own",
          "none: the Filecoin parameters' H query is monomial (bellperson)", nullptr),
      bool_knob("record", &C::record, "write the TIMELINE (off: measure its cost)", "none"),
      bool_knob("cupti", &C::cupti,
                "backend cuda: CUPTI activity and NVTX stage ranges into cupti.csv",
                "none: cuzk logs CUZK_TIMING lines instead"),
  };
}

}  // namespace

void Knob::set(EngineConfig& cfg, const std::string& v) const {
  std::visit(Overloaded{
                 [&](std::uint32_t EngineConfig::*m) {
                   cfg.*m = static_cast<std::uint32_t>(parse_uint(*this, v));
                 },
                 [&](std::uint64_t EngineConfig::*m) {
                   cfg.*m = kind == KnobKind::kBytes ? parse_bytes(*this, v) : parse_uint(*this, v);
                 },
                 [&](bool EngineConfig::*m) { cfg.*m = parse_bool(*this, v); },
                 [&](std::string EngineConfig::*m) { cfg.*m = values[value_index(*this, v)]; },
                 [&](const EnumMember& m) { m.set(cfg, value_index(*this, v)); },
             },
             member);
}

std::string Knob::text(const EngineConfig& cfg) const {
  return std::visit(Overloaded{
                        [&](std::uint32_t EngineConfig::*m) { return std::to_string(cfg.*m); },
                        [&](std::uint64_t EngineConfig::*m) { return std::to_string(cfg.*m); },
                        [&](bool EngineConfig::*m) { return std::string(cfg.*m ? "on" : "off"); },
                        [&](std::string EngineConfig::*m) { return cfg.*m; },
                        [&](const EnumMember& m) { return std::string(values[m.get(cfg)]); },
                    },
                    member);
}

nlohmann::json Knob::json(const EngineConfig& cfg) const {
  return std::visit(Overloaded{
                        [&](std::uint32_t EngineConfig::*m) { return nlohmann::json(cfg.*m); },
                        [&](std::uint64_t EngineConfig::*m) {
                          return json_null_when_zero && cfg.*m == 0 ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(cfg.*m);
                        },
                        [&](bool EngineConfig::*m) { return nlohmann::json(cfg.*m); },
                        [&](const auto&) { return nlohmann::json(text(cfg)); },
                    },
                    member);
}

std::string Knob::accepted() const {
  switch (kind) {
    case KnobKind::kUint:
      return "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    case KnobKind::kBool:
      return "on | off (or true | false)";
    case KnobKind::kBytes:
      return std::string(text::kByteCountAccepted);
    case KnobKind::kEnum: {
      std::string out;
      for (const auto v : values) out += (out.empty() ? "" : " | ") + std::string(v);
      return out;
    }
  }
  return "?";
}

std::string_view Knob::kind_name() const {
  switch (kind) {
    case KnobKind::kUint:
      return "uint";
    case KnobKind::kBool:
      return "bool";
    case KnobKind::kBytes:
      return "bytes";
    case KnobKind::kEnum:
      return "enum";
  }
  return "?";
}

std::string Knob::cell_name_prefix() const {
  return cell_prefix != nullptr ? std::string(cell_prefix) : std::string(name) + "-";
}

std::span<const Knob> knobs() {
  static const std::vector<Knob> table = make_table();
  return table;
}

const Knob* find_knob(std::string_view name) {
  for (const auto& k : knobs())
    if (k.name == name) return &k;
  return nullptr;
}

const Knob& knob(std::string_view name) {
  if (const Knob* k = find_knob(name)) return *k;
  std::string all;
  for (const auto& k : knobs()) all += (all.empty() ? "" : ", ") + std::string(k.name);
  throw ConfigError("unknown config key '" + text::excerpt(name) + "' (known keys: " + all + ")");
}

nlohmann::json knob_table_json() {
  const EngineConfig defaults;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : knobs()) {
    nlohmann::json j = {{"name", k.name},
                        {"kind", k.kind_name()},
                        {"accepted", k.accepted()},
                        {"default", k.text(defaults)},
                        {"doc", k.doc},
                        {"cuzk", k.cuzk},
                        {"cell_prefix", k.cell_name_prefix()}};
    if (k.kind == KnobKind::kUint) {
      j["lo"] = k.lo;
      j["hi"] = k.hi;
    }
    if (k.kind == KnobKind::kEnum)
      j["values"] = std::vector<std::string>(k.values.begin(), k.values.end());
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace prooflab::engine
