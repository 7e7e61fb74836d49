// `vlak accuracy exp`: each exp variant against float64 std::exp, over every float of its domain
// (--exhaustive) or an evenly spaced sample of them, on all hardware threads.
// `vlak accuracy activations`: each vlak_activation_f32 function against its float64 reference
// (src/ops/activation/activation_reference.cc) over every finite float, in vlak.h's measure (ULPs of
// the float nearest the reference; below FLT_MIN, units of 2^-149); --fast: the VLAK_ACT_FAST tier
// against its bound (4 ULP, 4 x 2^-149).
//
// ULP = |y - ref| / ulp(ref), ulp(ref) = the spacing of floats in the binade ref lies in
// (2^-149 below 2^-126). A ref above FLT_MAX that rounds to +inf expects +inf (0 ULP if so,
// "inf" if not). Relative errors are taken over normal refs only (a denormal's relative error
// says nothing about the method). The sample walks the domain's float bit patterns with a fixed
// stride, so every binade gets points in proportion to its floats, like the exhaustive walk.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "lab/oracles.h"
#include "vlak/vlak.h"

namespace vlak::cli {
namespace {

using lab::ActivationName;
using lab::ActivationReferenceF64;
using lab::ActivationUlps;

constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Spacing of floats in the binade of |r| (r a double, possibly beyond float range).
double UlpF32(double r) {
  const double a = std::fabs(r);
  if (a < 0x1p-126) return 0x1p-149;
  uint64_t u;
  std::memcpy(&u, &a, 8);
  const int e = static_cast<int>(u >> 52) - 1023;  // a in [2^e, 2^(e+1))
  return std::ldexp(1.0, e - 23);
}

// Error of y against the float64 value ref, in float ULPs.
double UlpError(float y, double ref) {
  if (std::isnan(y)) return kInf;
  // Values from FLT_MAX + ulp/2 up round to +inf.
  if (ref >= static_cast<double>(FLT_MAX) + 0x1p103) return y == kInf ? 0.0 : kInf;
  if (std::isinf(y)) return kInf;
  return std::fabs(static_cast<double>(y) - ref) / UlpF32(ref);
}

// Floats of [lo, hi] (lo <= 0 <= hi) indexed 0..count-1: -0 down to lo, then +0 up to hi.
struct Domain {
  float lo, hi;
  const char* text;
  uint64_t Negatives() const { return Bits(lo) - 0x80000000u + uint64_t{1}; }
  uint64_t Count() const { return Negatives() + Bits(hi) + uint64_t{1}; }
  float At(uint64_t i) const {
    const uint64_t neg = Negatives();
    return i < neg ? FromBits(static_cast<uint32_t>(0x80000000u + i)) : FromBits(static_cast<uint32_t>(i - neg));
  }
};

Domain DomainOf(vlak_exp_variant v) {
  if (v == VLAK_EXP_PRECISE) return {-FLT_MAX, FLT_MAX, "every finite float"};
  return {-87.3f, 88.7f, "[-87.3, 88.7]"};
}

struct Stats {
  double max_ulp = 0;
  float worst_x = 0;
  double max_rel = 0;
  double sum_rel = 0;
  uint64_t n_rel = 0;
  uint64_t points = 0;
  void Merge(const Stats& o) {
    if (o.max_ulp > max_ulp || (std::isinf(o.max_ulp) && !std::isinf(max_ulp))) {
      max_ulp = o.max_ulp;
      worst_x = o.worst_x;
    }
    max_rel = std::max(max_rel, o.max_rel);
    sum_rel += o.sum_rel;
    n_rel += o.n_rel;
    points += o.points;
  }
};

// Points [begin, end) of the walk i -> i * stride (clamped to the last float).
bool Measure(vlak_exp_variant v, const Domain& dom, uint64_t stride, uint64_t begin, uint64_t end,
             Stats& st) {
  constexpr size_t kBlock = 8192;
  std::vector<float> x(kBlock), y(kBlock);
  const uint64_t last = dom.Count() - 1;
  for (uint64_t i = begin; i < end; i += kBlock) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, end - i));
    for (size_t j = 0; j < m; ++j) x[j] = dom.At(std::min(last, (i + j) * stride));
    if (vlak_exp_f32(m, x.data(), y.data(), v) != VLAK_OK) return false;
    for (size_t j = 0; j < m; ++j) {
      const double ref = std::exp(static_cast<double>(x[j]));
      const double e = UlpError(y[j], ref);
      if (!(e <= st.max_ulp)) {
        st.max_ulp = e;
        st.worst_x = x[j];
      }
      if (ref >= 0x1p-126 && ref <= FLT_MAX) {
        const double rel = std::fabs(static_cast<double>(y[j]) - ref) / ref;
        st.max_rel = std::max(st.max_rel, rel);
        st.sum_rel += rel;
        ++st.n_rel;
      }
    }
    st.points += m;
  }
  return true;
}

