// Reading an engine run's timeline.csv back in tests: rows in time order and START/END
// intervals per (job, partition).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace prooflab::test {

struct Row {
  std::int64_t t;
  std::string event;
  int job = -1, partition = -1, worker = -1, device = -1;
  std::string detail;
};

inline int opt_int(const std::string& s) { return s.empty() ? -1 : std::stoi(s); }

inline std::vector<Row> read_timeline(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t_us,event,job,partition,worker,device,detail");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    while (f.size() < 7) f.emplace_back();
    rows.push_back({std::stoll(f[0]), f[1], opt_int(f[2]), opt_int(f[3]), opt_int(f[4]), opt_int(f[5]), f[6]});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.t < b.t; });
  return rows;
}

struct Interval {
  std::int64_t start, end;
  int job, partition, worker, device;
};

// Pairs START/END events of one kind per (job, partition).
inline std::vector<Interval> intervals(const std::vector<Row>& rows, const std::string& start,
                                       const std::string& end) {
  std::map<std::pair<int, int>, Row> open;
  std::vector<Interval> out;
  for (const auto& r : rows) {
    if (r.event == start) open[{r.job, r.partition}] = r;
    if (r.event == end) {
      const auto it = open.find({r.job, r.partition});
      EXPECT_NE(it, open.end()) << end << " without " << start;
      if (it == open.end()) continue;
      out.push_back({it->second.t, r.t, r.job, r.partition, r.worker, r.device});
      open.erase(it);
    }
  }
  EXPECT_TRUE(open.empty()) << start << " without " << end;
  return out;
}

inline bool overlaps(const Interval& a, const Interval& b) { return a.start < b.end && b.start < a.end; }

// The most partitions inside [from, to) at once, over events of two kinds (ties: `to` first,
// so a hand-over at the same microsecond is not counted as overlap).
inline int max_concurrent(const std::vector<Row>& rows, const std::string& from, const std::string& to) {
  std::vector<std::pair<std::int64_t, int>> steps;
  for (const auto& r : rows) {
    if (r.event == from) steps.emplace_back(r.t, +1);
    if (r.event == to) steps.emplace_back(r.t, -1);
  }
  std::sort(steps.begin(), steps.end());
  int now = 0, most = 0;
  for (const auto& [t, d] : steps) most = std::max(most, now += d);
  return most;
}

// A stages.csv as header name -> column values.
inline std::map<std::string, std::vector<std::string>> read_stages(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> cols;
  {
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cols.push_back(c);
  }
  std::map<std::string, std::vector<std::string>> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    f.resize(cols.size());
    for (std::size_t i = 0; i < cols.size(); ++i) out[cols[i]].push_back(f[i]);
  }
  return out;
}

}  // namespace prooflab::test
