#include "harness/experiment/directory_names.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/text/parse.hpp"

namespace prooflab::harness {

bool is_safe_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 100) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '+' || c == '-';
  });
}

void check_run_id(const std::string& run_id) {
  auto refuse = [&](const std::string& why) {
    throw std::invalid_argument("run id '" + text::excerpt(run_id) + "': " + why);
  };
  if (run_id.empty()) refuse("empty");
  if (run_id.front() == '/') refuse("an absolute path; a run id names a directory under --out");
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = run_id.find('/', begin);
    const std::string part = run_id.substr(begin, end == std::string::npos ? end : end - begin);
    if (part == "..") refuse("'..' would leave --out");
    if (!is_safe_name(part))
      refuse("'" + text::excerpt(part) +
             "' is not a directory name (1-100 letters, digits, . _ + -; not . or ..)");
    if (end == std::string::npos) return;
    begin = end + 1;
  }
}

}  // namespace prooflab::harness