// Which special values the variant gets right, as "-inf NaN +inf ovf unf" flags plus denormals.
std::string Specials(vlak_exp_variant v) {
  const float in[] = {-kInf, std::numeric_limits<float>::quiet_NaN(), kInf, 89.0f, 1000.0f, -110.0f,
                      -1000.0f, -100.0f};
  float out[8];
  if (vlak_exp_f32(8, in, out, v) != VLAK_OK) return "?";
  std::string s;
  auto flag = [&](const char* name, bool ok) {
    s += name;
    s += ok ? " " : "(NO) ";
  };
  flag("-inf->0", out[0] == 0.0f && !std::signbit(out[0]));
  flag("NaN->NaN", std::isnan(out[1]));
  flag("+inf->inf", out[2] == kInf);
  flag("ovf->inf", out[3] == kInf && out[4] == kInf);
  flag("unf->0", out[5] == 0.0f && out[6] == 0.0f && !std::signbit(out[5]));
  const double ref = std::exp(-100.0);  // 3.7e-44: a denormal
  s += std::fabs(out[7] - ref) <= 0x1p-149 ? "denormals kept" : (out[7] == 0.0f ? "denormals flushed" : "denormals wrong");
  return s;
}

int Usage() {
  std::fprintf(stderr,
               "usage: vlak accuracy sfpi [--arch wh|bh] [--exhaustive | --samples N] [--kernel NAME]\n"
               "       vlak accuracy exp [--variant NAME] [--target NAME] [--exhaustive | --samples N]"
               " [--range LO HI] [--threads N]\n"
               "       vlak accuracy activations [--function NAME] [--fast] [--target NAME] [--exhaustive | --samples N]"
               " [--threads N]\n"
               "  functions: sigmoid tanh gelu gelu_tanh silu softplus (default: all), over every finite float\n"
               "  variants: schraudolph bittrick_p3 bittrick_p5 cephes accurate precise (default: all)\n"
               "  default: 2^26 evenly spaced floats of each domain; --exhaustive: every one\n"
               "  domains: [-87.3, 88.7], every finite float for precise; --range LO HI (LO <= 0 <= HI)\n");
  return 2;
}

// --target NAME: forces that target. 0, or the exit status after saying why not (2: no such
// target, 1: not available here).
int SelectTarget(const char* name) {
  int found = -1;
  for (int k = VLAK_TARGET_SCALAR; k <= VLAK_TARGET_RVV; ++k) {
    if (std::strcmp(name, vlak_target_name(static_cast<vlak_target>(k))) == 0) found = k;
  }
  if (found < 0) {
    std::fprintf(stderr, "vlak accuracy: unknown target '%s' (valid: scalar avx2 avx512 rvv)\n", name);
    return 2;
  }
  if (vlak_set_target(static_cast<vlak_target>(found)) != VLAK_OK) {
    std::fprintf(stderr, "vlak accuracy: target %s is not available here\n", name);
    return 1;
  }
  return 0;
}

// Points [0, points) measured on `threads` threads, chunks handed out dynamically (the cost per
// point differs between binades): measure(begin, end, stats) into one Stats per thread, merged
// into the result. False if any call failed; *secs is the wall time.
template <class Stats, class Measure>
bool Sweep(uint64_t points, unsigned threads, Stats* merged, double* secs, Measure measure) {
  const uint64_t chunk = uint64_t{1} << 20;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<Stats> per(threads);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (uint64_t b; (b = next.fetch_add(chunk)) < points;) {
        if (!measure(b, std::min(points, b + chunk), per[t])) failed = true;
      }
    });
  }
  for (auto& th : pool) th.join();
  *secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const Stats& st : per) merged->Merge(st);
  return !failed;
}

