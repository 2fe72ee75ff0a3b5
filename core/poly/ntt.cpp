// The Fr instantiation of the transforms in ntt.hpp, compiled once here.
#include "core/poly/ntt.hpp"

namespace prooflab::poly {

template void ntt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
template void intt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
template void coset_ntt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
template void coset_intt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
template void scale_by_powers<Fr>(Elements<Fr>, const Fr&, const Fr&, parallel::ThreadPool&);

}  // namespace prooflab::poly
