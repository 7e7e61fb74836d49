// `vlak hackathon` and `vlak gen-golden`: the RISC-V hackathon softmax's (April 2025) harness. Raw
// little-endian float32 data and golden files; the hackathon's report lines (maxAbsDiff, sumSquareErr, squareGolden, snr_result,
// f_scores, score) and, on RISC-V under the qemu-icount plugin, the instructions the softmax
// call retired. snr = 10 log10(sum g^2 / sum (g - o)^2), f = 10 sqrt(snr), pass at snr >= 30,
// score = clamp(floor(f), 60, 100).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "commands.h"
#include "icount_live.h"
#include "icount_marker.h"
#include "hackathon_softmax.h"
#include "lab/oracles.h"
#include "vlak/vlak.h"

namespace vlak::cli {
namespace {

using lab::SoftmaxReferenceF64;
using lab::SoftmaxVariantRow;

using Impl = std::function<bool(const float*, float*, size_t)>;

struct NamedImpl {
  std::string name;
  Impl run;
};

std::vector<NamedImpl> Implementations() {
  std::vector<NamedImpl> impls = {
      {"vlak", [](const float* x, float* y, size_t n) { return vlak_softmax_f32(1, n, x, n, y, n, 0) == VLAK_OK; }},
      {"scalar-libm", [](const float* x, float* y, size_t n) { HackathonScalarLibmSoftmax(x, y, n); return true; }},
      {"seed-rvv", HackathonRvvSoftmax},
  };
  for (int v = VLAK_EXP_SCHRAUDOLPH; v <= VLAK_EXP_PRECISE; ++v) {
    for (int k = 0; k <= 3; ++k) {
      const auto variant = static_cast<vlak_exp_variant>(v);
      impls.push_back({std::string("vlak-") + vlak_exp_variant_name(variant) + "-m" + std::to_string(1 << k),
                       [variant, k](const float* x, float* y, size_t n) { return SoftmaxVariantRow(variant, k, x, y, n); }});
    }
  }
  return impls;
}

bool ReadFloats(const char* path, size_t n, std::vector<float>& out) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  out.resize(n);
  const size_t got = std::fread(out.data(), sizeof(float), n, f);
  std::fclose(f);
  return got == n;
}

bool WriteFloats(const char* path, const std::vector<float>& v) {
  FILE* f = std::fopen(path, "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(v.data(), sizeof(float), v.size(), f) == v.size();
  return std::fclose(f) == 0 && ok;
}

// The plugin's live file (icount_live.h) holds the count of the region just closed.
bool ReadLiveCount(unsigned long long& count) {
  vlak_icount_live live;
  if (vlak_icount_read_live(&live) == 0) return false;
  count = live.last;
  return true;
}

int Usage(const char* msg) {
  std::fprintf(stderr, "vlak hackathon: %s\nusage: vlak hackathon -f DATA -g GOLDEN [-n 2048] [--impl NAME] [--list]\n", msg);
  return 2;
}

}  // namespace

int CmdHackathon(int argc, char** argv) {
  const char* data_path = nullptr;
  const char* golden_path = nullptr;
  size_t n = 2048;
  std::string impl_name = "vlak";
  const auto impls = Implementations();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list") {
      for (const auto& impl : impls) std::printf("%s\n", impl.name.c_str());
      return 0;
    }
    if (i + 1 >= argc) return Usage(("missing value for " + a).c_str());
    if (a == "-f") data_path = argv[++i];
    else if (a == "-g") golden_path = argv[++i];
    else if (a == "-n") n = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--impl") impl_name = argv[++i];
    else return Usage(("unknown option " + a).c_str());
  }
  if (data_path == nullptr || golden_path == nullptr) return Usage("-f and -g are required");
  if (n == 0) return Usage("-n must be positive");
  const NamedImpl* impl = nullptr;
  for (const auto& c : impls) if (c.name == impl_name) impl = &c;
  if (impl == nullptr) {
    std::string valid;
    for (const auto& c : impls) valid += " " + c.name;
    std::fprintf(stderr, "vlak hackathon: unknown --impl '%s' (valid:%s)\n", impl_name.c_str(), valid.c_str());
    return 2;
  }
  std::vector<float> x, golden;
  if (!ReadFloats(data_path, n, x)) return std::fprintf(stderr, "vlak hackathon: cannot read %zu floats from %s\n", n, data_path), 1;
  if (!ReadFloats(golden_path, n, golden)) return std::fprintf(stderr, "vlak hackathon: cannot read %zu floats from %s\n", n, golden_path), 1;
  std::vector<float> y(n);

  // A first call outside the region: one-time set-up (target choice) is not the kernel's cost.
  if (!impl->run(x.data(), y.data(), n)) {
    std::fprintf(stderr, "vlak hackathon: --impl %s is not available on this build/CPU\n", impl_name.c_str());
    return 1;
  }
  vlak_icount_begin();
  impl->run(x.data(), y.data(), n);
  vlak_icount_end();

  std::printf("Softmax size=%zu\n", n);
  unsigned long long count = 0;
