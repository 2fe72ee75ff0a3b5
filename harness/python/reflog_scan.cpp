#include "harness/python/reflog_scan.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace prooflab::harness::python {
namespace {

constexpr std::size_t kMaxDigits = 18;  // a number that fits 64 bits (reflog_timeline `_N`)
constexpr std::size_t kMaxKey = 24;     // CUZK key length the bulk readers accept
constexpr std::size_t kMaxEvent = 16;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_alpha(char c) { return is_lower(c) || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_name_start(char c) { return is_alpha(c) || c == '_'; }
bool is_name(char c) { return is_alnum(c) || c == '_'; }
bool is_job_char(char c) { return is_alnum(c) || c == '.' || c == '_' || c == '/' || c == '-'; }
bool is_key_start(char c) { return is_lower(c) || c == '_'; }  // tracing field key
bool is_key_char(char c) {
  return is_lower(c) || is_digit(c) || c == '_' || c == '.';
}  // [a-z0-9_.]

// [0-9]{1,18} at `p` into `value`; advances `p`.
bool digits(std::string_view s, std::size_t& p, std::int64_t& value) {
  const std::size_t b = p;
  std::int64_t v = 0;
  while (p < s.size() && is_digit(s[p])) {
    if (p - b == kMaxDigits) return false;
    v = v * 10 + (s[p] - '0');
    ++p;
  }
  value = v;
  return p > b;
}

// -?[0-9]{1,18} (printf's %ld); `negative` says whether it had a sign (-0 included).
bool signed_digits(std::string_view s, std::size_t& p, std::int64_t& value, bool& negative) {
  negative = p < s.size() && s[p] == '-';
  if (negative) ++p;
  if (!digits(s, p, value)) return false;
  if (negative) value = -value;
  return true;
}

bool take(std::string_view s, std::size_t& p, std::string_view word) {
  if (s.substr(p, word.size()) != word) return false;
  p += word.size();
  return true;
}

std::int64_t index_of(const std::vector<std::string>& names, std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<std::int64_t>(it - names.begin());
}

// ` key=` at `p`, key [a-z_][a-z0-9_.]* (a tracing field starts there).
bool field_starts(std::string_view s, std::size_t p) {
  if (p >= s.size() || s[p] != ' ' || p + 1 >= s.size() || !is_key_start(s[p + 1])) return false;
  std::size_t q = p + 2;
  while (q < s.size() && is_key_char(s[q])) ++q;
  return q < s.size() && s[q] == '=';
}

// Line ends made '\n' (`\r\n` and a lone `\r`), then ANSI escapes ESC [ [0-9;]* letter
// removed, in place (the output is never ahead of the input); returns the new length. One
// pass: an escape's bytes are never '\r', so looking ahead in the raw chunk finds the same
// escapes as looking in the normalised one.
std::size_t normalise(std::span<char> chunk) {
  char* const in = chunk.data();
  char* o = in;
  const std::size_t n = chunk.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = in[i];
    if (c == '\r') {
      if (i + 1 < n && in[i + 1] == '\n') continue;
      *o++ = '\n';
      continue;
    }
    if (c == '\x1b' && i + 1 < n && in[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < n && (is_digit(in[j]) || in[j] == ';')) ++j;
      if (j < n && is_alpha(in[j])) {
        i = j;
        continue;
      }
    }
    *o++ = c;
  }
  return static_cast<std::size_t>(o - in);
}

}  // namespace

