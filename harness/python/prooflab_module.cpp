// The `prooflab` Python module: notebooks drive experiments with the same engine config,
// batch runner and run-directory format as the `prooflab` command line.
//
//   import prooflab
//   cfg = prooflab.EngineConfig(constraints=4096, partitions=10, count=6, concurrency=3)
//   cfg["lock_policy"] = "two_lock"            # validated here: prooflab.ConfigError names the key
//   run = prooflab.run_batch(cfg, out="results/runs")   # {"run_dir", "status", "summary"}
//   tl = prooflab.read_timeline(run["run_dir"])          # columns as numpy arrays
//   prooflab.export_trace(run["run_dir"])                # trace.json for ui.perfetto.dev
//
// The batch runs with the GIL released; Ctrl-C (KeyboardInterrupt) stops submitting jobs,
// lets the jobs in flight finish and leaves the run directory marked interrupted, as
// SIGINT does for `prooflab batch`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <csignal>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <thread>
#include <unordered_map>

#include "core/engine/config.hpp"
#include "core/engine/knobs.hpp"
#include "core/stats/interval_union.hpp"
#include "core/stats/sample.hpp"
#include "core/trace/stages_csv.hpp"
#include "harness/batch_runner.hpp"
#include "harness/commands/command_line.hpp"
#include "harness/config_file.hpp"
#include "harness/experiment/experiment_spec.hpp"
#include "harness/commands/sweep_name.hpp"
#include "harness/provenance.hpp"
#include "harness/python/fast_csv.hpp"
#include "harness/python/reflog_scan.hpp"
#include "harness/trace_export/trace_export_chrome.hpp"
#include "harness/version.hpp"

namespace py = pybind11;

namespace prooflab::harness::python {
namespace {

// The command line in-process (harness/commands/command_line.hpp). The commands install their own
// SIGINT/SIGTERM/SIGPIPE handlers (first Ctrl-C: stop after the current run) and reset them
// to the default when they end; Python's handlers (KeyboardInterrupt) are put back after.
int run_cli(const std::vector<std::string>& args) {
  struct SavedSignals {
    struct sigaction saved[3];
    const int signals[3] = {SIGINT, SIGTERM, SIGPIPE};
    SavedSignals() {
      for (int i = 0; i < 3; ++i) sigaction(signals[i], nullptr, &saved[i]);
    }
    ~SavedSignals() {
      for (int i = 0; i < 3; ++i) sigaction(signals[i], &saved[i], nullptr);
    }
  } keep;
  std::string call = "python: prooflab.cli([";
  for (std::size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + nlohmann::json(args[i]).dump();
  prooflab::harness::remember_command(call + "])");
  return prooflab::harness::run_command_line(args, /*rethrow=*/true);
}

std::vector<std::string> experiment_args(const std::string& command, const std::string& out,
                                         const std::string& param_dir, bool dry_run,
                                         const std::vector<std::string>& extra) {
  std::vector<std::string> args{command};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--out", out});
  if (!param_dir.empty()) args.insert(args.end(), {"--param-dir", param_dir});
  if (dry_run) args.push_back("--dry-run");
  return args;
}


struct CsvDeclined : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The integer columns of the run directory's files (docs/run-directory.md); every other
// column is text. prooflab_analysis passes its own list from its schema instead.
const std::set<std::string> kTimelineIntColumns = {"t_us", "job", "partition", "worker", "device"};
const std::set<std::string> kStagesIntColumns = [] {
  const auto columns = prooflab::trace::stages_csv_integer_columns();
  return std::set<std::string>(columns.begin(), columns.end());
}();

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(to_python(v));
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
      return out;
    }
    default: return py::none();
  }
}

