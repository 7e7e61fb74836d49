// The thread count: vlak_set_num_threads / vlak_get_num_threads and the default (parallel.h rule 1).
#include <sched.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "parallel/parallel.h"
#include "vlak/vlak.h"

namespace vlak {
namespace {

int Clamp(long n) { return n < 1 ? 1 : n > kMaxThreads ? kMaxThreads : static_cast<int>(n); }

// A positive integer at the start of an environment variable ("4" or OMP's "4,2"), else 0.
long EnvCount(const char* name) {
  const char* s = std::getenv(name);
  if (s == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(s, &end, 10);
  return end != s && n > 0 ? n : 0;
}

// CPUs the process may run on (sched_getaffinity), 0 where unknown.
long AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

// The cgroup CPU quota in CPUs, rounded up; 0 when there is none. cgroup v2's cpu.max ("max
// 100000" or "150000 100000") of the process's own cgroup, else of the root of the mount (a
// container sees its own there), else v1's cfs quota and period.
long QuotaCpus() {
  auto ratio = [](double quota, double period) -> long {
    return quota > 0 && period > 0 ? static_cast<long>(std::ceil(quota / period)) : 0;
  };
  std::string own;
  if (FILE* f = std::fopen("/proc/self/cgroup", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::strncmp(line, "0::", 3) == 0) {
        own = line + 3;
        while (!own.empty() && (own.back() == '\n' || own.back() == '\r')) own.pop_back();
      }
    }
    std::fclose(f);
  }
  for (const std::string& path : {"/sys/fs/cgroup" + own + "/cpu.max", std::string("/sys/fs/cgroup/cpu.max")}) {
    if (FILE* f = std::fopen(path.c_str(), "r")) {
      char quota[32] = {0};
      double period = 0;
      const int got = std::fscanf(f, "%31s %lf", quota, &period);
      std::fclose(f);
      if (got == 2) return std::strcmp(quota, "max") == 0 ? 0 : ratio(std::atof(quota), period);
    }
  }
  double quota = 0, period = 0;
  if (FILE* f = std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "r")) {
    if (std::fscanf(f, "%lf", &quota) != 1) quota = 0;
    std::fclose(f);
  }
  if (FILE* f = std::fopen("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "r")) {
    if (std::fscanf(f, "%lf", &period) != 1) period = 0;
    std::fclose(f);
  }
  return ratio(quota, period);
}

}  // namespace

int DefaultNumThreads() {
  static const int n = [] {
    if (const long env = EnvCount("VLAK_NUM_THREADS")) return Clamp(env);
    if (const long env = EnvCount("OMP_NUM_THREADS")) return Clamp(env);
    long cpus = AffinityCpus();
    const long quota = QuotaCpus();
    if (quota > 0 && (cpus == 0 || quota < cpus)) cpus = quota;
    return Clamp(cpus);
  }();
  return n;
}

}  // namespace vlak

extern "C" vlak_status vlak_set_num_threads(int n) {
  if (n < 0) return VLAK_ERROR_INVALID_ARGUMENT;
  vlak::g_num_threads.store(n > vlak::kMaxThreads ? vlak::kMaxThreads : n, std::memory_order_relaxed);
  return VLAK_OK;
}

extern "C" int vlak_get_num_threads(void) { return vlak::NumThreads(); }
