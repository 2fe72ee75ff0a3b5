#include "gpu/ntt/tables.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/field/fr.hpp"

namespace prooflab::gpu::ntt {
namespace {

using CpuFr = ::prooflab::field::Fr;
static_assert(sizeof(CpuFr) == sizeof(Fr32), "CPU and device Fr must share one layout");

Fr32 to_device(const CpuFr& x) {
  Fr32 r;
  std::memcpy(r.v, x.mont.data(), sizeof(r.v));
  return r;
}

// Appends c·x^j for j < count; returns the offset.
std::size_t append_powers(std::vector<Fr32>& out, const CpuFr& x, const CpuFr& c,
                          std::size_t count) {
  const std::size_t at = out.size();
  CpuFr p = c;
  for (std::size_t j = 0; j < count; ++j) {
    out.push_back(to_device(p));
    p *= x;
  }
  return at;
}

// lo[j] = c·x^j (j < 2^split), hi[j] = x^(j·2^split) (j < 2^(k-split)).
HostTables::Pair append_two_level(std::vector<Fr32>& out, unsigned log_n, unsigned split,
                                  const CpuFr& x, const CpuFr& c) {
  HostTables::Pair p;
  p.lo = append_powers(out, x, c, std::size_t{1} << split);
  CpuFr step = x;
  for (unsigned i = 0; i < split; ++i) step = step.square();
  p.hi = append_powers(out, step, CpuFr::one(), std::size_t{1} << (log_n - split));
  return p;
}

}  // namespace

std::size_t table_elements(unsigned log_n, unsigned coupling_log_size) {
  const unsigned radix_log = log_n < kMaxLogBlockElems ? log_n : kMaxLogBlockElems;
  const unsigned split = (log_n + 1) / 2;
  const std::size_t pair = (std::size_t{1} << split) + (std::size_t{1} << (log_n - split));
  constexpr std::size_t kPairs = 7;  // partial ×2, coset, coset_inv, intt_to_coset, h_final ×2
  return 2 * (std::size_t{1} << (radix_log - 1)) + kPairs * pair +
         (std::size_t{1} << std::min(log_n, coupling_log_size));
}

std::vector<PassTableShape> pass_table_shapes(unsigned log_n) {
  const auto shapes = plan_shapes(log_n, PlanOptions{});
  std::vector<PassTableShape> out;
  unsigned t = 0;
  for (std::size_t i = 0; i + 1 < shapes.size(); t += shapes[i].s, ++i)
    if (t > 0 || (log_n > kCouplingLogSize && log_n <= kFirstPassTableMaxLog)) out.push_back({t, shapes[i].s});
  return out;
}

std::size_t pass_table_entries(unsigned log_n) {
  std::size_t entries = 0;
  for (const auto& p : pass_table_shapes(log_n)) entries += std::size_t{1} << (log_n - p.t);
  return entries;
}

HostTables build_tables(unsigned log_n, unsigned coupling_log_size,
                        const std::vector<PassTableShape>& pass_tables) {
  if (log_n < 1 || log_n > kMaxLogN)
    throw std::invalid_argument("gpu ntt tables: log n = " + std::to_string(log_n) +
                                " outside [1, " + std::to_string(kMaxLogN) + "]");
  if (coupling_log_size < 1)
    throw std::invalid_argument("gpu ntt tables: coupling_log_size must be at least 1");
  if (pass_tables.size() > TablesView::kMaxPassTables)
    throw std::invalid_argument("gpu ntt tables: " + std::to_string(pass_tables.size()) +
                                " pass tables (at most " + std::to_string(TablesView::kMaxPassTables) + ")");
  for (const auto& p : pass_tables)
    if (p.s < 1 || p.t + p.s >= log_n)
      throw std::invalid_argument("gpu ntt tables: a pass table for stages " + std::to_string(p.t) + ".." +
                                  std::to_string(p.t + p.s) + " (s = " + std::to_string(p.s) +
                                  "): not a pass before the last at log n = " + std::to_string(log_n));
  HostTables t;
  t.log_n = log_n;
  t.radix_log = log_n < kMaxLogBlockElems ? log_n : kMaxLogBlockElems;
  t.split = (log_n + 1) / 2;
  const CpuFr omega = ::prooflab::field::fr_root_of_unity(log_n);
  const CpuFr omega_inv = omega.inverse();
  const CpuFr n_inv = CpuFr::from_u64(std::uint64_t{1} << log_n).inverse();
  const CpuFr g = CpuFr::from_u64(::prooflab::field::kFrMultiplicativeGenerator);
  const CpuFr g_inv = g.inverse();
  // Z(g) = g^n - 1, the vanishing polynomial on the coset (a constant there).
  CpuFr g_n = g;
  for (unsigned i = 0; i < log_n; ++i) g_n = g_n.square();
  const CpuFr z_inv = (g_n - CpuFr::one()).inverse();
  // The element whose Montgomery form is the integer 1, i.e. R^-1: multiplying by it turns a
  // Montgomery-form result into the canonical integer.
  const CpuFr r_inv = CpuFr::from_mont({1, 0, 0, 0});

  CpuFr radix_root = omega;  // ω_{2^radix_log} = ω^(2^(k - radix_log))
  for (unsigned i = t.radix_log; i < log_n; ++i) radix_root = radix_root.square();
  const std::size_t radix_count = std::size_t{1} << (t.radix_log - 1);
  t.radix_fwd = append_powers(t.data, radix_root, CpuFr::one(), radix_count);
  t.radix_inv = append_powers(t.data, radix_root.inverse(), CpuFr::one(), radix_count);
  t.partial_fwd = append_two_level(t.data, log_n, t.split, omega, CpuFr::one());
  t.partial_inv = append_two_level(t.data, log_n, t.split, omega_inv, CpuFr::one());
  t.coupling_log_size = std::min(log_n, coupling_log_size);
  CpuFr coupling_root = omega;  // ω^(2^(k-L))
  for (unsigned i = t.coupling_log_size; i < log_n; ++i) coupling_root = coupling_root.square();
  t.coupling =
      append_powers(t.data, coupling_root, CpuFr::one(), std::size_t{1} << t.coupling_log_size);
  t.coset = append_two_level(t.data, log_n, t.split, g, CpuFr::one());
  t.coset_inv = append_two_level(t.data, log_n, t.split, g_inv, n_inv);
  t.intt_to_coset = append_two_level(t.data, log_n, t.split, g, n_inv);
  t.h_final = append_two_level(t.data, log_n, t.split, g_inv, n_inv * z_inv);
  t.h_final_canonical = append_two_level(t.data, log_n, t.split, g_inv, n_inv * z_inv * r_inv);
  t.n_inv = to_device(n_inv);
  if (t.data.size() != table_elements(log_n, coupling_log_size))
    throw std::logic_error("gpu ntt tables: table_elements disagrees with build_tables");
  if (!pass_tables.empty()) {
    const TablesView v = t.view(t.data.data());  // partial tables: computed above
    for (const auto& p : pass_tables) {
      const std::uint32_t size = 1u << (log_n - p.t);
      std::vector<Fr32> table(2 * std::size_t{size});
      for (std::uint32_t g = 0; g < size; ++g) {
        table[g] = pass_twiddle(v.partial_fwd, log_n, p.t, p.s, g);
        table[size + g] = pass_twiddle(v.partial_inv, log_n, p.t, p.s, g);
      }
      t.pass_tables.push_back({p.t, p.s, t.data.size(), t.data.size() + size});
      t.data.insert(t.data.end(), table.begin(), table.end());
    }
  }
  return t;
}

TablesView HostTables::view(const Fr32* base) const {
  TablesView v;
  v.log_n = log_n;
  v.radix_log = radix_log;
  v.radix_fwd = base + radix_fwd;
  v.radix_inv = base + radix_inv;
  const auto pt = [&](const Pair& p) { return PowerTable{base + p.lo, base + p.hi, split}; };
  v.partial_fwd = pt(partial_fwd);
  v.partial_inv = pt(partial_inv);
  v.coupling = CouplingTable{base + coupling, log_n - coupling_log_size, coupling_log_size};
  v.coset = pt(coset);
  v.coset_inv = pt(coset_inv);
  v.intt_to_coset = pt(intt_to_coset);
  v.h_final = pt(h_final);
  v.h_final_canonical = pt(h_final_canonical);
  v.n_inv = n_inv;
  for (std::size_t i = 0; i < pass_tables.size(); ++i)
    v.pass_tables[i] = {base + pass_tables[i].fwd, base + pass_tables[i].inv, pass_tables[i].t, pass_tables[i].s};
  return v;
}

}  // namespace prooflab::gpu::ntt
