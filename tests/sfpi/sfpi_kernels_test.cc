// The SFPI kernels through vlak::sfpi::RunKernel: bit-identical on every target this machine (or
// qemu) runs, the same bits as a golden hash recorded on x86 (so RVV at every VLEN and rv64gc
// match the host too), the SFPI documentation's example kernel against the per-lane scalar model, and every
// kernel's accuracy and special values against float64.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sfpi/sfpi_model.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

namespace m = ::sfpi_model;
using ::vlak::sfpi::Arch;

constexpr size_t kTiles = 6;

// Inputs: a ramp over [-100, 100], [-2, 2], [-90, 90]; random bit patterns; special values; and
// random values of moderate exponent.
std::vector<float> Inputs() {
  std::vector<float> x(kTiles * 1024);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  auto next = [&s] { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return static_cast<uint32_t>(s >> 16); };
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f800000u, 0xff800000u,
                               0x7fc00000u, 0xffc00000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u,
                               0x42b20000u, 0xc2b20000u, 0x42b00000u, 0xc2b10000u};
  for (size_t i = 0; i < 1024; ++i) {
    x[i] = -100.0f + 200.0f * static_cast<float>(i) / 1023.0f;
    x[1024 + i] = -2.0f + 4.0f * static_cast<float>(i) / 1023.0f;
    x[2048 + i] = -90.0f + 180.0f * static_cast<float>(i) / 1023.0f;
    x[3072 + i] = m::U2F(next());
    x[4096 + i] = m::U2F(specials[i % 16]);
    x[5120 + i] = m::U2F((next() & 0x807fffffu) | ((110u + next() % 26u) << 23));
  }
  return x;
}

uint64_t Fnv(const std::vector<float>& v) {
  uint64_t h = 1469598103934665603ull;
  for (float f : v) {
    const uint32_t u = m::F2U(f);
    for (int b = 0; b < 4; ++b) { h ^= (u >> (8 * b)) & 0xff; h *= 1099511628211ull; }
  }
  return h;
}

std::vector<float> RunOn(const char* name, Arch arch) {
  ::vlak::sfpi::SetArch(arch);
  std::vector<float> x = Inputs();
  EXPECT_EQ(::vlak::sfpi::RunKernel(name, x.data(), kTiles, 42), 0) << name;
  ::vlak::sfpi::SetArch(Arch::kWormhole);
  return x;
}

std::vector<vlak_target> Targets() {
  std::vector<vlak_target> t;
  for (vlak_target c : {VLAK_TARGET_SCALAR, VLAK_TARGET_AVX2, VLAK_TARGET_AVX512, VLAK_TARGET_RVV}) {
    if (vlak_target_compiled(c) && vlak_target_supported(c)) t.push_back(c);
  }
  return t;
}

// Golden FNV-1a hashes of every kernel's output on Inputs(), wormhole then blackhole, recorded
// with the avx512 target (and equal on every target: the cross-target test below).
struct Golden { const char* name; uint64_t wh, bh; };
constexpr Golden kGolden[] = {
#include "sfpi_kernels_golden.inc"
};

TEST(SfpiKernels, BitIdenticalAcrossTargetsAndGolden) {
  size_t count;
  const ::vlak::sfpi::KernelInfo* k = ::vlak::sfpi::Kernels(&count);
  ASSERT_EQ(count, sizeof(kGolden) / sizeof(kGolden[0]));
  const vlak_target saved = vlak_active_target();
  for (size_t i = 0; i < count; ++i) {
    ASSERT_STREQ(k[i].name, kGolden[i].name);
    for (Arch arch : {Arch::kWormhole, Arch::kBlackhole}) {
      const uint64_t want = arch == Arch::kWormhole ? kGolden[i].wh : kGolden[i].bh;
      for (vlak_target t : Targets()) {
        ASSERT_EQ(vlak_set_target(t), VLAK_OK);
        const std::vector<float> y = RunOn(k[i].name, arch);
        EXPECT_EQ(Fnv(y), want) << k[i].name << " on " << vlak_target_name(t)
                                << (arch == Arch::kWormhole ? " wh" : " bh") << ": 0x" << std::hex << Fnv(y);
      }
    }
  }
  vlak_set_target(saved);
}

TEST(SfpiKernels, BadArguments) {
  std::vector<float> x(1024, 1.0f);
  EXPECT_EQ(::vlak::sfpi::RunKernel("no-such-kernel", x.data(), 1), -1);
  EXPECT_EQ(::vlak::sfpi::RunKernel(nullptr, x.data(), 1), -1);
  EXPECT_EQ(::vlak::sfpi::RunKernel("exp-accurate", nullptr, 1), -1);
  EXPECT_EQ(x[0], 1.0f);  // nothing written
  EXPECT_EQ(::vlak::sfpi::RunKernel("exp-accurate", nullptr, 0), 0);
}

