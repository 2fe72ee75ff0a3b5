#include "gpu/ntt/ntt.hpp"

#include <stdexcept>
#include <string>

#include "gpu/ntt/ntt_kernel.hpp"

namespace prooflab::gpu::ntt {

const char* transform_name(Transform t) {
  switch (t) {
    case Transform::kForward: return "ntt";
    case Transform::kInverse: return "intt";
    case Transform::kCosetForward: return "coset_ntt";
    case Transform::kCosetInverse: return "coset_intt";
  }
  return "transform";
}

TransformSpec spec_for(Transform kind, const TablesView& t, Order order) {
  switch (kind) {
    case Transform::kForward: return forward_spec(t, order);
    case Transform::kInverse: return inverse_spec(t, order);
    case Transform::kCosetForward: return coset_forward_spec(t, order);
    case Transform::kCosetInverse: return coset_inverse_spec(t, order);
  }
  throw std::invalid_argument("gpu ntt: unknown transform kind");
}

std::size_t scratch_elements(const Domain& d, const PlanOptions& opt) {
  return plan_shapes(d.log_size(), opt).size() > 1 ? d.size() : 0;
}

void transform(Transform kind, Fr32* data, Fr32* scratch, const Domain& d, cudaStream_t stream,
               Order order, const PlanOptions& opt) {
  if (!data) throw std::invalid_argument(std::string("gpu ") + transform_name(kind) + ": null data");
  if (!scratch && scratch_elements(d, opt))
    throw std::invalid_argument(std::string("gpu ") + transform_name(kind) + ": size 2^" +
                                std::to_string(d.log_size()) + " needs n elements of scratch");
  // First pass data -> scratch (same positions), last pass scratch -> data (reordered).
  const TransformBuffers buf{data, nullptr, nullptr, scratch, data};
  launch_passes(make_passes(spec_for(kind, d.tables(), order), d.tables(), buf, opt), stream);
}

void transform(Transform kind, Fr32* data, const Domain& d, memory::DeviceAllocator& alloc,
               cudaStream_t stream, Order order, const PlanOptions& opt) {
  memory::DeviceBuffer<Fr32> scratch(alloc, scratch_elements(d, opt), stream, "ntt_scratch");
  transform(kind, data, scratch.get(), d, stream, order, opt);
}

void transform(Transform kind, const Fr32* in, Fr32* out, Fr32* scratch, const Domain& d,
               cudaStream_t stream, Order order, const PlanOptions& opt) {
  if (!in || !out || in == out)
    throw std::invalid_argument(std::string("gpu ") + transform_name(kind) +
                                ": out of place needs distinct, non-null in and out");
  if (!scratch && scratch_elements(d, opt))
    throw std::invalid_argument(std::string("gpu ") + transform_name(kind) + ": size 2^" +
                                std::to_string(d.log_size()) + " needs n elements of scratch");
  const TransformBuffers buf{in, nullptr, nullptr, scratch, out};
  launch_passes(make_passes(spec_for(kind, d.tables(), order), d.tables(), buf, opt), stream);
}

}  // namespace prooflab::gpu::ntt