// A Python value as the text `EngineConfig::set` parses: True -> "on", 4096 -> "4096".
std::string config_text(const std::string& key, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "on" : "off";
  if (py::isinstance<py::int_>(value)) {
    if (value.cast<py::int_>() < py::int_(0))
      throw engine::ConfigError("config key '" + key + "': bad value '" + py::str(value).cast<std::string>() +
                                "' (accepted: a non-negative integer)");
    return py::str(value).cast<std::string>();
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  const engine::Knob* knob = engine::find_knob(key);
  if (value.is_none() && knob != nullptr && knob->kind == engine::KnobKind::kBytes) return "0";
  throw engine::ConfigError("config key '" + key + "': a " + std::string(py::str(value.get_type().attr("__name__"))) +
                            " is not accepted (give a str, int or bool)");
}

void set_key(engine::EngineConfig& cfg, const std::string& key, const py::handle& value) {
  cfg.set(key, config_text(key, value));
}

void update(engine::EngineConfig& cfg, const py::dict& values) {
  for (const auto& [k, v] : values) set_key(cfg, py::str(k).cast<std::string>(), v);
}

std::string repr(const engine::EngineConfig& cfg) {
  std::string out = "EngineConfig(";
  for (const auto& knob : engine::knobs())
    out += (out.back() == '(' ? "" : ", ") + std::string(knob.name) + "=" +
           py::repr(to_python(knob.json(cfg))).cast<std::string>();
  return out + ")";
}

// EngineConfig's docstring: how to set knobs, then every knob of the table with what it
// accepts, its default and its doc.
const char* engine_config_doc() {
  static const std::string doc = [] {
    std::string out = R"(Every knob of the proving engine (docs/engine.md).

EngineConfig(**knobs) starts from the defaults and sets each knob; values are str, int or
bool (bool -> on/off; None -> 0 for a byte count). A bad key or value raises
prooflab.ConfigError naming it. EngineConfig.knobs() gives the table below as data.

Knobs (accepted; default):)";
    const engine::EngineConfig defaults;
    for (const auto& knob : engine::knobs())
      out += "\n  " + std::string(knob.name) + " (" + knob.accepted() + "; default " + knob.text(defaults) +
             "): " + std::string(knob.doc);
    return out;
  }();
  return doc.c_str();
}

py::dict run_batch(const engine::EngineConfig& cfg, const std::string& out, const std::string& run_id,
                   const std::string& param_dir, bool verbose) {
  std::atomic<bool> stop{false};
  BatchRunOptions opts;
  opts.out_parent = out;
  opts.run_id = run_id;
  opts.param_dir = param_dir;
  opts.print_jobs = verbose;
  opts.print_summary = verbose;
  opts.stop = &stop;
  {
    // run.json's "command": how this run was started.
    remember_command("python: prooflab.run_batch(" + cfg.to_json().dump() + ")");
  }

  std::packaged_task<BatchRunOutcome()> task([&] { return run_batch_to_directory(cfg, opts); });
  auto done = task.get_future();
  std::thread runner(std::move(task));
  // Wait with the GIL released, taking it back every 50 ms to let Python handle signals.
  std::optional<py::error_already_set> interrupted;
  while (true) {
    bool ready = false;
    {
      py::gil_scoped_release release;
      ready = done.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
    }
    if (ready) break;
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted.emplace();  // fetches the KeyboardInterrupt; raised once the run has ended
      stop = true;
    }
  }
  {
    py::gil_scoped_release release;
    runner.join();
  }
  BatchRunOutcome outcome = done.get();  // rethrows the runner's exception
  if (interrupted) throw *interrupted;
  py::dict result;
  result["run_dir"] = outcome.run_dir.string();
  result["status"] = outcome.status;
  result["summary"] = to_python(outcome.summary);
  return result;
}

