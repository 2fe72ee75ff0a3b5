// Every CUDA runtime call of the backend goes through check_cuda: a failure becomes a
// CudaError that names the call, the runtime's error name and its message.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace prooflab::gpu {

class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what_call, cudaError_t code)
      : std::runtime_error(what_call + ": " + cudaGetErrorName(code) + " (" +
                           cudaGetErrorString(code) + ")"),
        code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void check_cuda(cudaError_t code, const char* what_call) {
  if (code != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    throw CudaError(what_call, code);
  }
}

// After a kernel launch: launch-configuration errors surface here, not at the <<<>>>.
inline void check_launch(const char* kernel) { check_cuda(cudaGetLastError(), kernel); }

}  // namespace prooflab::gpu
