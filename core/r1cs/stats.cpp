#include "core/r1cs/stats.hpp"

#include <cstdio>

#include "core/r1cs/evaluate.hpp"

namespace prooflab::r1cs {

namespace {
double ratio(std::size_t n, std::size_t d) { return d == 0 ? 0.0 : static_cast<double>(n) / d; }
}  // namespace

R1csStats stats(const R1cs& r1cs, const Witness& w) {
  check_witness_fits(r1cs, w, "stats");
  R1csStats s;
  s.num_constraints = r1cs.num_constraints;
  s.num_inputs = r1cs.num_inputs;
  s.num_aux = r1cs.num_aux;
  s.nnz_a = r1cs.a.nnz();
  s.nnz_b = r1cs.b.nnz();
  s.nnz_c = r1cs.c.nnz();
  s.distinct_coefficients = r1cs.a.coeffs.size();
  s.a_aux_dense = r1cs.a_aux_density.count();
  s.b_aux_dense = r1cs.b_aux_density.count();
  s.b_input_dense = r1cs.b_input_density.count();
  s.a_aux_density = ratio(s.a_aux_dense, s.num_aux);
  s.b_aux_density = ratio(s.b_aux_dense, s.num_aux);
  s.b_input_density = ratio(s.b_input_dense, s.num_inputs);
  for (std::size_t i = 0; i < w.aux.size(); ++i) {
    const field::Fr& v = w.aux[i];
    const bool significant = !v.is_zero() && !v.is_one();
    if (v.is_zero())
      ++s.aux_zero;
    else if (v.is_one())
      ++s.aux_one;
    else
      ++s.aux_significant;
    if (significant && r1cs.a_aux_density.test(i)) ++s.a_aux_significant;
    if (significant && r1cs.b_aux_density.test(i)) ++s.b_aux_significant;
  }
  s.aux_zero_fraction = ratio(s.aux_zero, s.num_aux);
  s.aux_one_fraction = ratio(s.aux_one, s.num_aux);
  s.aux_significant_fraction = ratio(s.aux_significant, s.num_aux);
  s.matrix_bytes = r1cs.a.bytes() + r1cs.b.bytes() + r1cs.c.bytes();
  return s;
}

std::string format_stats(const R1csStats& s) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "constraints %zu, inputs %zu, aux %zu\n"
                "nonzeros A %zu, B %zu, C %zu (%zu distinct coefficients, %.1f MiB of indices)\n"
                "density a_aux %.2f %%, b_aux %.2f %%, b_input %zu/%zu\n"
                "aux values: 0 %.2f %%, 1 %.2f %%, significant %.2f %%\n",
                s.num_constraints, s.num_inputs, s.num_aux, s.nnz_a, s.nnz_b, s.nnz_c,
                s.distinct_coefficients, static_cast<double>(s.matrix_bytes) / (1 << 20),
                100 * s.a_aux_density, 100 * s.b_aux_density, s.b_input_dense, s.num_inputs,
                100 * s.aux_zero_fraction, 100 * s.aux_one_fraction,
                100 * s.aux_significant_fraction);
  return buf;
}

}  // namespace prooflab::r1cs
