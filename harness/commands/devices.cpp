// `prooflab devices`: the GPUs this build can use, or why there are none.
#include <iostream>

#include "harness/commands/commands.hpp"
#ifdef PROOFLAB_HAVE_CUDA
#include "gpu/device_info.hpp"
#endif

namespace prooflab::harness {

void add_devices_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("devices", "List the CUDA devices this build can use");
  cmd->callback([] {
#ifdef PROOFLAB_HAVE_CUDA
    std::string why;
    const auto devices = gpu::list_devices(&why);
    if (devices.empty()) {
      std::cout << "no CUDA device: " << why << "\n";
      return;
    }
    for (const auto& d : devices)
      std::cout << "GPU " << d.index << ": " << d.name << ", sm_" << d.compute_major
                << d.compute_minor << ", " << d.sm_count << " SMs, "
                << d.memory_bytes / (1024.0 * 1024 * 1024) << " GiB, " << d.clock_khz / 1000
                << " MHz, driver " << d.driver_version << "\n";
#else
    std::cout << "this build has no CUDA backend (nvcc was not found or PROOFLAB_CUDA=OFF)\n";
#endif
  });
}

}  // namespace prooflab::harness