// The SFPI documentation's `silly` kernel, per lane from the documentation: the kernel reads dst_reg[0], [1] and writes
// [3] .. [8] relative to its face (so face f writes slot 8 f + 8, the next face's first slot,
// before that face runs; face 3 writes beyond the tile).
void SillyModel(std::vector<uint32_t>& dst, bool take_abs, bool bh) {
  const uint32_t prgm0 = m::F2U(0.25f);
  auto fp16a = [](float f) {  // sFloat16a from a float: exponent - 112, top 10 mantissa bits
    const uint32_t u = m::F2U(f), e = (u >> 23) & 255;
    const uint32_t e5 = e <= 112 ? 0 : (e >= 143 ? 31 : e - 112);
    const uint32_t h = ((u >> 16) & 0x8000) | (e5 << 10) | ((u >> 13) & 0x3ff);
    return ((h >> 15) << 31) | ((((h >> 10) & 31) + 112) << 23) | ((h & 0x3ff) << 13);
  };
  for (int face = 0; face < 4; ++face) {
    const int base = 8 * face;
    for (int l = 0; l < 32; ++l) {
      auto at = [&](int i) -> uint32_t& { return dst[static_cast<size_t>(base + i) * 32 + l]; };
      const uint32_t d0 = at(0), d1 = at(1);
      const uint32_t a = m::Add(d0, m::F2U(2.0f), bh);
      at(3) = m::Add(m::Mad(a, d1 ^ 0x80000000u, prgm0, bh), m::F2U(0.5f), bh);
      at(4) = m::Mad(a, d1, m::F2U(1.2f), bh);
      at(4) = m::Mad(a, m::F2U(1.5f), m::F2U(1.2f), bh);
      at(5) = m::Mad(a, fp16a(0.8125f), m::F2U(1.2f), bh);
      auto cmp = [&](float s, m::Cmp c) { return m::CmpF(a, m::F2U(s), c, bh); };
      const bool c1 = (cmp(4.0f, m::Cmp::kGe) && cmp(8.0f, m::Cmp::kLt)) || (cmp(12.0f, m::Cmp::kGe) && cmp(16.0f, m::Cmp::kLt));
      if (c1) {
        const uint32_t b = ((a >> 23) & 255) & 0xaa;
        if (m::CmpI(b, 130, m::Cmp::kGe)) at(6) = (a & 0x807fffffu) | (127u << 23);
      } else if (m::CmpF(a, fp16a(3.0f), m::Cmp::kEq, bh)) {
        const bool nan = (a & 0x7fffffffu) > 0x7f800000u;
        at(7) = take_abs ? (nan ? a : a & 0x7fffffffu) : a;
      } else {
        const uint32_t e = ~(static_cast<uint32_t>(m::Clz32(a)) - 19u);
        at(8) = ((a & 0x807fffffu) | ((e & 255) << 23)) ^ 0x80000000u;
      }
    }
  }
}

TEST(SfpiKernels, SeedExampleMatchesModel) {
  for (Arch arch : {Arch::kWormhole, Arch::kBlackhole}) {
    for (bool take_abs : {false, true}) {
      const std::vector<float> in = Inputs();
      std::vector<float> out = in;
      ::vlak::sfpi::SetArch(arch);
      ASSERT_EQ(::vlak::sfpi::RunKernel(take_abs ? "seed-silly-abs" : "seed-silly", out.data(), kTiles, 1), 0);
      ::vlak::sfpi::SetArch(Arch::kWormhole);
      for (size_t t = 0; t < kTiles; ++t) {
        // Dst in lane order (40 slots: the tile and the slots face 3 writes past it).
        std::vector<uint32_t> dst(40 * 32, 0);
        for (int s = 0; s < 32; ++s) {
          for (int l = 0; l < 32; ++l) {
            int r, c;
            m::LaneToTile(s, l, &r, &c);
            dst[static_cast<size_t>(s) * 32 + l] = m::F2U(in[t * 1024 + static_cast<size_t>(r) * 32 + c]);
          }
        }
        SillyModel(dst, take_abs, arch == Arch::kBlackhole);
        for (int s = 0; s < 32; ++s) {
          for (int l = 0; l < 32; ++l) {
            int r, c;
            m::LaneToTile(s, l, &r, &c);
            ASSERT_EQ(m::F2U(out[t * 1024 + static_cast<size_t>(r) * 32 + c]), dst[static_cast<size_t>(s) * 32 + l])
                << "tile " << t << " slot " << s << " lane " << l << (take_abs ? " abs" : "");
          }
        }
      }
    }
  }
}