ReflogScanner::ReflogScanner(ReflogShapes shapes) : shapes_(std::move(shapes)) {
  const auto& s = shapes_;
  if (s.timeline_prefix.empty() || s.timing_prefix.empty() || s.ntt_h_prefix.empty())
    throw std::invalid_argument("reflog shapes: a line prefix is empty");
  if (s.events.empty() || s.event_items.size() != s.events.size())
    throw std::invalid_argument(
        "reflog shapes: events and event_items must be non-empty and of one length");
  if (s.job_id_max == 0) throw std::invalid_argument("reflog shapes: job_id_max must be positive");
  if (s.worker_span.empty() || s.worker_started.empty())
    throw std::invalid_argument("reflog shapes: worker_span or worker_started is empty");
  for (std::size_t e = 0; e < s.events.size(); ++e) {
    std::uint64_t allowed = 0;
    for (const auto& set : s.event_items[e]) {
      unsigned bits = 0;
      for (const auto& item : set) {
        const auto it = std::find(std::begin(kTimelineItems), std::end(kTimelineItems), item);
        if (it == std::end(kTimelineItems))
          throw std::invalid_argument(
              "reflog shapes: event " + s.events[e] + " names item '" + item +
              "', not one of worker, partition, synth_ms, gpu_ms, kind, monolithic");
        bits |= 1u << (it - std::begin(kTimelineItems));
      }
      allowed |= std::uint64_t{1} << bits;
    }
    allowed_items_.push_back(allowed);
  }
  const auto key = [&](const std::string& name) {
    std::int64_t k = index_of(value_keys_, name);
    if (k < 0) {
      k = static_cast<std::int64_t>(value_keys_.size());
      value_keys_.push_back(name);
    }
    return k;
  };
  for (const auto& d : s.durations) {
    if (d.first.empty() || d.first.size() > kMaxKey || d.second.size() > kMaxKey)
      throw std::invalid_argument("reflog shapes: duration key '" + d.first + "' / '" + d.second +
                                  "' is empty or longer than 24 characters");
    const bool count = !d.second.empty() && d.second == s.count_key;
    duration_codes_.push_back(
        {d.gpu_tid, key(d.first), d.second.empty() || count ? -1 : key(d.second), count});
  }
  ntt_h_key0_ = static_cast<std::int64_t>(value_keys_.size());
  for (const auto& k : s.ntt_h_keys) value_keys_.push_back("ntt_h." + k);
}

bool ReflogScanner::has_record_word(std::string_view text) const {
  return std::any_of(shapes_.record_words.begin(), shapes_.record_words.end(),
                     [&](const std::string& w) { return text.find(w) != std::string_view::npos; });
}

// A job id (reflog_lines.JOB_ID) at `at`: the whole run of job characters, 1..job_id_max
// long, starting with a letter or digit, with no record text in it.
bool ReflogScanner::job_id_at(std::string_view s, std::size_t at, std::size_t& end) const {
  end = at;
  while (end < s.size() && is_job_char(s[end])) ++end;
  if (end == at || end - at > shapes_.job_id_max || !is_alnum(s[at])) return false;
  return !has_record_word(s.substr(at, end - at));
}

// TIMELINE,<offset>,<EVENT>,<job>,<detail>, detail one of the event's item sets in
// engine.rs' order, a comma between two items (reflog_timeline).
bool ReflogScanner::timeline(std::string_view s, std::int64_t lineno, ReflogChunk& out,
                             JobIndex& jobs) const {
  std::size_t p = shapes_.timeline_prefix.size();
  std::int64_t offset = 0;
  if (!digits(s, p, offset) || !take(s, p, ",")) return false;
  const std::size_t event_at = p;
  while (p < s.size() && ((s[p] >= 'A' && s[p] <= 'Z') || s[p] == '_')) ++p;
  if (p == event_at || p - event_at > kMaxEvent || p >= s.size() || s[p] != ',') return false;
  const std::int64_t event = index_of(shapes_.events, s.substr(event_at, p - event_at));
  if (event < 0) return false;
  const std::size_t job_at = ++p;
  std::size_t job_end = 0;
  if (!job_id_at(s, job_at, job_end) || job_end >= s.size() || s[job_end] != ',') return false;
  p = job_end + 1;

  std::int64_t worker = -1, partition = -1, value = -1, kind = -1;
  unsigned bits = 0;
  // After an item: the end of the line, or a comma and the next item (a lower-case letter).
  const auto item_end = [&]() {
    if (p == s.size()) return true;
    if (s[p] != ',' || p + 1 >= s.size() || !is_lower(s[p + 1])) return false;
    ++p;
    return true;
  };
  const auto number_item = [&](std::string_view name, unsigned bit, std::int64_t& v) {
    std::size_t q = p;
    if (!take(s, q, name) || !take(s, q, "=")) return true;  // absent: try the next item
    p = q;
    if (!digits(s, p, v) || !item_end()) return false;
    bits |= 1u << bit;
    return true;
  };
  if (p < s.size()) {
    if (!number_item(kTimelineItems[0], 0, worker) ||
        !number_item(kTimelineItems[1], 1, partition) || !number_item(kTimelineItems[2], 2, value))
      return false;
    if (!(bits & 4u) && !number_item(kTimelineItems[3], 3, value)) return false;
    std::size_t q = p;
    if (take(s, q, kTimelineItems[4]) && take(s, q, "=")) {
      std::size_t e = q;
      while (e < s.size() && s[e] != ',') ++e;
      kind = index_of(shapes_.proof_kinds, s.substr(q, e - q));
      p = e;
      if (kind < 0 || !item_end()) return false;
      bits |= 1u << 4;
    }
    if (s.substr(p) == kTimelineItems[5]) {
      p = s.size();
      bits |= 1u << 5;
    }
    if (p != s.size()) return false;
  }
  if (!((allowed_items_[static_cast<std::size_t>(event)] >> bits) & 1u)) return false;

  const std::string_view job = s.substr(job_at, job_end - job_at);
  const auto [it, fresh] = jobs.try_emplace(job, static_cast<std::int64_t>(out.job_ids.size()));
  if (fresh) out.job_ids.push_back(job);
  out.ev_line.push_back(lineno);
  out.ev_offset_ms.push_back(offset);
  out.ev_event.push_back(event);
  out.ev_job.push_back(it->second);
  out.ev_partition.push_back(partition);
  out.ev_worker.push_back(worker);
  out.ev_kind.push_back(kind);
  out.ev_value_ms.push_back(value);
  return true;
}