// ---- activations ------------------------------------------------------------------------------

// XNNPACK's test tolerance for the same f32 function (test/vunary-microkernel-tester.cc, TestFP32:
// |y - ref| <= max(abs, rel |ref|) on uniform inputs of a range), for comparison with vlak.h's
// bound; "-" where its unary tests have no f32 form of the function.
const char* XnnpackTolerance(int op) {
  switch (op) {
    case VLAK_ACT_SIGMOID: return "max(5e-6, 1e-5|y|) on [-125,125]";
    case VLAK_ACT_TANH: return "5 eps |y| on [-10,10]";
    case VLAK_ACT_GELU: return "max(10 eps, 5 eps|y|) on [-10,10]";
    default: return "-";
  }
}

// Finite floats indexed 0 .. 2 * 0x7F800000 - 1: +0 up to FLT_MAX, then -0 down to -FLT_MAX.
constexpr uint64_t kFiniteFloats = uint64_t{2} * 0x7F800000u;
float FiniteAt(uint64_t i) {
  return i < 0x7F800000u ? FromBits(static_cast<uint32_t>(i)) : FromBits(static_cast<uint32_t>(0x80000000u + (i - 0x7F800000u)));
}

struct ActStats {
  double max_ulp = 0;  // where |ref| >= FLT_MIN
  float worst_x = 0;
  double max_sub = 0;  // |y - ref| / 2^-149 where |ref| < FLT_MIN
  float worst_sub_x = 0;
  uint64_t over = 0;  // points beyond vlak.h's bound
  uint64_t points = 0;
  void Merge(const ActStats& o) {
    if (o.max_ulp > max_ulp) { max_ulp = o.max_ulp; worst_x = o.worst_x; }
    if (o.max_sub > max_sub) { max_sub = o.max_sub; worst_sub_x = o.worst_sub_x; }
    over += o.over;
    points += o.points;
  }
};

// tier: VLAK_ACT_ACCURATE (bound 2 ULP, 2^-149 below FLT_MIN) or VLAK_ACT_FAST (4 and 4 x 2^-149).
double TierBound(int tier) { return tier == VLAK_ACT_FAST ? 4.0 : 2.0; }
double TierSubBound(int tier) { return tier == VLAK_ACT_FAST ? 4.0 : 1.0; }

bool MeasureActivation(vlak_activation op, int tier, uint64_t stride, uint64_t begin, uint64_t end, ActStats& st) {
  constexpr size_t kBlock = 8192;
  std::vector<float> x(kBlock), y(kBlock);
  for (uint64_t i = begin; i < end; i += kBlock) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, end - i));
    for (size_t j = 0; j < m; ++j) x[j] = FiniteAt(std::min(kFiniteFloats - 1, (i + j) * stride));
    if (vlak_activation_f32(m, x.data(), y.data(), op | tier) != VLAK_OK) return false;
    for (size_t j = 0; j < m; ++j) {
      const double ref = ActivationReferenceF64(op, x[j]);
      const double e = ActivationUlps(y[j], ref);
      if (std::fabs(ref) >= FLT_MIN) {
        if (!(e <= st.max_ulp)) { st.max_ulp = e; st.worst_x = x[j]; }
        st.over += e > TierBound(tier);
      } else {
        if (!(e <= st.max_sub)) { st.max_sub = e; st.worst_sub_x = x[j]; }
        st.over += e > TierSubBound(tier);
      }
    }
    st.points += m;
  }
  return true;
}

// vlak.h's limits at -inf, +inf, -0 and NaN, bit for bit: "ok" or the ones missed.
std::string ActivationSpecials(vlak_activation op, int tier) {
  const float in[] = {-kInf, kInf, -0.0f, std::numeric_limits<float>::quiet_NaN()};
  float out[4];
  if (vlak_activation_f32(4, in, out, op | tier) != VLAK_OK) return "?";
  std::string missed;
  const char* names[] = {"-inf", "+inf", "-0", "NaN"};
  for (int k = 0; k < 4; ++k) {
    const float want = static_cast<float>(ActivationReferenceF64(op, in[k]));
    if (Bits(out[k]) != Bits(want)) missed += std::string(missed.empty() ? "" : " ") + names[k];
  }
  return missed.empty() ? "ok" : "NO: " + missed;
}

