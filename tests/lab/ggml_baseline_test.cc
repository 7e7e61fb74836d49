// The ggml peer (src/lab/ggml_baseline.h): quantize/dequantize round trips within each format's
// rounding, and ggml's C = A·Wᵀ against a float64 product of the dequantized weights, within a
// bound that allows for ggml quantizing A to 8 bits per block of 32. Skipped where ggml is not
// built (make peers).
#include "lab/ggml_baseline.h"
#include "vlak/vlak.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace vlak::lab {
namespace {

#define SKIP_IF_NO_GGML()                                  \
  do {                                                     \
    if (!GgmlMissing().empty()) GTEST_SKIP() << GgmlMissing(); \
  } while (0)

const int kTypes[] = {kGgmlQ4_0, kGgmlQ4_1, kGgmlQ8_0};

const char* Name(int t) { return t == kGgmlQ4_0 ? "q4_0" : t == kGgmlQ4_1 ? "q4_1" : "q8_0"; }

// Rows with different scales, a few exact zeros, and a constant block.
std::vector<float> Data(size_t rows, size_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(rows * k);
  for (size_t r = 0; r < rows; ++r) {
    const float scale = std::ldexp(1.0f, static_cast<int>(r % 7) - 3);
    for (size_t i = 0; i < k; ++i) x[r * k + i] = scale * u(rng);
  }
  if (rows * k >= 64) {
    std::fill(x.begin(), x.begin() + 32, 0.0f);       // an all-zero block: d = 0
    std::fill(x.begin() + 32, x.begin() + 64, 0.25f);  // a constant block
  }
  return x;
}

TEST(GgmlBaseline, ReportsWhetherBuilt) {
  const std::string missing = GgmlMissing();
  if (missing.empty()) {
    EXPECT_FALSE(GgmlVersion().empty());
    std::printf("ggml: %s\n", GgmlVersion().c_str());
  } else {
    EXPECT_EQ(missing, "ggml not built: run make peers");
    std::vector<float> x(32, 1.0f);
    std::vector<unsigned char> q(64, 0xAB);
    EXPECT_FALSE(GgmlQuantize(kGgmlQ8_0, 1, 32, x.data(), q.data()));
    EXPECT_EQ(q[0], 0xAB);
  }
  EXPECT_EQ(GgmlRowBytes(kGgmlQ4_0, 64), 36u);
  EXPECT_EQ(GgmlRowBytes(kGgmlQ4_1, 64), 40u);
  EXPECT_EQ(GgmlRowBytes(kGgmlQ8_0, 64), 68u);
  EXPECT_EQ(GgmlRowBytes(kGgmlQ8_0, 33), 0u);
  EXPECT_EQ(GgmlRowBytes(1, 64), 0u);
}

TEST(GgmlBaseline, BadArgumentsWriteNothing) {
  SKIP_IF_NO_GGML();
  std::vector<float> x(64, 1.0f), c(4, -7.0f);
  std::vector<unsigned char> q(256, 0xAB);
  EXPECT_FALSE(GgmlQuantize(kGgmlQ8_0, 1, 48, x.data(), q.data()));  // k % 32
  EXPECT_FALSE(GgmlQuantize(1, 1, 32, x.data(), q.data()));          // f16: not one of ours
  EXPECT_FALSE(GgmlQuantize(kGgmlQ8_0, 0, 32, x.data(), q.data()));
  EXPECT_FALSE(GgmlQuantize(kGgmlQ8_0, 1, 32, nullptr, q.data()));
  EXPECT_FALSE(GgmlDequantize(kGgmlQ4_0, 1, 32, q.data(), nullptr));
  EXPECT_TRUE(std::all_of(q.begin(), q.end(), [](unsigned char b) { return b == 0xAB; }));
  EXPECT_FALSE(GgmlMatmulQ(kGgmlQ4_0, 1, 2, 32, x.data(), q.data(), c.data(), 0));   // threads
  EXPECT_FALSE(GgmlMatmulQ(kGgmlQ4_0, 1, 2, 40, x.data(), q.data(), c.data(), 1));   // k % 32
  EXPECT_FALSE(GgmlMatmulQ(kGgmlQ4_0, 1, 0, 32, x.data(), q.data(), c.data(), 1));   // n
  EXPECT_FALSE(GgmlGemvVecDot(kGgmlQ4_0, 2, 32, x.data(), nullptr, c.data()));
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](float v) { return v == -7.0f; }));
  std::string err;
  EXPECT_EQ(GgmlMatmul::Create(kGgmlQ4_0, 1, 2, 32, q.data(), 1, "NO_SUCH_LAYOUT", &err), nullptr);
  EXPECT_FALSE(err.empty());
}

