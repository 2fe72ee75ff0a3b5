// A stand-in for libnvidia-ml.so.1 with the entry points NvmlSource resolves, so that the
// source's logic (library loading, per-device sources, units, unsupported metrics, errors at
// init and mid-run) is tested on machines without the NVIDIA driver. The ABI is the one
// harness/counters/nvml_source.cpp declares; its behaviour is set through the environment,
// read at nvmlInit_v2:
//   FAKE_NVML_INIT_ERROR=N   nvmlInit_v2 returns N
//   FAKE_NVML_DEVICES=N      N devices (default 2)
//   FAKE_NVML_NO_POWER=1     nvmlDeviceGetPowerUsage is not supported (3) on every device
//   FAKE_NVML_LOST_AFTER=K   after K utilisation reads, every query returns 15 (GPU lost)
//   FAKE_NVML_NO_ENERGY=1    nvmlDeviceGetTotalEnergyConsumption is not supported (3)
//   FAKE_NVML_ENERGY_MJ=L    the total energy (mJ) each read returns, per device: L is
//                            "r0,r1,...;r0,r1,..." (';' between devices), a read `lost` returns
//                            15 (GPU lost); past the end the last value repeats
//   FAKE_NVML_POWER_MW=L     the same for nvmlDeviceGetPowerUsage (mW)
// Device i reports gpu 40+i %, (i+1) GiB used, SM clock 1980 MHz, power 250.5 W + i W (unless
// FAKE_NVML_POWER_MW), total energy 5e9 mJ + i × 1e6 mJ + 250 mJ per read (unless
// FAKE_NVML_ENERGY_MJ). nvmlInit_v2 / nvmlShutdown are reference counted, as NVML's are.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Device {
  unsigned index;
};
Device g_devices[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
unsigned g_count = 2;
bool g_no_power = false, g_no_energy = false;
long g_lost_after = -1, g_util_reads = 0;
int g_init_count = 0;

// A recorded sequence of readings per device; kLost marks a `lost` reading.
constexpr unsigned long long kLost = ~0ull;
struct Recorded {
  std::vector<std::vector<unsigned long long>> per_device;
  unsigned reads[8] = {};
  bool set() const { return !per_device.empty(); }
  // The next reading of device d: false when it is `lost`.
  bool next(unsigned d, unsigned long long& value) {
    const auto& seq = per_device[d < per_device.size() ? d : per_device.size() - 1];
    const unsigned k = reads[d] < seq.size() ? reads[d] : static_cast<unsigned>(seq.size()) - 1;
    ++reads[d];
    value = seq[k];
    return value != kLost;
  }
};
Recorded g_energy, g_power;

Recorded parse_recorded(const char* env) {
  Recorded r;
  const char* text = std::getenv(env);
  if (!text || !*text) return r;
  std::vector<unsigned long long> seq;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ',' || *p == ';' || *p == '\0') {
      seq.push_back(item == "lost" ? kLost : std::strtoull(item.c_str(), nullptr, 10));
      item.clear();
      if (*p != ',') {
        r.per_device.push_back(seq);
        seq.clear();
      }
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return r;
}

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
  g_no_energy = env_int("FAKE_NVML_NO_ENERGY", 0) != 0;
  if (g_init_count++ == 0) {  // the first initialisation reads the recorded sequences
    g_util_reads = 0;
    g_energy = parse_recorded("FAKE_NVML_ENERGY_MJ");
    g_power = parse_recorded("FAKE_NVML_POWER_MW");
  }
  return 0;
}

int nvmlShutdown() {
  if (g_init_count == 0) return 1;  // NVML_ERROR_UNINITIALIZED
  --g_init_count;
  return 0;
}

int nvmlDeviceGetCount_v2(unsigned* count) {
  if (g_init_count == 0) return 1;
  *count = g_count;
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, Device** device) {
  if (g_init_count == 0) return 1;
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
  if (g_power.set()) {
    unsigned long long v = 0;
    if (!g_power.next(d->index, v)) return 15;
    *mw = static_cast<unsigned>(v);
    return 0;
  }
  *mw = 250500 + 1000 * d->index;
  return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(Device* d, unsigned long long* mj) {
  if (lost()) return 15;
  if (g_no_energy) return 3;
  unsigned long long v = 0;
  if (g_energy.set()) {
    if (!g_energy.next(d->index, v)) return 15;
  } else {
    v = 5'000'000'000ull + 1'000'000ull * d->index + 250ull * g_energy.reads[d->index]++;
  }
  *mj = v;
  return 0;
}

int nvmlDeviceGetName(Device* d, char* name, unsigned length) {
  std::snprintf(name, length, "Fake GPU %u", d->index);
  return 0;
}

int nvmlDeviceGetUUID(Device* d, char* uuid, unsigned length) {
  std::snprintf(uuid, length, "GPU-00000000-0000-0000-0000-%012u", d->index);
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