py::dict read_csv_columns(const std::string& path, const std::set<std::string>& int_columns) {
  std::variant<FastCsv, FastCsvDeclined> parsed;
  {
    py::gil_scoped_release release;
    parsed = read_csv_fast(path, int_columns);
  }
  if (const auto* declined = std::get_if<FastCsvDeclined>(&parsed))
    throw CsvDeclined(path + ": " + declined->reason);
  const auto& csv = std::get<FastCsv>(parsed);

  const py::module_ np = py::module_::import("numpy");
  const py::object masked_array = py::module_::import("numpy.ma").attr("masked_array");
  py::dict out;
  for (std::size_t col = 0; col < csv.header.size(); ++col) {
    const py::str name(csv.header[col]);
    if (const auto* ints = std::get_if<IntColumn>(&csv.columns[col])) {
      // Allocated, then filled: here (pybind11 2.10.3, clang 14, C++20) array_t(count, ptr)
      // gave an array of the first element repeated.
      const auto n = static_cast<py::ssize_t>(csv.rows);
      py::array_t<std::int64_t> values(std::vector<py::ssize_t>{n});
      py::array_t<bool> missing(std::vector<py::ssize_t>{n});
      std::copy(ints->values.begin(), ints->values.end(), values.mutable_data());
      std::transform(ints->missing.begin(), ints->missing.end(), missing.mutable_data(),
                     [](std::uint8_t m) { return m != 0; });
      out[name] = masked_array(values, py::arg("mask") = missing);
      continue;
    }
    // Text: one Python string per distinct value (events, statuses repeat a lot).
    const auto& texts = std::get<TextColumn>(csv.columns[col]);
    std::unordered_map<std::string_view, py::object> interned;
    py::list items(csv.rows);
    for (std::size_t r = 0; r < csv.rows; ++r) {
      const std::string_view field = csv.field(texts, r);
      auto it = interned.find(field);
      if (it == interned.end()) {
        PyObject* s = PyUnicode_DecodeUTF8(field.data(), static_cast<py::ssize_t>(field.size()), "strict");
        if (s == nullptr) {
          PyErr_Clear();
          throw CsvDeclined(path + ": column '" + csv.header[col] + "' row " + std::to_string(r + 1) +
                            " is not UTF-8");
        }
        py::object value = py::reinterpret_steal<py::object>(s);
        if (interned.size() < 65536) it = interned.emplace(field, value).first;
        items[r] = value;
      } else {
        items[r] = it->second;
      }
    }
    out[name] = np.attr("array")(items, py::arg("dtype") = "object");
  }
  return out;
}

// A vector as a numpy int64 array that owns it (no copy: the columns of a chunk are large).
py::array_t<std::int64_t> int64_array(std::vector<std::int64_t>&& v) {
  auto* owned = new std::vector<std::int64_t>(std::move(v));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<std::int64_t>*>(p); });
  return py::array_t<std::int64_t>(std::vector<py::ssize_t>{static_cast<py::ssize_t>(owned->size())},
                                   std::vector<py::ssize_t>{sizeof(std::int64_t)}, owned->data(), free_when_done);
}

