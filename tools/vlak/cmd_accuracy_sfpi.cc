// `vlak accuracy sfpi [--arch wh|bh] [--exhaustive | --samples N] [--kernel NAME]`: each SFPI
// kernel of src/sfpi/kernels (bit-exact Wormhole / Blackhole arithmetic) against float64, beside
// the figure tt-metal publishes.
//
// Inputs: every bf16 bit pattern (as fp32), and N fp32 bit patterns walked with a fixed odd stride
// over all 2^32 (default N = 2^24; --exhaustive: all 2^32), restricted to the kernel's domain (the
// range its published figure is for). Errors are taken where the float64 reference is a normal
// float (at most FLT_MAX) and the input is normal (the SFPU reads denormals as 0): ULP = |y - ref| / ulp(ref) in fp32 (and / 2^16 for bf16 ULP), a
// non-finite y there counts as an infinite error; relative = |y - ref| / |ref|; absolute =
// |y - ref| (the figure LUT kernels such as sigmoid and gelu are usually quoted by).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "vlak/sfpi.h"

namespace vlak::cli {
namespace {

struct Domain { const char* kernel; float lo, hi; float min_abs = 0x1p-126f; };
constexpr Domain kDomains[] = {
    {"exp-accurate", -88.7f, 88.7f}, {"exp-bf16", -87.0f, 88.5f},
    // The approximate exp guards x >= 89 and x < -42, but its exponent trick needs
    // x log2(e) + 192 in [128, 256), i.e. x < 44.36: both ranges are reported.
    {"exp-approx", -42.0f, 88.7f},   {"exp-approx", -42.0f, 44.3f},
    {"exp-fast", -88.0f, 0.72f},     {"recip", -FLT_MAX, FLT_MAX}, {"tanh", -FLT_MAX, FLT_MAX},
    // tanh: 0.90625 x flushes to 0 for |x| < 2^-126 / 0.90625; the published figure excludes that.
    {"tanh", -FLT_MAX, FLT_MAX, 0x1p-125f},
    // sigmoid: for x < -4 the result is 0 (relative error 1); x >= 0 shows the fit.
    {"sigmoid", -FLT_MAX, FLT_MAX}, {"sigmoid", 0.0f, FLT_MAX},
    // gelu: 0.5 x + g(|x|) cancels for x < 0 (and is 0 below the cut), so relative figures are
    // only meaningful on x >= 0: both ranges are reported.
    {"gelu-approx", -FLT_MAX, FLT_MAX}, {"gelu-approx", 0.0f, FLT_MAX},
    {"gelu-accurate", -FLT_MAX, FLT_MAX}, {"gelu-accurate", 0.0f, FLT_MAX},
    // log: the relative error is largest near 1 (p's slope; 0 for x = 1 - 2^-24): also x >= 2.
    {"log", -FLT_MAX, FLT_MAX}, {"log", 2.0f, FLT_MAX},
};

double UlpF32(double r) {
  const double a = std::fabs(r);
  int e;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 1 - 23);
}

struct Stats {
  double max_ulp = 0, max_rel = 0, max_abs = 0, worst_x = 0;
  uint64_t n = 0, nonfinite = 0;
};

void Measure(const ::vlak::sfpi::KernelInfo& k, const std::vector<float>& xs, Stats* st) {
  std::vector<float> tiles(xs);
  tiles.resize((xs.size() + 1023) / 1024 * 1024, 0.0f);
  ::vlak::sfpi::RunKernel(k.name, tiles.data(), tiles.size() / 1024, 1);
  for (size_t i = 0; i < xs.size(); ++i) {
    const double ref = k.reference(static_cast<double>(xs[i]));
    const double a = std::fabs(ref);
    if (!(a >= 0x1p-126 && a <= FLT_MAX)) continue;
    ++st->n;
    const double y = tiles[i];
    if (!std::isfinite(y)) {
      ++st->nonfinite;
      st->max_ulp = INFINITY;
      st->worst_x = xs[i];
      continue;
    }
    const double ulp = std::fabs(y - ref) / UlpF32(ref);
    if (ulp > st->max_ulp) { st->max_ulp = ulp; st->worst_x = xs[i]; }
    st->max_rel = std::max(st->max_rel, std::fabs(y - ref) / a);
    st->max_abs = std::max(st->max_abs, std::fabs(y - ref));
  }
}

int Usage() {
  std::fprintf(stderr, "usage: vlak accuracy sfpi [--arch wh|bh] [--exhaustive | --samples N] [--kernel NAME]\n");
  return 2;
}

}  // namespace

