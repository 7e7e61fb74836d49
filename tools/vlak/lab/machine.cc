#include "lab/machine.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

#include "icount_live.h"
#include "lab/baselines.h"
#include "vlak/vlak.h"

namespace vlak::lab {

long ReadVtype() {
#if defined(__riscv) && defined(__riscv_vector)
  unsigned long v;
  __asm__ volatile("csrr %0, vtype" : "=r"(v));
  return static_cast<long>(v);
#else
  return -1;
#endif
}

void ResetVtype() {
#if defined(__riscv) && defined(__riscv_vector)
  if (vlak_target_supported(VLAK_TARGET_RVV)) __asm__ volatile("vsetivli zero, 0, e8, mf8, ta, ma" ::: "memory");
#endif
}

int ReadVlenBits() {
#if defined(__riscv) && defined(__riscv_vector)
  if (!vlak_target_supported(VLAK_TARGET_RVV)) return 0;
  unsigned long b;
  __asm__ volatile("csrr %0, vlenb" : "=r"(b));
  return static_cast<int>(b * 8);
#else
  return 0;
#endif
}

std::string VtypeText(long vtype) {
  if (vtype == -1) return "";
  if (vtype < 0) return "vill";  // bit XLEN-1 set: the last vsetvli asked for something invalid
  static const char* const kLmul[8] = {"m1", "m2", "m4", "m8", "m?", "mf8", "mf4", "mf2"};
  const unsigned sew = 8u << ((static_cast<unsigned long>(vtype) >> 3) & 7);
  if (sew == 8 && (vtype & 7) == 5) return "";  // ResetVtype's marker: no vsetvli since
  return "e" + std::to_string(sew) + kLmul[vtype & 7];
}

bool IcountAvailable() {
#if defined(__riscv)
  return std::getenv("VLAK_ICOUNT_LIVE") != nullptr;
#else
  return false;
#endif
}

bool ReadIcountLive(unsigned long long* count, double* cycles, std::string* model) {
  if (cycles != nullptr) *cycles = NAN;
  if (model != nullptr) model->clear();
  vlak_icount_live live;
  if (vlak_icount_read_live(&live) == 0) return false;
  *count = live.last;
  // Cycles only where every instruction of the region was costed under a known vtype: a partial
  // sum would read as a faster kernel.
  if (live.cycles >= 0 && live.uncosted == 0 && live.unknown_vtype == 0 && std::string(live.model) != "none") {
    if (cycles != nullptr) *cycles = live.cycles;
    if (model != nullptr) *model = live.model;
  }
  return true;
}

namespace {

// Busy and total jiffies summed over the machine's online CPUs (/proc/stat's first line), and
// how many CPUs that sum covers (its cpuN lines): not the affinity mask's count, which a taskset
// or cpuset makes smaller than the CPUs the sum is over.
bool CpuJiffies(unsigned long long* busy, unsigned long long* total, int* cpus) {
  std::ifstream f("/proc/stat");
  std::string cpu;
  unsigned long long v[8] = {0};
  if (!(f >> cpu) || cpu != "cpu") return false;
  for (unsigned long long& x : v) {
    if (!(f >> x)) return false;
  }
  *total = 0;
  for (unsigned long long x : v) *total += x;
  *busy = *total - v[3] - v[4];  // less idle and iowait
  *cpus = 0;
  for (std::string line; std::getline(f, line);) {
    if (line.size() > 3 && line.compare(0, 3, "cpu") == 0 && line[3] >= '0' && line[3] <= '9') ++*cpus;
  }
  return *cpus > 0;
}

// Cores' worth of CPU other processes kept busy over 0.2 s while this one sleeps.
double BusyOtherCores() {
  unsigned long long b0 = 0, t0 = 0, b1 = 0, t1 = 0;
  int cpus = 0;
  if (!CpuJiffies(&b0, &t0, &cpus)) return -1;
  const timespec nap{0, 200000000};
  nanosleep(&nap, nullptr);
  if (!CpuJiffies(&b1, &t1, &cpus) || t1 <= t0) return -1;
  return static_cast<double>(cpus) * static_cast<double>(b1 - b0) / static_cast<double>(t1 - t0);
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string CpuinfoField(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    const size_t colon = line.find(':');
    if (colon != std::string::npos && Trim(line.substr(0, colon)) == key) return Trim(line.substr(colon + 1));
  }
  return "";
}

// A read-only git query of the source tree (host only: under qemu-user a riscv program cannot
// start the host's git).
std::string GitCommit() {
#if defined(VLAK_LAB_SOURCE_DIR) && !defined(__riscv)
  const std::string cmd = std::string("git -C '") + VLAK_LAB_SOURCE_DIR + "' rev-parse --short=12 HEAD 2>/dev/null";
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[64] = {0};
    const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
    const int rc = pclose(p);
    if (got && rc == 0) {
      std::string c = Trim(buf);
      const std::string dirty = std::string("git -C '") + VLAK_LAB_SOURCE_DIR + "' diff-index --quiet HEAD -- 2>/dev/null";
      if (std::system(dirty.c_str()) != 0) c += "+local changes";
      return c;
    }
  }
#endif
#if defined(VLAK_LAB_GIT_COMMIT)
  return std::string(VLAK_LAB_GIT_COMMIT) + " (at configure time)";
#else
  return "unknown";
#endif
}

#if defined(__x86_64__)
std::string X86Isa() {
  std::string s;
  s = "x86-64";
  if (__builtin_cpu_supports("avx2")) s += " avx2";
  if (__builtin_cpu_supports("fma")) s += " fma";
  if (__builtin_cpu_supports("avx512f")) s += " avx512f";
  if (__builtin_cpu_supports("avx512bw")) s += " avx512bw";
  if (__builtin_cpu_supports("avx512dq")) s += " avx512dq";
  if (__builtin_cpu_supports("avx512vl")) s += " avx512vl";
  return s;
}
#endif

}  // namespace