py::str utf8_replaced(std::string_view text) {  // as bytes.decode("utf-8", errors="replace")
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<py::ssize_t>(text.size()), "replace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

ReflogShapes reflog_shapes(const py::kwargs& kw) {
  const auto get = [&](const char* key) {
    if (!kw.contains(key)) throw std::invalid_argument(std::string("ReflogScanner: missing table '") + key + "'");
    return kw[key];
  };
  ReflogShapes s;
  s.timeline_prefix = get("timeline_prefix").cast<std::string>();
  s.timing_prefix = get("timing_prefix").cast<std::string>();
  s.ntt_h_prefix = get("ntt_h_prefix").cast<std::string>();
  s.events = get("events").cast<std::vector<std::string>>();
  s.event_items = get("event_items").cast<std::vector<std::vector<std::vector<std::string>>>>();
  s.proof_kinds = get("proof_kinds").cast<std::vector<std::string>>();
  s.job_id_max = get("job_id_max").cast<std::size_t>();
  s.record_words = get("record_words").cast<std::vector<std::string>>();
  for (const auto& [tid, first, second] : get("durations").cast<std::vector<std::tuple<bool, std::string, std::string>>>())
    s.durations.push_back({tid, first, second});
  s.count_key = get("count_key").cast<std::string>();
  s.prestage_values = get("prestage_values").cast<std::vector<std::string>>();
  s.ntt_h_keys = get("ntt_h_keys").cast<std::vector<std::string>>();
  s.tracing_levels = get("tracing_levels").cast<std::vector<std::string>>();
  s.tracing_slow = get("tracing_slow").cast<std::vector<std::string>>();
  s.worker_span = get("worker_span").cast<std::string>();
  s.worker_started = get("worker_started").cast<std::string>();
  for (const auto& key : kw)
    if (!std::set<std::string>{"timeline_prefix", "timing_prefix", "ntt_h_prefix", "events", "event_items",
                               "proof_kinds", "job_id_max", "record_words", "durations", "count_key",
                               "prestage_values", "ntt_h_keys", "tracing_levels", "tracing_slow", "worker_span", "worker_started"}
             .contains(key.first.cast<std::string>()))
      throw std::invalid_argument("ReflogScanner: unknown table '" + key.first.cast<std::string>() + "'");
  return s;
}

// `chunk`: bytes, or a writable buffer (a memoryview of the importer's bytearray), which is
// normalised in place; read-only bytes are copied first.
py::dict scan_reflog(const ReflogScanner& scanner, const py::buffer& chunk, std::int64_t first_line,
                     const ReflogScanner::NamedWorkers& named) {
  const py::buffer_info info = chunk.request();
  if (info.ndim != 1 || info.itemsize != 1 || (info.shape[0] > 1 && info.strides[0] != 1))
    throw std::invalid_argument("ReflogScanner.scan: the chunk must be contiguous bytes");
  const auto size = static_cast<std::size_t>(info.shape[0]);
  std::string copy;
  std::span<char> bytes(static_cast<char*>(info.ptr), size);
  if (info.readonly) {
    copy.assign(bytes.data(), size);
    bytes = std::span<char>(copy.data(), size);
  }
  ReflogChunk c;
  {
    py::gil_scoped_release release;
    c = scanner.scan(bytes, first_line, named);
  }
  py::dict events, cuda, prestage, worker_spans;
  events["line"] = int64_array(std::move(c.ev_line));
  events["offset_ms"] = int64_array(std::move(c.ev_offset_ms));
  events["event"] = int64_array(std::move(c.ev_event));
  events["job"] = int64_array(std::move(c.ev_job));
  events["partition"] = int64_array(std::move(c.ev_partition));
  events["worker"] = int64_array(std::move(c.ev_worker));
  events["kind"] = int64_array(std::move(c.ev_kind));
  events["value_ms"] = int64_array(std::move(c.ev_value_ms));
  cuda["line"] = int64_array(std::move(c.cu_line));
  cuda["key"] = int64_array(std::move(c.cu_key));
  cuda["value_ms"] = int64_array(std::move(c.cu_value_ms));
  cuda["gpu_tid"] = int64_array(std::move(c.cu_gpu_tid));
  prestage["line"] = int64_array(std::move(c.pre_line));
  prestage["value"] = int64_array(std::move(c.pre_value));
  worker_spans["line"] = int64_array(std::move(c.span_line));
  worker_spans["worker"] = int64_array(std::move(c.span_worker));
  worker_spans["gpu"] = int64_array(std::move(c.span_gpu));
  py::list job_ids, slow;
  for (const auto id : c.job_ids) job_ids.append(utf8_replaced(id));
  for (std::size_t k = 0; k < c.slow_line.size(); ++k) {
    const auto [b, e] = c.slow_span[k];
    slow.append(py::make_tuple(c.slow_line[k], utf8_replaced(c.text.substr(b, e - b))));
  }
  py::dict out;
  out["n_lines"] = c.n_lines;
  out["fast_lines"] = int64_array(std::move(c.fast_lines));
  out["fast_records"] = int64_array(std::move(c.fast_records));
  out["events"] = events;
  out["job_ids"] = job_ids;
  out["cuda"] = cuda;
  out["prestage"] = prestage;
  out["worker_spans"] = worker_spans;
  out["slow"] = slow;
  return out;
}

// (start, end) pairs from Python as the spans of core/stats/interval_union.hpp.
std::vector<stats::Span> spans_of(const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs) {
  std::vector<stats::Span> out;
  for (const auto& [start, end] : pairs) out.push_back({start, end});
  return out;
}

}  // namespace
}  // namespace prooflab::harness::python

