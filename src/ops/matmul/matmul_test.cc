// vlak_matmul_f32 against the float64 reference and an exact model of its summation order, on
// every target this CPU (or qemu) runs.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page) and its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_test_problem.h"
#include "vlak/vlak.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

constexpr float kSentinel = kMatmulSentinel;  // in the gaps between rows of C: must survive every call

uint32_t Bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// One problem with strided storage (matmul_test_problem.h) and the documented order of its sums.
struct Problem : MatmulProblem {
  using MatmulProblem::MatmulProblem;
  // The documented order (vlak.h): one chain per element in sequential k order: the first
  // product (or an fma onto the old C with ACCUMULATE), then fmas. Skinny calls (m * n <= 4096,
  // k >= 4096) cut k into segments of 1024 * ceil(k / 65536): one such chain per segment, from
  // its first product, and the segments' sums added in order (to the old C first).
  std::vector<float> Model(bool accumulate) const {
    std::vector<float> c = c0;
    const bool split = m * n <= 4096 && k >= 4096;
    const size_t seg = split ? 1024 * ((k + 65535) / 65536) : (k > 0 ? k : 1);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (!split) {
          float s = accumulate ? std::fma(a[i * lda], B(0, j), c0[i * ldc + j]) : a[i * lda] * B(0, j);
          for (size_t p = 1; p < k; ++p) s = std::fma(a[i * lda + p], B(p, j), s);
          c[i * ldc + j] = s;
          continue;
        }
        float total = 0;
        for (size_t p0 = 0; p0 < k; p0 += seg) {
          float s = a[i * lda + p0] * B(p0, j);
          for (size_t p = p0 + 1; p < k && p < p0 + seg; ++p) s = std::fma(a[i * lda + p], B(p, j), s);
          total = p0 == 0 ? (accumulate ? c0[i * ldc + j] + s : s) : total + s;
        }
        c[i * ldc + j] = total;
      }
    }
    return c;
  }
};

// C against the float64 reference within the contract's bound, and the gaps untouched.
void ExpectWithinBound(const Problem& pr, const std::vector<float>& c, bool accumulate) {
  std::vector<double> c64(pr.m * pr.n), abs64(pr.m * pr.n);
  vlak::MatmulReferenceF64(pr.Args(const_cast<float*>(pr.c0.data()), accumulate), c64.data(), abs64.data());
  const double terms = static_cast<double>(pr.k) + (accumulate ? 1.0 : 0.0);
  int failures = 0;
  for (size_t i = 0; i < pr.m; ++i) {
    for (size_t j = 0; j < pr.ldc; ++j) {
      const float got = c[i * pr.ldc + j];
      if (j >= pr.n) {
        if (Bits(got) != Bits(kSentinel) && failures++ < 5) ADD_FAILURE() << "gap of C written at " << i << "," << j;
        continue;
      }
      const double bound = 2.0 * terms * 0x1p-24 * abs64[i * pr.n + j];
      const double err = std::fabs(static_cast<double>(got) - c64[i * pr.n + j]);
      if (!(err <= bound) && failures++ < 5) {
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", float64 " << c64[i * pr.n + j] << ", error "
                      << err << " > bound " << bound << " (m n k " << pr.m << " " << pr.n << " " << pr.k << ")";
      }
    }
  }
}

// vlak_matmul_f32 on pr: within the bound of the float64 reference, and the bits of the order model.
void ExpectBoundAndOrder(const Problem& pr, bool accumulate) {
  std::vector<float> c;
  ASSERT_EQ(pr.Call(accumulate, &c), VLAK_OK);
  ExpectWithinBound(pr, c, accumulate);
  ExpectSameBitsNanAny(c, pr.Model(accumulate), "order model");
}

struct Dims {
  size_t m, n, k;
};
// Odd sizes around every tile and block edge: MR (3, 4, 6), NR (4, 16, 64; RVV 32 / 64 / 128 at
// VLEN 128 / 256 / 512, LMUL 8), kc (256; x86 512), primes, and 1.
constexpr Dims kShapes[] = {
    {1, 1, 1},   {1, 5, 3},    {2, 3, 1},     {3, 4, 2},     {5, 15, 17},   {6, 16, 7},   {7, 17, 13},
    {4, 31, 9},  {13, 33, 5},  {11, 63, 19},  {9, 65, 23},   {12, 64, 31},  {5, 127, 3},  {3, 129, 4},
    {19, 70, 37}, {2, 257, 2}, {8, 40, 255},  {7, 24, 257},  {5, 37, 300},  {37, 11, 29},
    {8, 40, 511}, {7, 24, 513}, {19, 37, 1100},
};