int CmdAccuracySfpi(int argc, char** argv) {
  std::vector<::vlak::sfpi::Arch> archs = {::vlak::sfpi::Arch::kWormhole, ::vlak::sfpi::Arch::kBlackhole};
  uint64_t samples = uint64_t{1} << 24;
  std::string only;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v == "wh") archs = {::vlak::sfpi::Arch::kWormhole};
      else if (v == "bh") archs = {::vlak::sfpi::Arch::kBlackhole};
      else return Usage();
    } else if (a == "--exhaustive") {
      samples = uint64_t{1} << 32;
    } else if (a == "--samples" && i + 1 < argc) {
      samples = std::strtoull(argv[++i], nullptr, 10);
      if (samples == 0 || samples > (uint64_t{1} << 32)) return Usage();
    } else if (a == "--kernel" && i + 1 < argc) {
      only = argv[++i];
    } else {
      return Usage();
    }
  }
  size_t count;
  const ::vlak::sfpi::KernelInfo* kernels = ::vlak::sfpi::Kernels(&count);
  std::printf("SFPI kernels against float64 (bit-exact %s SFPU arithmetic); every bf16 input + %llu fp32 bit patterns\n",
              archs.size() == 2 ? "Wormhole and Blackhole" : (archs[0] == ::vlak::sfpi::Arch::kWormhole ? "Wormhole" : "Blackhole"),
              static_cast<unsigned long long>(samples));
  std::printf("%-13s %-4s %-22s %12s %14s %12s %12s %12s %10s  %s\n", "kernel", "arch", "domain", "points", "max ULP fp32",
              "max ULP bf16", "max rel", "max abs", "worst x", "published");
  for (size_t ki = 0; ki < count; ++ki) {
    const ::vlak::sfpi::KernelInfo& k = kernels[ki];
    if (k.reference == nullptr || (!only.empty() && only != k.name)) continue;
    std::vector<Domain> domains;
    for (const Domain& d : kDomains) if (std::strcmp(d.kernel, k.name) == 0) domains.push_back(d);
    if (domains.empty()) domains.push_back({k.name, -FLT_MAX, FLT_MAX});
    for (const Domain& dm : domains)
    for (const ::vlak::sfpi::Arch arch : archs) {
      const float lo = dm.lo, hi = dm.hi;
      ::vlak::sfpi::SetArch(arch);
      Stats st;
      std::vector<float> xs;
      xs.reserve(1 << 22);
      auto flush = [&] { Measure(k, xs, &st); xs.clear(); };
      auto add = [&](uint32_t bits) {
        float f;
        std::memcpy(&f, &bits, 4);
        // Normal inputs only: the SFPU reads denormal inputs as zero.
        if (f >= lo && f <= hi && std::fabs(f) >= dm.min_abs) xs.push_back(f);
        if (xs.size() == (size_t{1} << 22)) flush();
      };
      for (uint32_t b = 0; b < 65536; ++b) add(b << 16);
      const uint64_t stride = samples >= (uint64_t{1} << 32) ? 1 : ((uint64_t{1} << 32) / samples) | 1;
      for (uint64_t i = 0, b = 0; i < samples; ++i, b += stride) add(static_cast<uint32_t>(b));
      flush();
      char dom[64];
      if (dm.min_abs > 0x1p-126f) std::snprintf(dom, sizeof(dom), "|x| >= %.3g", dm.min_abs);
      else std::snprintf(dom, sizeof(dom), "[%.3g, %.3g]", lo, hi);
      std::printf("%-13s %-4s %-22s %12llu %14.4g %12.4g %12.3g %12.3g %10.4g  %s\n", k.name,
                  arch == ::vlak::sfpi::Arch::kWormhole ? "wh" : "bh", dom, static_cast<unsigned long long>(st.n),
                  st.max_ulp, st.max_ulp / 65536.0, st.max_rel, st.max_abs, st.worst_x, k.published);
    }
  }
  ::vlak::sfpi::SetArch(::vlak::sfpi::Arch::kWormhole);
  return 0;
}

}  // namespace vlak::cli
