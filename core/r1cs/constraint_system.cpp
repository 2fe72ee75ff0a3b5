#include "core/r1cs/constraint_system.hpp"

#include <algorithm>

#include "core/memory/huge_pages.hpp"

namespace prooflab::r1cs {

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kShape:
      return "shape";
    case Mode::kWitness:
      return "witness";
    case Mode::kBoth:
      return "both";
  }
  return "?";
}

void ConstraintSystem::too_many(const char* what) {
  throw std::length_error(std::string("constraint system: more than 2^31 ") + what);
}

ConstraintSystem::ConstraintSystem(Mode mode) : mode_(mode) {
  if (records_values()) input_.push_back(Fr::one());
  if (records_shape()) {
    annotations_.scopes.emplace_back();  // the root scope ""
    scope_ids_.emplace("", 0);
  }
}

void ConstraintSystem::reserve(std::size_t aux, std::size_t constraints,
                               std::size_t nonzeros_per_matrix) {
  // The aux values are the witness's one large array (32 B per variable): huge pages spare
  // its first-touch faults on the synthesising thread.
  if (records_values()) memory::reserve_huge(aux_, aux);
  if (records_shape()) {
    annotations_.tags.reserve(constraints);
    for (auto& m : matrices_) {
      m.row_ptr.reserve(constraints + 1);
      m.vars.reserve(nonzeros_per_matrix);
      m.coeff_ids.reserve(nonzeros_per_matrix);
    }
  }
}

Witness ConstraintSystem::witness() const {
  if (!records_values())
    throw std::logic_error("ConstraintSystem::witness(): a system in mode 'shape' keeps no values");
  return Witness{input_, aux_};
}

Witness ConstraintSystem::take_witness() {
  if (!records_values())
    throw std::logic_error(
        "ConstraintSystem::take_witness(): a system in mode 'shape' keeps no values");
  Witness w{std::move(input_), std::move(aux_)};
  input_.clear();
  aux_.clear();
  return w;
}

void ConstraintSystem::push_scope(const char* label, std::uint32_t index) {
  if (!records_shape()) return;
  scope_stack_.push_back({scope_, path_.size()});
  if (!path_.empty()) path_.push_back('/');
  path_ += format_label(label, index);
  auto [it, inserted] =
      scope_ids_.try_emplace(path_, static_cast<std::uint32_t>(annotations_.scopes.size()));
  if (inserted) annotations_.scopes.push_back(path_);
  scope_ = it->second;
}

void ConstraintSystem::pop_scope() {
  if (!records_shape()) return;
  assert(!scope_stack_.empty() && "pop_scope without push_scope");
  const Frame f = scope_stack_.back();
  scope_stack_.pop_back();
  scope_ = f.scope;
  path_.resize(f.path_length);
}

std::uint32_t ConstraintSystem::site_of(const char* label) {
  const SiteKey key{scope_, label};
  if (key == last_site_key_) return last_site_;
  auto [it, inserted] =
      site_ids_.try_emplace(key, static_cast<std::uint32_t>(annotations_.sites.size()));
  if (inserted) annotations_.sites.push_back({scope_, label});
  last_site_key_ = key;
  last_site_ = it->second;
  return last_site_;
}

void ConstraintSystem::record(const LinearCombination& a, const LinearCombination& b,
                              const LinearCombination& c, Annotation annotation) {
  record_row(matrices_[0], a);
  record_row(matrices_[1], b);
  record_row(matrices_[2], c);
  annotations_.tags.push_back({site_of(annotation.label), annotation.index});
}

// Appends one row: terms sorted by packed variable, equal variables merged, zero sums dropped.
void ConstraintSystem::record_row(MatrixBuilder& m, const LinearCombination& lc) {
  const auto terms = lc.terms();
  auto& s = scratch_;
  s.clear();
  for (const Term& t : terms) s.emplace_back(pack(t.var), t.coeff);
  const auto by_var = [](const auto& x, const auto& y) { return x.first < y.first; };
  if (s.size() <= 16) {
    for (std::size_t i = 1; i < s.size(); ++i)  // insertion sort: stable, tiny rows
      for (std::size_t j = i; j > 0 && s[j].first < s[j - 1].first; --j) std::swap(s[j], s[j - 1]);
  } else {
    std::stable_sort(s.begin(), s.end(), by_var);
  }
  std::size_t i = 0;
  while (i < s.size()) {
    const std::uint32_t var = s[i].first;
    Fr sum = s[i].second;
    std::size_t j = i + 1;
    for (; j < s.size() && s[j].first == var; ++j) sum += s[j].second;
    if (!sum.is_zero()) {
      assert((var & kMaxVariableIndex) < ((var & kPackedAuxBit) ? num_aux_ : num_inputs_) &&
             "variable not allocated");
      m.vars.push_back(var);
      m.coeff_ids.push_back(coefficients_.intern(sum));
    }
    i = j;
  }
  m.row_ptr.push_back(m.vars.size());
}

}  // namespace prooflab::r1cs