// One shape in its four variants (B transposed or not, ACCUMULATE or not), each with its own
// data (seeds *seed, *seed + 1, ...): within the bound of the float64 reference, and bit-identical
// to the documented order (vlak.h): the same bits on every target, VLEN and thread count.
void CheckAgainstReferenceAndOrderModel(const Dims& s, uint32_t* seed) {
  for (int variant = 0; variant < 4; ++variant) {
    const bool trans = (variant & 1) != 0, accumulate = (variant & 2) != 0;
    SCOPED_TRACE(testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k << (trans ? " transB" : "")
                                    << (accumulate ? " accumulate" : ""));
    ExpectBoundAndOrder(Problem(s.m, s.n, s.k, trans, (*seed)++), accumulate);
  }
}

TEST(Matmul, ShapesAgainstReferenceAndOrderModel) {
  ForEachTarget([] {
    uint32_t seed = 1;
    for (const Dims& s : kShapes) CheckAgainstReferenceAndOrderModel(s, &seed);
  });
}

// The direct kernel's range (m <= 16 on x86, B not packed) and just past it: every m from 1 to
// 17, odd n (strip tails of every width) and k (k blocks of 32 and 128, transposed 16 x 16 and
// 8 x 8 blocks with edges), both B layouts, ACCUMULATE, strides with gaps; the same bits as the
// order model and within the bound.
TEST(Matmul, FewRowsDirect) {
  ForEachTarget([] {
    uint32_t seed = 900;
    for (size_t m = 1; m <= 17; ++m) {
      for (const Dims& s : {Dims{m, 133, 71}, Dims{m, 17, 5}, Dims{m, 257, 33}, Dims{m, 9, 300}}) {
        CheckAgainstReferenceAndOrderModel(s, &seed);
      }
    }
  });
}

// More rows by the direct kernel (AVX-512, B as k x n, A small or rows few: MatmulTakesDirect) and
// the same calls by the packed kernel: the same bits as the order model at 1 to 4 threads (rows
// split where there are 16 per thread, at multiples of 16 near the even cut; fewer take the packed
// kernel), with row passes of several heights (m mod 16), strip tails, k blocks of 128 and their
// edges, and ACCUMULATE. On other targets both are the packed kernel. The route is turned on for
// the test: by default only CPUs that split 512-bit operations take it (matmul.cc).
TEST(Matmul, DirectAnyRows) {
  const bool was = vlak::SetMatmulDirectAnyRows(true);
  ForEachTarget([] {
    // The last shape's A (300 KB) and B (563 KB) are both more than a quarter and half of a 1 MiB
    // L2, and its 96 rows are few enough passes over B (kMatmulDirectMaxPasses).
    for (const Dims& s : {Dims{17, 133, 71}, Dims{40, 65, 129}, Dims{100, 257, 33}, Dims{63, 130, 300},
                          Dims{128, 128, 256}, Dims{35, 16, 9}, Dims{24, 515, 40}, Dims{96, 176, 800}}) {
      for (const bool accumulate : {false, true}) {
        SCOPED_TRACE(testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k);
        const Problem pr(s.m, s.n, s.k, false, 57);
        const vlak::MatmulShape shape = vlak::MatmulActiveShape(pr.n);
        // A takes at most 128 KiB here (a quarter of any AVX-512 core's L2), or the rows are few.
        if (shape.direct_any_rows != 0) EXPECT_TRUE(vlak::MatmulTakesDirect(shape, pr.m, pr.n, pr.k, false, 1));
        const std::vector<float> want = pr.Model(accumulate);
        for (int threads = 1; threads <= 4; ++threads) {
          for (const bool packed : {false, true}) {
            if (packed && shape.direct_any_rows == 0) continue;  // the same call
            std::vector<float> c = pr.c0;
            const auto call = packed ? vlak::MatmulF32PackedBeyondFewRows : vlak::MatmulF32;
            ASSERT_EQ(call(pr.Args(c.data(), false), pr.Flags(accumulate), threads, nullptr), VLAK_OK);
            ExpectSameBitsNanAny(c, want, (std::string(packed ? "packed" : "chosen") + ", threads " +
                                           std::to_string(threads)).c_str());
            if (threads == 1 && !packed) ExpectWithinBound(pr, c, accumulate);
          }
        }
      }
    }
  });
  vlak::SetMatmulDirectAnyRows(was);
}

