#include "gpu/memory/host_registration.hpp"

#include <string>

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::memory {

HostRegistration::~HostRegistration() {
  for (void* p : ranges_) cudaHostUnregister(p);  // a destructor cannot report; the next call would
}

void HostRegistration::add(const void* p, std::size_t bytes, const char* what, Mode mode) {
  if (p == nullptr || bytes < kMinBytes) return;
  void* q = const_cast<void*>(p);  // CUDA's signature; the memory is only read by the copies
  if (mode == Mode::kPortableIfPossible) {
    if (cudaHostRegister(q, bytes, cudaHostRegisterPortable) != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it so the next call starts clean
      return;
    }
  } else {
    const std::string call = std::string("cudaHostRegister(") + what + ", " + std::to_string(bytes) + " bytes)";
    check_cuda(cudaHostRegister(q, bytes, cudaHostRegisterDefault), call.c_str());
  }
  ranges_.push_back(q);
  bytes_ += bytes;
}

}  // namespace prooflab::gpu::memory
