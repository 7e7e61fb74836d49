// ggml-peer: ggml's quantized matrix products (src/lab/ggml_baseline.h) timed on this machine, or
// run once between the qemu-icount plugin's region markers on RISC-V.
//
//   ggml-peer info
//   ggml-peer time   --type q4_0 --m 1 --n 4096 --k 4096 [--threads 1] [--layout auto|CPU|AMX|CPU_REPACK]
//                    [--rotate-mb 0] [--seconds 0.5]
//   ggml-peer icount --type q4_0 --n 1536 --k 576 [--path vecdot|graph]
//
// time: the median (and the fastest) of GgmlMatmul::Run over about --seconds, after a warm-up;
// GB/s counts W's bytes once per product. --rotate-mb: one graph of as many products, each with
// its own copy of W, as make that many MB (above the last-level cache: weights from DRAM, as a
// model's layers stream them); the time is the graph's over the number of products.
// icount: one call inside the region (another before it, outside, warms up ggml's tables);
// scripts/rvv-run prints the region's instructions on stderr.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "icount_marker.h"
#include "lab/ggml_baseline.h"

namespace {

using vlak::lab::GgmlMatmul;

int TypeOf(const std::string& s) {
  if (s == "q4_0") return vlak::lab::kGgmlQ4_0;
  if (s == "q4_1") return vlak::lab::kGgmlQ4_1;
  if (s == "q8_0") return vlak::lab::kGgmlQ8_0;
  return -1;
}

struct Args {
  std::string cmd, type = "q4_0", layout = "auto", path = "vecdot";
  size_t m = 1, n = 4096, k = 4096;
  int threads = 1;
  double rotate_mb = 0, seconds = 0.5;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr, "ggml-peer: %s\nusage: ggml-peer info | time --type T --m M --n N --k K [--threads T] "
                       "[--layout auto|CPU|AMX|CPU_REPACK] [--rotate-mb MB] [--seconds S] | icount --type T --n N --k K "
                       "[--path vecdot|graph]\n", why);
  std::exit(2);
}

Args Parse(int argc, char** argv) {
  if (argc < 2) Usage("no command");
  Args a;
  a.cmd = argv[1];
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) Usage("an option without a value");
    const std::string o = argv[i], v = argv[i + 1];
    if (o == "--type") a.type = v;
    else if (o == "--layout") a.layout = v;
    else if (o == "--path") a.path = v;
    else if (o == "--m") a.m = std::strtoull(v.c_str(), nullptr, 10);
    else if (o == "--n") a.n = std::strtoull(v.c_str(), nullptr, 10);
    else if (o == "--k") a.k = std::strtoull(v.c_str(), nullptr, 10);
    else if (o == "--threads") a.threads = std::atoi(v.c_str());
    else if (o == "--rotate-mb") a.rotate_mb = std::atof(v.c_str());
    else if (o == "--seconds") a.seconds = std::atof(v.c_str());
    else Usage(("unknown option " + o).c_str());
  }
  if (TypeOf(a.type) < 0) Usage("--type must be q4_0, q4_1 or q8_0");
  return a;
}

// Uniform in [-1, 1) from the generator's top 24 bits (std::uniform_real_distribution goes
// through long double, which is software binary128 on riscv64: thousands of instructions a value
// under qemu).
std::vector<float> Random(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> x(count);
  for (float& v : x) v = static_cast<float>(rng() >> 8) * 0x1p-23f - 1.0f;
  return x;
}

std::vector<unsigned char> Weights(int t, size_t n, size_t k) {
  std::vector<unsigned char> q(n * vlak::lab::GgmlRowBytes(t, k));
  const std::vector<float> w = Random(n * k, 7);
  if (!vlak::lab::GgmlQuantize(t, n, k, w.data(), q.data())) {
    std::fprintf(stderr, "ggml-peer: GgmlQuantize failed\n");
    std::exit(1);
  }
  return q;
}

