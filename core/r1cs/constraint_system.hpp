// The constraint system a circuit is synthesised into. One type serves three uses, chosen by
// its mode:
//   kShape    records the constraints (as three growing CSR matrices) and their annotations,
//             not the values: run once per circuit shape, then compile() it into an R1cs.
//   kWitness  records only the values of the variables and counts the constraints: the
//             per-partition fast path (witness generation). Nothing per constraint is stored
//             or built, provided gadgets build their linear combinations inside enforce_with.
//   kBoth     both, for tests and satisfiability checks.
// Gadgets compute values in every mode and never branch on a value in a way that changes
// which variables or constraints they create, so all modes see the same shape.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/field/fr.hpp"
#include "core/r1cs/annotation.hpp"
#include "core/r1cs/coefficient_table.hpp"
#include "core/r1cs/linear_combination.hpp"
#include "core/r1cs/variable.hpp"
#include "core/r1cs/witness.hpp"

namespace prooflab::r1cs {

using field::Fr;

enum class Mode : std::uint8_t { kShape, kWitness, kBoth };
const char* mode_name(Mode m);

// One of A, B, C while it is being recorded: rows in CSR form, variables in packed form
// (see variable.hpp) because the number of inputs is only known at the end.
struct MatrixBuilder {
  std::vector<std::uint64_t> row_ptr{0};
  std::vector<std::uint32_t> vars;       // packed Variable, sorted and distinct within a row
  std::vector<std::uint32_t> coeff_ids;  // into the system's CoefficientTable
};

class ConstraintSystem {
 public:
  using Mode = r1cs::Mode;

  explicit ConstraintSystem(Mode mode);
  ConstraintSystem(const ConstraintSystem&) = delete;
  ConstraintSystem& operator=(const ConstraintSystem&) = delete;
  ConstraintSystem(ConstraintSystem&&) = default;
  ConstraintSystem& operator=(ConstraintSystem&&) = default;

  Mode mode() const { return mode_; }
  bool records_shape() const { return mode_ != Mode::kWitness; }
  bool records_values() const { return mode_ != Mode::kShape; }

  // Capacity hints (avoid regrowing multi-gigabyte vectors at PoRep scale).
  void reserve(std::size_t aux, std::size_t constraints, std::size_t nonzeros_per_matrix = 0);

  static constexpr Variable one() { return Variable::one(); }

  Variable alloc_input(const Fr& value) {
    const std::size_t i = num_inputs_++;
    check_index(i, "inputs");
    if (records_values()) input_.push_back(value);
    return Variable::input(static_cast<std::uint32_t>(i));
  }
  Variable alloc_aux(const Fr& value) {
    const std::size_t i = num_aux_++;
    check_index(i, "aux variables");
    if (records_values()) aux_.push_back(value);
    return Variable::aux(static_cast<std::uint32_t>(i));
  }
  Variable alloc_aux_bit(bool b) { return alloc_aux(b ? kOne : Fr::zero()); }

  // Records a·b = c. In kWitness mode only counts it: prefer enforce_with on hot paths so
  // that the linear combinations are not even built there.
  void enforce(const LinearCombination& a, const LinearCombination& b, const LinearCombination& c,
               Annotation annotation) {
    ++num_constraints_;
    if (records_shape()) record(a, b, c, annotation);
  }
  // build(a, b, c) fills three empty combinations; it is called only when the shape is
  // recorded.
  template <class Build>
  void enforce_with(Annotation annotation, Build&& build) {
    ++num_constraints_;
    if (!records_shape()) return;
    LinearCombination a, b, c;
    build(a, b, c);
    record(a, b, c, annotation);
  }

  std::size_t num_inputs() const { return num_inputs_; }
  std::size_t num_aux() const { return num_aux_; }
  std::size_t num_constraints() const { return num_constraints_; }

  // The value of a variable (kWitness / kBoth only).
  const Fr& value(Variable v) const {
    assert(records_values());
    return v.is_input() ? input_[v.index] : aux_[v.index];
  }
  // The assignment so far; take_witness() moves it out (the system keeps counting).
  // Both throw std::logic_error in kShape mode, which keeps no values.
  Witness witness() const;
  Witness take_witness();

  // Scopes prefix the annotations of the constraints recorded while they are open
  // ("sha256/round {}/maj"). They cost nothing in kWitness mode. Use the Scope guard.
  void push_scope(const char* label, std::uint32_t index = kNoIndex);
  void pop_scope();

  // The recorded shape, for compile().
  const MatrixBuilder& matrix(int which) const { return matrices_[which]; }
  MatrixBuilder& mutable_matrix(int which) { return matrices_[which]; }
  const CoefficientTable& coefficients() const { return coefficients_; }
  // The annotation table of the recorded constraints (scopes, sites, one tag per row).
  const AnnotationTable& annotations() const { return annotations_; }
  AnnotationTable& mutable_annotations() { return annotations_; }

 private:
  static constexpr Fr kOne = Fr::one();

  static void check_index(std::size_t i, const char* what) {
    if (i > kMaxVariableIndex) [[unlikely]]
      too_many(what);
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void too_many(const char* what);
  void record(const LinearCombination& a, const LinearCombination& b, const LinearCombination& c,
              Annotation annotation);
  void record_row(MatrixBuilder& m, const LinearCombination& lc);
  std::uint32_t site_of(const char* label);

  Mode mode_;
  std::size_t num_inputs_ = 1;  // ONE
  std::size_t num_aux_ = 0;
  std::size_t num_constraints_ = 0;
  std::vector<Fr> input_;
  std::vector<Fr> aux_;

  MatrixBuilder matrices_[3];
  CoefficientTable coefficients_;
  AnnotationTable annotations_;
  std::vector<std::pair<std::uint32_t, Fr>> scratch_;

  // Scope bookkeeping (shape modes only).
  struct Frame {
    std::uint32_t scope;
    std::size_t path_length;
  };
  std::vector<Frame> scope_stack_;
  std::string path_;
  std::uint32_t scope_ = 0;
  std::unordered_map<std::string, std::uint32_t> scope_ids_;
  struct SiteKey {
    std::uint32_t scope;
    const char* label;
    friend bool operator==(const SiteKey&, const SiteKey&) = default;
  };
  struct SiteKeyHash {
    std::size_t operator()(const SiteKey& k) const {
      return std::hash<const void*>()(k.label) ^ (std::size_t{k.scope} * 0x9e3779b97f4a7c15ULL);
    }
  };
  std::unordered_map<SiteKey, std::uint32_t, SiteKeyHash> site_ids_;
  SiteKey last_site_key_{~0u, nullptr};
  std::uint32_t last_site_ = 0;
};

// Opens a scope for its lifetime: `Scope s(cs, "challenge", i);`.
class Scope {
 public:
  Scope(ConstraintSystem& cs, const char* label, std::uint32_t index = kNoIndex) : cs_(cs) {
    cs_.push_scope(label, index);
  }
  ~Scope() { cs_.pop_scope(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  ConstraintSystem& cs_;
};

}  // namespace prooflab::r1cs
