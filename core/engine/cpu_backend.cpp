#include "core/engine/cpu_backend.hpp"

#include <stdexcept>

namespace prooflab::engine {
namespace {

using field::Fr;

// The partition's a, b, c in "device memory": real host buffers charged to the device.
class CpuDeviceBuffers final : public DeviceBuffers {
 public:
  CpuDeviceBuffers(EmulatedDevice& d, std::uint64_t bytes) : device_(d), bytes_(bytes) {}
  ~CpuDeviceBuffers() override { device_.release(bytes_); }
  std::uint64_t bytes() const override { return bytes_; }
  groth16::SynthesizedPartition data;  // only a, b, c are used

 private:
  EmulatedDevice& device_;
  std::uint64_t bytes_;
};

}  // namespace

CpuBackend::CpuBackend(int devices, std::uint64_t vram_limit, unsigned device_threads) {
  for (int d = 0; d < devices; ++d) {
    devices_.push_back(std::make_unique<EmulatedDevice>(d, vram_limit ? vram_limit : kDefaultVram));
    pools_.push_back(std::make_unique<parallel::ThreadPool>(device_threads, "device" + std::to_string(d)));
  }
}

// a (32 B/element), b and c (64 B together) as the reference's d_a and d_bc, staged for the
// partition; plus MSM scratch of about 13 B/element (1.6–1.8 GiB at 2^27 in the reference),
// taken for the GPU phase only, as the CUDA backend's allocator does.
constexpr std::uint64_t kStagedBytesPerElement = 32 + 64, kScratchBytesPerElement = 13;

std::uint64_t CpuBackend::partition_vram_bytes(std::size_t domain_size) const {
  return static_cast<std::uint64_t>(domain_size) * (kStagedBytesPerElement + kScratchBytesPerElement);
}

std::unique_ptr<DeviceBuffers> CpuBackend::stage(int device, const groth16::SynthesizedPartition& part,
                                                 const char* stage_name) {
  if (part.products_on_device)
    throw std::logic_error("backend '" + name() +
                           "' computes no sparse products on a device: config key "
                           "'sparse_products' = gpu needs backend = cuda");
  EmulatedDevice& dev = *devices_.at(device);
  DeviceOperation op(dev);
  const std::uint64_t bytes = static_cast<std::uint64_t>(part.a.size()) * kStagedBytesPerElement;
  dev.allocate(bytes, stage_name);
  auto buffers = std::make_unique<CpuDeviceBuffers>(dev, bytes);
  buffers->data.a = part.a;  // the upload: a real copy through memory
  buffers->data.b = part.b;
  buffers->data.c = part.c;
  buffers->data.witness.input = part.witness.input;  // a key that folds C in takes the inputs' share
  return buffers;
}

void CpuBackend::synchronize(int device) { devices_.at(device)->synchronize(); }

void CpuBackend::trim_pool(int device) {
  // cudaMemPoolTrimTo is device-global as well: it waits for the pool's users.
  devices_.at(device)->synchronize();
}

groth16::GpuPhaseSums CpuBackend::run_gpu_phase(int device, const groth16::ProvingKey& pk,
                                                DeviceBuffers& buffers, const groth16::MsmPlan& plan,
                                                const trace::SubstageHook& on_substage) {
  EmulatedDevice& dev = *devices_.at(device);
  parallel::ThreadPool& pool = *pools_.at(device);
  DeviceOperation op(dev);
  auto& part = static_cast<CpuDeviceBuffers&>(buffers).data;
  const std::uint64_t scratch = static_cast<std::uint64_t>(part.a.size()) * kScratchBytesPerElement;
  dev.allocate(scratch, "gpu_phase scratch");
  struct Release {
    EmulatedDevice& d;
    std::uint64_t bytes;
    ~Release() { d.release(bytes); }
  } release_scratch{dev, scratch};
  return groth16::gpu_phase(pk, part, plan, pool, nullptr, on_substage);
}

std::map<std::string, double> CpuBackend::pool_cpu_seconds() const {
  std::map<std::string, double> out;
  for (std::size_t d = 0; d < pools_.size(); ++d) out["device" + std::to_string(d)] = pools_[d]->cpu_seconds();
  return out;
}

}  // namespace prooflab::engine