// Per block of 32: |x - dequantize(quantize(x))| within the format's rounding (half a step; q4_0
// a whole step for values of the sign opposite to the block's extreme, which its 16 levels clip
// at +7·d) plus the fp16 rounding of d (and q4_1's minimum).
TEST(GgmlBaseline, RoundTripWithinRounding) {
  SKIP_IF_NO_GGML();
  const size_t rows = 9, k = 256;
  const std::vector<float> x = Data(rows, k, 1);
  for (int t : kTypes) {
    std::vector<unsigned char> q(rows * GgmlRowBytes(t, k));
    std::vector<float> y(rows * k, NAN);
    ASSERT_TRUE(GgmlQuantize(t, rows, k, x.data(), q.data())) << Name(t);
    ASSERT_TRUE(GgmlDequantize(t, rows, k, q.data(), y.data())) << Name(t);
    for (size_t b = 0; b < rows * k / 32; ++b) {
      const float* xb = &x[b * 32];
      float amax = 0, lo = xb[0], hi = xb[0];
      for (int i = 0; i < 32; ++i) {
        amax = std::max(amax, std::fabs(xb[i]));
        lo = std::min(lo, xb[i]);
        hi = std::max(hi, xb[i]);
      }
      double bound;
      if (t == kGgmlQ8_0) {
        bound = (0.5 + 128 * 0x1p-11) * amax / 127;
      } else if (t == kGgmlQ4_0) {
        bound = (1.0 + 8 * 0x1p-11) * amax / 8;
      } else {
        const double d = (hi - lo) / 15.0;
        bound = (0.5 + 16 * 0x1p-11) * d + std::fabs(lo) * 0x1p-11;
      }
      bound = bound * 1.0001 + 1e-30;
      for (int i = 0; i < 32; ++i) {
        ASSERT_LE(std::fabs(static_cast<double>(y[b * 32 + i]) - xb[i]), bound)
            << Name(t) << " block " << b << " element " << i << " x=" << xb[i] << " y=" << y[b * 32 + i];
      }
    }
    // The constant block and the zero block come back exactly (q4_1: to the fp16 of the value).
    EXPECT_EQ(y[0], 0.0f) << Name(t);
    EXPECT_NEAR(y[40], 0.25f, 0.25 * 0x1p-10) << Name(t);
  }
}

// The float64 product of A and the dequantized W, and the bound on ggml's result: A is quantized
// per block of 32 to int8 (error <= (0.5 + 128·2^-11)·amax/127 per element with d in fp16), times
// |w|, summed; q4_1's vec_dot type q8_1 also stores the block sum s·d in fp16, multiplied by W's
// minimum; plus float accumulation, 2^-16 of the sum of |a·w|.
struct Expected {
  std::vector<double> c, bound;
};
Expected Reference(int t, size_t m, size_t n, size_t k, const std::vector<float>& a, const std::vector<float>& wd,
                   const std::vector<unsigned char>& wq) {
  Expected e{std::vector<double>(m * n), std::vector<double>(m * n)};
  const size_t rb = GgmlRowBytes(t, k);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double s = 0, sabs = 0, qerr = 0;
      for (size_t b = 0; b < k / 32; ++b) {
        double amax = 0, asum = 0, wabs = 0;
        for (size_t l = 0; l < 32; ++l) {
          const double av = a[i * k + b * 32 + l], wv = wd[j * k + b * 32 + l];
          s += av * wv;
          sabs += std::fabs(av * wv);
          amax = std::max(amax, std::fabs(av));
          asum += std::fabs(av);
          wabs += std::fabs(wv);
        }
        qerr += (0.5 + 128 * 0x1p-11) * amax / 127 * wabs;
        if (t == kGgmlQ4_1) {
          // W's fp16 minimum, bytes 2..3 of the block
          const unsigned char* blk = &wq[j * rb + b * 20];
          const uint16_t h = static_cast<uint16_t>(blk[2] | blk[3] << 8);
          const int ex = (h >> 10) & 31;
          const double mabs = ex == 0 ? std::ldexp(h & 1023, -24) : std::ldexp((h & 1023) + 1024, ex - 25);
          qerr += mabs * asum * 1.01 * 0x1p-10;
        }
      }
      e.c[i * n + j] = s;
      e.bound[i * n + j] = 1.02 * qerr + sabs * 0x1p-16 + 1e-30;
    }
  }
  return e;
}

struct Shape {
  size_t m, n, k;
};

