#include "gpu/h/h.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/h/coset_values_kernel.hpp"
#include "gpu/ntt/ntt_kernel.hpp"

namespace prooflab::gpu::ntt {

HComputer::HComputer(memory::DeviceAllocator& alloc) : alloc_(&alloc) {
  for (auto& s : side_)
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate(h side)");
  check_cuda(cudaEventCreateWithFlags(&start_, cudaEventDisableTiming), "cudaEventCreate(h)");
  for (auto& e : joined_)
    check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate(h)");
}

HComputer::~HComputer() {
  for (auto s : side_)
    if (s) cudaStreamSynchronize(s), cudaStreamDestroy(s);
  for (auto e : {start_, joined_[0], joined_[1]})
    if (e) cudaEventDestroy(e);
}

void HComputer::compute(Fr32* a, Fr32* b, Fr32* c, const Domain& d, cudaStream_t stream,
                        const HOptions& opt) {
  if (!a || !b || a == b || (c && (b == c || a == c)))
    throw std::invalid_argument("gpu compute_h: a, b, c must be three distinct device arrays");
  if (!c && !opt.coset_values)
    throw std::invalid_argument("gpu compute_h: c may be null only with coset_values (a key that folds C in)");
  const TablesView& t = d.tables();
  const bool multi_pass = plan_shapes(d.log_size(), opt.plan).size() > 1;
  const std::size_t scratch_n = multi_pass ? d.size() : 0;

  cudaStream_t streams[3] = {stream, stream, stream};
  if (opt.concurrent) {
    check_cuda(cudaEventRecord(start_, stream), "cudaEventRecord(h start)");
    for (int i = 0; i < 2; ++i) {
      check_cuda(cudaStreamWaitEvent(side_[i], start_, 0), "cudaStreamWaitEvent(h start)");
      streams[i + 1] = side_[i];
    }
  }
  {
    // One scratch per concurrent chain (a single one, reused in stream order, otherwise);
    // each is freed on its chain's stream once the chain has used it.
    memory::DeviceBuffer<Fr32> scratch[3];
    Fr32* xs[3] = {a, b, c};
    for (int i = 0; i < 3; ++i) {
      if (!xs[i]) continue;  // no c: its share is in the key
      if (i == 0 || opt.concurrent)
        scratch[i] = memory::DeviceBuffer<Fr32>(*alloc_, scratch_n, streams[i], "h_scratch");
      Fr32* work = (opt.concurrent ? scratch[i] : scratch[0]).get();
      // iNTT with 1/n·g^i folded into its output, then a plain forward NTT: a coset NTT.
      launch_passes(make_passes(h_to_coset_inverse_spec(t), t, {xs[i], nullptr, nullptr, work, xs[i]},
                                opt.plan),
                    streams[i]);
      launch_passes(make_passes(forward_spec(t), t, {xs[i], nullptr, nullptr, work, xs[i]}, opt.plan),
                    streams[i]);
    }
  }
  if (opt.concurrent) {
    for (int i = 0; i < (c ? 2 : 1); ++i) {
      check_cuda(cudaEventRecord(joined_[i], side_[i]), "cudaEventRecord(h join)");
      check_cuda(cudaStreamWaitEvent(stream, joined_[i], 0), "cudaStreamWaitEvent(h join)");
    }
  }
  if (opt.coset_values) {
    launch_h_coset_values(a, b, c, a, d.size(), opt.canonical_output, stream);
    return;
  }
  // (a·b - c) on load, inverse coset NTT, Z(g)^-1 on store; b is dead after the first pass
  // reads it, so it serves as the work buffer.
  launch_passes(make_passes(h_final_spec(t, opt.canonical_output), t, {a, b, c, b, a}, opt.plan),
                stream);
}

}  // namespace prooflab::gpu::ntt
