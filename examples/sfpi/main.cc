// The example's driver: runs the two kernels of kernels.cc over tiles on the best target this CPU
// has, compares them with float64, and checks that every compiled target gives the same bits.
//
//   sfpi_example [--tiles N] [--arch wh|bh] [--bench]
//
// Exit status 0 when every target agrees bit for bit and the errors are within the bounds below
// (a regression check: ctest runs it), 1 otherwise, 2 for bad arguments.
//
// This file is target-independent: it is compiled once, without ISA flags; the kernels are reached
// through <vlak/sfpi/sfpi_dispatch.h>.
#include <vlak/sfpi/sfpi_dispatch.h>

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

VLAK_SFPI_DECLARE(softplus)
VLAK_SFPI_DECLARE(recip_clamped)

namespace {

constexpr double kCap = 65504.0;  // recip_clamped's cap (vConstFloatPrgm2 in its init)

double Softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double RecipClamped(double x) {
  const double r = 1.0 / x;
  return std::fabs(r) <= kCap ? r : std::copysign(kCap, x);
}

struct Case {
  const vlak::sfpi::UserKernel& kernel;
  double (*reference)(double);
  double max_ulp;  // the bound checked (measured with --tiles 2048: softplus 2.15, recip_clamped 0.75, wh and bh)
};

// xorshift64: the same inputs on every run and machine.
struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  double Uniform() {  // [0, 1)
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<double>(s >> 11) * 0x1p-53;
  }
};

// softplus: x uniform on [-100, 100]; |x| log-uniform on [2^-20, 2^7] with either sign; and x on
// [-88, -86], around the cut where e^x leaves the normal floats.
// recip_clamped: |x| log-uniform on [2^-30, 2^127] with either sign; around the cap (|x| near
// 1/65504) and the flush (|x| near 2^126); and zeros.
std::vector<float> Inputs(const std::string& kernel, size_t n) {
  Rng rng;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    const double sign = rng.Uniform() < 0.5 ? -1.0 : 1.0;
    const double u = rng.Uniform();
    if (kernel == "softplus") {
      x[i] = static_cast<float>(i % 8 == 0 ? u * 2.0 - 88.0 : i % 2 == 0 ? u * 200.0 - 100.0 : sign * std::exp2(u * 27.0 - 20.0));
    } else {
      const double e = i % 8 == 1 ? u * 2.0 - 17.0 : i % 8 == 3 ? u * 2.0 + 125.0 : u * 157.0 - 30.0;
      x[i] = i % 64 == 0 ? 0.0f : static_cast<float>(sign * std::exp2(e));
    }
  }
  return x;
}

double UlpF32(double r) {
  int e;
  std::frexp(std::fabs(r), &e);  // |r| in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 1 - 23);
}

struct Errors {
  double max_ulp = 0, max_rel = 0, max_abs = 0, worst_x = 0;
  size_t points = 0;
};

// Against float64 where the reference is a normal float (the SFPU flushes denormals).
Errors Measure(const std::vector<float>& x, const std::vector<float>& y, double (*ref)(double)) {
  Errors e;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = ref(static_cast<double>(x[i]));
    if (!(std::fabs(r) >= FLT_MIN && std::fabs(r) <= FLT_MAX)) continue;
    ++e.points;
    const double d = std::fabs(static_cast<double>(y[i]) - r);
    const double ulp = std::isfinite(y[i]) ? d / UlpF32(r) : INFINITY;
    if (ulp > e.max_ulp) {
      e.max_ulp = ulp;
      e.worst_x = x[i];
    }
    e.max_rel = std::max(e.max_rel, d / std::fabs(r));
    e.max_abs = std::max(e.max_abs, d);
  }
  return e;
}