// ---- Accuracy against float64 (std:: math here, independent of the kernels and of
// src/sfpi/kernels/references.h): every bf16 input plus 2^16 strided fp32 patterns, on the active
// target (the test above proves every target gives the same bits). The bounds are the figures the
// kernel headers and `vlak accuracy sfpi` document (measured there over 2^24 patterns, so a
// subset stays within them); where a kernel misses its published figure the row says so.
enum class Metric { kUlp32, kUlpBf16, kRel, kAbs };

struct Bound {
  const char* kernel;
  double (*ref)(double);
  float lo, hi, min_abs;
  Metric metric;
  double bound;
  const char* why;
};

double Exp(double x) { return std::exp(x); }
double Recip(double x) { return 1.0 / x; }
double Tanh(double x) { return std::tanh(x); }
double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double Log(double x) { return std::log(x); }
double Sqrt(double x) { return std::sqrt(x); }

constexpr float kMax = 3.4028234663852886e38f;
constexpr float kNormal = 0x1p-126f;
constexpr Bound kBounds[] = {
    {"exp-accurate", Exp, -88.7f, 88.7f, kNormal, Metric::kUlp32, 1.0, "published <= 1 ULP"},
    {"exp-bf16", Exp, -87.0f, 88.5f, kNormal, Metric::kUlpBf16, 1.0, "published 1 bf16 ULP"},
    // Published 720,000; measured 722,1xx over 2^24 patterns: 0.3 % over (a finding, in the note).
    {"exp-approx", Exp, -42.0f, 44.3f, kNormal, Metric::kUlp32, 7.23e5, "published 720,000 (+0.3 %)"},
    {"exp-fast", Exp, -88.0f, 0.72f, kNormal, Metric::kUlp32, 3.8e5, "published 380,000"},
    // Published 0.89; measured 0.8917.
    {"recip", Recip, -kMax, kMax, kNormal, Metric::kUlp32, 0.892, "published 0.89"},
    {"tanh", Tanh, -kMax, kMax, 0x1p-125f, Metric::kUlpBf16, 37.1, "published 37 bf16 ULP (|x| >= 2^-125)"},
    {"sigmoid", Sigmoid, -kMax, kMax, kNormal, Metric::kAbs, 0.0181, "sigmoid.cc: 0.0180 abs"},
    {"sigmoid", Sigmoid, 0.0f, kMax, kNormal, Metric::kUlpBf16, 4.61, "sigmoid.cc: 4.6 bf16 ULP on x >= 0"},
    {"gelu-approx", Gelu, -kMax, kMax, kNormal, Metric::kAbs, 0.0161, "gelu.cc: 0.0160 abs"},
    {"gelu-approx", Gelu, 0.0f, kMax, kNormal, Metric::kUlpBf16, 81.7, "gelu.cc: 81.6 bf16 ULP on x >= 0"},
    {"gelu-accurate", Gelu, -kMax, kMax, kNormal, Metric::kAbs, 0.0156, "gelu.cc: 0.0155 abs"},
    {"gelu-accurate", Gelu, 0.0f, kMax, kNormal, Metric::kUlpBf16, 1.0, "gelu.cc: 0.99 bf16 ULP on x >= 0"},
    {"log", Log, 0.0f, kMax, kNormal, Metric::kRel, 0.0168, "log.cc: 0.0167 relative"},
    {"log", Log, 0.0f, kMax, kNormal, Metric::kAbs, 0.0358, "log.cc: 0.0357 abs"},
    {"log", Log, 2.0f, kMax, kNormal, Metric::kRel, 1.2e-3, "log.cc: 1.19e-3 relative on x >= 2"},
    {"sqrt", Sqrt, 0.0f, kMax, kNormal, Metric::kUlp32, 0.87, "sqrt.cc: 0.862 ULP; published ~1"},
};

double UlpOf(double r) {
  int e;
  std::frexp(std::fabs(r), &e);
  return std::ldexp(1.0, e - 24);
}

