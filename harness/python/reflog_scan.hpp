// The compiled line scanner of the reference-log importer (analysis/prooflab_analysis/
// reflog_chunks.py, docs/reference-logs.md "Speed"): one chunk of a cuzk daemon log, lines
// of the common exact shapes parsed into columns, every other line handed back.
//
// It does for a chunk what reflog_chunks' numpy path does, at memory speed: line ends
// `\r\n` / lone `\r` made `\n`, ANSI escapes `ESC [ [0-9;]* letter` removed (in that order,
// as reflog_chunks.normalise), then per line
//   * TIMELINE records whose detail is one of engine.rs' shapes for their event,
//   * CUZK_TIMING duration lines of supraseal-c2's shapes (no negative duration, a count
//     without sign) and `prestage_setup=<value>`, CUZK_NTT_H lines,
//   * tracing lines that are informational for certain (well formed, not ERROR, no message
//     the importer reads, no record inside, every `job_id=` a valid job id), with the
//     `gpu_worker{worker_id=W gpu=G ...}` spans among them as (line, worker, gpu) rows;
//     of those spans the chunk's first line of each (worker, gpu) pair, every line of a
//     worker named in the chunk (by spans and worker start lines) with two GPUs or with
//     another GPU than earlier in the file, and every `gpu_worker{` not read so, go to the
//     line scanner, which maps the worker and checks it against the run
// become rows; every other line goes back as text to the Python line scanner, which
// defines what it means and names it in errors. So this scanner never decides that a line
// is malformed, and the importer gives the same runs with it or without it
// (tests/python/test_reflog_bulk.py compares them).
//
// The tables (events and the detail items each may carry, duration shapes, keys, values,
// tokens) come from Python, where they are declared once beside the line parsers; this file
// holds only the syntax those tables are written in.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace prooflab::harness::python {

// The detail items of a TIMELINE record, in the order engine.rs writes them:
// worker=N, partition=N, synth_ms=N | gpu_ms=N, kind=<proof kind>, monolithic.
inline constexpr std::string_view kTimelineItems[] = {"worker", "partition", "synth_ms",
                                                      "gpu_ms", "kind",      "monolithic"};

struct DurationShape {
  bool gpu_tid = false;  // the line starts with `gpu_tid=N `
  std::string first;
  std::string second;  // "" = a one-key line
};

struct ReflogShapes {
  std::string timeline_prefix;  // "TIMELINE,"
  std::string timing_prefix;    // "CUZK_TIMING: "
  std::string ntt_h_prefix;     // "CUZK_NTT_H: "
  std::vector<std::string> events;
  // Per event, the item sets it may carry, each a list of kTimelineItems names.
  std::vector<std::vector<std::vector<std::string>>> event_items;
  std::vector<std::string> proof_kinds;
  std::size_t job_id_max = 0;             // characters
  std::vector<std::string> record_words;  // a job id holding one is an interleaved write
  std::vector<DurationShape> durations;
  std::string count_key;  // the second key that is a count (%zu: no sign), not a duration
  std::vector<std::string> prestage_values;
  std::vector<std::string> ntt_h_keys;      // printed as key=Nms, in this order
  std::vector<std::string> tracing_levels;  // levels of lines that may be informational
  std::vector<std::string> tracing_slow;    // substrings that send a tracing line to Python
  std::string worker_span;  // "gpu_worker": the span naming a worker's GPU, {worker_id=W gpu=G ...}
  std::string worker_started;  // the text of the worker start lines, which name a GPU too
};

// Rows of one chunk. Absent integers are -1, absent codes -1.
struct ReflogChunk {
  std::string_view text;  // the chunk normalised (in its own bytes); slow lines point into it
  std::int64_t n_lines = 0;
  std::vector<std::int64_t> fast_lines;    // line numbers read here, ascending
  std::vector<std::int64_t> fast_records;  // cumulative count of records among them

  // TIMELINE: event = index into ReflogShapes::events, job = index into job_ids,
  // kind = index into proof_kinds.
  std::vector<std::int64_t> ev_line, ev_offset_ms, ev_event, ev_job, ev_partition, ev_worker,
      ev_kind, ev_value_ms;
  std::vector<std::string_view> job_ids;  // distinct, in order of first appearance

  // CUZK values: key = index into ReflogScanner::value_keys(); in line order, and within a
  // line in the order printed.
  std::vector<std::int64_t> cu_line, cu_key, cu_value_ms, cu_gpu_tid;
  // prestage_setup: value = index into ReflogShapes::prestage_values.
  std::vector<std::int64_t> pre_line, pre_value;
  // gpu_worker spans of the lines read here, in line order and within a line in text order.
  std::vector<std::int64_t> span_line, span_worker, span_gpu;

  std::vector<std::int64_t> slow_line;  // the lines left to Python, in file order
  std::vector<std::pair<std::size_t, std::size_t>> slow_span;  // [begin, end) in text
};

// ReflogShapes checked and turned into lookup tables, then applied to chunks.
class ReflogScanner {
 public:
  // Throws std::invalid_argument naming a bad entry (an unknown item name, a missing table).
  explicit ReflogScanner(ReflogShapes shapes);

  // `chunk`: whole lines, each ending with '\n' (the importer handles a cut last line);
  // its first line has number `first_line`. It is normalised in place (line ends, ANSI
  // escapes: never longer), and the result points into it.
  // `named`: worker -> GPU of the workers that the file put on a GPU before the chunk, -1
  // for one put on several.
  using NamedWorkers = std::unordered_map<std::int64_t, std::int64_t>;
  ReflogChunk scan(std::span<char> chunk, std::int64_t first_line, const NamedWorkers& named) const;

  // The key of each CUZK value code: the duration keys, then `ntt_h.<key>`.
  const std::vector<std::string>& value_keys() const { return value_keys_; }

 private:
  using JobIndex = std::unordered_map<std::string_view, std::int64_t>;
  bool timeline(std::string_view line, std::int64_t lineno, ReflogChunk& out, JobIndex& jobs) const;
  bool cuda(std::string_view body, std::int64_t lineno, ReflogChunk& out) const;
  bool ntt_h(std::string_view body, std::int64_t lineno, ReflogChunk& out) const;
  bool tracing_informational(std::string_view line) const;
  struct Span {
    std::int64_t line, worker, gpu;  // worker -1: a `gpu_worker{` not read as worker_id=W gpu=G
  };
  std::vector<Span> worker_spans(std::string_view text, std::int64_t first_line) const;
  std::vector<std::pair<std::int64_t, std::int64_t>> worker_starts(std::string_view text) const;
  static std::vector<std::int64_t> span_lines_for_python(
      const std::vector<Span>& spans, const NamedWorkers& named,
      const std::vector<std::pair<std::int64_t, std::int64_t>>& starts);
  bool job_id_at(std::string_view text, std::size_t at, std::size_t& end) const;
  bool has_record_word(std::string_view text) const;

  ReflogShapes shapes_;
  std::vector<std::uint64_t> allowed_items_;  // per event: bit m set = item set m allowed
  struct DurationCode {
    bool gpu_tid;
    std::int64_t first, second;  // value_keys_ indices; second -1 = none
    bool second_is_count;
  };
  std::vector<DurationCode> duration_codes_;
  std::vector<std::string> value_keys_;
  std::int64_t ntt_h_key0_ = 0;  // value_keys_ index of the first ntt_h key
};

}  // namespace prooflab::harness::python
