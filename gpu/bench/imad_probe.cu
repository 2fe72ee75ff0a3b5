// imad_probe: the throughput of the 32-bit integer multiply forms on the device, which decides
// how the field multiplication should be written (docs/gpu.md, "Field arithmetic"). Each case
// runs independent chains (8 per thread, 8 blocks of 256 threads per SM) and prints warp
// instructions per clock per SM and the cycles one warp instruction holds its pipe on one of
// the four schedulers (H200, 2026-11-30: mad.lo 2.0, mad.hi 4.1, add 1.0 per PTX add; a
// mad.lo.cc + madc.hi pair on one product 6.4 for the two).
//   build/bench/imad_probe
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
constexpr int kAcc = 8, kIters = 2048;
// kOp picks the instruction form (see main); each thread runs kAcc independent chains.
template <int kOp>
__global__ void __launch_bounds__(256) probe_kernel(uint32_t* out, uint32_t seed) {
  uint32_t a = threadIdx.x * 2654435761u + seed, b = a ^ 0x9e3779b9u;
  uint32_t x[kAcc], y[kAcc];
#pragma unroll
  for (int i = 0; i < kAcc; ++i) x[i] = a + i, y[i] = b ^ i;
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int i = 0; i < kAcc; ++i) {
      if constexpr (kOp == 0)
        asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x[i]) : "r"(y[i]), "r"(a));
      if constexpr (kOp == 1)
        asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(x[i]) : "r"(y[i]), "r"(a));
      if constexpr (kOp == 2) {
        uint64_t w;
        asm volatile("mad.wide.u32 %0, %1, %2, %3;"
                     : "=l"(w)
                     : "r"(x[i]), "r"(y[i]), "l"((uint64_t(a) << 32) | b));
        x[i] = uint32_t(w) ^ uint32_t(w >> 32);
      }
      if constexpr (kOp == 3) asm volatile("add.u32 %0, %0, %1;" : "+r"(x[i]) : "r"(y[i]));
      if constexpr (kOp == 4) {  // carry chain pair on the same product: mad.lo.cc + madc.hi
        asm volatile("mad.lo.cc.u32 %0, %0, %2, %1;\n\tmadc.hi.u32 %1, %0, %2, %1;"
                     : "+r"(x[i]), "+r"(y[i])
                     : "r"(a));
      }
      if constexpr (kOp == 5) {  // add.cc + addc
        asm volatile("add.cc.u32 %0, %0, %1;\n\taddc.u32 %1, %1, %0;" : "+r"(x[i]), "+r"(y[i]));
      }
      if constexpr (kOp == 6) {  // mad.lo.cc + madc.hi.cc + addc: the CIOS step as we write it
        asm volatile(
            "mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;\n\taddc.u32 %2, %2, 0;"
            : "+r"(x[i]), "+r"(y[i]), "+r"(a)
            : "r"(b));
      }
    }
  }
  uint32_t r = 0;
#pragma unroll
  for (int i = 0; i < kAcc; ++i) r ^= x[i] ^ y[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "imad_probe: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

// Best of 5 timed launches after a warm-up; ops_per_chain PTX instructions per chain step.
template <int kOp>
void run(const char* name, int sms, int ops_per_chain) {
  const int blocks = sms * 8, threads = 256;
  uint32_t* out = nullptr;
  check(cudaMalloc(&out, std::size_t(blocks) * threads * 4), "cudaMalloc");
  cudaEvent_t t0, t1;
  check(cudaEventCreate(&t0), "cudaEventCreate");
  check(cudaEventCreate(&t1), "cudaEventCreate");
  probe_kernel<kOp><<<blocks, threads>>>(out, 1);
  check(cudaGetLastError(), name);
  float best = 1e9f;
  for (int r = 0; r < 5; ++r) {
    check(cudaEventRecord(t0), "cudaEventRecord");
    probe_kernel<kOp><<<blocks, threads>>>(out, r);
    check(cudaEventRecord(t1), "cudaEventRecord");
    check(cudaEventSynchronize(t1), name);
    float ms = 0;
    check(cudaEventElapsedTime(&ms, t0, t1), "cudaEventElapsedTime");
    if (ms < best) best = ms;
  }
  int clock_khz = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "clock rate");
  const double warp_instr = double(blocks) * threads / 32 * kIters * kAcc * ops_per_chain;
  const double per_sm_clk = warp_instr / sms / (best * 1e-3 * clock_khz * 1e3);
  std::printf("%-28s %8.3f ms  %.3f warp-instr/clk/SM  (%.1f cycles per warp-instr per SMSP)\n",
              name, best, per_sm_clk, 4.0 / per_sm_clk);
  check(cudaFree(out), "cudaFree");
}

int main() {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess || sms == 0) {
    std::fprintf(stderr, "imad_probe: no GPU\n");
    return 1;
  }
  run<0>("IMAD (mad.lo)", sms, 1);
  run<1>("IMAD.HI (mad.hi)", sms, 1);
  run<2>("IMAD.WIDE (mad.wide)", sms, 1);
  run<3>("IADD3 (add)", sms, 1);
  run<4>("mad.lo.cc+madc.hi pair", sms, 2);
  run<5>("add.cc+addc pair", sms, 2);
  run<6>("mad.lo.cc+madc.hi.cc+addc", sms, 3);
}
