#include "gpu/ntt/plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace prooflab::gpu::ntt {
namespace {

bool is_pow2(unsigned x) { return x && !(x & (x - 1)); }

[[noreturn]] void bad_option(const std::string& what) {
  throw std::invalid_argument("gpu ntt plan: " + what);
}

}  // namespace

PlanOptions tuned_plan(unsigned log_n) {
  PlanOptions t;
  const bool mid = log_n >= 20 && log_n <= 25;
  t.log_block_elems = mid ? 9 : 11;
  t.threads = mid ? 128 : 256;
  t.blocks_per_sm = mid ? 4 : 3;
  return t;
}

PlanOptions resolve_plan(unsigned log_n, PlanOptions opt) {
  const PlanOptions t = tuned_plan(log_n);
  if (!opt.log_block_elems) opt.log_block_elems = t.log_block_elems;
  if (!opt.threads) opt.threads = t.threads;
  if (!opt.blocks_per_sm) opt.blocks_per_sm = opt.log_block_elems <= 10 ? t.blocks_per_sm : 3;
  return opt;
}

std::vector<PassShape> plan_shapes(unsigned log_n, const PlanOptions& given) {
  if (log_n < 1 || log_n > kMaxLogN)
    bad_option("log n = " + std::to_string(log_n) + " outside [1, " + std::to_string(kMaxLogN) +
               "]");
  const PlanOptions opt = resolve_plan(log_n, given);
  if (opt.log_block_elems < 2 || opt.log_block_elems > kMaxLogBlockElems)
    bad_option("log_block_elems = " + std::to_string(opt.log_block_elems) + " outside [2, " +
               std::to_string(kMaxLogBlockElems) + "]");
  if (!is_pow2(opt.threads) || opt.threads > kMaxThreads)
    bad_option("threads = " + std::to_string(opt.threads) + " is not a power of two in [1, " +
               std::to_string(kMaxThreads) + "]");
  if (opt.blocks_per_sm != 3 && opt.blocks_per_sm != 4)
    bad_option("blocks_per_sm = " + std::to_string(opt.blocks_per_sm) +
               " (the kernel is built for 3 or 4)");
  if (opt.blocks_per_sm == 4 && opt.log_block_elems > 10)
    bad_option("blocks_per_sm = 4 needs log_block_elems <= 10 (four blocks of 32·2^" +
               std::to_string(opt.log_block_elems) + " bytes of shared memory do not fit an SM)");
  std::vector<unsigned> stages = opt.stages;
  if (stages.empty()) {
    const unsigned le = opt.log_block_elems;
    const unsigned passes = (log_n + le - 1) / le;
    for (unsigned i = 0; i < passes; ++i) stages.push_back(log_n / passes + (i < log_n % passes));
  }
  unsigned sum = 0;
  for (unsigned s : stages) {
    if (s < 1 || s > opt.log_block_elems)
      bad_option("a pass of " + std::to_string(s) + " stages (allowed 1.." +
                 std::to_string(opt.log_block_elems) + " with log_block_elems " +
                 std::to_string(opt.log_block_elems) + ")");
    sum += s;
  }
  if (sum != log_n)
    bad_option("stages sum to " + std::to_string(sum) + ", log n is " + std::to_string(log_n));
  std::vector<PassShape> shapes;
  unsigned done = 0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const unsigned s = stages[i];
    const bool last = i + 1 == stages.size();
    // Sets per block: as many as fit, but no more than the pass has (last pass: n / 2^s sets)
    // and, before the last, no more than d (consecutive c must share their B).
    const unsigned room = last ? log_n - s : log_n - done - s;
    shapes.push_back({s, std::min(opt.log_block_elems - s, room)});
    done += s;
  }
  return shapes;
}

TransformSpec forward_spec(const TablesView&, Order order) {
  TransformSpec s;
  s.order = order;
  return s;
}

TransformSpec inverse_spec(const TablesView& t, Order order) {
  TransformSpec s;
  s.inverse = true;
  s.out_mode = kOutScalar;
  s.out_scalar = t.n_inv;
  s.order = order;
  return s;
}

