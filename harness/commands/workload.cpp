// `prooflab workload NAME`: one deterministic kernel run (see workload.hpp), the unit that
// `prooflab regress --measure instructions` runs under callgrind.
#include "harness/commands/workload.hpp"

#include <gnu/libc-version.h>
#include <valgrind/callgrind.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <vector>

#include <time.h>

#include "core/circuits/circuit.hpp"
#include "core/curve/g1.hpp"
#include "core/curve/jacobian.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/field/fp.hpp"
#include "core/field/fr.hpp"
#include "core/groth16/proof.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/poly/domain.hpp"
#include "core/poly/ntt.hpp"
#include "core/trace/elapsed.hpp"
#include "harness/commands/commands.hpp"

namespace prooflab::harness {
namespace {

using curve::G1Curve;
using field::Fp;
using field::Fr;

// The porep-like circuit at its smallest size: every prover stage runs (synthesis, prep_msm,
// H with its NTTs, the G1 MSMs and batch additions, the G2 MSM, the epilogue) on a key that
// setup makes from a fixed seed before the counted region.
constexpr std::uint64_t kProveTinyConstraints = 1024;

constexpr std::array<WorkloadSpec, 5> kSpecs{{
    {"fp_mul", "n dependent Fp (381-bit Montgomery) multiplications x *= y", 200000,
     "multiplications"},
    {"g1_add", "n dependent G1 Jacobian += affine (mixed) additions", 20000, "additions"},
    {"msm_g1_2^12", "one G1 Pippenger MSM of 2^12 random bases and scalars, one thread", 12,
     "log2 of the number of points"},
    {"ntt_2^14", "one forward NTT over Fr of 2^14 random coefficients, one thread", 14,
     "log2 of the domain size"},
    {"prove_tiny",
     "one Groth16 proof (all stages) of porep-like at 1024 constraints, one thread, key from "
     "a seeded setup outside the count",
     kProveTinyConstraints, "target constraints"},
}};

// Approximate cost of each workload at its default size in Fp multiplications (callgrind:
// instructions of the workload / ~532 per injected multiplication, at commit 19e5710), used
// only to size an injected slowdown for the workloads that are not a loop of one operation.
double fp_mul_equivalents(std::string_view name, std::uint64_t n) {
  if (name == "msm_g1_2^12") return 7.8e5 * static_cast<double>(std::uint64_t{1} << n) / 4096.0;
  if (name == "ntt_2^14") return 8.85e4 * static_cast<double>(std::uint64_t{1} << n) / 16384.0;
  if (name == "prove_tiny") return 7.85e5 * static_cast<double>(n) / kProveTinyConstraints;
  return 0;
}

class Fnv1a {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ull;
  }
  template <std::size_t N>
  void add_limbs(const std::array<std::uint64_t, N>& limbs) {
    add(limbs.data(), sizeof(std::uint64_t) * N);
  }
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

// The counted region: callgrind counts nothing outside it (regress runs valgrind with
// --instr-atstart=no). The macros are a handful of no-op instructions natively.
// It also times the region: wall time, and the thread's CPU time, which a shared machine's
// preemption does not inflate (the kernels run on this one thread).
class CountedRegion {
 public:
  explicit CountedRegion(WorkloadResult& r)
      : r_(r), t0_(std::chrono::steady_clock::now()), cpu0_(thread_cpu_seconds()) {
    CALLGRIND_START_INSTRUMENTATION;
  }
  void stop() {
    CALLGRIND_STOP_INSTRUMENTATION;
    r_.kernel_cpu_seconds = thread_cpu_seconds() - cpu0_;
    r_.kernel_seconds = trace::seconds_since(t0_);
  }