int Usage() {
  std::fprintf(stderr, "usage: sfpi_example [--tiles N] [--arch wh|bh] [--bench]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  size_t tiles = 64;
  bool bench = false;
  std::vector<vlak::sfpi::Arch> archs = {vlak::sfpi::Arch::kWormhole, vlak::sfpi::Arch::kBlackhole};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tiles" && i + 1 < argc) {
      tiles = std::strtoull(argv[++i], nullptr, 10);
      if (tiles == 0) return Usage();
    } else if (a == "--arch" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v == "wh") archs = {vlak::sfpi::Arch::kWormhole};
      else if (v == "bh") archs = {vlak::sfpi::Arch::kBlackhole};
      else return Usage();
    } else if (a == "--bench") {
      bench = true;
    } else {
      return Usage();
    }
  }

  const Case cases[] = {{vlak_sfpi_user::softplus, Softplus, 4.0}, {vlak_sfpi_user::recip_clamped, RecipClamped, 2.0}};
  const size_t n = tiles * 1024;
  std::printf("vlak SFPI example: %zu tiles (%zu values) per kernel; best target here: %s\n", tiles, n,
              vlak_target_name(cases[0].kernel.Best()));
  std::printf("%-14s %-4s %-7s %10s %12s %12s %12s %14s\n", "kernel", "arch", "target", "points", "max ULP", "max rel",
              "max abs", "worst x");
  bool ok = true;
  for (const vlak::sfpi::Arch arch : archs) {
    vlak::sfpi::SetArch(arch);
    const char* arch_name = arch == vlak::sfpi::Arch::kWormhole ? "wh" : "bh";
    for (const Case& c : cases) {
      const std::vector<float> x = Inputs(c.kernel.name(), n);
      std::vector<float> y = x;
      const int err = c.kernel.Run(y.data(), tiles);
      const Errors e = Measure(x, y, c.reference);
      std::printf("%-14s %-4s %-7s %10zu %12.3g %12.3g %12.3g %14.7g\n", c.kernel.name(), arch_name,
                  vlak_target_name(c.kernel.Best()), e.points, e.max_ulp, e.max_rel, e.max_abs, e.worst_x);
      if (err != 0 || e.max_ulp > c.max_ulp) {
        std::printf("  FAILED: %s (bound %g ULP)\n", err != 0 ? "the run reported errors" : "error above the bound",
                    c.max_ulp);
        ok = false;
      }
      const vlak::sfpi::Comparison cmp = vlak::sfpi::CompareTargets(c.kernel, x.data(), tiles);
      const std::string label = std::string("  ") + c.kernel.name() + " " + arch_name;
      cmp.Print(stdout, label.c_str());
      ok = ok && cmp.same;
    }
  }

  if (bench) {
    // Tiles per second on each target, one thread, Wormhole arithmetic; the scalar copy is the
    // reference the others are compared with.
    vlak::sfpi::SetArch(vlak::sfpi::Arch::kWormhole);
    std::printf("\n%-14s %-7s %12s %12s %9s\n", "kernel", "target", "us/tile", "Mvalues/s", "speedup");
    for (const Case& c : cases) {
      const std::vector<float> x = Inputs(c.kernel.name(), n);
      double scalar_us = 0;
      for (size_t ti = 0; ti < c.kernel.num_targets(); ++ti) {
        const vlak_target t = c.kernel.target(ti).target;
        if (!vlak_target_supported(t)) continue;
        std::vector<float> y = x;
        double best = INFINITY;
        for (int rep = 0; rep < 5; ++rep) {
          std::copy(x.begin(), x.end(), y.begin());
          const auto t0 = std::chrono::steady_clock::now();
          c.kernel.RunOn(t, y.data(), tiles);
          const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          best = std::min(best, s);
        }
        const double us = best * 1e6 / static_cast<double>(tiles);
        if (t == VLAK_TARGET_SCALAR) scalar_us = us;
        std::printf("%-14s %-7s %12.2f %12.2f %8.2fx\n", c.kernel.name(), vlak_target_name(t), us,
                    static_cast<double>(n) / best / 1e6, scalar_us > 0 ? scalar_us / us : 1.0);
      }
    }
  }
  std::printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
