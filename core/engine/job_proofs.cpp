#include "core/engine/job_proofs.hpp"

#include <exception>

#include "core/groth16/verifier.hpp"

namespace prooflab::engine {

std::string verify_job_proofs(const groth16::VerifyingKey& vk, const std::vector<groth16::Proof>& proofs,
                              const std::vector<std::vector<field::Fr>>& inputs) {
  for (std::size_t p = 0; p < proofs.size(); ++p) {
    const auto v = groth16::verify(vk, proofs[p], inputs.at(p));
    if (!v) return "partition " + std::to_string(p) + " proof does not verify: " + v.reason;
  }
  return "";
}

std::string write_job_proofs(const std::filesystem::path& proofs_dir, int job, const groth16::ProofBundle& bundle) {
  try {
    groth16::write_proof_bundle(proofs_dir / ("job_" + std::to_string(job)), bundle);
  } catch (const std::exception& e) {
    return std::string("writing the proofs: ") + e.what();
  }
  return "";
}

}  // namespace prooflab::engine
