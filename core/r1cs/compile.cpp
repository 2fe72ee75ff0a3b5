#include <stdexcept>
#include <string>
#include <utility>

#include "core/r1cs/r1cs.hpp"

namespace prooflab::r1cs {

namespace {

void require_shape(const ConstraintSystem& cs) {
  if (!cs.records_shape())
    throw std::invalid_argument(std::string("compile: the constraint system is in mode '") +
                                mode_name(cs.mode()) +
                                "', which records no constraints (use 'shape' or 'both')");
}

// Turns packed variables into columns of [inputs..., aux...] in place.
CsrMatrix to_csr(MatrixBuilder&& m, std::size_t num_inputs, std::size_t num_aux,
                 const CoefficientTable& table) {
  CsrMatrix out;
  out.num_rows = m.row_ptr.size() - 1;
  out.num_cols = num_inputs + num_aux;
  out.row_ptr = std::move(m.row_ptr);
  out.cols = std::move(m.vars);
  out.coeff_ids = std::move(m.coeff_ids);
  out.coeffs = table.values();
  const auto ni = static_cast<std::uint32_t>(num_inputs);
  for (std::uint32_t& v : out.cols) v = (v & kPackedAuxBit) ? ni + (v & kMaxVariableIndex) : v;
  return out;
}

void mark(const CsrMatrix& m, std::size_t num_inputs, DensityBitmap* inputs, DensityBitmap* aux) {
  for (const std::uint32_t col : m.cols) {
    if (col < num_inputs) {
      if (inputs) inputs->set(col);
    } else if (aux) {
      aux->set(col - num_inputs);
    }
  }
}

// `builders` and `annotations` are consumed.
R1cs assemble(const ConstraintSystem& cs, MatrixBuilder* builders, AnnotationTable&& annotations,
              CompileOptions options) {
  R1cs r;
  r.num_inputs = cs.num_inputs();
  r.num_aux = cs.num_aux();
  r.num_constraints = cs.num_constraints();
  r.a = to_csr(std::move(builders[0]), r.num_inputs, r.num_aux, cs.coefficients());
  r.b = to_csr(std::move(builders[1]), r.num_inputs, r.num_aux, cs.coefficients());
  r.c = to_csr(std::move(builders[2]), r.num_inputs, r.num_aux, cs.coefficients());
  r.a_aux_density = DensityBitmap(r.num_aux);
  r.b_input_density = DensityBitmap(r.num_inputs);
  r.b_aux_density = DensityBitmap(r.num_aux);
  mark(r.a, r.num_inputs, nullptr, &r.a_aux_density);
  mark(r.b, r.num_inputs, &r.b_input_density, &r.b_aux_density);
  if (options.keep_annotations) r.annotations = std::move(annotations);
  return r;
}

}  // namespace

R1cs compile(ConstraintSystem&& cs, CompileOptions options) {
  require_shape(cs);
  MatrixBuilder builders[3] = {std::move(cs.mutable_matrix(0)), std::move(cs.mutable_matrix(1)),
                               std::move(cs.mutable_matrix(2))};
  return assemble(cs, builders, std::move(cs.mutable_annotations()), options);
}

R1cs compile(const ConstraintSystem& cs, CompileOptions options) {
  require_shape(cs);
  MatrixBuilder builders[3] = {cs.matrix(0), cs.matrix(1), cs.matrix(2)};
  AnnotationTable annotations = options.keep_annotations ? cs.annotations() : AnnotationTable{};
  return assemble(cs, builders, std::move(annotations), options);
}

}  // namespace prooflab::r1cs
