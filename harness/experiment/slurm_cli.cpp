#include "harness/experiment/slurm_cli.hpp"

#include <charconv>
#include <sstream>

namespace prooflab::harness {

namespace {

std::string trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  while (true) {
    const auto end = line.find(sep, start);
    out.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

std::uint64_t number(const std::string& s, const std::string& what, const std::string& line) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (!all_digits(s) || ec != std::errc() || p != s.data() + s.size())
    throw SlurmOutputError(what + " '" + s + "' is not a number in the line '" + line + "'");
  return v;
}

std::string joined(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

// Non-empty lines of `out`, each with the number of '|'-separated fields asked for.
std::vector<std::vector<std::string>> rows(const std::string& out, std::size_t fields,
                                           const char* command) {
  std::vector<std::vector<std::string>> result;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    line = trimmed(line);
    if (line.empty()) continue;
    auto f = split(line, '|');
    if (f.size() != fields)
      throw SlurmOutputError(std::string(command) + " printed '" + line +
                             "': " + std::to_string(f.size()) + " fields, expected " +
                             std::to_string(fields));
    result.push_back(std::move(f));
  }
  return result;
}

// "3" -> {3}; "[2-4%2]" -> {2, 3, 4}; "[1,5-6]" -> {1, 5, 6}.
std::vector<std::uint64_t> array_tasks(const std::string& index, const std::string& line) {
  if (index.empty() || index.front() != '[') return {number(index, "array task id", line)};
  if (index.back() != ']')
    throw SlurmOutputError("array task range '" + index + "' not closed in the line '" + line +
                           "'");
  std::string body = index.substr(1, index.size() - 2);
  body = body.substr(0, body.find('%'));  // the throttle is not a task
  std::vector<std::uint64_t> out;
  for (const auto& part : split(body, ',')) {
    const auto dash = part.find('-');
    const std::uint64_t lo = number(part.substr(0, dash), "array task id", line);
    const std::uint64_t hi =
        dash == std::string::npos ? lo : number(part.substr(dash + 1), "array task id", line);
    if (hi < lo || hi - lo > 10000000)
      throw SlurmOutputError("array task range '" + part + "' in the line '" + line + "'");
    for (std::uint64_t i = lo; i <= hi; ++i) out.push_back(i);
  }
  return out;
}

}  // namespace

std::string array_range(std::size_t tasks, std::uint32_t parallel) {
  if (tasks == 0) throw std::invalid_argument("array_range: no tasks");
  std::string out = "0-" + std::to_string(tasks - 1);
  if (parallel > 0) out += "%" + std::to_string(parallel);
  return out;
}

std::vector<std::string> sbatch_command(const SlurmSubmitOptions& o, std::size_t tasks,
                                        const std::string& job_name, const std::string& output,
                                        const std::string& script) {
  std::vector<std::string> argv = {"sbatch", "--parsable",
                                   "--array=" + array_range(tasks, o.array_parallel),
                                   "--job-name=" + job_name, "--output=" + output};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.gres.empty()) argv.push_back("--gres=" + o.gres);
  if (!o.time.empty()) argv.push_back("--time=" + o.time);
  if (!o.pin_node.empty()) argv.push_back("--nodelist=" + o.pin_node);
  argv.insert(argv.end(), o.extra.begin(), o.extra.end());
  argv.push_back(script);
  return argv;
}

std::string parse_sbatch_job_id(const std::string& out) {
  // --parsable: "<id>" or "<id>;<cluster>"; sbatch may print warnings on stderr only.
  std::string last;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (!trimmed(line).empty()) last = trimmed(line);
  const std::string id = last.substr(0, last.find(';'));
  if (!all_digits(id))
    throw SlurmOutputError("sbatch --parsable printed '" + trimmed(out) + "', not a job id");
  return id;
}

std::vector<std::string> squeue_command(const std::vector<std::string>& job_ids) {
  return {"squeue", "-h", "-r", "-j", joined(job_ids), "-o", "%F|%K|%T|%N|%r"};
}

std::vector<SlurmTask> parse_squeue(const std::string& out) {
  std::vector<SlurmTask> tasks;
  for (const auto& f : rows(out, 5, "squeue")) {
    // A job that is not an array prints N/A as its task id; it is none of ours.
    if (!all_digits(f[1])) continue;
    const std::string line = f[0] + "|" + f[1] + "|" + f[2];
    number(f[0], "array job id", line);
    tasks.push_back({f[0], number(f[1], "array task id", line), f[2], f[3], f[4], std::nullopt});
  }
  return tasks;
}

bool squeue_job_unknown(int exit_code, const std::string& err) {
  return exit_code != 0 && err.find("Invalid job id specified") != std::string::npos;
}

std::vector<std::string> sacct_command(const std::vector<std::string>& job_ids) {
  return {"sacct", "-n",
          "-P",    "-X",
          "-j",    joined(job_ids),
          "-o",    "JobID,State,ExitCode,NodeList,ElapsedRaw"};
}

std::vector<SlurmTask> parse_sacct(const std::string& out) {
  std::vector<SlurmTask> tasks;
  for (const auto& f : rows(out, 5, "sacct")) {
    const auto us = f[0].find('_');
    if (us == std::string::npos) continue;  // not an array task
    const std::string array_job = f[0].substr(0, us), index = f[0].substr(us + 1);
    const std::string line = f[0] + "|" + f[1];
    number(array_job, "array job id", line);
    SlurmTask t{
        array_job, 0,           f[1].substr(0, f[1].find(' ')), f[3] == "None assigned" ? "" : f[3],
        f[2],      std::nullopt};
    if (!f[4].empty()) t.elapsed_s = number(f[4], "ElapsedRaw", line);
    // Tasks that never started share one record: "12_[4-9%2]" (a pending remainder, or one
    // cancelled before any of it ran).
    for (const std::uint64_t task : array_tasks(index, line)) {
      t.task = task;
      tasks.push_back(t);
    }
  }
  return tasks;
}

bool slurm_state_ended(const std::string& state) {
  for (const char* s : {"BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL",
                        "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT"})
    if (state == s) return true;
  return false;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

}  // namespace prooflab::harness
