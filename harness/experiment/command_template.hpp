// The text templates of an external runner (docs/external-runner.md): `{name}` is replaced by
// the value of `name` (a knob of the run's cell and variant, or a built-in such as {count},
// {run_dir}); `{{` and `}}` stand for literal braces (a shell's ${VAR} is written ${{VAR}}).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace prooflab::harness {

class TemplateError : public std::invalid_argument {
 public:
  TemplateError(const std::string& message, std::string placeholder)
      : std::invalid_argument(message), placeholder_(std::move(placeholder)) {}
  // The placeholder without a value ("" for a syntax error).
  const std::string& placeholder() const { return placeholder_; }

 private:
  std::string placeholder_;
};

// The names of the placeholders of `text`, in order of appearance, each once. Throws
// TemplateError for an unclosed `{`, a lone `}` or a name that is not [A-Za-z_][A-Za-z0-9_.]*.
std::vector<std::string> template_placeholders(const std::string& text);

// `text` with every placeholder replaced. Throws TemplateError naming the first placeholder
// that `values` lacks.
std::string substitute(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace prooflab::harness