// CUZK_TIMING: [gpu_tid=N ]k=V[ k=V] of a duration shape, or prestage_setup=<value>.
bool ReflogScanner::cuda(std::string_view s, std::int64_t lineno, ReflogChunk& out) const {
  std::size_t p = 0;
  if (take(s, p, "prestage_setup=")) {
    const std::int64_t v = index_of(shapes_.prestage_values, s.substr(p));
    if (v < 0) return false;
    out.pre_line.push_back(lineno);
    out.pre_value.push_back(v);
    return true;
  }
  std::int64_t tid = -1;
  if (take(s, p, "gpu_tid=") && !(digits(s, p, tid) && take(s, p, " "))) return false;
  const auto key = [&](bool digits_ok) {
    const std::size_t b = p;
    while (p < s.size() && (is_lower(s[p]) || s[p] == '_' || (digits_ok && is_digit(s[p])))) ++p;
    if (p == b || p - b > kMaxKey || p >= s.size() || s[p] != '=') return std::string_view();
    return s.substr(b, p++ - b);
  };
  const std::string_view k1 = key(true);
  std::int64_t v1 = 0, v2 = 0;
  bool neg1 = false, neg2 = false;
  if (k1.empty() || !signed_digits(s, p, v1, neg1)) return false;
  std::string_view k2;
  if (p < s.size()) {
    if (s[p] != ' ') return false;
    ++p;
    k2 = key(false);
    if (k2.empty() || !signed_digits(s, p, v2, neg2) || p != s.size()) return false;
  }
  for (std::size_t i = 0; i < shapes_.durations.size(); ++i) {
    const auto& shape = shapes_.durations[i];
    if (shape.gpu_tid != (tid >= 0) || shape.first != k1 || shape.second != k2) continue;
    const auto& code = duration_codes_[i];
    if (v1 < 0 || v2 < 0 || (code.second_is_count && neg2))
      return false;  // %zu prints no sign, not even -0
    out.cu_line.push_back(lineno);
    out.cu_key.push_back(code.first);
    out.cu_value_ms.push_back(v1);
    out.cu_gpu_tid.push_back(tid);
    if (code.second >= 0) {
      out.cu_line.push_back(lineno);
      out.cu_key.push_back(code.second);
      out.cu_value_ms.push_back(v2);
      out.cu_gpu_tid.push_back(tid);
    }
    return true;
  }
  return false;
}

// CUZK_NTT_H: k=Nms for every key in order, blank-separated, no negative value.
bool ReflogScanner::ntt_h(std::string_view s, std::int64_t lineno, ReflogChunk& out) const {
  const auto& keys = shapes_.ntt_h_keys;
  std::int64_t values[16];
  if (keys.empty() || keys.size() > std::size(values)) return false;
  std::size_t p = 0;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    bool negative = false;
    if ((k && !take(s, p, " ")) || !take(s, p, keys[k]) || !take(s, p, "=") ||
        !signed_digits(s, p, values[k], negative) || !take(s, p, "ms") || values[k] < 0)
      return false;
  }
  if (p != s.size()) return false;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    out.cu_line.push_back(lineno);
    out.cu_key.push_back(ntt_h_key0_ + static_cast<std::int64_t>(k));
    out.cu_value_ms.push_back(values[k]);
    out.cu_gpu_tid.push_back(-1);
  }
  return true;
}

