// prooflab_gpu_bench: device-resident timings of the CUDA backend's NTT and H computation,
// with the two ceilings they are judged against (device-to-device copy bandwidth, Fr
// multiplication rate) measured in the same run.
//
// Method (shared/../METHOD.md): CUDA events around each call, warm-up first, median of at
// least 7 samples; inputs are random field elements (never zeros), rotated among several
// buffers, and L2 is flushed (a memset of twice its size) before every sample so that a
// size that fits in the 60 MB L2 is not flattered. Each case prints one table row and goes
// into the JSON with every sample, the plan and the model's prediction (cost.hpp).
//
// MSM rows (msm, batch_add) time what a prover call costs: points resident on the device,
// random scalars uploaded from pinned host memory in every call (the conditions of the
// sppark figures in issue 5: Msm::run_host_scalars, in its planned pieces, each piece's
// work overlapping the next one's copy; the msm_variant / msm_fixed_base_variant rows
// `upload_first` copy them whole first), the window sums combined on the host; the result at
// 2^20 and 2^22 is checked against core/msm on the host's cores (`check` in the note).
//
// g2_msm rows: the same for G2 (b_g2_msm = gpu), each printed beside core/msm's G2 MSM of the
// same inputs on the host's cores in this run (one sample: the `cpu_ms` field) and checked
// against it.
//
// sparse_products rows (sparse_products = gpu): a porep-like partition's A·w, B·w, C·w into
// the QAP layout, the matrices resident, the witness already uploaded (its upload, which the
// backend's stage pays per partition, is timed alone into the note), beside the host's
// r1cs::evaluate_all of the same partition on the host's threads in this run (one sample:
// `cpu_ms`), and checked against it element for element.
//
// prep_msm rows (prep_msm = gpu): a porep-like partition's plan of L, A, B_G1 and B_G2 made
// on the device from its uploaded witness (gpu/msm_plan: classify, CUB scans, one counts
// download, scatter), beside the host's groth16::prep_msm of the same witness on one thread in
// this run (one sample: `cpu_ms`, as the engine's partition worker runs it), and checked
// against it bit for bit.
//
//   prooflab_gpu_bench [--json FILE] [--reps N] [--max-log K] [--ntt-log K] [--quick] [--only GROUPS]
//   GROUPS: comma-separated of ntt, h, variants, msm, g2_msm, sparse_products, prep_msm (default: all)
//   --ntt-log K: the ntt and variants rows of size 2^K only (e.g. to profile one size)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/stats/sample.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/bench/host_inputs.hpp"
#include "gpu/bench/prep_msm_case.hpp"
#include "gpu/bench/sparse_products_case.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/fixed_base.hpp"
#include "gpu/msm/group_table.hpp"
#include "gpu/msm/g2_msm.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/msm_kernels.hpp"
#include "gpu/ntt/cost.hpp"
#include "gpu/h/h.hpp"
#include "gpu/ntt/ntt.hpp"

using namespace prooflab::gpu;
using prooflab::gpu::field::Fr32;
using prooflab::gpu::ntt::Order;
using prooflab::gpu::ntt::PlanOptions;
using prooflab::gpu::ntt::Transform;

namespace {

// ---- random field elements on the device (values < 2^254 < r: valid Montgomery forms) ----

__device__ std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

__global__ void fill_random_kernel(Fr32* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    Fr32 x;
    for (int w = 0; w < 4; ++w) {
      const std::uint64_t r = splitmix(seed ^ (i * 4 + w) * 0x2545f4914f6cdd1dULL);
      x.v[2 * w] = static_cast<std::uint32_t>(r);
      x.v[2 * w + 1] = static_cast<std::uint32_t>(r >> 32);
    }
    x.v[7] &= 0x3fffffffu;
    out[i] = x;
  }
}

void fill_random(Fr32* out, std::size_t n, std::uint64_t seed, cudaStream_t s) {
  fill_random_kernel<<<4 * 132 * 4, 256, 0, s>>>(out, n, seed);
  check_launch("fill_random_kernel");
}

// ---- the Fr multiplication ceiling: 4 independent chains per thread ----

__global__ void fr_mul_chain_kernel(Fr32* data, int iters) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  Fr32 x0 = data[4 * i], x1 = data[4 * i + 1], x2 = data[4 * i + 2], x3 = data[4 * i + 3];
  const Fr32 y = data[0];
  for (int k = 0; k < iters; ++k) {
    x0 = x0 * y;
    x1 = x1 * y;
    x2 = x2 * y;
    x3 = x3 * y;
  }
  data[4 * i] = x0, data[4 * i + 1] = x1, data[4 * i + 2] = x2, data[4 * i + 3] = x3;
}

// ---- the Fp multiplication and squaring rates (the MSM's arithmetic): 4 chains/thread ----

__global__ void fill_random_fp_kernel(field::Fp32* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    field::Fp32 x;
    for (int w = 0; w < 6; ++w) {
      const std::uint64_t r = splitmix(seed ^ (i * 6 + w) * 0x2545f4914f6cdd1dULL);
      x.v[2 * w] = static_cast<std::uint32_t>(r);
      x.v[2 * w + 1] = static_cast<std::uint32_t>(r >> 32);
    }
    x.v[11] &= 0x0fffffffu;  // < 2^380 < p
    out[i] = x;
  }
}

template <bool kSquare>
__global__ void fp_chain_kernel(field::Fp32* data, int iters) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  field::Fp32 x0 = data[4 * i], x1 = data[4 * i + 1], x2 = data[4 * i + 2], x3 = data[4 * i + 3];
  const field::Fp32 y = data[0];
  for (int k = 0; k < iters; ++k) {
    if constexpr (kSquare) {
      x0 = x0.sqr(), x1 = x1.sqr(), x2 = x2.sqr(), x3 = x3.sqr();
    } else {
      x0 = x0 * y, x1 = x1 * y, x2 = x2 * y, x3 = x3 * y;
    }
  }
  data[4 * i] = x0, data[4 * i + 1] = x1, data[4 * i + 2] = x2, data[4 * i + 3] = x3;
}

// ---- measurement ----

struct Stats {
  std::vector<double> ms;
  double median = 0, min = 0, max = 0, mean = 0;
};

