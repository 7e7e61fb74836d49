// `vlak sfpi`: the SFPI kernels shipped with vlak (src/sfpi/kernels), run on the CPU.
//
//   vlak sfpi list
//   vlak sfpi run KERNEL [--tiles N] [--arch wh|bh] [--range LO,HI] [--seed S] [--all-targets]
//
// `run` fills N row-major 32 x 32 tiles with inputs drawn uniformly from the kernel's range (a
// fixed sequence: the same inputs on every machine), runs the kernel in place through
// vlak::sfpi::RunKernel (on the active target, vlak's threads), and prints the time, the error
// against its float64 reference where it has one, the Error bits and a hash of the output bits.
// --all-targets runs it on every target this CPU supports and says whether their output bits agree
// (they must: all SFPU arithmetic is integer code on the bits; tests/sfpi checks it too). For
// kernels outside vlak, the same check is vlak::sfpi::CompareTargets (<vlak/sfpi/sfpi_dispatch.h>).
//
// --arch: Wormhole and Blackhole are both modelled (vlak::sfpi::SetArch): SFPMAD's zero, NaN and
// sticky rules, vInt >> (Blackhole only) and when the stochastic-rounding PRNG advances differ, so
// the two can give different bits. Default: wh.
#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace vlak::cli {
namespace {

// Default input ranges: where each kernel's result is a finite number (inputs outside still run).
struct Range { const char* prefix; double lo, hi; };
constexpr Range kRanges[] = {
    {"exp-fast", -80.0, 0.7}, {"exp", -80.0, 80.0}, {"log", 1e-3, 1e3}, {"sqrt", 0.0, 1e4},
    {"recip", -1e3, 1e3},     {"", -8.0, 8.0},
};

double UlpF32(double r) {
  int e;
  std::frexp(std::fabs(r), &e);
  return std::ldexp(1.0, e - 1 - 23);
}

uint64_t HashBits(const std::vector<float>& v) {  // FNV-1a over the bytes
  uint64_t h = 0xcbf29ce484222325ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(float); ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

int Usage() {
  std::fprintf(stderr,
               "usage: vlak sfpi list\n"
               "       vlak sfpi run KERNEL [--tiles N] [--arch wh|bh] [--range LO,HI] [--seed S] [--all-targets]\n");
  return 2;
}

const ::vlak::sfpi::KernelInfo* Find(const char* name) {
  size_t count;
  const ::vlak::sfpi::KernelInfo* k = ::vlak::sfpi::Kernels(&count);
  for (size_t i = 0; i < count; ++i) {
    if (std::strcmp(k[i].name, name) == 0) return &k[i];
  }
  return nullptr;
}

int List() {
  size_t count;
  const ::vlak::sfpi::KernelInfo* k = ::vlak::sfpi::Kernels(&count);
  std::printf("%-16s %-5s %-10s %s\n", "kernel", "init", "reference", "published accuracy");
  for (size_t i = 0; i < count; ++i) {
    std::printf("%-16s %-5s %-10s %s\n", k[i].name, k[i].init != nullptr ? "yes" : "-",
                k[i].reference != nullptr ? "float64" : "-", k[i].published);
  }
  return 0;
}

int Run(int argc, char** argv) {
  if (argc < 2) return Usage();
  const ::vlak::sfpi::KernelInfo* k = Find(argv[1]);
  if (k == nullptr) {
    std::fprintf(stderr, "vlak sfpi run: unknown kernel '%s' (vlak sfpi list)\n", argv[1]);
    return 2;
  }
  size_t tiles = 64;
  uint32_t seed = 1;
  bool all_targets = false;
  ::vlak::sfpi::Arch arch = ::vlak::sfpi::Arch::kWormhole;
  double lo = 0, hi = 0;
  for (const Range& r : kRanges) {
    if (std::strncmp(k->name, r.prefix, std::strlen(r.prefix)) == 0) {
      lo = r.lo;
      hi = r.hi;
      break;
    }
  }
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tiles" && i + 1 < argc) {
      char* end;
      tiles = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || tiles == 0 || tiles > (size_t{1} << 24)) return Usage();
    } else if (a == "--arch" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v == "wh") arch = ::vlak::sfpi::Arch::kWormhole;
      else if (v == "bh") arch = ::vlak::sfpi::Arch::kBlackhole;
      else return Usage();
    } else if (a == "--range" && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%lf,%lf", &lo, &hi) != 2 || !(lo <= hi)) return Usage();
    } else if (a == "--seed" && i + 1 < argc) {
      seed = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--all-targets") {
      all_targets = true;
    } else {
      return Usage();
    }
  }
  if (vlak_target_error() != VLAK_OK) {
    std::fprintf(stderr, "vlak sfpi run: VLAK_TARGET: %s\n", vlak_status_string(vlak_target_error()));
    return 1;
  }
  ::vlak::sfpi::SetArch(arch);

  const size_t n = tiles * 1024;
  std::vector<float> x(n);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (float& v : x) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    v = static_cast<float>(lo + (hi - lo) * (static_cast<double>(s >> 11) * 0x1p-53));
  }

  const char* arch_name = arch == ::vlak::sfpi::Arch::kWormhole ? "Wormhole" : "Blackhole";
  std::printf("sfpi %s: %zu tiles (%zu values), inputs uniform on [%g, %g], %s arithmetic, seed %u\n", k->name,
              tiles, n, lo, hi, arch_name, seed);

  std::vector<vlak_target> targets;
  const vlak_target active = vlak_active_target();
  if (all_targets) {
    for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
      if (vlak_target_supported(static_cast<vlak_target>(t))) targets.push_back(static_cast<vlak_target>(t));
    }
  } else {
    targets.push_back(active);
  }

  int status = 0;
  uint64_t first_hash = 0;
  std::vector<float> y(n);
  for (size_t ti = 0; ti < targets.size(); ++ti) {
    if (all_targets && vlak_set_target(targets[ti]) != VLAK_OK) continue;
    std::copy(x.begin(), x.end(), y.begin());
    // An untimed tile first: the first call starts vlak's threads and picks the kernel table.
    std::vector<float> warm(x.begin(), x.begin() + 1024);
    ::vlak::sfpi::RunKernel(k->name, warm.data(), 1, seed);
    const auto t0 = std::chrono::steady_clock::now();
    const int err = ::vlak::sfpi::RunKernel(k->name, y.data(), tiles, seed);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t hash = HashBits(y);
    if (ti == 0) first_hash = hash;
    std::printf("%-7s %10.3f ms  %10.0f tiles/s (%d threads)  output bits %016llx%s  errors: %s\n",
                vlak_target_name(targets[ti]), sec * 1e3, static_cast<double>(tiles) / sec, vlak_get_num_threads(),
                static_cast<unsigned long long>(hash), hash == first_hash ? "" : " DIFFERENT",
                err == 0 ? "none" : (err < 0 ? "run refused" : "see below"));
    if (err > 0) {
      std::printf("        error bits 0x%x:%s%s%s%s\n", err, (err & ::vlak::sfpi::kStackOverflow) ? " stack-overflow" : "",
                  (err & ::vlak::sfpi::kStackUnderflow) ? " stack-underflow" : "",
                  (err & ::vlak::sfpi::kUnclosed) ? " unclosed-condition" : "",
                  (err & ::vlak::sfpi::kUnsupported) ? " unsupported-on-this-arch" : "");
    }
    if (err != 0 || hash != first_hash) status = 1;
  }
  if (all_targets) {
    vlak_set_target(active);
    std::printf("%s\n", status == 0 ? "same bits on every target" : "targets DISAGREE");
  }

  if (k->reference != nullptr) {
    // Where the reference is a normal float (the SFPU flushes denormals), as `vlak accuracy sfpi`.
    double max_ulp = 0, max_rel = 0, worst = 0;
    size_t points = 0;
    for (size_t i = 0; i < n; ++i) {
      const double r = k->reference(static_cast<double>(x[i]));
      if (!(std::fabs(r) >= FLT_MIN && std::fabs(r) <= FLT_MAX) || std::fabs(x[i]) < FLT_MIN) continue;
      ++points;
      const double d = std::fabs(static_cast<double>(y[i]) - r);
      const double ulp = std::isfinite(y[i]) ? d / UlpF32(r) : INFINITY;
      if (ulp > max_ulp) {
        max_ulp = ulp;
        worst = x[i];
      }
      max_rel = std::max(max_rel, d / std::fabs(r));
    }
    std::printf("vs float64 (%zu points): max %.4g ULP fp32, max rel %.3g, worst x %.7g; published: %s\n", points,
                max_ulp, max_rel, worst, k->published);
  }
  ::vlak::sfpi::SetArch(::vlak::sfpi::Arch::kWormhole);
  return status;
}

}  // namespace

int CmdSfpi(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    Usage();
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "list") == 0) return argc == 2 ? List() : Usage();
  if (std::strcmp(argv[1], "run") == 0) return Run(argc - 1, argv + 1);
  return Usage();
}

}  // namespace vlak::cli
