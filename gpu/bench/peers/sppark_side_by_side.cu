// The peer's side of the side-by-side timing (issue 24 item 3): supranational/sppark's BLS12-381
// G1 MSM and Fr NTT timed under the conditions prooflab_gpu_bench times ours, in the same device
// call. Not part of any default build: gpu/scripts/build_sppark_peer.sh compiles it against a
// checkout of sppark and of blst (its host field types) that the caller names; nothing of either
// is kept in this repository.
//
// Conditions, as prooflab_gpu_bench's `msm` and `ntt` rows (docs/gpu.md):
// - MSM: the points resident on the device (uploaded once, sppark's msm_t constructor), random
//   canonical scalars < r uploaded from pinned host memory in every call; one call is sppark's
//   msm_t::invoke, which copies the scalars, runs the kernels and folds the windows on the host,
//   and returns when the sum is on the host: timed with steady_clock around it. The points are
//   2^20 distinct G1 points (P_0 a random multiple of the generator, P_i = P_(i-1) + G), tiled
//   to n (the kernels' cost does not depend on which points; the same point twice in one bucket
//   takes the doubling branch, ~n/2^20 times in n·W additions).
// - NTT: in place on device memory, forward, natural order in and bit-reversed out (sppark's
//   "NR"), standard (not coset) domain, CUDA events around Base_dev_ptr on one stream.
// - 2 warm-up calls, then --reps (default 11) timed calls: median, min, max.
// Checks: the MSM at 2^16 against blst's own Pippenger on the host (same points and scalars),
// the NTT by a forward NR then inverse RN round trip at every size (the input returns).
//
//   sppark_side_by_side [--reps N] [--max-log K] [--json FILE]
#include <ff/bls12-381.hpp>
#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>
#include <ntt/ntt.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// The few blst entry points the driver needs, declared here: blst.h itself clashes with the
// vect.h that sppark's host field types (blst_t.hpp) include. Layouts as blst.h's: Montgomery
// 6 x 64-bit limbs per coordinate, Jacobian X, Y, Z.
namespace blst_api {
struct fp { uint64_t l[6]; };
struct p1 { fp x, y, z; };
struct p1_affine { fp x, y; };
}  // namespace blst_api
extern "C" {
void blst_p1_mult(blst_api::p1* out, const blst_api::p1* p, const uint8_t* scalar, size_t nbits);
void blst_p1_add_or_double_affine(blst_api::p1* out, const blst_api::p1* a, const blst_api::p1_affine* b);
const blst_api::p1* blst_p1_generator(void);
const blst_api::p1_affine* blst_p1_affine_generator(void);
void blst_p1s_to_affine(blst_api::p1_affine dst[], const blst_api::p1* const points[], size_t npoints);
size_t blst_p1s_mult_pippenger_scratch_sizeof(size_t npoints);
void blst_p1s_mult_pippenger(blst_api::p1* ret, const blst_api::p1_affine* const points[], size_t npoints,
                             const uint8_t* const scalars[], size_t nbits, uint64_t* scratch);
bool blst_p1_is_equal(const blst_api::p1* a, const blst_api::p1* b);
}
using blst_p1 = blst_api::p1;
using blst_p1_affine = blst_api::p1_affine;