int CmdAccuracyActivations(int argc, char** argv) {
  std::vector<vlak_activation> ops;
  uint64_t samples = uint64_t{1} << 26;
  bool exhaustive = false;
  int tier = VLAK_ACT_ACCURATE;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--function" && has_value) {
      const char* name = argv[++i];
      int found = -1;
      for (int k = 0; k < lab::NumActivations(); ++k) {
        if (std::strcmp(name, ActivationName(k)) == 0) found = k;
      }
      if (found < 0) {
        std::fprintf(stderr, "vlak accuracy: unknown function '%s'\n", name);
        return Usage();
      }
      ops.push_back(static_cast<vlak_activation>(found));
    } else if (a == "--target" && has_value) {
      if (const int rc = SelectTarget(argv[++i]); rc != 0) return rc;
    } else if (a == "--exhaustive") {
      exhaustive = true;
    } else if (a == "--fast") {
      tier = VLAK_ACT_FAST;
    } else if (a == "--samples" && has_value) {
      samples = std::strtoull(argv[++i], nullptr, 10);
      if (samples == 0) return Usage();
    } else if (a == "--threads" && has_value) {
      threads = static_cast<unsigned>(std::max(1L, std::strtol(argv[++i], nullptr, 10)));
    } else {
      return Usage();
    }
  }
  if (vlak_target_error() != VLAK_OK) {
    std::fprintf(stderr, "vlak accuracy: VLAK_TARGET cannot be used here (%s)\n", vlak_status_string(vlak_target_error()));
    return 1;
  }
  if (ops.empty()) {
    for (int k = 0; k < lab::NumActivations(); ++k) ops.push_back(static_cast<vlak_activation>(k));
  }
  // One kernel call per block: the library's own threads stay out of the measurement's.
  vlak_set_num_threads(1);
  const uint64_t stride = exhaustive || samples >= kFiniteFloats ? 1 : kFiniteFloats / samples;
  const uint64_t points = (kFiniteFloats + stride - 1) / stride;
  std::printf("activations f32 vs float64 reference on target %s, %s tier, %s, %u thread%s\n",
              vlak_target_name(vlak_active_target()), tier == VLAK_ACT_FAST ? "fast" : "accurate",
              exhaustive ? "exhaustive (every finite float)" : "sampled (evenly spaced finite floats)", threads,
              threads == 1 ? "" : "s");
  std::printf("vlak.h's bound: %g ULP of the float nearest the reference where |ref| >= FLT_MIN, %g x 2^-149 below\n",
              TierBound(tier), TierSubBound(tier));
  std::printf("%-10s %11s %9s %-15s %12s %-15s %6s %-9s %s\n", "function", "points", "max ULP", "at x",
              "<FLT_MIN", "at x", "over", "specials", "XNNPACK test tolerance");
  int status = 0;
  for (const vlak_activation op : ops) {
    ActStats st;
    double secs = 0;
    if (!Sweep(points, threads, &st, &secs, [&](uint64_t b, uint64_t e, ActStats& per) {
          return MeasureActivation(op, tier, stride, b, e, per);
        })) {
      std::fprintf(stderr, "vlak accuracy: vlak_activation_f32 failed\n");
      return 1;
    }
    const std::string specials = ActivationSpecials(op, tier);
    if (st.over != 0 || specials != "ok") status = 1;
    std::printf("%-10s %11llu %9.4f %-15.9g %8.3f/149 %-15.9g %6llu %-9s %s  (%.1f s)\n", ActivationName(op),
                static_cast<unsigned long long>(st.points), st.max_ulp, st.worst_x, st.max_sub, st.worst_sub_x,
                static_cast<unsigned long long>(st.over), specials.c_str(), XnnpackTolerance(op), secs);
    std::fflush(stdout);
  }
  return status;
}

}  // namespace

