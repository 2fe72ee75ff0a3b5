// `prooflab verify`: check a proof bundle against the parameters of its circuit shape.
// Exit status 0 only when every partition verifies; otherwise the reason per partition.
#include <cstdio>
#include <filesystem>

#include "core/circuits/circuit.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"
#include "harness/commands/commands.hpp"
#include "harness/param_cache.hpp"
#include "core/groth16/proof_bundle.hpp"

namespace prooflab::harness {

void add_verify_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("verify", "Verify a proof bundle written by `prooflab prove`");
  auto proof = std::make_shared<std::string>("proof/proof.bin");
  auto inputs = std::make_shared<std::string>("proof/public_inputs.json");
  auto param_dir = std::make_shared<std::string>();
  cmd->add_option("--proof", *proof, "proof file (192 bytes per partition)")->capture_default_str();
  cmd->add_option("--inputs", *inputs, "public inputs JSON")->capture_default_str();
  cmd->add_option("--param-dir", *param_dir, "parameter cache directory");
  cmd->callback([proof, inputs, param_dir] {
    const auto bundle = groth16::read_proof_bundle(*proof, *inputs);
    parallel::ThreadPool pool(0);
    const auto circuit = circuits::make_circuit(bundle.circuit, bundle.constraints, 0);
    const auto cs = circuits::synthesize_shape(*circuit);
    if (groth16::circuit_shape(cs).shape_hash != bundle.shape_hash)
      throw std::runtime_error(*inputs + ": shape_hash does not match the circuit " + bundle.circuit +
                               " at " + std::to_string(bundle.constraints) + " constraints");
    const auto dir = param_dir->empty() ? default_param_dir() : std::filesystem::path(*param_dir);
    const auto params = load_or_generate_params(dir, bundle.circuit, bundle.constraints, cs, pool,
                                                false, std::nullopt, bundle.h_basis);
    std::size_t bad = 0;
    for (std::size_t p = 0; p < bundle.proofs.size(); ++p) {
      const auto r = groth16::verify(params.pk.vk, bundle.proofs[p], bundle.public_inputs[p]);
      std::printf("partition %zu: %s%s\n", p, r ? "ok" : "INVALID: ", r.reason.c_str());
      bad += !r;
    }
    if (bad) throw std::runtime_error(std::to_string(bad) + " of " + std::to_string(bundle.proofs.size()) + " partition proofs are invalid");
    std::printf("verify: all %zu partition proofs valid\n", bundle.proofs.size());
  });
}

}  // namespace prooflab::harness
