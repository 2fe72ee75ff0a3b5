// Loading an optional measurement library at run time (CUPTI for gpu/observe, NVML for the
// counters), so that a build or a machine without it still runs and says why it is absent.
#pragma once

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace prooflab::trace {

// dlopen(name, RTLD_NOW | RTLD_LOCAL). On failure: null, and dlerror's words (or
// "<name>: not loadable") appended to *tried, "; "-separated.
inline void* open_library(const std::string& name, std::string* tried) {
  void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    *tried += (tried->empty() ? "" : "; ") + (e ? std::string(e) : name + ": not loadable");
  }
  return lib;
}

// fn = the symbol `name` of lib, as fn's function-pointer type; a required symbol that is
// absent is appended to *missing, ", "-separated.
template <class Fn>
void resolve_symbol(void* lib, Fn& fn, const char* name, bool required, std::string* missing) {
  fn = reinterpret_cast<std::remove_reference_t<Fn>>(dlsym(lib, name));
  if (!fn && required) *missing += (missing->empty() ? "" : ", ") + std::string(name);
}

}  // namespace prooflab::trace