// Few rows on 1 to 4 threads (columns split among them), both B layouts: the same bits. The
// fourth shape is skinny (k cut into segments); under qemu it has 200 columns instead of 600,
// where its 16 calls were most of the test's emulated time. The last three's B (17.6 MB, more than
// 8 times a 2 MiB L2) comes from memory: x86's short k blocks (matmul_config.h), and for 9 and 12
// rows on AVX2 two passes that take each k block of B in turn (DirectTwoPassesKN).
TEST(Matmul, FewRowsThreads) {
  ForEachTarget([] {
    for (const Dims& s : {Dims{1, 1000, 129}, Dims{7, 333, 70}, Dims{16, 515, 40},
                          Dims{2, vlak_test::NativeOrEmulated(600, 200), 4100},
                          Dims{5, vlak_test::NativeOrEmulated(1100, 40), 4000},
                          Dims{9, vlak_test::NativeOrEmulated(1100, 40), 4000},
                          Dims{12, vlak_test::NativeOrEmulated(1103, 40), 4000}}) {
      for (const bool trans : {false, true}) {
        for (const bool accumulate : {false, true}) {
          SCOPED_TRACE(testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k << (trans ? " transB" : ""));
          const Problem pr(s.m, s.n, s.k, trans, 31);
          const std::vector<float> want = pr.Model(accumulate);
          for (int threads = 1; threads <= 4; ++threads) {
            std::vector<float> c = pr.c0;
            ASSERT_EQ(vlak::MatmulF32(pr.Args(c.data(), false), pr.Flags(accumulate), threads, nullptr), VLAK_OK);
            ExpectSameBitsNanAny(c, want, ("threads " + std::to_string(threads)).c_str());
            if (threads == 1) ExpectWithinBound(pr, c, accumulate);
          }
        }
      }
    }
  });
}

