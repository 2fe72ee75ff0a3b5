// The sparse products a = A·w, b = B·w, c = C·w of synthesis: sparse matrix-vector
// products over mostly-0/1 values (docs/circuits.md: one kind byte per column, unreduced
// sums per row), run in chunks of rows on a thread pool. Between chunks a hook may
// run (the engine's synthesis throttle checks an atomic flag there and yields while b_g2_msm
// runs, like the reference's check every 64 chunks of 8192 rows).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/field/fr.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/r1cs/csr_matrix.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/witness.hpp"

namespace prooflab::r1cs {

inline constexpr std::size_t kDefaultChunkRows = 8192;

// Called once after each chunk of rows, by the thread that evaluated the chunk. Several
// threads call it concurrently, so implementations must be thread-safe (atomics).
class ChunkHook {
 public:
  virtual ~ChunkHook() = default;
  virtual void between_chunks() = 0;
};

// One row of m against w (no bounds checks; see evaluate for the checked entry points).
field::Fr evaluate_row(const CsrMatrix& m, const Witness& w, std::size_t row);

// out[r] = (m·w)[r] for every row r. out must hold m.num_rows elements (more are left
// untouched); w must have m.num_cols values. Throws std::invalid_argument otherwise.
void evaluate(const CsrMatrix& m, const Witness& w, std::span<field::Fr> out,
              parallel::ThreadPool& pool, ChunkHook* hook = nullptr,
              std::size_t chunk_rows = kDefaultChunkRows);

struct Evaluations {
  std::vector<field::Fr> a, b, c;
};

// A·w, B·w and C·w in one pass over the rows (each chunk does all three matrices, so the
// witness values a chunk touches are read from cache twice more rather than from DRAM).
// length = 0 gives vectors of num_constraints elements. A larger length (the prover's domain
// size, at least num_constraints + num_inputs) gives zero-padded vectors whose a also holds
// the Groth16 input-consistency rows: a[num_constraints + i] = input[i] (b, c are 0 there).
Evaluations evaluate_all(const R1cs& r1cs, const Witness& w, parallel::ThreadPool& pool,
                         ChunkHook* hook = nullptr, std::size_t length = 0,
                         std::size_t chunk_rows = kDefaultChunkRows, bool with_c = true);

// The same into caller-owned buffers (pinned or pooled host memory, reused across
// partitions), each of one length: num_constraints, or at least num_constraints +
// num_inputs for the padded layout described above (the tail is overwritten: input rows in
// a, zeros elsewhere). An empty c skips C (evaluate_all's with_c = false).
void evaluate_all_into(const R1cs& r1cs, const Witness& w, std::span<field::Fr> a,
                       std::span<field::Fr> b, std::span<field::Fr> c, parallel::ThreadPool& pool,
                       ChunkHook* hook = nullptr, std::size_t chunk_rows = kDefaultChunkRows);

// Throws std::invalid_argument unless w fits r1cs (input and aux counts).
void check_witness_fits(const R1cs& r1cs, const Witness& w, const char* who);

}  // namespace prooflab::r1cs