// A tracing-subscriber line that the line scanner would only count as informational
// (reflog_chunks `_TRACING`): `<time>Z +<LEVEL> [span{..}:]... ?<target>: [body]`, LEVEL
// not ERROR, no TRACING_SLOW text, and every `job_id=` that a field could start with (after
// a blank, or after `{` in a span) a valid job id ending its value (before ` key=`, `}` in
// a span, the end of the line in the body). Whether *some* split into spans, target and
// body satisfies that is what counts, as for the regex.
bool ReflogScanner::tracing_informational(std::string_view s) const {
  for (const auto& token : shapes_.tracing_slow)
    if (s.find(token) != std::string_view::npos) return false;
  // yyyy-mm-ddThh:mm:ss[.f{1,9}]Z
  static constexpr std::string_view kStamp = "dddd-dd-ddTdd:dd:dd";
  if (s.size() < kStamp.size()) return false;
  for (std::size_t i = 0; i < kStamp.size(); ++i)
    if (kStamp[i] == 'd' ? !is_digit(s[i]) : s[i] != kStamp[i]) return false;
  std::size_t p = kStamp.size();
  if (p < s.size() && s[p] == '.') {
    const std::size_t b = ++p;
    while (p < s.size() && is_digit(s[p]) && p - b < 9) ++p;
    if (p == b) return false;
  }
  if (!take(s, p, "Z") || !take(s, p, " ")) return false;
  while (p < s.size() && s[p] == ' ') ++p;
  const std::size_t level_at = p;
  while (p < s.size() && s[p] >= 'A' && s[p] <= 'Z') ++p;
  if (index_of(shapes_.tracing_levels, s.substr(level_at, p - level_at)) < 0 || !take(s, p, " "))
    return false;

  // The body may start at b when no `job_id=` after a blank at or after b is bad.
  std::size_t last_bad = 0;
  bool any_bad = false;
  for (std::size_t q = s.find("job_id="); q != std::string_view::npos;
       q = s.find("job_id=", q + 1)) {
    if (s[q - 1] != ' ') continue;
    std::size_t end = 0;
    if (!job_id_at(s, q + 7, end) || !(end == s.size() || field_starts(s, end))) {
      last_bad = q;
      any_bad = true;
    }
  }
  const auto body_ok = [&](std::size_t b) { return !any_bad || last_bad < b; };
  // <target>: = name(::name)* ':' then the end of the line or ' ' and the body.
  const auto target_at = [&](std::size_t q) {
    if (q >= s.size() || !is_name_start(s[q])) return false;
    while (q < s.size() && is_name(s[q])) ++q;
    while (q + 2 < s.size() && s[q] == ':' && s[q + 1] == ':' && is_name_start(s[q + 2])) {
      q += 2;
      while (q < s.size() && is_name(s[q])) ++q;
    }
    if (q >= s.size() || s[q] != ':') return false;
    ++q;
    return q == s.size() || (s[q] == ' ' && body_ok(q + 1));
  };
  // Spans: name[{fields}]: repeated; then an optional blank and the target.
  for (;;) {
    if (p < s.size() && s[p] == ' ') return target_at(p + 1);
    if (target_at(p)) return true;
    if (p >= s.size() || !is_name_start(s[p])) return false;
    while (p < s.size() && is_name(s[p])) ++p;
    if (p < s.size() && s[p] == '{') {
      const std::size_t open = p;
      const std::size_t close = s.find_first_of("{}", open + 1);
      if (close == std::string_view::npos || s[close] != '}') return false;
      for (std::size_t q = s.find("job_id=", open + 1); q < close; q = s.find("job_id=", q + 1)) {
        if (s[q - 1] != ' ' && s[q - 1] != '{') continue;
        std::size_t end = 0;
        if (!job_id_at(s, q + 7, end) || !(end == close || field_starts(s, end))) return false;
      }
      p = close + 1;
    }
    if (!take(s, p, ":")) return false;
  }
}