// Skinny calls, whose k is cut into segments (m * n <= 4096, k >= 4096): at, below and above
// the rule's edges, against the float64 reference and the order model, with the library's own
// thread choice.
TEST(Matmul, SkinnyKSegments) {
  ForEachTarget([] {
    uint32_t seed = 500;
    // Under qemu (RISC-V) the float64 reference of these long sums is the cost: fewer shapes.
#if defined(__riscv)
    for (const Dims& s : {Dims{1, 1, 4096}, Dims{1, 1, 4095}, Dims{2, 3, 65537}}) {
#else
    for (const Dims& s : {Dims{1, 1, 4096}, Dims{1, 1, 4095}, Dims{3, 5, 65537}, Dims{1, 3, 131073}}) {
#endif
      CheckAgainstReferenceAndOrderModel(s, &seed);
    }
  });
}

// The contract's accuracy bound at k = 4096 with cancellation (mixed signs), and a column tail.
TEST(Matmul, AccuracyLongK) {
  ForEachTarget([] {
    for (const bool trans : {false, true}) {
      ExpectBoundAndOrder(Problem(8, 9, 4096, trans, 4096 + trans), false);
    }
  });
}

// The same bits for 1, 2, 3 and 4 threads, splitting rows and splitting columns. Between them the
// shapes take every way a split packs B, over several k blocks: each share its own copy (40 x 60
// x 530), shares of whole column blocks into the shared buffer (17 x 1024 x 530 on x86; under
// qemu it has 128 columns, for time), and all of B first.
TEST(Matmul, ThreadCountDeterminism) {
  ForEachTarget([] {
    // The last two are skinny (m * n <= 4096, k >= 4096): k is cut into segments too.
    for (const Dims& s : {Dims{97, 45, 70}, Dims{61, 14, 40}, Dims{5, 301, 33}, Dims{40, 200, 260}, Dims{40, 60, 530},
                          Dims{17, vlak_test::NativeOrEmulated(1024, 128), 530}, Dims{3, 17, 4099},
                          Dims{3, 5, 70000}}) {
      for (const bool accumulate : {false, true}) {
        SCOPED_TRACE(testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k);
        const Problem pr(s.m, s.n, s.k, false, 77);
        std::vector<float> first;
        for (int threads = 1; threads <= 4; ++threads) {
          std::vector<float> c = pr.c0;
          size_t peak = 0;
          ASSERT_EQ(vlak::MatmulF32(pr.Args(c.data(), false), pr.Flags(accumulate), threads, &peak), VLAK_OK);
          // The direct kernel packs no B, and nothing at all unless k is cut into segments; on
          // AVX-512 it takes some of these shapes at any m, so they also run packed.
          const bool direct = vlak::MatmulTakesDirect(vlak::MatmulActiveShape(pr.n), pr.m, pr.n, pr.k, false,
                                                      static_cast<size_t>(threads));
          if (!direct) EXPECT_GT(peak, 0u);
          if (threads == 1) {
            first = c;
            ExpectWithinBound(pr, c, accumulate);
          } else {
            ExpectSameBitsNanAny(c, first, ("threads " + std::to_string(threads)).c_str());
          }
          if (direct && pr.m > vlak::MatmulActiveShape(pr.n).direct_max_m) {
            std::vector<float> packed = pr.c0;
            ASSERT_EQ(vlak::MatmulF32PackedBeyondFewRows(pr.Args(packed.data(), false), pr.Flags(accumulate), threads,
                                                          &peak),
                      VLAK_OK);
            EXPECT_GT(peak, 0u);
            ExpectSameBitsNanAny(packed, first, ("packed, threads " + std::to_string(threads)).c_str());
          }
        }
      }
    }
  });
}

// The m * n edge of the segment rule (16M multiply-adds each, so the active target only and the
// order model only: the bound is checked on the shapes above).
TEST(Matmul, SkinnyKSegmentsEdge) {
#if defined(__riscv)
  GTEST_SKIP() << "32M multiply-adds and their scalar model: minutes under qemu; the rule is the same "
                  "target-independent code (matmul.h), checked on the host";
#endif
  for (const Dims& s : {Dims{64, 64, 4096}, Dims{64, 65, 4096}}) {
    SCOPED_TRACE(testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k);
    const Problem pr(s.m, s.n, s.k, false, 4242);
    std::vector<float> c;
    ASSERT_EQ(pr.Call(false, &c), VLAK_OK);
    ExpectSameBitsNanAny(c, pr.Model(false), "order model");
  }
}

// The library's own thread choice (vlak_set_num_threads) on a size it splits: the same bits.
TEST(Matmul, PublicThreadsSameBits) {
  // 4.8M and 2.3M (skinny: k cut into segments) multiply-adds: above the two-thread threshold.
  for (const Dims& s : {Dims{150, 170, 190}, Dims{5, 7, 65537}}) {
    SCOPED_TRACE(testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k);
    const Problem pr(s.m, s.n, s.k, true, 99);
    std::vector<float> want;
    for (const int threads : {1, 2, 3}) {
      vlak_test::ScopedThreads scoped(threads);
      std::vector<float> c = pr.c0;
      ASSERT_EQ(vlak_matmul_f32(pr.m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, c.data(), pr.ldc,
                                pr.Flags(false)),
                VLAK_OK);
      if (want.empty()) {
        want = pr.Model(false);
        ExpectWithinBound(pr, c, false);
      }
      ExpectSameBitsNanAny(c, want, ("threads " + std::to_string(threads)).c_str());
    }
  }
}

// k == 0: C = 0 (an empty sum), or unchanged with ACCUMULATE; m or n == 0: nothing, any pointers.
TEST(Matmul, EmptySizes) {
  ForEachTarget([] {
    const Problem pr(3, 5, 0, false, 3);
    std::vector<float> c = pr.c0;
    ASSERT_EQ(vlak_matmul_f32(3, 5, 0, nullptr, 0, nullptr, 5, c.data(), pr.ldc, 0), VLAK_OK);
    for (size_t i = 0; i < 3; ++i)
      for (size_t j = 0; j < pr.ldc; ++j) EXPECT_EQ(Bits(c[i * pr.ldc + j]), Bits(j < 5 ? 0.0f : kSentinel));
    c = pr.c0;
    ASSERT_EQ(vlak_matmul_f32(3, 5, 0, nullptr, 0, nullptr, 5, c.data(), pr.ldc, VLAK_MATMUL_ACCUMULATE), VLAK_OK);
    ExpectSameBitsNanAny(c, pr.c0, "k = 0 accumulate");
    // k == 0: A and B have no elements, so any lda/ldb is valid (tests/fuzz found huge lda refused).
    c = pr.c0;
    ASSERT_EQ(vlak_matmul_f32(3, 5, 0, nullptr, SIZE_MAX / 2, nullptr, 5, c.data(), pr.ldc, 0), VLAK_OK);
    ASSERT_EQ(vlak_matmul_f32(3, 5, 0, nullptr, 0, nullptr, SIZE_MAX / 2, c.data(), pr.ldc, VLAK_MATMUL_TRANS_B), VLAK_OK);
    EXPECT_EQ(vlak_matmul_f32(0, 5, 4, nullptr, 0, nullptr, 0, nullptr, 0, 0), VLAK_OK);
    EXPECT_EQ(vlak_matmul_f32(5, 0, 4, nullptr, 0, nullptr, 0, nullptr, 0, 0), VLAK_OK);
  });
}

// Errors: a status and nothing written.
TEST(Matmul, BadArguments) {
  const Problem pr(4, 6, 5, false, 9);
  std::vector<float> c = pr.c0;
  const float* a = pr.a.data();
  const float* b = pr.b.data();
  auto call = [&](const float* a_, size_t lda, const float* b_, size_t ldb, float* c_, size_t ldc, unsigned flags,
                  size_t m = 4) { return vlak_matmul_f32(m, 6, 5, a_, lda, b_, ldb, c_, ldc, flags); };
  EXPECT_EQ(call(nullptr, 5, b, 6, c.data(), 6, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(call(a, 5, nullptr, 6, c.data(), 6, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(call(a, 5, b, 6, nullptr, 6, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(call(a, 4, b, 6, c.data(), 6, 0), VLAK_ERROR_INVALID_ARGUMENT);                      // lda < k
  EXPECT_EQ(call(a, 5, b, 5, c.data(), 6, 0), VLAK_ERROR_INVALID_ARGUMENT);                      // ldb < n
  EXPECT_EQ(call(a, 5, b, 4, c.data(), 6, VLAK_MATMUL_TRANS_B), VLAK_ERROR_INVALID_ARGUMENT);    // ldb < k
  EXPECT_EQ(call(a, 5, b, 6, c.data(), 5, 0), VLAK_ERROR_INVALID_ARGUMENT);                      // ldc < n
  EXPECT_EQ(call(a, 5, b, 6, c.data(), 6, 0x4u), VLAK_ERROR_INVALID_ARGUMENT);                   // unknown flag
  EXPECT_EQ(call(a, 5, b, 6, c.data(), 6, 0x80000000u), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(a, SIZE_MAX / 2, b, 6, c.data(), 6, 0), VLAK_ERROR_OVERFLOW);                   // rows of A
  EXPECT_EQ(call(a, 5, b, 6, c.data(), SIZE_MAX / 4, 0), VLAK_ERROR_OVERFLOW);                   // rows of C
  EXPECT_EQ(call(a, 5, b, SIZE_MAX / 8, c.data(), 6, 0), VLAK_ERROR_OVERFLOW);                   // rows of B
  EXPECT_EQ(vlak_matmul_f32(1, SIZE_MAX / 2, 1, a, 5, b, SIZE_MAX / 2, c.data(), SIZE_MAX / 2, 0), VLAK_ERROR_OVERFLOW);
  ExpectSameBitsNanAny(c, pr.c0, "C after the errors");
}

// NaN and inf propagate as IEEE arithmetic does; the reference (double) is the judge of which
// elements are NaN and which are +-inf.
TEST(Matmul, SpecialValues) {
  ForEachTarget([] {
    for (const bool trans : {false, true}) {
      Problem pr(7, 70, 20, trans, 5);
      pr.a[2 * pr.lda + 3] = kNaN;   // row 2 of C: NaN
      pr.a[4 * pr.lda + 0] = kInf;   // row 4: +-inf, NaN where B[0][j] == 0
      pr.a[5 * pr.lda + 7] = kInf;   // row 5: inf - inf = NaN where a -inf meets it
      pr.a[5 * pr.lda + 8] = -kInf;
      auto setb = [&](size_t p, size_t j, float v) { (trans ? pr.b[j * pr.ldb + p] : pr.b[p * pr.ldb + j]) = v; };
      setb(0, 10, 0.0f);
      setb(11, 33, kInf);  // column 33: inf except where A's row meets it with 0 or opposite inf
      setb(12, 65, kNaN);  // column 65: NaN
      std::vector<float> c = pr.c0;
      ASSERT_EQ(vlak_matmul_f32(pr.m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, c.data(), pr.ldc,
                                pr.Flags(false)),
                VLAK_OK);
      std::vector<double> c64(pr.m * pr.n);
      vlak::MatmulReferenceF64(pr.Args(c.data(), false), c64.data(), nullptr);
      int special = 0;
      for (size_t i = 0; i < pr.m; ++i) {
        for (size_t j = 0; j < pr.n; ++j) {
          const double want = c64[i * pr.n + j];
          const float got = c[i * pr.ldc + j];
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got)) << i << "," << j;
            ++special;
          } else if (std::isinf(want)) {
            EXPECT_EQ(got, static_cast<float>(want)) << i << "," << j;
            ++special;
          } else {
            EXPECT_TRUE(std::isfinite(got)) << i << "," << j;
          }
        }
      }
      EXPECT_GT(special, 200);
      ExpectSameBitsNanAny(c, pr.Model(false), "order model");
    }
  });
}

// The C++ overloads (vlak.hpp) reach the same function.
TEST(Matmul, CppOverloads) {
  const size_t m = 5, n = 7, k = 3;
  std::vector<float> a(m * k), b(k * n), c(m * n), want(m * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.125f * static_cast<float>(i % 5) + 0.25f;
  ASSERT_EQ(vlak::Matmul(a, b, c, m, n, k), VLAK_OK);
  ASSERT_EQ(vlak_matmul_f32(m, n, k, a.data(), k, b.data(), n, want.data(), n, 0), VLAK_OK);
  ExpectSameBitsNanAny(c, want, "vlak::Matmul");
  EXPECT_EQ(vlak::Matmul(a, b, std::span<float>(c).first(3), m, n, k), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Matmul(a, b, c, m, n, k + 1), VLAK_ERROR_INVALID_ARGUMENT);
}

// Every length 1 .. MaxLength() (ops_test_util.h) with the inputs and outputs ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, Matmul) {
  ForEachTarget([] {
    for (size_t len = 1; len <= MaxLength(); ++len) {
      // len as n (the vector dimension) and as k (the summed one), with B plain and transposed.
      for (const size_t n : {len, size_t{3}}) {
        const size_t m = 2, k = n == len ? 3 : len;
        GuardedFloats a(m * k), b(k * n), c(m * n);
        ASSERT_EQ(vlak_matmul_f32(m, n, k, a.data(), k, b.data(), n, c.data(), n, 0), VLAK_OK);
        ASSERT_EQ(vlak_matmul_f32(m, n, k, a.data(), k, b.data(), k, c.data(), n,
                                  VLAK_MATMUL_TRANS_B | VLAK_MATMUL_ACCUMULATE),
                  VLAK_OK);
        ASSERT_TRUE(std::isfinite(c.data()[m * n - 1])) << m << "x" << n << "x" << k;
      }
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): the same bits on every target.
VLAK_CONCURRENCY_JOBS(matmul, in) {
  const uint32_t seed = in.seed;
  const size_t m = in.r, n = in.c / 3, k = 17 + seed % 40;
  std::vector<vlak_test::ConcurrencyJob> jobs;
  auto a = std::make_shared<std::vector<float>>(vlak_test::Normal(m * k, 0.0f, 1.0f, seed + 2));
  auto b = std::make_shared<std::vector<float>>(vlak_test::Normal(k * n, 0.0f, 1.0f, seed + 3));
  jobs.push_back({[=](std::vector<float>& out) {
                    out.assign(m * n, 1.0f);
                    return vlak_matmul_f32(m, n, k, a->data(), k, b->data(), n, out.data(), n,
                                           (seed & 4) ? VLAK_MATMUL_ACCUMULATE : 0);
                  },
                  true});
  return jobs;
}

}  // namespace