namespace {

struct Row {
  std::string what;
  int log_n;
  std::vector<double> ms;
  std::string check;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Canonical scalars < r (little-endian 64-bit limbs), r's top limb 0x73eda753299d7d48.
void random_scalars(std::mt19937_64& rng, std::vector<uint64_t>& out, size_t n) {
  static const uint64_t r[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                0x73eda753299d7d48ull};
  out.resize(4 * n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t* s = &out[4 * i];
    for (;;) {
      for (int k = 0; k < 4; ++k) s[k] = rng();
      s[3] &= 0x7fffffffffffffffull;
      bool less = false;
      for (int k = 3; k >= 0; --k) {
        if (s[k] != r[k]) { less = s[k] < r[k]; break; }
      }
      if (less) break;
    }
  }
}

// 2^20 distinct G1 points in blst's affine form (Montgomery x, y: sppark's affine_t layout).
std::vector<blst_p1_affine> distinct_points(std::mt19937_64& rng, size_t m) {
  uint64_t k[4] = {rng(), rng(), rng(), rng() & 0x3fffffffffffffffull};
  blst_p1 p;
  blst_p1_mult(&p, blst_p1_generator(), reinterpret_cast<const uint8_t*>(k), 254);
  std::vector<blst_p1> jac(m);
  for (size_t i = 0; i < m; ++i) {
    jac[i] = p;
    blst_p1_add_or_double_affine(&p, &p, blst_p1_affine_generator());
  }
  std::vector<blst_p1_affine> aff(m);
  const blst_p1* ptrs[2] = {jac.data(), nullptr};
  blst_p1s_to_affine(aff.data(), ptrs, m);
  return aff;
}

bool msm_matches_blst(const std::vector<blst_p1_affine>& pts, const uint64_t* scalars, size_t n,
                      const point_t& got) {
  std::vector<uint64_t> scratch(blst_p1s_mult_pippenger_scratch_sizeof(n) / sizeof(uint64_t) + 1);
  const blst_p1_affine* pp[2] = {pts.data(), nullptr};
  const uint8_t* sp[2] = {reinterpret_cast<const uint8_t*>(scalars), nullptr};
  blst_p1 want;
  blst_p1s_mult_pippenger(&want, pp, n, sp, 255, scratch.data());
  static_assert(sizeof(point_t) == sizeof(blst_p1), "jacobian_t<fp_t> is blst_p1's X, Y, Z");
  blst_p1 have;
  std::memcpy(&have, &got, sizeof have);
  return blst_p1_is_equal(&want, &have);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 11, max_log = 24;
  const char* json = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--max-log" && i + 1 < argc) max_log = std::atoi(argv[++i]);
    else if (a == "--json" && i + 1 < argc) json = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--reps N>=3] [--max-log K in 16..26] [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 3 || max_log < 16 || max_log > 26) {
    std::fprintf(stderr, "--reps must be >= 3 and --max-log in 16..26 (got %d, %d)\n", reps, max_log);
    return 2;
  }
  static_assert(sizeof(affine_t) == sizeof(blst_p1_affine), "sppark's affine_t is blst's x, y");
  static_assert(sizeof(scalar_t) == 32, "fr_t is 4 limbs");
  std::mt19937_64 rng(24);
  std::vector<Row> rows;
  const gpu_t& gpu = select_gpu(0);
  std::printf("device: %s, %d SMs\n", gpu.props().name, gpu.sm_count());