TransformSpec coset_forward_spec(const TablesView& t, Order order) {
  TransformSpec s;
  s.in_mode = kInTable;
  s.in_table = t.coset;
  s.order = order;
  return s;
}

TransformSpec coset_inverse_spec(const TablesView& t, Order order) {
  TransformSpec s;
  s.inverse = true;
  s.out_mode = kOutTable;
  s.out_table = t.coset_inv;
  s.order = order;
  return s;
}

TransformSpec h_to_coset_inverse_spec(const TablesView& t) {
  TransformSpec s;
  s.inverse = true;
  s.out_mode = kOutTable;
  s.out_table = t.intt_to_coset;
  return s;
}

TransformSpec h_final_spec(const TablesView& t, bool canonical_output) {
  TransformSpec s;
  s.inverse = true;
  s.in_mode = kInPointwise;
  s.out_mode = kOutTable;
  s.out_table = canonical_output ? t.h_final_canonical : t.h_final;
  return s;
}

std::vector<PassArgs> make_passes(const TransformSpec& spec, const TablesView& tables,
                                  const TransformBuffers& buf, const PlanOptions& given) {
  const unsigned log_n = tables.log_n;
  const PlanOptions opt = resolve_plan(log_n, given);
  const auto shapes = plan_shapes(log_n, opt);
  if (shapes.size() > 1 && buf.work == buf.out)
    throw std::invalid_argument(
        "gpu ntt: a multi-pass transform needs a work buffer distinct from its output");
  if (spec.in_mode == kInPointwise && (!buf.in_b || !buf.in_c))
    throw std::invalid_argument("gpu ntt: a·b - c input needs the b and c buffers");
  std::vector<PassArgs> passes;
  unsigned t = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const bool first = i == 0, last = i + 1 == shapes.size();
    PassArgs p;
    p.src = first ? buf.in : buf.work;
    p.dst = last ? buf.out : buf.work;
    if (first) {
      p.src_b = buf.in_b;
      p.src_c = buf.in_c;
      p.in_mode = spec.in_mode;
      p.in_table = spec.in_table;
    }
    p.radix = spec.inverse ? tables.radix_inv : tables.radix_fwd;
    p.radix_log = tables.radix_log;
    p.partial = spec.inverse ? tables.partial_inv : tables.partial_fwd;
    p.inverse = spec.inverse;
    p.paired_stages = opt.paired_stages;
    p.blocks_per_sm = opt.blocks_per_sm;
    p.twiddle_major = (1u << p.log_c) >= opt.twiddle_major_min_sets;
    p.log_n = log_n;
    p.t = t;
    p.s = shapes[i].s;
    p.log_c = shapes[i].log_c;
    // The direct table holds the exponents that are multiples of 2^log_step: it serves every
    // pass from t = log_step on (2^24: the middle pass of 8+8+8; the first pass always
    // builds its twiddles from the two-level table unless n is small).
    if (!last && opt.direct_coupling && tables.coupling.powers && p.t >= tables.coupling.log_step)
      p.coupling = tables.coupling;
    // The twiddles read beside the elements, where the domain has a pass table for this t and
    // s (a plan with other passes builds them or reads the direct table; direct_coupling =
    // false has the later passes build them).
    if (!last && (first ? opt.first_pass_table : opt.later_pass_tables && opt.direct_coupling))
      for (const auto& table : tables.pass_tables)
        if (table.fwd && table.t == p.t && table.s == p.s)
          p.pass_coupling = spec.inverse ? table.inv : table.fwd;
    // At least two butterflies per thread and stage where the block is big enough.
    const unsigned butterflies = 1u << (p.log_elems() - 1);
    p.threads = std::max(1u, std::min(opt.threads, butterflies / 2));
    p.last = last;
    if (last) {
      p.reverse_out = spec.order == Order::kNatural;
      p.out_mode = spec.out_mode;
      p.out_table = spec.out_table;
      p.out_scalar = spec.out_scalar;
    }
    passes.push_back(p);
    t += p.s;
  }
  return passes;
}

}  // namespace prooflab::gpu::ntt