int Time(const Args& a) {
  const int t = TypeOf(a.type);
  const std::vector<unsigned char> wq = Weights(t, a.n, a.k);
  const double wbytes = static_cast<double>(wq.size());
  const size_t copies = std::max<size_t>(1, static_cast<size_t>(std::ceil(a.rotate_mb * 1e6 / wbytes)));
  const std::vector<float> x = Random(a.m * a.k, 3);
  std::string err;
  auto p = GgmlMatmul::Create(t, a.m, a.n, a.k, wq.data(), a.threads, a.layout, &err, copies);
  if (!p) {
    std::fprintf(stderr, "ggml-peer: %s\n", err.c_str());
    return 1;
  }
  std::copy(x.begin(), x.end(), p->A());
  using clock = std::chrono::steady_clock;
  // warm-up: 0.1 s (and at least 2 runs)
  for (int r = 0; r < 2; ++r) p->Run();
  for (auto end = clock::now() + std::chrono::milliseconds(100); clock::now() < end;) p->Run();
  std::vector<double> us;  // per product: a run's time over the copies
  const auto stop = clock::now() + std::chrono::duration<double>(a.seconds);
  while (clock::now() < stop || us.size() < 5) {
    const auto t0 = clock::now();
    if (!p->Run()) return 1;
    us.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count() / copies);
  }
  std::sort(us.begin(), us.end());
  const double med = us[us.size() / 2], best = us.front();
  std::printf("ggml %-4s m=%-4zu n=%-5zu k=%-5zu T%d layout=%-10s W=%.2f MB%s  median %10.2f us  %7.2f GB/s   best %10.2f us  (%zu calls)\n",
              a.type.c_str(), a.m, a.n, a.k, a.threads, p->Layout().c_str(), wbytes / 1e6,
              copies > 1 ? (" x" + std::to_string(copies)).c_str() : "", med, wbytes / med / 1e3, best, us.size());
  return 0;
}

int Icount(const Args& a) {
  const int t = TypeOf(a.type);
  const std::vector<unsigned char> wq = Weights(t, a.n, a.k);
  const std::vector<float> x = Random(a.k, 3);
  std::vector<float> c(a.n);
  bool ok;
  if (a.path == "graph") {
    std::string err;
    auto p = GgmlMatmul::Create(t, 1, a.n, a.k, wq.data(), 1, "auto", &err);
    if (!p) {
      std::fprintf(stderr, "ggml-peer: %s\n", err.c_str());
      return 1;
    }
    std::copy(x.begin(), x.end(), p->A());
    ok = p->Run();
    vlak_icount_begin();
    ok = ok && p->Run();
    vlak_icount_end();
    std::copy(p->C(), p->C() + a.n, c.begin());
    std::printf("layout %s\n", p->Layout().c_str());
  } else if (a.path == "vecdot") {
    ok = vlak::lab::GgmlGemvVecDot(t, a.n, a.k, x.data(), wq.data(), c.data());
    vlak_icount_begin();
    ok = ok && vlak::lab::GgmlGemvVecDot(t, a.n, a.k, x.data(), wq.data(), c.data());
    vlak_icount_end();
  } else {
    Usage("--path must be vecdot or graph");
  }
  if (!ok) return 1;
  double sum = 0;
  for (float v : c) sum += v;
  std::printf("ggml %s 1x%zux%zu path=%s weights=%zu checksum %.6g\n", a.type.c_str(), a.n, a.k, a.path.c_str(),
              a.n * a.k, sum);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = Parse(argc, argv);
  if (!vlak::lab::GgmlMissing().empty()) {
    std::fprintf(stderr, "%s\n", vlak::lab::GgmlMissing().c_str());
    return 1;
  }
  if (a.cmd == "info") {
    std::printf("%s\n", vlak::lab::GgmlVersion().c_str());
    for (const char* ty : {"q4_0", "q4_1", "q8_0"}) {
      const std::vector<unsigned char> wq = Weights(TypeOf(ty), 64, 256);
      std::string err;
      auto p = GgmlMatmul::Create(TypeOf(ty), 1, 64, 256, wq.data(), 1, "auto", &err);
      std::printf("%s: weights placed in %s\n", ty, p ? p->Layout().c_str() : err.c_str());
    }
    return 0;
  }
  if (a.cmd == "time") return Time(a);
  if (a.cmd == "icount") return Icount(a);
  Usage("unknown command");
}