// reps >= 1, so there is always a sample to summarise.
Stats summarize(std::vector<double> ms) {
  const auto sum = *prooflab::stats::summarize(ms, "gpu_bench timings (ms)");
  return {std::move(ms), sum.median, sum.min, sum.max, sum.mean};
}

struct Bench {
  cudaStream_t stream = nullptr;
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
  int reps = 11, warmup = 2;

  // setup(rep) runs untimed before each sample (refills, rotation); run(rep) is timed.
  Stats measure(const std::function<void(int)>& setup, const std::function<void(int)>& run) {
    std::vector<double> ms;
    for (int r = 0; r < warmup + reps; ++r) {
      setup(r);
      if (flush) check_cuda(cudaMemsetAsync(flush, r & 0xff, flush_bytes, stream), "l2 flush");
      check_cuda(cudaEventRecord(t0, stream), "cudaEventRecord");
      run(r);
      check_cuda(cudaEventRecord(t1, stream), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(t1), "cudaEventSynchronize");
      float t = 0;
      check_cuda(cudaEventElapsedTime(&t, t0, t1), "cudaEventElapsedTime");
      if (r >= warmup) ms.push_back(t);
    }
    return summarize(ms);
  }
};

// variant names the case (with name and log_n: the key `prooflab regress` follows), plan the
// NTT plan it ran: for the rows of the tuned plan the variant leaves the plan out, so that
// retuning a size does not rename its metric; the ntt_variant rows are their plan.
struct Row {
  std::string name, variant, plan;
  unsigned log_n = 0;
  Stats stats;
  double model_ms = 0, model_compute_ms = 0, model_memory_ms = 0;
  double fr_muls = 0, dram_bytes = 0;
  double cpu_ms = 0;  // the host's time for the same result, where a row measured it (g2_msm)
  unsigned passes = 0;
  std::string note;
};

std::string plan_string(unsigned log_n, const PlanOptions& given) {
  const PlanOptions opt = ntt::resolve_plan(log_n, given);
  std::ostringstream os;
  const auto shapes = ntt::plan_shapes(log_n, opt);
  for (std::size_t i = 0; i < shapes.size(); ++i)
    os << (i ? "+" : "") << shapes[i].s << "(C" << (1u << shapes[i].log_c) << ")";
  os << " T" << opt.threads << " E2^" << opt.log_block_elems;
  if (!opt.direct_coupling) os << " two-level";
  if (!opt.paired_stages) os << " single";
  os << " B" << opt.blocks_per_sm;
  if (opt.twiddle_major_min_sets != 1) os << " TM>=" << opt.twiddle_major_min_sets;
  if (!opt.first_pass_table) os << " first-pass-built";
  if (!opt.later_pass_tables) os << " later-direct";
  return os.str();
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}


}  // namespace

