// Groth16's H on the device: h = (a·b - c)/Z over the coset g·H, the same computation as
// core/groth16 compute_h (iNTT a, b, c; coset NTT; a·b - c; times Z(g)^-1; inverse coset NTT;
// keep n - 1 coefficients), organised as the reference provers do it: the three
// iNTT + coset-NTT chains of a, b and c on three streams, then one inverse coset NTT.
//
// Seven transforms (six with HOptions::coset_values), fused where the data allows:
//  - iNTT's 1/n and coset NTT's g^i are one table applied as iNTT writes its output;
//  - a·b - c is computed as the last transform loads its input (no separate pass), and
//    Z(g)^-1, 1/n, g^-i (and, for canonical output, R^-1) are one table applied as it
//    writes. So the only passes over memory are the transforms' own.
#pragma once

#include <cuda_runtime.h>

#include "gpu/memory/device_allocator.hpp"
#include "gpu/ntt/domain.hpp"
#include "gpu/ntt/plan.hpp"

namespace prooflab::gpu::ntt {

struct HOptions {
  // Canonical integers (what the MSM consumes: core's msm::Scalar layout) or Montgomery form.
  bool canonical_output = true;
  // For a coset H query (core/groth16/h_basis.hpp): a·b − c at the n coset points, element-wise
  // (coset_values.cuh) in place of the seventh transform; with c null (a key that folds C's
  // share in) a·b, and c's two transforms are not run either.
  bool coset_values = false;
  // Three streams for the a, b, c chains (3n elements of scratch at once) or one (n).
  bool concurrent = true;
  PlanOptions plan;
};

class HComputer {
 public:
  // Creates two side streams and the events that join them; scratch comes from `alloc`.
  explicit HComputer(memory::DeviceAllocator& alloc);
  ~HComputer();
  HComputer(const HComputer&) = delete;
  HComputer& operator=(const HComputer&) = delete;

  // a, b, c: n = d.size() device elements each, the QAP rows' evaluations in Montgomery form,
  // natural order (as core's synthesize leaves them). All three are overwritten. Once the
  // work queued on `stream` has run, a[0, n-1) holds h's n-1 coefficients and a[n-1] the
  // top coefficient the prover drops; with opt.coset_values a[0, n) holds a·b − c at the coset
  // points g·ω^i (core's compute_h_on_coset). Asynchronous; one call at a time per HComputer.
  // Throws DeviceOutOfMemory (stage "h_scratch") when the scratch does not fit the budget.
  void compute(Fr32* a, Fr32* b, Fr32* c, const Domain& d, cudaStream_t stream,
               const HOptions& opt = {});

 private:
  memory::DeviceAllocator* alloc_;
  cudaStream_t side_[2] = {nullptr, nullptr};
  cudaEvent_t start_ = nullptr, joined_[2] = {nullptr, nullptr};
};

}  // namespace prooflab::gpu::ntt
