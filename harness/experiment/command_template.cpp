#include "harness/experiment/command_template.hpp"

#include <algorithm>
#include <cctype>

namespace prooflab::harness {

namespace {

bool is_name(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.'; });
}

// Calls on_text for literal runs and on_name for placeholders.
template <typename Text, typename Name>
void scan(const std::string& text, Text on_text, Name on_name) {
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      on_text(std::string(1, c));
      i += 2;
    } else if (c == '}') {
      throw TemplateError(
          "a lone '}' at character " + std::to_string(i + 1) + " (write '}}' for a literal brace)",
          "");
    } else if (c == '{') {
      const auto end = text.find('}', i + 1);
      if (end == std::string::npos)
        throw TemplateError("'{' at character " + std::to_string(i + 1) +
                                " is not closed (write '{{' for a literal brace)",
                            "");
      const std::string name = text.substr(i + 1, end - i - 1);
      if (!is_name(name))
        throw TemplateError("'{" + name +
                                "}' is not a placeholder name (letters, digits, _ and ., "
                                "not starting with a digit; write '{{' for a literal brace)",
                            "");
      on_name(name);
      i = end + 1;
    } else {
      const auto next = text.find_first_of("{}", i);
      const auto stop = next == std::string::npos ? text.size() : next;
      on_text(text.substr(i, stop - i));
      i = stop;
    }
  }
}

}  // namespace

std::vector<std::string> template_placeholders(const std::string& text) {
  std::vector<std::string> names;
  scan(
      text, [](const std::string&) {},
      [&](const std::string& name) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      });
  return names;
}

std::string substitute(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  scan(
      text, [&](const std::string& s) { out += s; },
      [&](const std::string& name) {
        const auto it = values.find(name);
        if (it == values.end())
          throw TemplateError("placeholder {" + name + "} has no value", name);
        out += it->second;
      });
  return out;
}

}  // namespace prooflab::harness
