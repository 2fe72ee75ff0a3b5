// What happens to a job's proofs once its last partition has ended: each partition's proof
// verified against its public inputs (config key verify), then the bundle written to
// proofs/job_<n>/ of the run directory. Each returns why the job fails, or "" when it does not.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/groth16/keys.hpp"
#include "core/groth16/proof_bundle.hpp"

namespace prooflab::engine {

// "partition <p> proof does not verify: <why>" for the first partition whose proof fails.
std::string verify_job_proofs(const groth16::VerifyingKey& vk, const std::vector<groth16::Proof>& proofs,
                              const std::vector<std::vector<field::Fr>>& inputs);

// Writes `bundle` to proofs_dir/job_<job>: a proof that is not on disk is not a completed job
// (a full disk, no inodes left), so a failure is "writing the proofs: <why>".
std::string write_job_proofs(const std::filesystem::path& proofs_dir, int job, const groth16::ProofBundle& bundle);

}  // namespace prooflab::engine
