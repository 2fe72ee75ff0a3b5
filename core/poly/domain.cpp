#include "core/poly/domain.hpp"

namespace prooflab::poly {

// The one instantiation the prover uses; other fields (the toy field of the known-answer
// test) instantiate the header's definitions where they are used.
template class BasicEvaluationDomain<Fr>;

}  // namespace prooflab::poly