  // MSM
  const size_t distinct = size_t{1} << 20;
  auto t0 = std::chrono::steady_clock::now();
  const std::vector<blst_p1_affine> base = distinct_points(rng, distinct);
  std::printf("points: %zu distinct made in %.1f s\n", distinct,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const size_t n_max = size_t{1} << std::min(max_log, 24);
  std::vector<blst_p1_affine> pts(n_max);
  for (size_t i = 0; i < n_max; ++i) pts[i] = base[i % distinct];
  std::vector<uint64_t> host_scalars;
  random_scalars(rng, host_scalars, n_max);
  uint64_t* pinned = nullptr;
  CUDA_OK(cudaMallocHost(&pinned, host_scalars.size() * sizeof(uint64_t)));
  std::memcpy(pinned, host_scalars.data(), host_scalars.size() * sizeof(uint64_t));
  for (int lg : {16, 20, 22, 24}) {
    if (lg > max_log) break;
    const size_t n = size_t{1} << lg;
    msm_t<bucket_t, point_t, affine_t, scalar_t> msm(reinterpret_cast<const affine_t*>(pts.data()), n);
    const auto* sc = reinterpret_cast<const scalar_t*>(pinned);
    point_t out;
    Row row{"msm_g1", lg, {}, ""};
    for (int r = 0; r < 2 + reps; ++r) {
      const auto s = std::chrono::steady_clock::now();
      RustError e = msm.invoke(out, static_cast<const affine_t*>(nullptr), n, sc, /*mont=*/false);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
      if (e.code != cudaSuccess) {
        std::fprintf(stderr, "sppark msm 2^%d failed: %s\n", lg, cudaGetErrorString(static_cast<cudaError_t>(e.code)));
        return 1;
      }
      if (r >= 2) row.ms.push_back(ms);
    }
    if (lg == 16) row.check = msm_matches_blst(pts, pinned, n, out) ? "PASS" : "FAIL";
    std::printf("sppark msm_g1 2^%d median %.3f ms (min %.3f max %.3f)%s%s\n", lg, median(row.ms),
                *std::min_element(row.ms.begin(), row.ms.end()), *std::max_element(row.ms.begin(), row.ms.end()),
                row.check.empty() ? "" : "; check vs blst: ", row.check.c_str());
    rows.push_back(row);
    if (row.check == "FAIL") return 1;
  }
  CUDA_OK(cudaFreeHost(pinned));

  // NTT
  for (int lg : {20, 22, 24, 26}) {
    if (lg > max_log) break;
    const size_t n = size_t{1} << lg;
    std::vector<uint64_t> h;
    random_scalars(rng, h, n);
    fr_t* d = nullptr;
    CUDA_OK(cudaMalloc(&d, n * sizeof(fr_t)));
    stream_t& st = gpu[0];
    CUDA_OK(cudaMemcpy(d, h.data(), n * sizeof(fr_t), cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    Row row{"ntt_nr", lg, {}, ""};
    for (int r = 0; r < 2 + reps; ++r) {
      CUDA_OK(cudaEventRecord(a, st));
      NTT::Base_dev_ptr(st, d, lg, NTT::InputOutputOrder::NR, NTT::Direction::forward, NTT::Type::standard);
      CUDA_OK(cudaEventRecord(b, st));
      CUDA_OK(cudaEventSynchronize(b));
      float ms = 0;
      CUDA_OK(cudaEventElapsedTime(&ms, a, b));
      if (r >= 2) row.ms.push_back(ms);
    }
    // Round trip: the array now holds NR^(2+reps) of h; undo each forward with an inverse RN.
    for (int r = 0; r < 2 + reps; ++r)
      NTT::Base_dev_ptr(st, d, lg, NTT::InputOutputOrder::RN, NTT::Direction::inverse, NTT::Type::standard);
    std::vector<uint64_t> back(h.size());
    CUDA_OK(cudaStreamSynchronize(st));
    CUDA_OK(cudaMemcpy(back.data(), d, n * sizeof(fr_t), cudaMemcpyDeviceToHost));
    row.check = back == h ? "PASS" : "FAIL";
    CUDA_OK(cudaFree(d));
    CUDA_OK(cudaEventDestroy(a));
    CUDA_OK(cudaEventDestroy(b));
    std::printf("sppark ntt NR 2^%d median %.3f ms (min %.3f max %.3f); round trip: %s\n", lg, median(row.ms),
                *std::min_element(row.ms.begin(), row.ms.end()), *std::max_element(row.ms.begin(), row.ms.end()),
                row.check.c_str());
    rows.push_back(row);
    if (row.check == "FAIL") return 1;
  }

  if (json) {
    FILE* f = std::fopen(json, "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", json);
      return 1;
    }
    std::fprintf(f, "{\"peer\": \"supranational/sppark\", \"device\": \"%s\", \"reps\": %d, \"rows\": [", gpu.props().name, reps);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::fprintf(f, "%s\n  {\"case\": \"%s\", \"log_n\": %d, \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, \"check\": \"%s\", \"ms\": [",
                   i ? "," : "", r.what.c_str(), r.log_n, median(r.ms), *std::min_element(r.ms.begin(), r.ms.end()),
                   *std::max_element(r.ms.begin(), r.ms.end()), r.check.c_str());
      for (size_t k = 0; k < r.ms.size(); ++k) std::fprintf(f, "%s%.4f", k ? ", " : "", r.ms[k]);
      std::fprintf(f, "]}");
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
  }
  return 0;
}