TEST(GgmlBaseline, MatmulMatchesDequantizedProduct) {
  SKIP_IF_NO_GGML();
  // n a multiple of 8 (ggml's repacked layouts take it) and not; m = 1 (decode) and m > 1.
  const Shape shapes[] = {{1, 64, 256}, {1, 13, 96}, {3, 40, 128}, {16, 24, 64}};
  for (int t : kTypes) {
    for (const Shape& s : shapes) {
      const std::vector<float> a = Data(s.m, s.k, 11), w = Data(s.n, s.k, 12);
      std::vector<unsigned char> wq(s.n * GgmlRowBytes(t, s.k));
      std::vector<float> wd(s.n * s.k);
      ASSERT_TRUE(GgmlQuantize(t, s.n, s.k, w.data(), wq.data()));
      ASSERT_TRUE(GgmlDequantize(t, s.n, s.k, wq.data(), wd.data()));
      const Expected e = Reference(t, s.m, s.n, s.k, a, wd, wq);
      auto check = [&](const float* c, const std::string& what) {
        for (size_t i = 0; i < s.m * s.n; ++i) {
          ASSERT_LE(std::fabs(c[i] - e.c[i]), e.bound[i])
              << what << " " << Name(t) << " " << s.m << "x" << s.n << "x" << s.k << " at " << i << ": " << c[i]
              << " vs " << e.c[i];
        }
      };
      for (int threads : {1, 2}) {
        std::vector<float> c(s.m * s.n, NAN);
        ASSERT_TRUE(GgmlMatmulQ(t, s.m, s.n, s.k, a.data(), wq.data(), c.data(), threads));
        check(c.data(), "GgmlMatmulQ T" + std::to_string(threads));
        for (const char* layout : {"CPU", "auto"}) {
          std::string err;
          auto p = GgmlMatmul::Create(t, s.m, s.n, s.k, wq.data(), threads, layout, &err);
          ASSERT_NE(p, nullptr) << err;
          std::copy(a.begin(), a.end(), p->A());
          ASSERT_TRUE(p->Run());
          check(p->C(), std::string("GgmlMatmul ") + p->Layout() + " T" + std::to_string(threads));
        }
      }
      if (s.m == 1) {
        std::vector<float> c(s.n, NAN);
        ASSERT_TRUE(GgmlGemvVecDot(t, s.n, s.k, a.data(), wq.data(), c.data()));
        check(c.data(), "GgmlGemvVecDot");
      }
    }
  }
}


// vlak's AMX kernel (an x16-packed W, 16 rows or more of A quantized) on the thread where ggml's
// AMX kernels configured their tiles: it puts ggml's configuration back, so ggml's next product
// neither faults (tiles released under it: SIGILL) nor reads a foreign tile shape. The shape is one
// ggml takes to its AMX kernel; where neither uses AMX, the same calls run their other kernels.
TEST(GgmlBaseline, VlakTilesLeaveGgmlsConfiguration) {
  SKIP_IF_NO_GGML();
  const size_t m = 128, n = 576, k = 576;
  for (int t : kTypes) {
    const std::vector<float> a = Data(m, k, 21), w = Data(n, k, 22);
    std::vector<unsigned char> wq(n * GgmlRowBytes(t, k));
    std::vector<float> wd(n * k);
    ASSERT_TRUE(GgmlQuantize(t, n, k, w.data(), wq.data()));
    ASSERT_TRUE(GgmlDequantize(t, n, k, wq.data(), wd.data()));
    const Expected e = Reference(t, m, n, k, a, wd, wq);
    std::string err;
    auto g = GgmlMatmul::Create(t, m, n, k, wq.data(), 1, "auto", &err);
    ASSERT_NE(g, nullptr) << err;
    std::copy(a.begin(), a.end(), g->A());
    ASSERT_TRUE(g->Run());
    const auto qt = static_cast<vlak_qtype>(t);  // vlak's type codes are ggml's
    std::vector<unsigned char> packed(vlak_matmul_q_packed_size(qt, n, k));
    ASSERT_EQ(vlak_matmul_q_pack(qt, n, k, wq.data(), GgmlRowBytes(t, k), packed.data(), packed.size()), VLAK_OK);
    std::vector<float> c(m * n);
    const int threads = vlak_get_num_threads();
    ASSERT_EQ(vlak_set_num_threads(1), VLAK_OK);  // on this thread
    ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), k, packed.data(), c.data(), n, VLAK_MATMUL_Q_QUANTIZE_A, nullptr),
              VLAK_OK);
    ASSERT_EQ(vlak_set_num_threads(threads), VLAK_OK);
    ASSERT_TRUE(g->Run());
    for (size_t i = 0; i < m * n; ++i) {
      ASSERT_LE(std::fabs(g->C()[i] - e.c[i]), e.bound[i]) << Name(t) << " ggml after vlak, " << g->Layout() << " at " << i;
      ASSERT_LE(std::fabs(c[i] - e.c[i]), e.bound[i]) << Name(t) << " vlak at " << i;
    }
  }
}

}  // namespace
}  // namespace vlak::lab
