// A stand-in for libnvidia-ml.so.1 with the entry points NvmlSource resolves, so that the
// source's logic (library loading, per-device sources, units, unsupported metrics, errors at
// init and mid-run) is tested on machines without the NVIDIA driver. The ABI is the one
// harness/counters/nvml_source.cpp declares; its behaviour is set through the environment,
// read at nvmlInit_v2:
//   FAKE_NVML_INIT_ERROR=N   nvmlInit_v2 returns N
//   FAKE_NVML_DEVICES=N      N devices (default 2)
//   FAKE_NVML_NO_POWER=1     nvmlDeviceGetPowerUsage is not supported (3) on every device
//   FAKE_NVML_LOST_AFTER=K   after K utilisation reads, every query returns 15 (GPU lost)
// Device i reports gpu 40+i %, (i+1) GiB used, SM clock 1980 MHz, power 250.5 W + i W.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Device {
  unsigned index;
};
Device g_devices[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
unsigned g_count = 2;
bool g_no_power = false;
long g_lost_after = -1, g_util_reads = 0;
bool g_initialised = false;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

bool lost() { return g_lost_after >= 0 && g_util_reads > g_lost_after; }

}  // namespace

extern "C" {

struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};

int nvmlInit_v2() {
  const int err = env_int("FAKE_NVML_INIT_ERROR", 0);
  if (err) return err;
  g_count = static_cast<unsigned>(env_int("FAKE_NVML_DEVICES", 2));
  if (g_count > 8) g_count = 8;
  g_no_power = env_int("FAKE_NVML_NO_POWER", 0) != 0;
  g_lost_after = env_int("FAKE_NVML_LOST_AFTER", -1);
  g_util_reads = 0;
  g_initialised = true;
  return 0;
}

int nvmlShutdown() {
  if (!g_initialised) return 1;  // NVML_ERROR_UNINITIALIZED
  g_initialised = false;
  return 0;
}

int nvmlDeviceGetCount_v2(unsigned* count) {
  if (!g_initialised) return 1;
  *count = g_count;
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, Device** device) {
  if (!g_initialised) return 1;
  if (index >= g_count) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = &g_devices[index];
  return 0;
}

int nvmlDeviceGetUtilizationRates(Device* d, nvmlUtilization_t* u) {
  ++g_util_reads;
  if (lost()) return 15;
  u->gpu = 40 + d->index;
  u->memory = 10;
  return 0;
}

int nvmlDeviceGetMemoryInfo(Device* d, nvmlMemory_t* m) {
  if (lost()) return 15;
  m->total = 141ull << 30;
  m->used = (d->index + 1ull) << 30;
  m->free = m->total - m->used;
  return 0;
}

int nvmlDeviceGetClockInfo(Device*, int type, unsigned* mhz) {
  if (lost()) return 15;
  if (type != 1) return 2;  // only NVML_CLOCK_SM is asked for
  *mhz = 1980;
  return 0;
}

int nvmlDeviceGetPowerUsage(Device* d, unsigned* mw) {
  if (lost()) return 15;
  if (g_no_power) return 3;
  *mw = 250500 + 1000 * d->index;
  return 0;
}

int nvmlDeviceGetName(Device* d, char* name, unsigned length) {
  std::snprintf(name, length, "Fake GPU %u", d->index);
  return 0;
}

const char* nvmlErrorString(int rc) {
  switch (rc) {
    case 0:
      return "Success";
    case 1:
      return "Uninitialized";
    case 2:
      return "Invalid Argument";
    case 3:
      return "Not Supported";
    case 9:
      return "Driver Not Loaded";
    case 15:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}

}  // extern "C"