 private:
  static double thread_cpu_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  WorkloadResult& r_;
  std::chrono::steady_clock::time_point t0_;
  double cpu0_;
};

// The injected slowdown: a dependent chain of Fp multiplications, inside the counted region,
// in the harness. The library itself is never slowed.
[[gnu::noinline]] Fp injected_work(std::uint64_t muls) {
  std::mt19937_64 rng(0x51011);
  Fp x = Fp::random(rng);
  const Fp y = Fp::random(rng);
  for (std::uint64_t i = 0; i < muls; ++i) {
    x *= y;
    asm volatile("" : "+m"(x));
  }
  return x;
}

template <class Curve>
void hash_point(Fnv1a& h, const curve::Jacobian<Curve>& p) {
  const auto a = p.to_affine();
  h.add_limbs(a.x.to_canonical());
  h.add_limbs(a.y.to_canonical());
}

// Kernels. Each prepares its inputs, runs the counted region (with the injected work, if
// any, at its end) and hashes the result after it.
[[gnu::noinline]] void kernel_fp_mul(WorkloadResult& r) {
  std::mt19937_64 rng(1);
  Fp x = Fp::random(rng);
  const Fp y = Fp::random(rng);
  const std::uint64_t total = r.n + r.inject_fp_muls;
  CountedRegion region(r);
  for (std::uint64_t i = 0; i < total; ++i) {
    x *= y;
    asm volatile("" : "+m"(x));  // a real chain: the compiler may not fold or drop iterations
  }
  region.stop();
  Fnv1a h;
  h.add_limbs(x.to_canonical());
  r.result_hash = h.hex();
}

[[gnu::noinline]] void kernel_g1_add(WorkloadResult& r, std::uint64_t extra_adds) {
  using Jac = curve::Jacobian<G1Curve>;
  std::mt19937_64 rng(2);
  const Jac g = Jac::from_affine(curve::g1_generator());
  const auto q = curve::scalar_mul(g, Fr::random(rng)).to_affine();
  Jac acc = curve::scalar_mul(g, Fr::random(rng));
  const std::uint64_t total = r.n + extra_adds;
  CountedRegion region(r);
  for (std::uint64_t i = 0; i < total; ++i) {
    acc = acc.add_mixed(q);
    asm volatile("" : "+m"(acc));
  }
  region.stop();
  Fnv1a h;
  hash_point(h, acc);
  r.result_hash = h.hex();
}

// 2^log_n distinct subgroup points: P + i·S by mixed additions, one batch inversion (as the
// MSM benchmark builds them), and uniform scalars below r.
std::vector<curve::G1Affine> msm_bases(unsigned log_n) {
  using Jac = curve::Jacobian<G1Curve>;
  const std::size_t n = std::size_t{1} << log_n;
  std::mt19937_64 rng(0xba5e5);
  const Jac g = Jac::from_affine(curve::g1_generator());
  const auto step = curve::scalar_mul(g, Fr::random(rng)).to_affine();
  Jac p = curve::scalar_mul(g, Fr::random(rng));
  std::vector<Jac> jac(n);
  for (auto& q : jac) {
    q = p;
    p = p.add_mixed(step);
  }
  std::vector<curve::G1Affine> out(n);
  curve::batch_to_affine<G1Curve>(jac, out);
  return out;
}

std::vector<msm::Scalar> msm_scalars(unsigned log_n) {
  std::mt19937_64 rng(0x5ca1a7);
  std::vector<msm::Scalar> out(std::size_t{1} << log_n);
  for (auto& k : out) {
    do {
      for (auto& limb : k) limb = rng();
      k[3] &= (std::uint64_t{1} << 63) - 1;  // 255 bits, then reject >= r
    } while (field::bigint_compare(k, field::FrParams::kModulus) >= 0);
  }
  return out;
}

[[gnu::noinline]] void kernel_msm_g1(WorkloadResult& r) {
  const auto log_n = static_cast<unsigned>(r.n);
  const auto bases = msm_bases(log_n);
  const auto scalars = msm_scalars(log_n);
  parallel::ThreadPool pool(parallel::kOnCaller, "workload");  // everything on this thread
  CountedRegion region(r);
  const auto sum = msm::msm<G1Curve>(bases, scalars, pool);
  const Fp pad = injected_work(r.inject_fp_muls);
  region.stop();
  Fnv1a h;
  hash_point(h, sum);
  (void)pad;
  r.result_hash = h.hex();
}

[[gnu::noinline]] void kernel_ntt(WorkloadResult& r) {
  const poly::EvaluationDomain d(static_cast<unsigned>(r.n));
  std::mt19937_64 rng(3);
  std::vector<Fr> a(d.size());
  for (auto& x : a) x = Fr::random(rng);
  parallel::ThreadPool pool(parallel::kOnCaller, "workload");
  CountedRegion region(r);
  poly::ntt(a, d, pool);
  const Fp pad = injected_work(r.inject_fp_muls);
  region.stop();
  (void)pad;
  Fnv1a h;
  for (const auto& x : a) h.add_limbs(x.to_canonical());
  r.result_hash = h.hex();
}

[[gnu::noinline]] void kernel_prove(WorkloadResult& r) {
  parallel::ThreadPool pool(parallel::kOnCaller, "workload");
  const auto circuit = circuits::make_circuit("porep-like", r.n, 0);
  const auto cs = circuits::synthesize_shape(*circuit);
  const auto pk = groth16::generate_parameters(cs, groth16::ToxicWaste::generate(42), pool);
  std::mt19937_64 rng(4);  // r and s of the proof
  CountedRegion region(r);
  const auto proof = groth16::prove(pk, cs, circuits::synthesize_witness(*circuit), pool, pool, rng);
  const Fp pad = injected_work(r.inject_fp_muls);
  region.stop();
  (void)pad;
  const auto bytes = groth16::serialize_proof(proof);
  Fnv1a h;
  h.add(bytes.data(), bytes.size());
  r.result_hash = h.hex();
}

std::string accepted_names() {
  std::string s;
  for (const auto& w : kSpecs) s += (s.empty() ? "" : ", ") + std::string(w.name);
  return s;
}

}  // namespace

std::span<const WorkloadSpec> workload_specs() { return kSpecs; }

const WorkloadSpec& workload_spec(std::string_view name) {
  for (const auto& w : kSpecs)
    if (w.name == name) return w;
  throw std::invalid_argument("unknown workload '" + std::string(name) +
                              "' (accepted: " + accepted_names() + ")");
}

double injected_slowdown_percent(std::string_view workload) {
  const char* env = std::getenv("PROOFLAB_INJECT_SLOWDOWN");
  if (!env || !*env) return 0;
  const std::string value(env);
  double percent = 0;
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t end = std::min(value.find(',', start), value.size());
    const std::string item = value.substr(start, end - start);
    const std::size_t colon = item.rfind(':');
    char* parse_end = nullptr;
    const double p =
        colon == std::string::npos ? -1 : std::strtod(item.c_str() + colon + 1, &parse_end);
    if (colon == std::string::npos || parse_end == item.c_str() + colon + 1 || *parse_end != '\0' ||
        !(p >= 0 && p <= 1000))
      throw std::invalid_argument("PROOFLAB_INJECT_SLOWDOWN='" + value + "': item '" + item +
                                  "' is not NAME:PERCENT with PERCENT in [0, 1000]");
    const std::string name = item.substr(0, colon);
    workload_spec(name);  // the name must exist
    if (name == workload) percent = p;
    start = end + 1;
  }
  return percent;
}