// Max error of `kernel` over the inputs in [lo, hi] with |x| >= min_abs whose reference is a
// normal float; a non-finite output there is an infinite error.
double MaxError(const char* kernel, double (*ref)(double), float lo, float hi, float min_abs, Metric metric,
                float* worst) {
  std::vector<float> xs;
  auto add = [&](uint32_t bits) {
    const float f = m::U2F(bits);
    if (f >= lo && f <= hi && std::fabs(f) >= min_abs) xs.push_back(f);
  };
  for (uint32_t b = 0; b < 65536; ++b) add(b << 16);
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += (uint64_t{1} << 16) | 1) add(static_cast<uint32_t>(b));
  std::vector<float> y = xs;
  y.resize((xs.size() + 1023) / 1024 * 1024, 0.0f);
  EXPECT_EQ(::vlak::sfpi::RunKernel(kernel, y.data(), y.size() / 1024, 1), 0) << kernel;
  double worst_err = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double r = ref(xs[i]);
    if (!(std::fabs(r) >= 0x1p-126 && std::fabs(r) <= kMax)) continue;
    double err = std::fabs(static_cast<double>(y[i]) - r);
    if (!std::isfinite(y[i])) err = INFINITY;
    switch (metric) {
      case Metric::kUlp32: err /= UlpOf(r); break;
      case Metric::kUlpBf16: err /= UlpOf(r) * 65536.0; break;
      case Metric::kRel: err /= std::fabs(r); break;
      case Metric::kAbs: break;
    }
    if (err > worst_err) { worst_err = err; *worst = xs[i]; }
  }
  return worst_err;
}

TEST(SfpiKernels, AccuracyWithinDocumentedBounds) {
  for (const Bound& b : kBounds) {
    float worst = 0;
    const double err = MaxError(b.kernel, b.ref, b.lo, b.hi, b.min_abs, b.metric, &worst);
    EXPECT_LE(err, b.bound) << b.kernel << " on [" << b.lo << ", " << b.hi << "] (" << b.why << "), worst x = " << worst;
  }
}

// Known findings (in kernel headers and the note), asserted so that a change is noticed: the
// approximate exp's exponent trick breaks above x = 44.36 (it guards only x >= 89); tanh's first
// segment flushes 0.90625 x to 0 for tiny x; log(1 - 2^-24) is 0.
TEST(SfpiKernels, KnownFindings) {
  float worst = 0;
  EXPECT_GT(MaxError("exp-approx", Exp, 44.4f, 88.7f, kNormal, Metric::kUlp32, &worst), 1e7);
  EXPECT_GT(MaxError("tanh", Tanh, -kMax, kMax, kNormal, Metric::kUlpBf16, &worst), 100.0);
  std::vector<float> t(1024, m::U2F(0x3f7fffffu));  // 1 - 2^-24
  ASSERT_EQ(::vlak::sfpi::RunKernel("log", t.data(), 1), 0);
  EXPECT_EQ(t[0], 0.0f);
}

// Special values the kernel headers define (the SFPU reads denormal inputs as 0).
TEST(SfpiKernels, SpecialValues) {
  const float inf = INFINITY, nan = NAN;
  struct Case { const char* kernel; float x, want; };
  const Case cases[] = {
      {"sigmoid", 0.0f, 0.5f},   {"sigmoid", inf, 1.0f},       {"sigmoid", -inf, 0.0f},
      {"gelu-accurate", 0.0f, 0.0f}, {"gelu-accurate", inf, inf}, {"gelu-accurate", -inf, 0.0f},
      {"gelu-approx", 0.0f, 0.0f}, {"gelu-approx", inf, inf},   {"gelu-approx", -3.0f, 0.0f},
      {"gelu-approx", -inf, 0.0f},  {"gelu-approx", -1e30f, 0.0f}, {"sigmoid", -1e30f, 0.0f},
      {"sigmoid", 1e30f, 1.0f},     {"sigmoid", nan, nan},        {"gelu-approx", nan, nan},
      {"gelu-approx", -nan, nan},   {"sigmoid", -nan, nan},
      {"log", 1.0f, 0.0f},       {"log", 0.0f, -inf},          {"log", -0.0f, -inf},
      {"log", 1e-40f, -inf},     {"log", inf, inf},            {"log", -1.0f, nan},
      {"log", -inf, nan},        {"log", nan, nan},
      {"sqrt", 0.0f, 0.0f},      {"sqrt", -0.0f, -0.0f},       {"sqrt", 1e-40f, 0.0f},
      {"sqrt", inf, inf},        {"sqrt", -1.0f, nan},         {"sqrt", -inf, nan},
      {"sqrt", nan, nan},        {"sqrt", 4.0f, 2.0f},         {"sqrt", 0x1p-126f, 0x1p-63f},
  };
  for (const Case& c : cases) {
    std::vector<float> t(1024, c.x);
    ASSERT_EQ(::vlak::sfpi::RunKernel(c.kernel, t.data(), 1), 0);
    if (std::isnan(c.want)) {
      EXPECT_TRUE(std::isnan(t[0])) << c.kernel << "(" << c.x << ") = " << t[0];
    } else {
      EXPECT_EQ(m::F2U(t[0]), m::F2U(c.want)) << c.kernel << "(" << c.x << ") = " << t[0];
    }
  }
}

}  // namespace