// Every `<worker_span>{` of the chunk's tracing lines (those the scan below would read as
// tracing), read as `worker_id=W gpu=G` then a blank or `}` (reflog_chunks `_WORKER_SPAN`),
// else with worker -1. In text order.
std::vector<ReflogScanner::Span> ReflogScanner::worker_spans(std::string_view text,
                                                             std::int64_t first_line) const {
  std::vector<Span> spans;
  const std::string needle = shapes_.worker_span + "{";
  // The next `{` with the span's name before it (a `{` is rare outside spans; memmem per hit
  // would set up its search again for each of the many span lines).
  const std::string_view name = shapes_.worker_span;
  const auto find = [&](std::size_t from) -> std::size_t {
    while (from < text.size()) {
      const auto* brace =
          static_cast<const char*>(std::memchr(text.data() + from, '{', text.size() - from));
      if (brace == nullptr) break;
      const auto at = static_cast<std::size_t>(brace - text.data());
      if (at >= name.size() && text.substr(at - name.size(), name.size()) == name)
        return at - name.size();
      from = at + 1;
    }
    return std::string_view::npos;
  };
  std::int64_t lineno = first_line;  // the line holding `counted`
  std::size_t counted = 0, line_b = 0, line_e = 0;
  for (std::size_t at = find(0); at != std::string_view::npos; at = find(at + needle.size())) {
    if (at >= line_e) {  // a later line: its number, begin and end
      lineno += std::count(text.begin() + static_cast<std::ptrdiff_t>(counted),
                           text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
      counted = at;
      const auto* nl = static_cast<const char*>(memrchr(text.data(), '\n', at));
      line_b = nl ? static_cast<std::size_t>(nl - text.data()) + 1 : 0;
      nl = static_cast<const char*>(std::memchr(text.data() + at, '\n', text.size() - at));
      line_e = nl ? static_cast<std::size_t>(nl - text.data()) : text.size();
    }
    const std::string_view line = text.substr(line_b, line_e - line_b);
    if (!(line.size() > 20 && is_digit(line[0]) && line[10] == 'T')) continue;
    std::size_t p = at - line_b + needle.size();
    std::int64_t worker = 0, gpu = 0;
    const bool read = take(line, p, "worker_id=") && digits(line, p, worker) &&
                      take(line, p, " gpu=") && digits(line, p, gpu) && p < line.size() &&
                      (line[p] == ' ' || line[p] == '}');
    spans.push_back({lineno, read ? worker : -1, read ? gpu : -1});
  }
  return spans;
}

// Every `<worker_started>` of the chunk as (worker, gpu), read as ` worker_id=W gpu=G` then a
// blank or a line end (reflog_chunks `_WORKER_STARTED`), else worker -1. Wherever it is: one
// that the line scanner does not take for a start line only sends it more lines.
std::vector<std::pair<std::int64_t, std::int64_t>> ReflogScanner::worker_starts(
    std::string_view text) const {
  std::vector<std::pair<std::int64_t, std::int64_t>> starts;
  const std::string& needle = shapes_.worker_started;
  for (const char* hit =
           static_cast<const char*>(memmem(text.data(), text.size(), needle.data(), needle.size()));
       hit != nullptr;) {
    std::size_t p = static_cast<std::size_t>(hit - text.data()) + needle.size();
    std::int64_t worker = 0, gpu = 0;
    const bool read = take(text, p, " worker_id=") && digits(text, p, worker) &&
                      take(text, p, " gpu=") && digits(text, p, gpu) && p < text.size() &&
                      (text[p] == ' ' || text[p] == '\n');
    starts.emplace_back(read ? worker : -1, read ? gpu : -1);
    const std::size_t from = static_cast<std::size_t>(hit - text.data()) + 1;
    hit = static_cast<const char*>(
        memmem(text.data() + from, text.size() - from, needle.data(), needle.size()));
  }
  return starts;
}

// The span lines the line scanner must see, ascending (reflog_chunks `_tracing`): every one
// not read, the first line of each (worker, gpu) pair (it maps the worker in its run), and
// every line of a worker that may break "a worker keeps its GPU", which it checks one by one:
// one named in the chunk (by spans and `starts`) with two GPUs, or with another than `named`
// (earlier in the file; -1: several); every worker, where a start line was not read.
std::vector<std::int64_t> ReflogScanner::span_lines_for_python(
    const std::vector<Span>& spans, const NamedWorkers& named,
    const std::vector<std::pair<std::int64_t, std::int64_t>>& starts) {
  struct Named {
    std::int64_t gpu, first_line;
    bool two_gpus;  // or another reason to send all its lines
  };
  std::unordered_map<std::int64_t, Named> workers;
  for (const auto& s : spans) {
    if (s.worker < 0) continue;
    const auto [it, fresh] = workers.try_emplace(s.worker, Named{s.gpu, s.line, false});
    if (!fresh && it->second.gpu != s.gpu) it->second.two_gpus = true;
  }
  bool unread_start = false;
  for (const auto& [worker, gpu] : starts) {
    unread_start = unread_start || worker < 0;
    const auto it = workers.find(worker);
    if (it != workers.end() && it->second.gpu != gpu) it->second.two_gpus = true;
  }
  for (auto& [worker, w] : workers) {
    const auto before = named.find(worker);
    if (unread_start || (before != named.end() && before->second != w.gpu)) w.two_gpus = true;
  }
  std::vector<std::int64_t> lines;
  for (const auto& s : spans) {
    if (s.worker < 0) {
      lines.push_back(s.line);
      continue;
    }
    const Named& w = workers.at(s.worker);
    if (w.two_gpus || s.line == w.first_line) lines.push_back(s.line);
  }
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

ReflogChunk ReflogScanner::scan(std::span<char> chunk, std::int64_t first_line,
                                const NamedWorkers& named) const {
  ReflogChunk out;
  out.text = std::string_view(chunk.data(), normalise(chunk));
  const std::string_view text = out.text;
  JobIndex jobs;
  std::int64_t records = 0;
  std::int64_t lineno = first_line;
  const std::string_view timeline_prefix = shapes_.timeline_prefix, timing = shapes_.timing_prefix,
                         ntt = shapes_.ntt_h_prefix;
  // Room for every row a line could give, so that no column is copied while growing; pages
  // never written are never touched.
  std::size_t lines = 0, timelines = 0, timings = 0, ntts = 0;
  for (std::size_t b = 0; b < text.size(); ++lines) {
    const std::string_view rest = text.substr(b);
    timelines += rest.starts_with(timeline_prefix);
    timings += rest.starts_with(timing);
    ntts += rest.starts_with(ntt);
    const char* nl = static_cast<const char*>(std::memchr(text.data() + b, '\n', text.size() - b));
    b = nl ? static_cast<std::size_t>(nl - text.data()) + 1 : text.size();
  }
  for (auto* v : {&out.fast_lines, &out.fast_records}) v->reserve(lines);
  for (auto* v : {&out.ev_line, &out.ev_offset_ms, &out.ev_event, &out.ev_job, &out.ev_partition,
                  &out.ev_worker, &out.ev_kind, &out.ev_value_ms})
    v->reserve(timelines);
  for (auto* v : {&out.cu_line, &out.cu_key, &out.cu_value_ms, &out.cu_gpu_tid})
    v->reserve(2 * timings + shapes_.ntt_h_keys.size() * ntts);
  for (auto* v : {&out.pre_line, &out.pre_value}) v->reserve(timings);
  const std::vector<Span> spans = worker_spans(text, first_line);
  const std::vector<std::int64_t> to_python =
      span_lines_for_python(spans, named, worker_starts(text));
  auto next_to_python = to_python.begin();

  for (std::size_t b = 0; b < text.size(); ++lineno) {
    const char* nl = static_cast<const char*>(std::memchr(text.data() + b, '\n', text.size() - b));
    const std::size_t e = nl ? static_cast<std::size_t>(nl - text.data()) : text.size();
    const std::string_view line = text.substr(b, e - b);
    bool record = false, informational = false;
    if (line.starts_with(timeline_prefix)) {
      record = timeline(line, lineno, out, jobs);
    } else if (line.starts_with(timing)) {
      record = cuda(line.substr(timing.size()), lineno, out);
    } else if (line.starts_with(ntt)) {
      record = ntt_h(line.substr(ntt.size()), lineno, out);
    } else if (line.size() > 20 && is_digit(line[0]) && line[10] == 'T') {
      while (next_to_python != to_python.end() && *next_to_python < lineno) ++next_to_python;
      informational = (next_to_python == to_python.end() || *next_to_python != lineno) &&
                      tracing_informational(line);
    }
    if (record || informational) {
      records += record;
      out.fast_lines.push_back(lineno);
      out.fast_records.push_back(records);
    } else {
      out.slow_line.push_back(lineno);
      out.slow_span.emplace_back(b, e);
    }
    b = e + 1;
  }
  out.n_lines = lineno - first_line;
  // The spans of the lines read here (the fast lines are ascending, as are the spans' lines).
  auto fast = out.fast_lines.begin();
  for (const auto& s : spans) {
    if (s.worker < 0) continue;
    while (fast != out.fast_lines.end() && *fast < s.line) ++fast;
    if (fast == out.fast_lines.end() || *fast != s.line) continue;
    out.span_line.push_back(s.line);
    out.span_worker.push_back(s.worker);
    out.span_gpu.push_back(s.gpu);
  }
  return out;
}

}  // namespace prooflab::harness::python
