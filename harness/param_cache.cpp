#include "harness/param_cache.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/groth16/setup.hpp"

namespace prooflab::harness {

namespace fs = std::filesystem;

fs::path default_param_dir() {
  if (const char* d = std::getenv("PROOFLAB_PARAM_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "prooflab/params";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache/prooflab/params";
  return fs::temp_directory_path() / "prooflab-params";
}

fs::path param_file_path(const fs::path& dir, const std::string& circuit, std::uint64_t constraints,
                         const groth16::CircuitShape& shape, groth16::HBasis h_basis) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(shape.shape_hash));
  const std::string basis = h_basis == groth16::HBasis::kMonomial ? "" : std::string("-") + groth16::h_basis_name(h_basis);
  return dir / (circuit + "-" + std::to_string(constraints) + "-" + hash + basis + ".params");
}

namespace {

// Reads the cached file and checks it fits the circuit (not only its shape hash).
groth16::ProvingKey read_cached(const fs::path& path, const r1cs::R1cs& cs,
                                const groth16::CircuitShape& shape, groth16::HBasis h_basis,
                                parallel::ThreadPool& pool) {
  auto pk = groth16::read_param_file(path, pool, &shape);
  if (pk.h_basis != h_basis)
    throw groth16::ParamFileError("parameter file " + path.string() + ": its H query is in the " +
                                  groth16::h_basis_name(pk.h_basis) + " basis, expected " +
                                  groth16::h_basis_name(h_basis));
  try {
    groth16::check_key_fits(pk, cs);
  } catch (const std::invalid_argument& e) {
    throw groth16::ParamFileError("parameter file " + path.string() + ": " + e.what());
  }
  return pk;
}

}  // namespace

LoadedParams load_or_generate_params(const fs::path& dir, const std::string& circuit,
                                     std::uint64_t constraints, const r1cs::R1cs& cs,
                                     parallel::ThreadPool& pool, bool generate_if_missing,
                                     std::optional<std::uint64_t> setup_seed, groth16::HBasis h_basis) {
  const auto shape = groth16::circuit_shape(cs);
  LoadedParams out;
  out.path = param_file_path(dir, circuit, constraints, shape, h_basis);
  if (fs::exists(out.path)) {
    out.pk = read_cached(out.path, cs, shape, h_basis, pool);
    return out;
  }
  if (!generate_if_missing)
    throw groth16::ParamFileError("no parameter file " + out.path.string() +
                                  " for this circuit shape; run `prooflab setup` first");
  std::printf("setup: generating parameters for %s (%llu constraints, domain %llu, H %s) ...\n",
              circuit.c_str(), static_cast<unsigned long long>(shape.num_constraints),
              static_cast<unsigned long long>(shape.domain_size), groth16::h_basis_name(h_basis));
  std::fflush(stdout);
  groth16::SetupStats stats;
  out.pk = groth16::generate_parameters(cs, groth16::ToxicWaste::generate(setup_seed), pool, &stats, h_basis);
  fs::create_directories(dir);
  // Several processes may generate the same shape at once (a shared cache under Slurm, an
  // external runner): the first file in place wins and every process proves with it, so a
  // proof always verifies against the cached key.
  if (!groth16::write_param_file(out.path, shape, out.pk, groth16::IfExists::kKeep)) {
    std::printf("setup: another process wrote %s first; using its parameters\n", out.path.c_str());
    out.pk = read_cached(out.path, cs, shape, h_basis, pool);
    return out;
  }
  out.generated = true;
  std::printf("setup: %llu G1 + %llu G2 points in %.2f s (%.0f points/s on %u threads; QAP %.2f s)\n"
              "setup: wrote %s (%.1f MiB)\n",
              static_cast<unsigned long long>(stats.g1_points),
              static_cast<unsigned long long>(stats.g2_points), stats.g1_seconds + stats.g2_seconds,
              stats.points_per_second(), pool.size(), stats.qap_seconds, out.path.c_str(),
              static_cast<double>(fs::file_size(out.path)) / (1 << 20));
  return out;
}

}  // namespace prooflab::harness