#if defined(__riscv)
  if (ReadLiveCount(count)) std::printf("Used %llu instructions\n", count);
  else std::printf("Used n/a instructions (run under qemu-riscv64 with the qemu-icount plugin: scripts/rvv-run)\n");
#else
  (void)count;
  (void)ReadLiveCount;
  std::printf("instructions: n/a\n");
#endif
  double max_abs = 0, sse = 0, sg = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(golden[i]) - y[i];
    max_abs = std::fmax(max_abs, std::fabs(d));
    sse += d * d;
    sg += static_cast<double>(golden[i]) * golden[i];
  }
  const double snr = 10.0 * std::log10(sg / sse);  // +inf when the output is exact
  const double f = 10.0 * std::sqrt(snr);
  std::printf("------------------\n");
  std::printf("maxAbsDiff = %f\n", max_abs);
  std::printf("sumSquareErr = %f\n", sse);
  std::printf("squareGolden = %f\n", sg);
  std::printf("snr_result = %f\n", snr);
  std::printf("f_scores = %f\n", f);
  if (!(snr >= 30.0)) {
    std::printf("--> Test FAILED! snr_result < 30\n");
    return 1;
  }
  const double score = std::fmin(100.0, std::fmax(60.0, std::floor(f)));
  std::printf("--> Test PASSED! Your scores = %.0f\n", score);
  return 0;
}

int CmdGenGolden(int argc, char** argv) {
  const char* data_path = nullptr;
  const char* golden_path = nullptr;
  size_t n = 2048;
  unsigned seed = 2024;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "vlak gen-golden: missing value for %s\n", a.c_str());
      return 2;
    }
    if (a == "-o") data_path = argv[++i];
    else if (a == "-g") golden_path = argv[++i];
    else if (a == "-n") n = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--seed") seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    else {
      std::fprintf(stderr, "vlak gen-golden: unknown option %s\nusage: vlak gen-golden -o DATA -g GOLDEN [-n 2048] [--seed S]\n", a.c_str());
      return 2;
    }
  }
  if (data_path == nullptr || golden_path == nullptr || n == 0) {
    std::fprintf(stderr, "usage: vlak gen-golden -o DATA -g GOLDEN [-n 2048] [--seed S]\n");
    return 2;
  }
  // Uniform [0, 1) from the top 24 bits of mt19937: the same floats on every platform.
  std::mt19937 rng(seed);
  std::vector<float> x(n), golden(n);
  for (auto& v : x) v = static_cast<float>(rng() >> 8) * 0x1p-24f;
  std::vector<double> ref(n);
  SoftmaxReferenceF64(x.data(), n, ref.data(), 0);
  for (size_t i = 0; i < n; ++i) golden[i] = static_cast<float>(ref[i]);
  if (!WriteFloats(data_path, x) || !WriteFloats(golden_path, golden)) {
    std::fprintf(stderr, "vlak gen-golden: cannot write %s / %s\n", data_path, golden_path);
    return 1;
  }
  std::printf("wrote %zu floats to %s and their float64 softmax to %s\n", n, data_path, golden_path);
  return 0;
}

}  // namespace vlak::cli