int main(int argc, char** argv) {
  std::string json_path = "gpu_bench.json";
  unsigned max_log = 26, ntt_log = 0;
  bool quick = false;
  std::string only = "ntt,h,variants,msm,g2_msm,sparse_products,prep_msm";
  Bench b;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--reps" && i + 1 < argc) b.reps = std::max(7, std::atoi(argv[++i]));
    else if (a == "--max-log" && i + 1 < argc) max_log = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--ntt-log" && i + 1 < argc) ntt_log = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--quick") quick = true;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--json FILE] [--reps N>=7] [--max-log K] [--ntt-log K] [--quick] "
                   "[--only ntt,h,variants,msm,g2_msm,sparse_products,prep_msm]\n",
                   argv[0]);
      return 2;
    }
  }
  const auto wants = [&](const char* group) {
    return ("," + only + ",").find("," + std::string(group) + ",") != std::string::npos;
  };
  std::string why;
  const auto devices = list_devices(&why);
  if (devices.empty()) {
    std::fprintf(stderr, "prooflab_gpu_bench: no GPU: %s\n", why.c_str());
    return 1;
  }
  const DeviceInfo dev = devices.front();
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");

  try {
    memory::DeviceAllocator alloc;
    check_cuda(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaEventCreate(&b.t0), "cudaEventCreate");
    check_cuda(cudaEventCreate(&b.t1), "cudaEventCreate");
    b.flush_bytes = std::size_t{2} * static_cast<std::size_t>(prop.l2CacheSize);
    memory::DeviceBuffer<char> flush(alloc, b.flush_bytes, b.stream, "bench_l2_flush");
    b.flush = flush.get();

    // Ceilings: the integer-multiply rate the model assumes (64 IMAD/clk/SM), and memory.
    const double clock_hz = dev.clock_khz * 1e3;
    const double imad_rate = 64.0 * dev.sm_count * clock_hz;
    double mem_bw = 4.1e12;  // REFERENCE.md's triad; replaced by the copy measured below

    std::vector<Row> rows;
    const auto print_row = [](const Row& r) {
      const std::string label =
          r.plan.empty() || r.variant.find(r.plan) != std::string::npos ? r.variant : r.variant + " " + r.plan;
      std::printf("%-16s %-28s 2^%-3u %9.3f %9.3f %9.3f %9.3f  %s\n", r.name.c_str(), label.c_str(),
                  r.log_n, r.stats.median, r.stats.min, r.stats.max, r.model_ms, r.note.c_str());
      std::fflush(stdout);
    };
    std::printf("device: %s, %d SMs, %.0f MHz, L2 %d MB, %.1f GiB\n", dev.name.c_str(), dev.sm_count,
                clock_hz / 1e6, prop.l2CacheSize >> 20, dev.memory_bytes / double(1 << 30));
    std::printf("%-16s %-28s %-5s %9s %9s %9s %9s  %s\n", "case", "variant", "n", "median_ms",
                "min_ms", "max_ms", "model_ms", "note");

    {  // device-to-device copy: bytes read + bytes written over time
      const std::size_t bytes = std::size_t{1} << 30;
      memory::DeviceBuffer<char> src(alloc, bytes, b.stream, "bench"), dst(alloc, bytes, b.stream, "bench");
      check_cuda(cudaMemsetAsync(src.get(), 1, bytes, b.stream), "memset");
      Row r;
      r.name = "hbm_copy";
      r.variant = "cudaMemcpy D2D 1 GiB";
      r.stats = b.measure([](int) {}, [&](int) {
        check_cuda(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, b.stream), "copy");
      });
      mem_bw = 2.0 * bytes / (r.stats.median * 1e-3);
      std::ostringstream os;
      os << static_cast<int>(mem_bw / 1e9) << " GB/s (read+write)";
      r.note = os.str();
      rows.push_back(r);
      print_row(r);
    }
    {  // Fr multiplication rate
      const int threads = 256, blocks = dev.sm_count * 8, iters = 256;
      const std::size_t elems = std::size_t{4} * threads * blocks;
      memory::DeviceBuffer<Fr32> data(alloc, elems, b.stream, "bench");
      fill_random(data.get(), elems, 7, b.stream);
      Row r;
      r.name = "fr_mul";
      r.variant = "4 chains/thread";
      r.stats = b.measure([](int) {}, [&](int) {
        fr_mul_chain_kernel<<<blocks, threads, 0, b.stream>>>(data.get(), iters);
        check_launch("fr_mul_chain_kernel");
      });
      const double muls = double(elems) * iters;
      r.fr_muls = muls;
      r.model_ms = r.model_compute_ms = muls * ntt::kImadPerFrMul / imad_rate * 1e3;
      std::ostringstream os;
      os << muls / (r.stats.median * 1e-3) / 1e9 << " Gmul/s; model assumes " << imad_rate / ntt::kImadPerFrMul / 1e9;
      r.note = os.str();
      rows.push_back(r);
      print_row(r);
    }

    for (const bool square : {false, true}) {  // Fp multiplication and squaring rates
      const int threads = 128, blocks = dev.sm_count * 8, iters = 64;
      const std::size_t elems = std::size_t{4} * threads * blocks;
      memory::DeviceBuffer<field::Fp32> data(alloc, elems, b.stream, "bench");
      fill_random_fp_kernel<<<4 * 132 * 4, 256, 0, b.stream>>>(data.get(), elems, 9);
      check_launch("fill_random_fp_kernel");
      Row r;
      r.name = square ? "fp_sqr" : "fp_mul";
      r.variant = "4 chains/thread";
      r.stats = b.measure([](int) {}, [&](int) {
        if (square)
          fp_chain_kernel<true><<<blocks, threads, 0, b.stream>>>(data.get(), iters);
        else
          fp_chain_kernel<false><<<blocks, threads, 0, b.stream>>>(data.get(), iters);
        check_launch("fp_chain_kernel");
      });
      const double ops = double(elems) * iters;
      std::ostringstream os;
      os << ops / (r.stats.median * 1e-3) / 1e9 << (square ? " G sqr/s" : " G mul/s");
      r.note = os.str();
      rows.push_back(r);
      print_row(r);
    }

    const auto model = [&](Row& r, const std::vector<ntt::PassArgs>& passes, double extra_muls = 0) {
      const auto c = ntt::estimate_cost(passes);
      r.fr_muls += c.fr_muls + extra_muls;
      r.dram_bytes += c.dram_bytes;
      r.passes += c.passes;
    };
    const auto finish_model = [&](Row& r) {
      r.model_compute_ms = r.fr_muls * ntt::kImadPerFrMul / imad_rate * 1e3;
      r.model_memory_ms = r.dram_bytes / mem_bw * 1e3;
      r.model_ms = std::max(r.model_compute_ms, r.model_memory_ms);
      std::ostringstream os;
      os << "compute " << r.model_compute_ms << " / memory " << r.model_memory_ms << " ms; "
         << r.dram_bytes / (r.stats.median * 1e-3) / 1e9 << " GB/s eff";
      r.note = os.str();
    };

    // One NTT case: in place on rotating buffers with a shared scratch.
    // plan_in_key: the explicit-plan variants; the tuned-plan rows keep the plan out of the key.
    const auto ntt_case = [&](const char* name, Transform kind, unsigned log_n, Order order,
                              const PlanOptions& opt, bool plan_in_key) {
      const std::size_t n = std::size_t{1} << log_n, bytes = n * sizeof(Fr32);
      const ntt::Domain d(log_n, alloc, b.stream);
      const int rot = static_cast<int>(std::clamp<std::size_t>((4 * b.flush_bytes + bytes - 1) / bytes, 2, 8));
      std::vector<memory::DeviceBuffer<Fr32>> bufs;
      for (int i = 0; i < rot; ++i) {
        bufs.emplace_back(alloc, n, b.stream, "bench_ntt");
        fill_random(bufs.back().get(), n, 1000 + i, b.stream);
      }
      memory::DeviceBuffer<Fr32> scratch(alloc, ntt::scratch_elements(d, opt), b.stream, "bench_scratch");
      Row r;
      r.name = name;
      r.log_n = log_n;
      r.plan = plan_string(log_n, opt);
      r.variant = std::string(order == Order::kNatural ? "NN" : "NR") + (plan_in_key ? " " + r.plan : "");
      r.stats = b.measure([](int) {}, [&](int rep) {
        ntt::transform(kind, bufs[rep % rot].get(), scratch.get(), d, b.stream, order, opt);
      });
      const auto passes = ntt::make_passes(ntt::spec_for(kind, d.tables(), order), d.tables(),
                                           {bufs[0].get(), nullptr, nullptr, scratch.get(), bufs[0].get()}, opt);
      model(r, passes);
      finish_model(r);
      rows.push_back(r);
      print_row(r);
    };

    const auto h_case = [&](unsigned log_n, const ntt::HOptions& hopt) {
      const std::size_t n = std::size_t{1} << log_n;
      const ntt::Domain d(log_n, alloc, b.stream);
      memory::DeviceBuffer<Fr32> a(alloc, n, b.stream, "bench_h"), bb(alloc, n, b.stream, "bench_h"),
          c(alloc, n, b.stream, "bench_h");
      ntt::HComputer hc(alloc);
      Row r;
      r.name = "compute_h";
      r.log_n = log_n;
      r.plan = plan_string(log_n, hopt.plan);
      r.variant = hopt.concurrent ? "3 streams" : "1 stream";
      r.stats = b.measure(
          [&](int rep) {  // a, b, c are consumed: fresh random inputs, untimed
            fill_random(a.get(), n, 10 * rep + 1, b.stream);
            fill_random(bb.get(), n, 10 * rep + 2, b.stream);
            fill_random(c.get(), n, 10 * rep + 3, b.stream);
          },
          [&](int) { hc.compute(a.get(), bb.get(), c.get(), d, b.stream, hopt); });
      const auto& t = d.tables();
      Fr32* w = a.get();
      for (int i = 0; i < 3; ++i) {
        model(r, ntt::make_passes(ntt::h_to_coset_inverse_spec(t), t, {w, nullptr, nullptr, bb.get(), w}, hopt.plan));
        model(r, ntt::make_passes(ntt::forward_spec(t), t, {w, nullptr, nullptr, bb.get(), w}, hopt.plan));
      }
      model(r, ntt::make_passes(ntt::h_final_spec(t, true), t, {a.get(), bb.get(), c.get(), bb.get(), a.get()}, hopt.plan));
      finish_model(r);
      rows.push_back(r);
      print_row(r);
    };

    const PlanOptions def;
    std::vector<unsigned> ntt_sizes = {20, 22, 24, 26};
    if (quick) ntt_sizes = {20, 24};
    if (ntt_log) ntt_sizes = {ntt_log};
    const auto ntt_size_wanted = [&](unsigned k) { return k <= max_log && (!ntt_log || k == ntt_log); };
    for (unsigned k : ntt_sizes)
      if (k <= max_log && wants("ntt")) ntt_case("ntt", Transform::kForward, k, Order::kNatural, def, false);
    for (unsigned k : ntt_sizes)
      if (k <= max_log && wants("ntt"))
        ntt_case("ntt", Transform::kForward, k, Order::kBitReversed, def, false);
    if (ntt_size_wanted(24) && wants("ntt")) {
      ntt_case("coset_ntt", Transform::kCosetForward, 24, Order::kNatural, def, false);
      ntt_case("intt", Transform::kInverse, 24, Order::kNatural, def, false);
      ntt_case("coset_intt", Transform::kCosetInverse, 24, Order::kNatural, def, false);
    }
    for (unsigned k : {20u, 22u, 24u})
      if (k <= max_log && !(quick && k == 22) && wants("h")) h_case(k, ntt::HOptions{});
    if (!quick && 24 <= max_log && wants("h")) {
      ntt::HOptions one;
      one.concurrent = false;
      h_case(24, one);
    }
    // Plan variants (the tuning axis this first version leaves open): block size, threads,
    // explicit pass splits.
    if (!quick && wants("variants")) {
      // Each change to the pass kernel against the plan without it, in the same run: the
      // direct coupling table (two-level = without), paired stages (single = without), the
      // block size and explicit splits.
      const auto with = [](unsigned e, unsigned threads, std::vector<unsigned> stages, bool direct,
                           bool paired, unsigned blocks = 3) {
        return PlanOptions{e, threads, std::move(stages), direct, paired, blocks};
      };
      const auto tm = [](PlanOptions o, unsigned min_sets) {
        o.twiddle_major_min_sets = min_sets;
        return o;
      };
      // The tuned plan with the first pass building its twiddles (no first pass table), and
      // with the later passes reading the direct table (no later pass tables).
      PlanOptions built_first, later_direct;
      built_first.first_pass_table = false;
      later_direct.later_pass_tables = false;
      const std::vector<std::pair<unsigned, PlanOptions>> variants = {
          {20, built_first}, {22, built_first}, {24, built_first},
          {20, later_direct}, {22, later_direct}, {24, later_direct}, {26, later_direct},
          {20, with(9, 128, {}, true, true, 4)},         {20, with(10, 128, {}, true, true, 4)},
          {22, with(9, 128, {}, true, true, 4)},         {22, with(10, 128, {}, true, true, 4)},
          {24, with(11, 256, {}, false, false)},         {24, with(11, 256, {}, true, false)},
          {24, with(11, 256, {}, false, true)},          {24, tm(with(11, 256, {}, true, true), 1u << 12)},
          {24, with(11, 256, {}, true, true)},           {24, with(10, 256, {}, true, true, 4)},
          {24, with(10, 128, {}, true, true, 4)},        {24, with(9, 256, {}, true, true, 4)},
          {24, tm(with(9, 128, {}, true, true, 4), 8)},  {24, with(9, 128, {}, false, true, 4)},
          {24, with(12, 512, {12, 12}, true, true)},
          {26, with(11, 256, {}, false, false)},         {26, tm(with(11, 256, {}, true, true), 8)},
          {26, with(10, 256, {}, true, true, 4)},        {26, with(9, 128, {}, true, true, 4)}};
      for (const auto& [k, v] : variants)
        if (ntt_size_wanted(k)) ntt_case("ntt_variant", Transform::kForward, k, Order::kBitReversed, v, true);
    }

    // ---- MSM: bases resident, scalars from pinned host memory in every call ----
    if (wants("msm")) {
      std::vector<unsigned> sizes = {20, 22, 24};
      if (quick) sizes = {20, 24};
      unsigned top = 0;
      for (unsigned k : sizes)
        if (k <= max_log) top = k;
      if (top > 0) {
        const std::size_t nmax = std::size_t{1} << top;
        const auto t_gen = std::chrono::steady_clock::now();
        const auto host_bases = bench::random_g1_points(nmax, 20261130);
        std::uint32_t* pinned[2] = {nullptr, nullptr};
        for (auto& p : pinned) {
          check_cuda(cudaMallocHost(&p, nmax * 32), "cudaMallocHost(scalars)");
        }
        bench::random_scalars(pinned[0], nmax, 1);
        bench::random_scalars(pinned[1], nmax, 2);
        std::printf("msm inputs: %zu random points and 2 x %zu scalars made in %.1f s\n", nmax, nmax,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t_gen).count());
        memory::DeviceBuffer<msm::G1AffineRaw> d_bases(alloc, nmax, b.stream, "bench_msm_bases");
        check_cuda(cudaMemcpyAsync(d_bases.get(), host_bases.data(), nmax * sizeof(msm::G1AffineRaw),
                                   cudaMemcpyHostToDevice, b.stream),
                   "cudaMemcpyAsync(bases)");
        memory::DeviceBuffer<std::uint32_t> d_scalars(alloc, 8 * nmax, b.stream, "bench_msm_scalars");
        msm::Msm engine(alloc);
        // One Fp multiplication: 4·12² + 2·12 multiply-adds (the Fr count's formula at 12 limbs).
        const double imad_per_fp_mul = 4.0 * 144 + 24;
        // table: the fixed-base mode over it (built from the first 2^log_n bases).
        const auto msm_case = [&](const char* name, unsigned log_n, const msm::MsmOptions& mopt,
                                  bool check, const msm::FixedBaseTable* table = nullptr) {
          const std::size_t n = std::size_t{1} << log_n;
          msm::MsmShape shape;
          msm::G1XyzzRaw last{};
          Row r;
          r.name = name;
          r.log_n = log_n;
          r.stats = b.measure([](int) {}, [&](int rep) {
            last = table ? engine.run_fixed_base_host_scalars(*table, pinned[rep & 1], b.stream, mopt, "bench_msm",
                                                              &shape)
                         : engine.run_host_scalars(d_bases.get(), pinned[rep & 1], n, b.stream, mopt, "bench_msm",
                                                   &shape);
          });
          std::ostringstream v;
          v << "c" << shape.window_bits << " W" << shape.windows;
          if (shape.wide_windows < shape.windows) v << " wide" << shape.wide_windows;
          v << " K" << (shape.entries + shape.chunks - 1) / shape.chunks;
          if (shape.pieces > 1) v << " pieces" << shape.pieces;
          if (mopt.scalar_pieces == 1) v << " upload_first";
          if (mopt.accumulate_min_blocks) v << " acc_blocks" << mopt.accumulate_min_blocks;
          if (mopt.min_segment) v << " min_segment" << mopt.min_segment;
          v << " L" << shape.segment;
          if (mopt.reduce_wave == msm::kReduceWaveOff) v << " pow2_segments";
          else if (mopt.reduce_wave) v << " reduce_wave" << mopt.reduce_wave;
          if (!mopt.sort_ahead) v << " no_sort_ahead";
          if (!mopt.fill_accumulate_waves) v << " no_fill_waves";
          if (mopt.sort_ahead_priority) v << " sort_priority";
          if (table) v << " table " << table->windows() << "x";
          r.variant = v.str();
          const double madds = double(n) * shape.windows;
          const double fp_muls = madds * 10 + 2.0 * shape.reduced_buckets * 14;
          r.model_ms = r.model_compute_ms = fp_muls * imad_per_fp_mul / imad_rate * 1e3;
          std::ostringstream os;
          os << madds / (r.stats.median * 1e-3) / 1e9 << " G bucket-adds/s; scratch "
             << shape.scratch_bytes / double(1 << 20) << " MiB";
          if (table)
            os << "; table " << msm::FixedBaseTable::bytes(n, table->window_bits()) / 1e9 << " GB built once in "
               << table->build_ms() << " ms";
          os << "; phases (last rep) ms:";
          for (int ph = 0; ph < msm::MsmShape::kPhases; ++ph)
            os << " " << msm::MsmShape::kPhaseNames[ph] << " " << shape.phase_ms[ph];
          if (check) {
            double cpu_s = 0;
            const int last_rep = b.warmup + b.reps - 1;
            const bool ok = bench::equals_cpu_msm(host_bases, pinned[last_rep & 1], n, last, &cpu_s);
            os << "; check vs core/msm: " << (ok ? "PASS" : "FAIL") << " (CPU " << cpu_s << " s)";
            if (!ok) std::fprintf(stderr, "MSM 2^%u: device result differs from core/msm\n", log_n);
          }
          r.note = os.str();
          rows.push_back(r);
          print_row(r);
        };
        for (unsigned k : sizes)
          if (k <= max_log) msm_case("msm", k, {}, k <= 22);
        // The scalars uploaded whole before the MSM starts (one piece): the A/B of the pieces.
        for (unsigned k : {20u, 24u})
          if (k <= max_log) msm_case("msm_variant", k, {.scalar_pieces = 1}, false);
        // The reduction's least segment below the default 32 at the sizes of the GPU phase's
        // tails (2^22: ~155k points; 2^24: ~620k), whose reductions run a few thousand threads
        // of 32 buckets each (latency-bound: longer than their accumulations in the phase).
        if (!quick && 20 <= max_log)
          for (unsigned k : {17u, 19u})
            for (unsigned least : {0u, 8u, 16u}) msm_case("msm_variant", k, {.min_segment = least}, true);
        if (!quick && 24 <= max_log) {
          // Window widths and the accumulation kernel's register cap around the defaults.
          for (unsigned c : {16u, 19u, 20u})
            if (c != msm::plan_window_bits(nmax)) msm_case("msm_variant", 24, msm::MsmOptions{c, 0, 0}, false);
          for (unsigned blocks : {2u, 4u})
            if (msm::kernels::accumulate_min_blocks_built(blocks))
              msm_case("msm_variant", 24, msm::MsmOptions{0, 0, blocks}, false);
            else
              std::printf("msm_variant acc_blocks%u: skipped, not in this build "
                          "(-DPROOFLAB_GPU_MSM_CAP_VARIANTS=ON builds it)\n", blocks);
          // The planned width's neighbours at 2^20 and 2^22 (c = 16, 18, 19 with balanced
          // windows): the evidence for the cost model's choice (plan.cpp cheapest_window_bits).
          for (unsigned log_n : {20u, 22u})
            for (unsigned c : {16u, 18u, 19u})
              if (c != msm::plan_window_bits(std::size_t{1} << log_n))
                msm_case("msm_variant", log_n, msm::MsmOptions{c, 0, 0}, false);
          // Session 23's three changes (results/2026-12-07-msm-reduce-waves) one at a time and
          // all off (the plan before them), sort_ahead over the equal pieces (3 asked for), and
          // its side stream at the highest priority.
          const msm::MsmOptions before{.reduce_wave = msm::kReduceWaveOff, .sort_ahead = false,
                                       .fill_accumulate_waves = false};
          msm_case("msm_variant", 24, before, false);
          msm_case("msm_variant", 24, {.reduce_wave = msm::kReduceWaveOff}, false);
          msm_case("msm_variant", 24, {.sort_ahead = false}, false);
          msm_case("msm_variant", 24, {.fill_accumulate_waves = false}, false);
          msm_case("msm_variant", 24, {.scalar_pieces = 3}, false);
          msm_case("msm_variant", 24, {.sort_ahead_priority = true}, false);
          msm_case("msm_variant", 22, {.sort_ahead_priority = true}, true);  // checked against core/msm
          msm_case("msm_variant", 22, before, false);
          // The reduction's segment (session 24): the power-of-two one at 2^20 and 2^22 (32,
          // where the planned one is 16), and at 2^24 session 23's two waves of 95 (the plan
          // with a wave twice the kernel's) against the planned one of 189.
          msm_case("msm_variant", 22, {.reduce_wave = msm::kReduceWaveOff}, false);
          msm_case("msm_variant", 20, {.reduce_wave = msm::kReduceWaveOff}, false);
          msm_case("msm_variant", 24, {.reduce_wave = 2 * msm::kDefaultReduceWave}, false);
          // The accumulation's chunk (scalars uploaded whole, one piece: one chunk count) for
          // whole waves of 3 blocks of 128 per SM on 132 SMs (4..7), beside the planned K of the
          // upload_first row above (2^18 chunks: 5.17 such waves).
          const std::size_t entries24 = (std::size_t{1} << 24) * msm::make_digit_plan(msm::plan_window_bits(nmax)).windows;
          for (unsigned waves : {4u, 5u, 6u, 7u}) {
            const std::size_t threads = std::size_t{waves} * msm::kWaveSms * 3 * msm::kernels::kThreads;
            msm_case("msm_variant", 24,
                     {.entries_per_thread = static_cast<unsigned>((entries24 + threads - 1) / threads), .scalar_pieces = 1},
                     false);
          }
        }
        // Fixed-base mode (a table of 2^(c·w)-multiples per query, built once): every size,
        // and at 2^24 the widths around the planned one. One table at a time (2^24: ~18-20 GB).
        for (unsigned k : sizes) {
          if (k > max_log) continue;
          const std::size_t n = std::size_t{1} << k;
          std::vector<unsigned> widths = {msm::FixedBaseTable::planned_window_bits(n)};
          if (k == 24)  // also with --quick: the mode's width is the open question
            for (unsigned c : {22u, 24u})
              if (c != widths[0]) widths.push_back(c);
          for (unsigned c : widths) {
            const msm::FixedBaseTable table(alloc, d_bases.get(), n, c, b.stream, "bench_fixed_base_table");
            msm_case(c == widths[0] ? "msm_fixed_base" : "msm_fixed_base_variant", k, {}, k <= 22, &table);
            if (c == widths[0] && (k == 20 || k == 24)) {
              msm_case("msm_fixed_base_variant", k, {.scalar_pieces = 1}, false, &table);
              if (k == 24) {
                msm_case("msm_fixed_base_variant", k, {.sort_ahead = false, .fill_accumulate_waves = false}, false,
                         &table);
                msm_case("msm_fixed_base_variant", k, {.sort_ahead_priority = true}, false, &table);
                msm_case("msm_fixed_base_variant", k, {.reduce_wave = 2 * msm::kDefaultReduceWave}, false, &table);
              }
            }
          }
        }
        if (!quick && 24 <= max_log) {  // bases streamed from pinned host memory, 4 batches
          msm::G1AffineRaw* pinned_bases = nullptr;
          check_cuda(cudaMallocHost(&pinned_bases, nmax * sizeof(msm::G1AffineRaw)), "cudaMallocHost(bases)");
          std::memcpy(pinned_bases, host_bases.data(), nmax * sizeof(msm::G1AffineRaw));
          const std::size_t batch = nmax / 4;
          Row r;
          r.name = "msm_streamed";
          r.log_n = top;
          r.variant = "4 batches from pinned host memory";
          r.stats = b.measure([](int) {}, [&](int rep) {
            check_cuda(cudaMemcpyAsync(d_scalars.get(), pinned[rep & 1], nmax * 32,
                                       cudaMemcpyHostToDevice, b.stream),
                       "cudaMemcpyAsync(scalars)");
            engine.run_streamed(pinned_bases, d_scalars.get(), nmax, batch, b.stream, {}, "bench_msm");
          });
          r.note = "bases uploaded in every call, double-buffered";
          rows.push_back(r);
          print_row(r);
          cudaFreeHost(pinned_bases);
        }
        {  // batch addition: half of the bits set, as the PoRep witness's ones
          const std::size_t n = nmax, words = (n + 63) / 64;
          std::vector<std::uint64_t> bitmap(words);
          for (std::size_t i = 0; i < words; ++i)
            bitmap[i] = 0x5555555555555555ULL ^ (i * 0x9e3779b97f4a7c15ULL);
          memory::DeviceBuffer<std::uint64_t> d_bitmap(alloc, words, b.stream, "bench_bitmap");
          check_cuda(cudaMemcpyAsync(d_bitmap.get(), bitmap.data(), words * 8, cudaMemcpyHostToDevice,
                                     b.stream),
                     "cudaMemcpyAsync(bitmap)");
          Row r;
          r.name = "batch_add";
          r.log_n = top;
          r.variant = "bitmap, ~50 % set";
          r.stats = b.measure([](int) {}, [&](int) {
            engine.sum_selected(d_bases.get(), d_bitmap.get(), n, b.stream, "bench_batch_add");
          });
          std::ostringstream os;
          os << n / 2 / (r.stats.median * 1e-3) / 1e9 << " G adds/s";
          r.note = os.str();
          rows.push_back(r);
          print_row(r);
          // The same over the bases' group tables (one addition per group of bits with any set: at
          // this density 0.75 per pair against 1.0, 0.94 per group of 4 against 2.0), each checked
          // against the row above's sum; one table at a time (2^24 groups of 4: 4.4 GB).
          const auto singles = engine.sum_selected(d_bases.get(), d_bitmap.get(), n, b.stream, "bench_batch_add");
          for (const unsigned group : {2u, 4u}) {
            const msm::GroupTable table(alloc, d_bases.get(), n, group, b.stream, "bench_group_table");
            Row gr;
            gr.name = group == 2 ? "batch_add_pairs" : "batch_add_quads";
            gr.log_n = top;
            gr.variant = group == 2 ? "bitmap, ~50 % set, pair table" : "bitmap, ~50 % set, quad table";
            msm::G1XyzzRaw grouped{};
            gr.stats = b.measure([](int) {}, [&](int) {
              grouped = engine.sum_selected_grouped(d_bases.get(), table, d_bitmap.get(), b.stream, "bench_batch_add");
            });
            const bool same = bench::same_point(grouped, singles);
            std::ostringstream gs;
            gs << "table " << msm::GroupTable::bytes(n, group) / 1e9 << " GB built once in " << table.build_ms()
               << " ms; check vs batch_add: " << (same ? "PASS" : "FAIL");
            if (!same) std::fprintf(stderr, "%s 2^%u: sum differs from batch_add's\n", gr.name.c_str(), top);
            gr.note = gs.str();
            rows.push_back(gr);
            print_row(gr);
          }
        }
        for (auto* p : pinned) cudaFreeHost(p);
      }
    }

    // ---- G2 MSM: bases resident, scalars from pinned host memory, the CPU beside it ----
    if (wants("g2_msm")) {
      std::vector<unsigned> sizes = {20, 22, 24};
      if (quick) sizes = {20};
      unsigned top = 0;
      for (unsigned k : sizes)
        if (k <= max_log) top = k;
      if (top > 0) {
        const std::size_t nmax = std::size_t{1} << top;
        const auto t_gen = std::chrono::steady_clock::now();
        const auto host_bases = bench::random_g2_points(nmax, 20261202);
        std::uint32_t* pinned[2] = {nullptr, nullptr};
        for (auto& p : pinned) check_cuda(cudaMallocHost(&p, nmax * 32), "cudaMallocHost(scalars)");
        bench::random_scalars(pinned[0], nmax, 3);
        bench::random_scalars(pinned[1], nmax, 4);
        std::printf("g2_msm inputs: %zu random G2 points and 2 x %zu scalars made in %.1f s\n", nmax,
                    nmax, std::chrono::duration<double>(std::chrono::steady_clock::now() - t_gen).count());
        memory::DeviceBuffer<msm::G2AffineRaw> d_bases(alloc, nmax, b.stream, "bench_g2_bases");
        check_cuda(cudaMemcpyAsync(d_bases.get(), host_bases.data(), nmax * sizeof(msm::G2AffineRaw),
                                   cudaMemcpyHostToDevice, b.stream),
                   "cudaMemcpyAsync(g2 bases)");
        memory::DeviceBuffer<std::uint32_t> d_scalars(alloc, 8 * nmax, b.stream, "bench_g2_scalars");
        // Fp multiplications of one G2 mixed addition (8M + 2S over Fp2: 8·3 + 2·2) and of one
        // full addition (12M + 2S: 40); the multiply-adds of one Fp multiplication as for G1.
        const double imad_per_fp_mul = 4.0 * 144 + 24;
        const auto g2_case = [&](unsigned log_n) {
          const std::size_t n = std::size_t{1} << log_n;
          msm::MsmShape shape;
          msm::G2XyzzRaw last{};
          Row r;
          r.name = "g2_msm";
          r.log_n = log_n;
          r.stats = b.measure([](int) {}, [&](int rep) {
            check_cuda(cudaMemcpyAsync(d_scalars.get(), pinned[rep & 1], n * 32,
                                       cudaMemcpyHostToDevice, b.stream),
                       "cudaMemcpyAsync(scalars)");
            last = msm::g2_run_indexed(alloc, d_bases.get(), nullptr, d_scalars.get(), n, b.stream,
                                       {}, "bench_g2_msm", &shape);
          });
          std::ostringstream v;
          v << "c" << shape.window_bits << " W" << shape.windows;
          if (shape.wide_windows < shape.windows) v << " wide" << shape.wide_windows;
          v << " K" << (shape.entries + shape.chunks - 1) / shape.chunks;
          r.variant = v.str();
          const double madds = double(n) * shape.windows;
          const double fp_muls = madds * 28 + 2.0 * shape.reduced_buckets * 40;
          r.model_ms = r.model_compute_ms = fp_muls * imad_per_fp_mul / imad_rate * 1e3;
          std::ostringstream os;
          os << madds / (r.stats.median * 1e-3) / 1e9 << " G bucket-adds/s; scratch "
             << shape.scratch_bytes / double(1 << 20) << " MiB; phases (last rep) ms:";
          for (int ph = 0; ph < msm::MsmShape::kPhases; ++ph)
            os << " " << msm::MsmShape::kPhaseNames[ph] << " " << shape.phase_ms[ph];
          double cpu_s = 0;
          const int last_rep = b.warmup + b.reps - 1;
          const bool ok = bench::equals_cpu_g2_msm(host_bases, pinned[last_rep & 1], n, last, &cpu_s);
          r.cpu_ms = cpu_s * 1e3;
          os << "; CPU (core/msm, " << bench::host_threads() << " threads) " << r.cpu_ms
             << " ms = " << r.cpu_ms / r.stats.median << "x the device; check vs core/msm: "
             << (ok ? "PASS" : "FAIL");
          if (!ok) std::fprintf(stderr, "G2 MSM 2^%u: device result differs from core/msm\n", log_n);
          r.note = os.str();
          rows.push_back(r);
          print_row(r);
        };
        for (unsigned k : sizes)
          if (k <= max_log) g2_case(k);
        for (auto* p : pinned) cudaFreeHost(p);
      }
    }

    // ---- sparse products: matrices resident, witness uploaded, the host's products beside ----
    if (wants("sparse_products")) {
      std::vector<unsigned> sizes = {20, 22, 24};
      if (quick) sizes = {20};
      for (unsigned k : sizes) {
        if (k > max_log) continue;
        const auto t_gen = std::chrono::steady_clock::now();
        bench::SparseProductsCase sp(std::uint64_t{1} << k, alloc, b.stream);
        std::printf("sparse_products inputs: porep-like 2^%u (domain 2^%u, %llu nonzeros) made in %.1f s\n", k,
                    sp.log_domain(), static_cast<unsigned long long>(sp.nonzeros()),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t_gen).count());
        Row r;
        r.name = "sparse_products";
        r.variant = "porep-like, thread per row";
        r.log_n = sp.log_domain();
        r.stats = b.measure([](int) {}, [&](int) { sp.products(b.stream); });
        const Stats upload = b.measure([](int) {}, [&](int) { sp.upload_witness(b.stream); });
        // The same upload from the witness page-locked in place, and what locking costs: the
        // lever for a stage that pins the witness before the GPU lock (docs/gpu.md "Left open").
        std::vector<double> pin_ms, unpin_ms;
        for (int i = 0; i < 3; ++i) {
          pin_ms.push_back(sp.pin_witness());
          if (i + 1 < 3) unpin_ms.push_back(sp.unpin_witness());
        }
        const Stats pinned_upload = b.measure([](int) {}, [&](int) { sp.upload_witness(b.stream); });
        unpin_ms.push_back(sp.unpin_witness());
        r.cpu_ms = sp.host_products_ms();
        const bool ok = sp.device_equals_host();
        // Bytes the kernel must read at least: the three matrices once, the witness once.
        r.dram_bytes = double(sp.matrix_bytes() + sp.witness_bytes());
        r.model_ms = r.model_memory_ms = r.dram_bytes / mem_bw * 1e3;
        std::ostringstream os;
        os << sp.nonzeros() / (r.stats.median * 1e-3) / 1e9 << " G nonzeros/s; matrices "
           << sp.matrix_bytes() / double(1 << 20) << " MiB resident; witness upload (pageable) "
           << upload.median << " ms for " << sp.witness_bytes() / double(1 << 20) << " MiB, page-locked "
           << pinned_upload.median << " ms (cudaHostRegister " << *prooflab::stats::median(pin_ms) << " ms, cudaHostUnregister "
           << *prooflab::stats::median(unpin_ms) << " ms, medians of 3); CPU (evaluate_all, "
           << bench::host_threads() << " threads) " << r.cpu_ms << " ms = " << r.cpu_ms / r.stats.median
           << "x the device; check vs evaluate_all: " << (ok ? "PASS" : "FAIL");
        if (!ok) std::fprintf(stderr, "sparse products 2^%u: device a, b, c differ from evaluate_all\n", k);
        r.note = os.str();
        rows.push_back(r);
        print_row(r);
      }
    }

    // ---- prep_msm: the witness on the device, the host's prep_msm beside ----
    if (wants("prep_msm")) {
      std::vector<unsigned> sizes = {20, 22, 24};
      if (quick) sizes = {20};
      for (unsigned k : sizes) {
        if (k > max_log) continue;
        const auto t_gen = std::chrono::steady_clock::now();
        bench::PrepMsmCase pm(std::uint64_t{1} << k, alloc, b.stream);
        std::printf("prep_msm inputs: porep-like 2^%u (domain 2^%u, %llu variables) made in %.1f s\n", k,
                    pm.log_domain(), static_cast<unsigned long long>(pm.variables()),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t_gen).count());
        Row r;
        r.name = "prep_msm";
        r.variant = "porep-like, L A B_G1 B_G2, thread per 32 positions";
        r.log_n = pm.log_domain();
        r.stats = b.measure([](int) {}, [&](int) { pm.device_plan(b.stream); });
        check_cuda(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize(prep_msm)");
        r.cpu_ms = pm.host_prep_msm_ms();
        const bool ok = pm.device_equals_host();
        r.dram_bytes = double(pm.min_bytes());
        r.model_ms = r.model_memory_ms = r.dram_bytes / mem_bw * 1e3;
        std::ostringstream os;
        os << pm.positions() / (r.stats.median * 1e-3) / 1e9 << " G positions/s; " << pm.tails()
           << " tails; CPU (groth16::prep_msm, 1 thread) " << r.cpu_ms << " ms = " << r.cpu_ms / r.stats.median
           << "x the device; check vs prep_msm: " << (ok ? "PASS" : "FAIL");
        if (!ok) std::fprintf(stderr, "prep_msm 2^%u: the device plan differs from groth16::prep_msm\n", k);
        r.note = os.str();
        rows.push_back(r);
        print_row(r);
      }
    }

    // ---- JSON ----
    FILE* f = std::fopen(json_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", json_path.c_str());
      return 1;
    }
    const std::time_t now = std::time(nullptr);
    char stamp[64];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::fprintf(f, "{\n  \"context\": {\"date\": \"%s\", \"device\": \"%s\", \"sm_count\": %d, "
                 "\"clock_mhz\": %.0f, \"l2_bytes\": %d, \"memory_bytes\": %llu, \"driver\": %d, "
                 "\"runtime\": %d, \"reps\": %d, \"warmup\": %d, \"l2_flush_bytes\": %zu, "
                 "\"imad_rate_assumed\": %.4g, \"memory_bw_measured\": %.4g, \"imad_per_fr_mul\": %.0f},\n",
                 stamp, json_escape(dev.name).c_str(), dev.sm_count, clock_hz / 1e6, prop.l2CacheSize,
                 static_cast<unsigned long long>(dev.memory_bytes), dev.driver_version,
                 dev.runtime_version, b.reps, b.warmup, b.flush_bytes, imad_rate, mem_bw,
                 ntt::kImadPerFrMul);
    std::fprintf(f, "  \"benchmarks\": [\n");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::fprintf(f, "    {\"name\": \"%s\", \"variant\": \"%s\", \"log_n\": %u, \"median_ms\": %.6f, "
                   "\"min_ms\": %.6f, \"max_ms\": %.6f, \"mean_ms\": %.6f, \"model_ms\": %.6f, "
                   "\"model_compute_ms\": %.6f, \"model_memory_ms\": %.6f, \"fr_muls\": %.6g, "
                   "\"dram_bytes\": %.6g, \"cpu_ms\": %.6f, \"passes\": %u, \"plan\": \"%s\", \"note\": \"%s\", \"samples_ms\": [",
                   r.name.c_str(), json_escape(r.variant).c_str(), r.log_n, r.stats.median,
                   r.stats.min, r.stats.max, r.stats.mean, r.model_ms, r.model_compute_ms,
                   r.model_memory_ms, r.fr_muls, r.dram_bytes, r.cpu_ms, r.passes, json_escape(r.plan).c_str(),
                   json_escape(r.note).c_str());
      for (std::size_t j = 0; j < r.stats.ms.size(); ++j)
        std::fprintf(f, "%s%.6f", j ? ", " : "", r.stats.ms[j]);
      std::fprintf(f, "]}%s\n", i + 1 < rows.size() ? "," : "");
    }
    const auto st = alloc.stats();
    std::fprintf(f, "  ],\n  \"allocator\": {\"peak_bytes\": %llu, \"reserved_high_bytes\": %llu}\n}\n",
                 static_cast<unsigned long long>(st.peak),
                 static_cast<unsigned long long>(st.reserved_high));
    std::fclose(f);
    std::printf("json: %s\n", json_path.c_str());
    flush.reset();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prooflab_gpu_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
