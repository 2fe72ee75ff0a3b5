// The fraction of the batch addition's additions left when the ones of a porep-like witness are
// summed in groups of g consecutive bases with every group sum precomputed (one addition per
// group with any one): g = 2 is the pair table (gpu/msm/pair_table.hpp). Build and run (dev VM):
//   clang++ -std=c++20 -O2 -mbmi2 -madx -I. results/2026-12-05-batch-add-groups-porep-witness/groups_of_ones.cpp \
//     build/core/libprooflab_core.a -lgmp -lpthread -o /tmp/groups && /tmp/groups 4194304
#include <cstdio>
#include <vector>
#include "core/circuits/circuit.hpp"
#include "core/field/fr.hpp"
using namespace prooflab;
int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoul(argv[1]) : (1u << 20);
  const auto circuit = circuits::make_circuit("porep-like", n, 1);
  const auto w = circuits::synthesize_witness(*circuit);
  auto report = [](const char* name, const std::vector<bool>& ones) {
    std::size_t bits = 0, units = 0;
    for (std::size_t i = 0; i < ones.size(); ++i) bits += ones[i];
    for (std::size_t i = 0; i < ones.size(); i += 2) units += ones[i] || (i + 1 < ones.size() && ones[i + 1]);
    std::printf("%s: %zu values, %.1f %% ones; additions with pairs %zu of %zu = %.3f (independent bits: %.3f)\n", name,
                ones.size(), 100.0 * bits / ones.size(), units, bits, double(units) / bits,
                (1 - (1 - double(bits) / ones.size()) * (1 - double(bits) / ones.size())) / (2 * double(bits) / ones.size()));
    for (std::size_t g : {3, 4}) {
      std::size_t u = 0;
      for (std::size_t i = 0; i < ones.size(); i += g) {
        bool any = false;
        for (std::size_t j = i; j < i + g && j < ones.size(); ++j) any = any || ones[j];
        u += any;
      }
      std::printf("  groups of %zu (table: %zu entries per group): %.3f of the additions\n", g, (std::size_t{1} << g) - g - 1, double(u) / bits);
    }
  };
  std::vector<bool> all, aux;
  for (std::size_t c = 0; c < w.size(); ++c) all.push_back(w.column(c) == field::Fr::one());
  for (const auto& v : w.aux) aux.push_back(v == field::Fr::one());
  report("all variables (A, B_G1 columns)", all);
  report("aux (L)", aux);
}