PYBIND11_MODULE(prooflab, m) {
  using prooflab::engine::EngineConfig;
  namespace hp = prooflab::harness::python;
  m.doc() = R"(prooflab: the proving engine's configuration, batch runs into run directories, fast
run-directory loaders, the reference-log line scanner and the Chrome/Perfetto trace export,
for notebooks.

    cfg = prooflab.EngineConfig(constraints=4096, partitions=10, count=6, concurrency=3)
    run = prooflab.run_batch(cfg, out="results/runs")
    prooflab.read_timeline(run["run_dir"]); prooflab.export_trace(run["run_dir"])

Experiment matrices, sweeps and regression checks run through the command line
(`prooflab matrix | sweep | regress`, docs/experiments.md, docs/regress.md) and are read
with prooflab_analysis. version() says which build this module is.)";
  m.attr("source_dir") = PROOFLAB_SOURCE_DIR;

  py::register_exception<prooflab::engine::ConfigError>(m, "ConfigError", PyExc_ValueError)
      .attr("__doc__") = "A bad engine knob: the message names the key, the value and what is accepted";
  py::register_exception<hp::CsvDeclined>(m, "CsvDeclined", PyExc_ValueError)
      .attr("__doc__") = "read_csv_columns declined a file that is not in the plain form (the message says why)";

  py::class_<EngineConfig>(m, "EngineConfig", hp::engine_config_doc())
      .def(py::init([](const py::kwargs& knobs) {
             EngineConfig cfg;
             hp::update(cfg, knobs);
             return cfg;
           }))
      .def_static("from_toml", [](const std::string& path) {
            EngineConfig cfg;
            prooflab::harness::apply_config_file(cfg, path);
            return cfg;
          }, py::arg("path"), "A config from an experiment TOML file (top-level keys or an [engine] table)")
      .def_static("keys", &EngineConfig::keys, "The knob names, in the table's order")
      .def_static("knobs", [] { return hp::to_python(prooflab::engine::knob_table_json()); },
                  "The table of knobs: one dict per knob with name, kind, accepted, lo/hi or values, "
                  "default, doc and cuzk (`prooflab knobs --json`)")
      .def("set", [](EngineConfig& cfg, const std::string& key, const py::object& value) { hp::set_key(cfg, key, value); },
           py::arg("key"), py::arg("value"), "Set one knob (str, int or bool); raises ConfigError naming a bad key or value")
      .def("update", [](EngineConfig& cfg, const py::kwargs& knobs) { hp::update(cfg, knobs); },
           "Set several knobs: update(lock_policy='two_lock', gpu_threads=32)")
      .def("update", [](EngineConfig& cfg, const py::dict& knobs) { hp::update(cfg, knobs); },
           "Set several knobs from a dict: update({'lock_policy': 'two_lock'})")
      .def("validate", &EngineConfig::validate, "Cross-field checks (concurrency <= count)")
      .def("to_dict", [](const EngineConfig& cfg) { return hp::to_python(cfg.to_json()); },
           "Every knob, as run.json's config records it")
      .def("to_json", [](const EngineConfig& cfg, int indent) { return cfg.to_json().dump(indent); },
           py::arg("indent") = -1, "Every knob as a JSON text (indent -1: one line)")
      .def("copy", [](const EngineConfig& cfg) { return cfg; }, "An independent copy")
      .def("__copy__", [](const EngineConfig& cfg) { return cfg; })
      .def("__getitem__", [](const EngineConfig& cfg, const std::string& key) {
            try {
              return hp::to_python(prooflab::engine::knob(key).json(cfg));
            } catch (const prooflab::engine::ConfigError& e) {
              throw py::key_error(e.what());
            }
          })
      .def("__setitem__", [](EngineConfig& cfg, const std::string& key, const py::object& value) {
            hp::set_key(cfg, key, value);
          })
      .def("__eq__", [](const EngineConfig& a, const EngineConfig& b) { return a.to_json() == b.to_json(); })
      .def("__repr__", &hp::repr);

  m.def("run_batch", &hp::run_batch, py::arg("config"), py::arg("out") = "results/runs", py::arg("run_id") = "",
        py::arg("param_dir") = "", py::arg("verbose") = false,
        R"(Run one batch into out/<run_id>/ (run.json, timeline.csv, stages.csv, proofs/, summary.json).

run_id defaults to time, circuit, c and j; param_dir to $PROOFLAB_PARAM_DIR or
~/.cache/prooflab/params. verbose prints the per-proof lines and the Batch Summary on the
process's stdout. Returns {"run_dir", "status" (complete | failed | interrupted), "summary"}.)");
  m.def("default_run_id", &prooflab::harness::default_run_id, py::arg("config"),
        "The run id run_batch gives a run of this config when none is given: time, circuit, c and j");

  m.def("read_csv_columns", [](const std::string& path, const std::vector<std::string>& int_columns) {
        return hp::read_csv_columns(path, {int_columns.begin(), int_columns.end()});
      }, py::arg("path"), py::arg("int_columns"),
        R"(A run-directory CSV as {column: values} in header order: the int_columns as
numpy.ma.MaskedArray of int64 (masked where the field is empty), the others as numpy
object arrays of str. Raises prooflab.CsvDeclined (a ValueError) for anything but the plain
form (quotes, a cut-off last line, a non-integer in an integer column, ...): read such a file
with prooflab_analysis.loaders, whose errors name the line.)");
  m.def("read_timeline", [](const std::string& run_dir) {
        return hp::read_csv_columns(run_dir + "/timeline.csv", hp::kTimelineIntColumns);
      }, py::arg("run_dir"), "timeline.csv of a run directory, as read_csv_columns gives it");
  m.def("read_stages", [](const std::string& run_dir) {
        return hp::read_csv_columns(run_dir + "/stages.csv", hp::kStagesIntColumns);
      }, py::arg("run_dir"), "stages.csv of a run directory, as read_csv_columns gives it");

  // The C++ statistics (core/stats), so that a test pins them to prooflab_analysis.stats
  // (tests/python/test_stats_agree.py). NaN raises ValueError; an empty sample gives None.
  auto st = m.def_submodule("stats", "The C++ side's statistics (core/stats), for comparison with prooflab_analysis.stats");
  st.def("quantile", [](const std::vector<double>& v, double q) { return prooflab::stats::quantile(v, q); },
         py::arg("values"), py::arg("q"), "The q-quantile (q in [0, 1]), numpy's linear rule; None if empty");
  st.def("median", [](const std::vector<double>& v) { return prooflab::stats::median(v); }, py::arg("values"));
  st.def("mean", [](const std::vector<double>& v) { return prooflab::stats::mean(v); }, py::arg("values"));
  st.def("sample_sd", [](const std::vector<double>& v) { return prooflab::stats::sample_sd(v); },
         py::arg("values"), "Standard deviation with n - 1 in the denominator; None below two values");
  using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;
  st.def("union_length", [](const Pairs& spans, std::pair<std::int64_t, std::int64_t> w) {
           return prooflab::stats::union_length(hp::spans_of(spans), {w.first, w.second});
         }, py::arg("spans"), py::arg("window"), "Length of the union of (start, end) spans clipped to the window");
  st.def("busy_fraction", [](const Pairs& spans, std::pair<std::int64_t, std::int64_t> w) {
           return prooflab::stats::busy_fraction(hp::spans_of(spans), {w.first, w.second});
         }, py::arg("spans"), py::arg("window"), "union_length over the window's length; None for an empty window");

  py::class_<hp::ReflogScanner>(m, "ReflogScanner", R"(The compiled line scanner of prooflab_analysis.reflog_chunks:
ReflogScanner(**tables) with the tables reflog_chunks.native_tables() gives (raises ValueError
naming a missing or bad one); scan(chunk, first_line) reads one chunk of whole lines of a
cuzk daemon log (docs/reference-logs.md, "Speed").)")
      .def(py::init([](const py::kwargs& kw) { return hp::ReflogScanner(hp::reflog_shapes(kw)); }))
      .def_property_readonly("value_keys", &hp::ReflogScanner::value_keys,
                             "The CUZK key of each value code that scan() returns")
      .def("scan", &hp::scan_reflog, py::arg("chunk"), py::arg("first_line"), py::arg("named"),
           R"(One chunk (whole lines, each ending with a newline; ANSI colour and \r\n allowed)
whose first line has number first_line: bytes, or a writable buffer, which is normalised in
place; named: {worker: gpu} of the workers the file put on a GPU before it (-1: several). Returns {"n_lines", "fast_lines",
"fast_records", "events", "job_ids", "cuda", "prestage", "worker_spans", "slow"}: the line
numbers read here, with the cumulative count of records among them; TIMELINE, CUZK value and
prestage columns as int64 arrays (codes index events, job_ids, proof_kinds, value_keys,
prestage_values; -1 = absent); the gpu_worker spans of the lines read here (line, worker,
gpu); and (line number, text) of every other line, in file order, for the line scanner.)");

  m.def("export_trace", [](const std::string& run_dir, const std::string& out) {
        const auto file = prooflab::harness::trace_export::export_chrome_trace(run_dir, out);
        py::dict r;
        r["path"] = file.path.string();
        r["slices"] = file.summary.slices;
        r["tracks"] = file.summary.tracks;
        r["counter_points"] = file.summary.counter_points;
        r["warnings"] = file.warnings;
        return r;
      }, py::arg("run_dir"), py::arg("out") = "",
        R"(Write a run directory as a Chrome trace-event JSON file (out, default run_dir/trace.json)
for ui.perfetto.dev or chrome://tracing, as `prooflab trace` does (docs/run-directory.md).
Returns {"path", "slices", "tracks", "counter_points", "warnings"}; raises RuntimeError
naming the file and line of a malformed CSV.)");
  m.def("cli", &hp::run_cli, py::arg("args"),
        R"(Run a `prooflab` command line in this process, e.g. cli(["devices"]); returns its exit
status (regress: 1 = a regression, 3 = nothing compared). Raises ValueError for a command
line the parser refuses, ConfigError for a bad knob and RuntimeError for any other error,
with the message `prooflab` would print. Output goes to this process's stdout/stderr.)");
  m.def("matrix", [](const std::string& experiment, const std::string& out, std::optional<int> reps,
                     const std::string& param_dir, bool dry_run) {
        std::vector<std::string> extra{experiment};
        if (reps) extra.insert(extra.end(), {"--reps", std::to_string(*reps)});
        hp::run_cli(hp::experiment_args("matrix", out, param_dir, dry_run, extra));
        const auto spec = prooflab::harness::parse_experiment_file(experiment);
        return (std::filesystem::path(out) / spec.name).string();
      }, py::arg("experiment"), py::arg("out") = "results", py::arg("reps") = py::none(),
        py::arg("param_dir") = "", py::arg("dry_run") = false,
        R"(Run (or resume) an experiment file's interleaved matrix, as `prooflab matrix` does
(docs/experiments.md); returns the experiment directory (out/<name>: index.csv, one run
directory per run) for prooflab_analysis.loaders.load_experiment. reps overrides the file's;
dry_run prints the plan only. Raises RuntimeError when a run did not complete (the runs
that did are kept; calling it again resumes).)");
  m.def("sweep", [](const std::vector<std::uint32_t>& c, const std::vector<std::uint32_t>& j, bool pairs, const std::string& config,
                    const std::vector<std::string>& sets, int reps, int warmup, const std::string& name,
                    const std::string& out, const std::string& param_dir, bool dry_run) {
        std::vector<std::string> extra{"--reps", std::to_string(reps), "--warmup", std::to_string(warmup)};
        for (const auto* list : {&c, &j})  // one --c / --j per value: the option collects them
          for (auto v : *list) extra.insert(extra.end(), {list == &c ? "--c" : "--j", std::to_string(v)});
        if (pairs) extra.push_back("--pairs");
        if (!config.empty()) extra.insert(extra.end(), {"--config", config});
        for (const auto& kv : sets) extra.insert(extra.end(), {"--set", kv});
        if (!name.empty()) extra.insert(extra.end(), {"--name", name});
        hp::run_cli(hp::experiment_args("sweep", out, param_dir, dry_run, extra));
        if (!name.empty()) return (std::filesystem::path(out) / name).string();
        return (std::filesystem::path(out) / prooflab::harness::default_sweep_name(c, j, pairs)).string();
      }, py::arg("c"), py::arg("j"), py::arg("pairs") = false, py::arg("config") = "",
        py::arg("sets") = std::vector<std::string>{}, py::arg("reps") = 1, py::arg("warmup") = 0,
        py::arg("name") = "", py::arg("out") = "results", py::arg("param_dir") = "", py::arg("dry_run") = false,
        R"(A concurrency sweep over counts c and concurrencies j (every pair, or pairwise with
pairs=True), as `prooflab sweep` does; sets are "key=value" overrides of the config.
Returns the experiment directory (out/<name>, by default sweep-c<list>-j<list>[-pairs]).)");
  m.def("regress", [](const std::string& baseline, const std::vector<std::string>& inputs,
                      const std::string& json, const std::vector<std::string>& metrics) {
        std::vector<std::string> args{"regress", "--baseline", baseline};
        args.insert(args.end(), inputs.begin(), inputs.end());
        if (!json.empty()) args.insert(args.end(), {"--json", json});
        for (const auto& m : metrics) args.insert(args.end(), {"--metric", m});
        return hp::run_cli(args);
      }, py::arg("baseline"), py::arg("inputs") = std::vector<std::string>{}, py::arg("json") = "",
        py::arg("metrics") = std::vector<std::string>{},
        R"(Check figures against a regression baseline, as `prooflab regress` does (docs/regress.md):
inputs are benchmark JSON files, run or experiment directories; without inputs it measures
the baseline's instruction counts. Returns the exit status: 0 no regression, 1 a regression,
3 nothing compared; json= writes the per-metric report (rows with verdicts).)");
  m.def("version", &prooflab::harness::version_text,
        "What `prooflab --version` says of this build: release, commit, build type, CUDA, Python");
}
