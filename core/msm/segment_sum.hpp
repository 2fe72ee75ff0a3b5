// Sums of groups ("segments") of affine points by a pairwise tree of batch-affine additions:
// each level adds neighbours within every segment, all of a level's additions share one
// inversion per batch, and a segment of k points needs k − 1 additions and ⌈log2 k⌉ levels.
//
// This is how Pippenger fills its buckets (a segment = the points of one bucket, after a
// counting sort by bucket), how it reduces them (segments = bucket groups, see
// bucket_reduce.hpp) and how batch_add sums the bases of scalars equal to one (a single
// segment). Unlike accumulating into buckets in input order, a tree never has two additions
// into the same bucket in one batch, so skewed inputs (all scalars equal, many repeated
// digits) cost the same as uniform ones and need no conflict queue.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/curve/affine.hpp"
#include "core/msm/batch_affine.hpp"
#include "core/msm/batch_affine_x8.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::msm {

// A fetch maps an entry to a point and a sign: point(e), negated(e), value(e) (the signed
// copy) and prefetch(e).
template <class Point>
inline void prefetch_point(const Point* p) {
  __builtin_prefetch(p);
  __builtin_prefetch(reinterpret_cast<const char*>(p) + sizeof(Point) - 1);
}

// Entry = index into a plain array.
template <class Point>
struct ArrayFetch {
  const Point* points;
  const Point* point(std::uint32_t e) const { return points + e; }
  static bool negated(std::uint32_t) { return false; }
  Point value(std::uint32_t e) const { return points[e]; }
  void prefetch(std::uint32_t e) const { prefetch_point(points + e); }
};

struct TreeParams {
  std::size_t batch = 1024;   // additions per batch inversion
  std::size_t chunk = 16384;  // points per unit of parallel work
  bool simd = true;           // the 8-lane IFMA adder where the CPU has it
};

namespace detail {

// Level 0 reads its points in entry order but from anywhere in memory: prefetch this many
// entries ahead.
inline constexpr std::size_t kPrefetchAhead = 16;

// A run of entries [begin, end) whose sum goes to *out.
template <class Point>
struct Piece {
  std::size_t begin, end;
  Point* out;
};

// Scratch of one worker: two buffers that tree levels alternate between (a level reads one
// and writes the other, so pending additions never overwrite their operands), and the adder.
template <class Adder>
struct TreeScratch {
  std::vector<typename Adder::Point> buf[2];
  Adder adder{1};

  // The calling thread's scratch, kept for the thread's lifetime: every window of every MSM
  // reuses it instead of allocating (and page-faulting) a few hundred KiB again. Safe because
  // a worker never re-enters sum_segments while it holds its scratch.
  static TreeScratch& of_this_thread(std::size_t batch) {
    thread_local TreeScratch scratch;
    if (scratch.adder.capacity() != batch) scratch.adder = Adder(batch);
    return scratch;
  }
};

// Sums every piece of one unit of work.
template <class Adder, class Fetch>
void sum_pieces_by_tree(const Fetch& fetch, const std::uint32_t* entries,
                        std::span<const Piece<typename Adder::Point>> pieces,
                        TreeScratch<Adder>& scratch) {
  using Point = typename Adder::Point;
  struct Active {
    std::size_t pos, len;
    Point* out;
  };
  std::size_t slots = 0;
  for (const auto& p : pieces) slots += (p.end - p.begin) / 2 + 1;
  for (auto& b : scratch.buf)
    if (b.size() < slots) b.resize(slots);
  auto& adder = scratch.adder;
  std::vector<Active> active;
  active.reserve(pieces.size());

  // Level 0: from the fetched points into buf[0].
  const std::size_t end_entry = pieces.back().end;
  Point* next = scratch.buf[0].data();
  std::size_t pos = 0;
  for (const auto& piece : pieces) {
    const std::size_t len = piece.end - piece.begin;
    const std::uint32_t* e = entries + piece.begin;
    if (len == 1) {
      *piece.out = fetch.value(e[0]);
      continue;
    }
    const std::size_t half = len / 2;
    for (std::size_t i = 0; i < half; ++i) {
      if (piece.begin + 2 * i + kPrefetchAhead + 1 < end_entry) {
        fetch.prefetch(e[2 * i + kPrefetchAhead]);
        fetch.prefetch(e[2 * i + kPrefetchAhead + 1]);
      }
      const std::uint32_t a = e[2 * i], b = e[2 * i + 1];
      adder.push(fetch.point(a), fetch.negated(a), fetch.point(b), fetch.negated(b),
                 next + pos + i);
    }
    if (len & 1) next[pos + half] = fetch.value(e[len - 1]);
    active.push_back({pos, len - half, piece.out});
    pos += len - half;
  }
  adder.flush();

  // Levels 1, 2, ...: neighbours within each segment, alternating buffers.
  int cur = 0;
  while (!active.empty()) {
    const Point* in = scratch.buf[cur].data();
    Point* out = scratch.buf[1 - cur].data();
    std::size_t kept = 0;
    for (Active a : active) {
      if (a.len == 1) {
        *a.out = in[a.pos];
        continue;
      }
      const std::size_t half = a.len / 2;
      for (std::size_t i = 0; i < half; ++i)
        adder.push(in + a.pos + 2 * i, false, in + a.pos + 2 * i + 1, false, out + a.pos + i);
      if (a.len & 1) out[a.pos + half] = in[a.pos + a.len - 1];
      a.len -= half;
      active[kept++] = a;
    }
    active.resize(kept);
    adder.flush();
    cur = 1 - cur;
  }
}

}  // namespace detail