Machine CollectMachine() {
  Machine m;
#if defined(__x86_64__)
  m.arch = "x86_64";
  m.cpu = CpuinfoField("model name");
  m.isa = X86Isa();
#elif defined(__riscv)
  m.arch = "riscv64";
  m.isa = vlak_target_supported(VLAK_TARGET_RVV) ? "rv64gcv" : "rv64gc";
  m.vlen = ReadVlenBits();
  if (m.vlen) m.isa += " VLEN=" + std::to_string(m.vlen);
  m.cpu = IcountAvailable() ? "qemu-riscv64 user mode (instructions counted by the qemu-icount plugin)"
                            : CpuinfoField("uarch");
  if (m.cpu.empty()) m.cpu = "riscv64";
#else
  m.arch = "other";
#endif
  m.cores = CpuCount();
  m.vlak_version = vlak_version();
  m.vlak_target = vlak_target_name(static_cast<vlak_target>(DefaultVlakTarget()));
#if defined(__VERSION__)
  m.compiler = __VERSION__;
#endif
  for (const char* c : {"gcc", "clang"}) {
    const std::string key = std::string("c-") + c;
    const std::string v = CrefCompilerVersion(c);
    m.compilers[key] = v.empty() ? CrefMissing(c) : v + " " + CrefFlags(c);
  }
  const auto lib = [](const std::string& version, const std::string& missing) { return missing.empty() ? version : missing; };
  m.libraries["xnnpack"] = lib(XnnpackVersion(), XnnpackMissing());
  m.libraries["onednn"] = lib(OnednnVersion(), OnednnMissing());
  m.libraries["sleef"] = lib(SleefVersion(), SleefMissing());
  m.libraries["opencv"] = lib(OpencvVersion(), OpencvMissing());
  m.libraries["openblas"] = lib(OpenblasVersion(), OpenblasMissing());
  m.libraries["eigen"] = lib(EigenVersion(), EigenMissing());
  m.libraries["torch"] = lib(TorchVersion(), TorchMissing());
  m.commit = GitCommit();
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.date = date;
  const char* bt = std::getenv("KMP_BLOCKTIME");
  m.omp_blocktime = bt ? bt : "";
  std::ifstream la("/proc/loadavg");
  double l1 = 0, l5 = 0, l15 = 0;
  if (la >> l1 >> l5 >> l15) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", l1, l5, l15);
    m.load = buf;
  }
  m.busy_others = BusyOtherCores();
  return m;
}

}  // namespace vlak::lab