int CmdAccuracy(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "sfpi") == 0) return CmdAccuracySfpi(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "activations") == 0) return CmdAccuracyActivations(argc, argv);
  if (argc < 2 || std::strcmp(argv[1], "exp") != 0) return Usage();
  std::vector<vlak_exp_variant> variants;
  uint64_t samples = uint64_t{1} << 26;
  bool custom_range = false;
  float range_lo = 0, range_hi = 0;
  std::string range_text;
  bool exhaustive = false;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--variant" && has_value) {
      const char* name = argv[++i];
      bool found = false;
      for (int k = VLAK_EXP_SCHRAUDOLPH; k <= VLAK_EXP_PRECISE; ++k) {
        const auto v = static_cast<vlak_exp_variant>(k);
        if (std::strcmp(name, vlak_exp_variant_name(v)) == 0) {
          variants.push_back(v);
          found = true;
        }
      }
      if (!found) {
        std::fprintf(stderr, "vlak accuracy: unknown variant '%s'\n", name);
        return Usage();
      }
    } else if (a == "--target" && has_value) {
      if (const int rc = SelectTarget(argv[++i]); rc != 0) return rc;
    } else if (a == "--exhaustive") {
      exhaustive = true;
    } else if (a == "--samples" && has_value) {
      samples = std::strtoull(argv[++i], nullptr, 10);
      if (samples == 0) return Usage();
    } else if (a == "--range" && i + 2 < argc) {
      range_lo = std::strtof(argv[i + 1], nullptr);
      range_hi = std::strtof(argv[i + 2], nullptr);
      range_text = std::string("[") + argv[i + 1] + ", " + argv[i + 2] + "]";
      i += 2;
      if (!(range_lo <= 0 && range_hi >= 0 && std::isfinite(range_lo) && std::isfinite(range_hi))) {
        std::fprintf(stderr, "vlak accuracy: --range LO HI needs finite LO <= 0 <= HI\n");
        return 2;
      }
      custom_range = true;
    } else if (a == "--threads" && has_value) {
      threads = static_cast<unsigned>(std::max(1L, std::strtol(argv[++i], nullptr, 10)));
    } else {
      return Usage();
    }
  }
  if (vlak_target_error() != VLAK_OK) {
    std::fprintf(stderr, "vlak accuracy: VLAK_TARGET cannot be used here (%s)\n",
                 vlak_status_string(vlak_target_error()));
    return 1;
  }
  if (variants.empty()) {
    for (int k = VLAK_EXP_SCHRAUDOLPH; k <= VLAK_EXP_PRECISE; ++k) variants.push_back(static_cast<vlak_exp_variant>(k));
  }

  std::printf("exp f32 vs float64 std::exp on target %s, %s, %u thread%s\n",
              vlak_target_name(vlak_active_target()),
              exhaustive ? "exhaustive (every float of the domain)" : "sampled (evenly spaced floats of the domain)",
              threads, threads == 1 ? "" : "s");
  std::printf("%-12s %-19s %11s %12s %-15s %10s %10s  %s\n", "variant", "domain", "points", "max ULP",
              "at x", "max rel", "mean rel", "special values");
  int status = 0;
  for (const vlak_exp_variant v : variants) {
    const Domain dom = custom_range ? Domain{range_lo, range_hi, range_text.c_str()} : DomainOf(v);
    const uint64_t count = dom.Count();
    const uint64_t stride = exhaustive || samples >= count ? 1 : count / samples;
    const uint64_t points = (count + stride - 1) / stride;
    Stats st;
    double secs = 0;
    if (!Sweep(points, threads, &st, &secs, [&](uint64_t b, uint64_t e, Stats& per) {
          return Measure(v, dom, stride, b, e, per);
        })) {
      std::fprintf(stderr, "vlak accuracy: vlak_exp_f32 failed\n");
      return 1;
    }
    char ulp[32];
    if (std::isinf(st.max_ulp)) std::snprintf(ulp, sizeof ulp, "inf");
    else std::snprintf(ulp, sizeof ulp, st.max_ulp < 100 ? "%.4f" : "%.0f", st.max_ulp);
    std::printf("%-12s %-19s %11llu %12s %-15.9g %10.3e %10.3e  %s  (%.1f s)\n", vlak_exp_variant_name(v), dom.text,
                static_cast<unsigned long long>(st.points), ulp, st.worst_x, st.max_rel,
                st.n_rel ? st.sum_rel / static_cast<double>(st.n_rel) : 0.0, Specials(v).c_str(), secs);
    std::fflush(stdout);
  }
  return status;
}

}  // namespace vlak::cli