// out[s] = Σ fetch(entries[j]) over j in [offsets[s], offsets[s + 1]) (infinity when empty),
// on the pool. Segments longer than params.chunk are cut into pieces that are summed in
// parallel and then summed again by the same routine.
template <class Curve, class Fetch>
void sum_segments(const Fetch& fetch, std::span<const std::uint32_t> entries,
                  std::span<const std::size_t> offsets, std::span<curve::Affine<Curve>> out,
                  parallel::ThreadPool& pool, const TreeParams& params) {
  using Point = curve::Affine<Curve>;
  using Piece = detail::Piece<Point>;
  const std::size_t segments = out.size();
  assert(offsets.size() == segments + 1);
  assert(offsets[segments] <= entries.size());
  // Units of at most `chunk` entries, but enough of them to keep every thread busy.
  const std::size_t total = offsets[segments] - offsets[0];
  const std::size_t per_thread = pool.size() == 1 ? total : total / (4 * pool.size());
  const std::size_t chunk =
      std::max<std::size_t>(2, std::min(params.chunk, std::max<std::size_t>(2048, per_thread)));

  // Long segments first sum into `partial`, ⌈len/chunk⌉ pieces each.
  std::size_t partial_count = 0;
  for (std::size_t s = 0; s < segments; ++s) {
    const std::size_t len = offsets[s + 1] - offsets[s];
    if (len > chunk) partial_count += (len + chunk - 1) / chunk;
  }
  std::vector<Point> partial(partial_count);
  std::vector<std::size_t> long_segments, long_offsets{0};

  std::vector<Piece> pieces;
  std::vector<std::size_t> range_begin;  // index of the first piece of every unit
  std::size_t range_entries = chunk;     // forces a new unit at the first piece
  const auto add_piece = [&](std::size_t begin, std::size_t end, Point* dst) {
    if (range_entries + (end - begin) > chunk) {
      range_begin.push_back(pieces.size());
      range_entries = 0;
    }
    pieces.push_back({begin, end, dst});
    range_entries += end - begin;
  };
  for (std::size_t s = 0; s < segments; ++s) {
    const std::size_t begin = offsets[s], end = offsets[s + 1];
    if (begin == end) {
      out[s] = Point::infinity();
    } else if (end - begin <= chunk) {
      add_piece(begin, end, &out[s]);
    } else {
      long_segments.push_back(s);
      for (std::size_t b = begin; b < end; b += chunk)
        add_piece(b, std::min(end, b + chunk), &partial[long_offsets.back() + (b - begin) / chunk]);
      long_offsets.push_back(long_offsets.back() + (end - begin + chunk - 1) / chunk);
    }
  }
  range_begin.push_back(pieces.size());

  const std::size_t ranges = range_begin.size() - 1;
  const auto sum_ranges = [&]<class Adder>(std::size_t r0, std::size_t r1) {
    auto& scratch =
        detail::TreeScratch<Adder>::of_this_thread(std::max<std::size_t>(1, params.batch));
    for (std::size_t r = r0; r < r1; ++r) {
      const std::span<const Piece> rp(pieces.data() + range_begin[r],
                                      range_begin[r + 1] - range_begin[r]);
      detail::sum_pieces_by_tree<Adder>(fetch, entries.data(), rp, scratch);
    }
  };
  const bool x8 = params.simd && BatchAffineAdderX8<Curve>::available();
  pool.parallel_for(ranges, 1, [&](std::size_t r0, std::size_t r1) {
    if (x8)
      sum_ranges.template operator()<BatchAffineAdderX8<Curve>>(r0, r1);
    else
      sum_ranges.template operator()<BatchAffineAdder<Curve>>(r0, r1);
  });

  if (long_segments.empty()) return;
  std::vector<std::uint32_t> identity(partial_count);
  for (std::size_t i = 0; i < partial_count; ++i) identity[i] = static_cast<std::uint32_t>(i);
  std::vector<Point> long_sums(long_segments.size());
  sum_segments<Curve>(ArrayFetch<Point>{partial.data()}, std::span<const std::uint32_t>(identity),
                      std::span<const std::size_t>(long_offsets), std::span(long_sums), pool,
                      params);
  for (std::size_t i = 0; i < long_segments.size(); ++i) out[long_segments[i]] = long_sums[i];
}

}  // namespace prooflab::msm
