// The options that pick a circuit, shared by setup / prove / verify / batch.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "harness/config_file.hpp"

namespace prooflab::harness {

struct CircuitOptions {
  std::string circuit = "porep-like";
  std::uint64_t constraints = 1 << 12;
  std::uint32_t partitions = 10;
  std::uint64_t seed = 0;  // partition p of job j uses witness seed  seed + 1000·j + p
  unsigned threads = 0;    // 0 = all hardware threads
  std::string param_dir;   // empty = default_param_dir()
};

inline void add_circuit_options(CLI::App* cmd, CircuitOptions& o, bool with_partitions) {
  cmd->add_option("--circuit", o.circuit, "porep-like | tiny | sha256 | poseidon-merkle")
      ->capture_default_str()
      ->check(config_key_check("circuit"));
  cmd->add_option("--constraints", o.constraints, "target constraints per partition")
      ->capture_default_str()
      ->check(config_key_check("constraints"));
  if (with_partitions)
    cmd->add_option("--partitions", o.partitions, "partition circuits per proof")
        ->capture_default_str()
        ->check(config_key_check("partitions"));
  cmd->add_option("--seed", o.seed, "witness seed")->capture_default_str();
  cmd->add_option("--threads", o.threads, "worker threads (0 = all)")
      ->capture_default_str()
      ->check(CLI::Range(0u, engine::kMaxThreads));
  cmd->add_option("--param-dir", o.param_dir, "parameter cache directory");
}

}  // namespace prooflab::harness
