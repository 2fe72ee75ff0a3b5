#include "core/poly/domain.hpp"

namespace prooflab::poly {

EvaluationDomain EvaluationDomain::at_least(std::size_t min_size) {
  unsigned log = 0;
  while ((std::size_t{1} << log) < min_size) {
    if (++log > field::kFrTwoAdicity)
      throw std::invalid_argument("evaluation domain: " + std::to_string(min_size) +
                                  " points exceed the 2^32 supported by Fr");
  }
  return EvaluationDomain(log);
}

EvaluationDomain::EvaluationDomain(unsigned log_size) : log_size_(log_size) {
  if (log_size > field::kFrTwoAdicity)
    throw std::invalid_argument("evaluation domain: log size " + std::to_string(log_size) +
                                " exceeds Fr's two-adicity 32");
  omega_ = field::fr_root_of_unity(log_size);
  omega_inv_ = omega_.inverse();
  size_inv_ = Fr::from_u64(size()).inverse();
  const std::size_t half = size() / 2;
  twiddles_.resize(half);
  inverse_twiddles_.resize(half);
  Fr w = Fr::one(), wi = Fr::one();
  for (std::size_t j = 0; j < half; ++j) {
    twiddles_[j] = w;
    inverse_twiddles_[j] = wi;
    w *= omega_;
    wi *= omega_inv_;
  }
}

Fr EvaluationDomain::vanishing_at(const Fr& x) const {
  Fr xn = x;
  for (unsigned i = 0; i < log_size_; ++i) xn = xn.square();
  return xn - Fr::one();
}

}  // namespace prooflab::poly