WorkloadResult run_workload(std::string_view name, std::uint64_t n) {
  const auto& spec = workload_spec(name);
  WorkloadResult r;
  r.name = std::string(spec.name);
  r.n = n ? n : spec.default_n;
  r.inject_percent = injected_slowdown_percent(name);
  const double fraction = r.inject_percent / 100.0;
  if (name == "fp_mul") {
    r.inject_fp_muls = static_cast<std::uint64_t>(static_cast<double>(r.n) * fraction + 0.5);
    kernel_fp_mul(r);
  } else if (name == "g1_add") {
    // The extra work is more additions of the same chain: exactly `percent` more of the kernel.
    kernel_g1_add(r, static_cast<std::uint64_t>(static_cast<double>(r.n) * fraction + 0.5));
  } else {
    if ((name == "msm_g1_2^12" && (r.n < 1 || r.n > 22)) ||
        (name == "ntt_2^14" && (r.n < 1 || r.n > 24)))
      throw std::invalid_argument("workload " + r.name + ": n = " + std::to_string(r.n) +
                                  " is log2 of the size, accepted 1..22 (msm) / 1..24 (ntt)");
    r.inject_fp_muls = static_cast<std::uint64_t>(fp_mul_equivalents(name, r.n) * fraction + 0.5);
    if (name == "msm_g1_2^12")
      kernel_msm_g1(r);
    else if (name == "ntt_2^14")
      kernel_ntt(r);
    else
      kernel_prove(r);
  }
  return r;
}

Toolchain this_toolchain() {
  Toolchain t;
#if defined(__clang__)
  t.compiler = "clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) +
               "." + std::to_string(__clang_patchlevel__) + " (" + __VERSION__ + ")";
#elif defined(__GNUC__)
  t.compiler = "gcc " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
               std::to_string(__GNUC_PATCHLEVEL__) + " (" + __VERSION__ + ")";
#else
  t.compiler = "unknown compiler";
#endif
  std::vector<std::string> f;
#if defined(__OPTIMIZE__)
  f.push_back("optimized");
#else
  f.push_back("unoptimized");
#endif
#if defined(NDEBUG)
  f.push_back("NDEBUG");
#else
  f.push_back("asserts");
#endif
#if defined(__x86_64__)
  f.push_back("x86_64");
#elif defined(__aarch64__)
  f.push_back("aarch64");
#endif
#if defined(__BMI2__)
  f.push_back("bmi2");
#endif
#if defined(__ADX__)
  f.push_back("adx");
#endif
#if defined(__AVX2__)
  f.push_back("avx2");
#endif
#if defined(__AVX512F__)
  f.push_back("avx512f");
#endif
#if defined(__SANITIZE_ADDRESS__)
  f.push_back("asan");
#endif
#if defined(__SANITIZE_THREAD__)
  f.push_back("tsan");
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  f.push_back("asan");
#endif
#if __has_feature(thread_sanitizer)
  f.push_back("tsan");
#endif
#endif
  for (const auto& s : f) t.flags += (t.flags.empty() ? "" : " ") + s;
  t.libc = std::string("glibc ") + gnu_get_libc_version();
  return t;
}

void add_workload_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "workload", "Run one deterministic kernel (for instruction counts under callgrind)");
  auto name = std::make_shared<std::string>();
  auto n = std::make_shared<std::uint64_t>(0);
  auto list = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  auto repeat = std::make_shared<unsigned>(1);
  cmd->add_option("name", *name, "workload name (--list shows them)");
  cmd->add_option("--n", *n, "size parameter (0 = the workload's default)");
  cmd->add_option("--repeat", *repeat, "run the kernel this many times (wall-clock samples)")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_flag("--list", *list, "list the workloads and the toolchain of this binary");
  cmd->add_flag("--json", *json, "print one JSON object per run instead of text");
  cmd->callback([name, n, list, json, repeat] {
    const auto tc = this_toolchain();
    if (*list || name->empty()) {
      if (*json) {
        nlohmann::json out = {
            {"toolchain", {{"compiler", tc.compiler}, {"flags", tc.flags}, {"libc", tc.libc}}},
            {"workloads", nlohmann::json::array()}};
        for (const auto& w : workload_specs())
          out["workloads"].push_back({{"name", w.name},
                                      {"what", w.what},
                                      {"default_n", w.default_n},
                                      {"n_means", w.n_means}});
        std::cout << out.dump() << "\n";
        return;
      }
      for (const auto& w : workload_specs())
        std::printf("%-12s n=%-7llu %s (n: %s)\n", std::string(w.name).c_str(),
                    static_cast<unsigned long long>(w.default_n), std::string(w.what).c_str(),
                    std::string(w.n_means).c_str());
      std::printf("toolchain: %s\n", tc.fingerprint().c_str());
      if (name->empty() && !*list) throw std::invalid_argument("workload: give a NAME or --list");
      return;
    }
    for (unsigned i = 0; i < *repeat; ++i) {
      const auto r = run_workload(*name, *n);
      if (*json) {
        std::cout << nlohmann::json{{"workload", r.name},
                                    {"n", r.n},
                                    {"result_hash", r.result_hash},
                                    {"kernel_seconds", r.kernel_seconds},
                                    {"kernel_cpu_seconds", r.kernel_cpu_seconds},
                                    {"inject_percent", r.inject_percent},
                                    {"toolchain", tc.fingerprint()}}
                         .dump()
                  << std::endl;
      } else {
        std::printf(
            "workload %s n=%llu result=%s kernel %.6f s (thread CPU %.6f s)%s\n", r.name.c_str(),
            static_cast<unsigned long long>(r.n), r.result_hash.c_str(), r.kernel_seconds,
            r.kernel_cpu_seconds,
            r.inject_percent > 0
                ? (" (injected slowdown " + std::to_string(r.inject_percent) + " %)").c_str()
                : "");
        std::fflush(stdout);
      }
    }
  });
}

}  // namespace prooflab::harness
