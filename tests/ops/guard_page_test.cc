// Every C entry point with its inputs and outputs ending at an inaccessible page, for every length
// 1 .. 3 * lanes + 1 (lanes of the widest group any kernel uses, LMUL 8), on every target: a read
// or write past the last element faults and fails the test. Under qemu this runs at each VLEN.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops_test_util.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

using vlak_test::ForEachTarget;
using vlak_test::GuardedFloats;

size_t MaxLength() { return 3 * vlak_target_lanes(vlak_active_target(), 3, sizeof(float)) + 1; }

TEST(GuardPages, SoftmaxAndExp) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      GuardedFloats x(2 * n), y(2 * n), e(n);
      ASSERT_EQ(vlak_softmax_f32(2, n, x.data(), n, y.data(), n, 0), VLAK_OK);
      ASSERT_EQ(vlak_softmax_f32(1, n, x.data(), n, y.data(), n, VLAK_SOFTMAX_LOG), VLAK_OK);
      ASSERT_EQ(vlak_exp_f32(n, x.data(), e.data(), VLAK_EXP_ACCURATE), VLAK_OK);
      ASSERT_TRUE(std::isfinite(y.data()[2 * n - 1]) && std::isfinite(e.data()[n - 1])) << n;
    }
  });
}

TEST(GuardPages, Rope) {
  ForEachTarget([] {
    for (size_t half = 1; half <= MaxLength(); ++half) {
      GuardedFloats x(4 * half), y(4 * half), c(half), s(half);
      for (unsigned flags : {VLAK_ROPE_HALVES, VLAK_ROPE_INTERLEAVED}) {
        ASSERT_EQ(vlak_rope_f32(1, 2, 2 * half, x.data(), c.data(), s.data(), half, y.data(), flags), VLAK_OK);
      }
      ASSERT_EQ(vlak_rope_tables_f32(1, 2 * half, 10000.0, c.data(), s.data(), half), VLAK_OK);
    }
  });
}

TEST(GuardPages, Norms) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      GuardedFloats x(2 * n), y(2 * n), gamma(n), beta(n), mean(2), rstd(2), dx(2 * n), dg(n), db(n);
      ASSERT_EQ(vlak_layernorm_f32(2, n, x.data(), n, gamma.data(), beta.data(), 1e-5f, y.data(), n, mean.data(),
                                   rstd.data()),
                VLAK_OK);
      ASSERT_EQ(vlak_layernorm_backward_f32(2, n, y.data(), x.data(), n, gamma.data(), mean.data(), rstd.data(),
                                            dx.data(), dg.data(), db.data()),
                VLAK_OK);
      ASSERT_EQ(vlak_rmsnorm_f32(2, n, x.data(), n, gamma.data(), 1e-6f, y.data(), n), VLAK_OK);
      ASSERT_TRUE(std::isfinite(y.data()[2 * n - 1]) && std::isfinite(dg.data()[n - 1])) << n;
    }
  });
}

TEST(GuardPages, SoftmaxI8) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      // 2n bytes ending at the page: the floats' storage, addressed from its end.
      GuardedFloats xs((2 * n + 3) / 4), ys((2 * n + 3) / 4);
      auto* x = reinterpret_cast<int8_t*>(xs.data() + (2 * n + 3) / 4) - 2 * n;
      auto* y = reinterpret_cast<int8_t*>(ys.data() + (2 * n + 3) / 4) - 2 * n;
      for (unsigned flags : {VLAK_SOFTMAX_I8_TFLITE, VLAK_SOFTMAX_I8_LUT}) {
        ASSERT_EQ(vlak_softmax_i8(2, n, x, n, 0.1f, y, n, flags), VLAK_OK);
        ASSERT_EQ(vlak_softmax_u8(2, n, reinterpret_cast<const uint8_t*>(x), n, 0.1f, reinterpret_cast<uint8_t*>(y),
                                  n, flags),
                  VLAK_OK);
      }
    }
  });
}

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

// Bytes ending exactly at an inaccessible page (the image operators' planes).
class GuardedBytes {
 public:
  explicit GuardedBytes(size_t count) : floats_((count + 3) / 4) {
    data_ = reinterpret_cast<uint8_t*>(floats_.data()) + (4 * ((count + 3) / 4) - count);
    for (size_t i = 0; i < count; ++i) data_[i] = static_cast<uint8_t>(i * 37 + 11);
  }
  uint8_t* u8() { return data_; }
  int8_t* i8() { return reinterpret_cast<int8_t*>(data_); }

 private:
  GuardedFloats floats_;
  uint8_t* data_;
};

// Widths 1 .. MaxLength(), 2 planes of 2 rows: the 2x path (contiguous loads of s[i] and s[i + 1],
// interleaving stores), the gather path (half pixel, odd ratios) and a downscale.
TEST(GuardPages, Resize) {
  ForEachTarget([] {
    for (size_t w = 1; w <= MaxLength(); ++w) {
      GuardedBytes src(2 * 2 * w), up(2 * 4 * 2 * w), odd(2 * 3 * (w + 2)), down(2 * 1 * ((w + 1) / 2));
      ASSERT_EQ(vlak_resize_bilinear_u8(2, 2, w, src.u8(), 4, 2 * w, up.u8(), VLAK_RESIZE_ASYMMETRIC), VLAK_OK);
      ASSERT_EQ(vlak_resize_bilinear_i8(2, 2, w, src.i8(), 4, 2 * w, up.i8(), VLAK_RESIZE_HALF_PIXEL), VLAK_OK);
      ASSERT_EQ(vlak_resize_bilinear_i8(2, 2, w, src.i8(), 3, w + 2, odd.i8(), VLAK_RESIZE_ASYMMETRIC), VLAK_OK);
      ASSERT_EQ(vlak_resize_bilinear_u8(2, 2, w, src.u8(), 1, (w + 1) / 2, down.u8(), VLAK_RESIZE_HALF_PIXEL), VLAK_OK);
    }
  });
}

// SFPI kernels (C++ API, vlak/sfpi.h): 1 .. 3 tiles ending at the guard page, every kernel.
TEST(GuardPages, SfpiKernels) {
  ForEachTarget([] {
    size_t count;
    const ::vlak::sfpi::KernelInfo* k = ::vlak::sfpi::Kernels(&count);
    for (size_t i = 0; i < count; ++i) {
      for (size_t tiles = 1; tiles <= 3; ++tiles) {
        GuardedFloats t(tiles * 1024);
        ASSERT_EQ(::vlak::sfpi::RunKernel(k[i].name, t.data(), tiles), 0) << k[i].name;
      }
    }
  });
}

// `count` bytes (or int16) ending at an inaccessible page, filled with a pattern.
template <typename T>
class GuardedInts {
 public:
  explicit GuardedInts(size_t count) : floats_((count * sizeof(T) + sizeof(float) - 1) / sizeof(float)) {
    // GuardedFloats ends at the page; the ints end there too when count * sizeof(T) is a multiple
    // of 4, else they start 1..3 bytes into its first float and still end at the page.
    const size_t bytes = (count * sizeof(T) + sizeof(float) - 1) / sizeof(float) * sizeof(float);
    data_ = reinterpret_cast<T*>(reinterpret_cast<char*>(floats_.data()) + (bytes - count * sizeof(T)));
    for (size_t i = 0; i < count; ++i) data_[i] = static_cast<T>(i * 37 + 11);
  }
  T* data() { return data_; }

 private:
  GuardedFloats floats_;
  T* data_;
};

TEST(GuardPages, WarpAndCorrelation) {
  ForEachTarget([] {
    const size_t max = 3 * vlak_target_lanes(vlak_active_target(), 3, sizeof(int8_t)) + 1;
    for (size_t n = 1; n <= max; ++n) {
      GuardedInts<int8_t> src(2 * n), dst(2 * n), a(3 * n), b(3 * n), out(2 * n);
      GuardedInts<int16_t> offsets(n);
      ASSERT_EQ(vlak_warp_i8(2, 1, n, src.data(), offsets.data(), dst.data()), VLAK_OK);
      for (unsigned flags : {0u, VLAK_CORRELATION_WRAP16}) {
        ASSERT_EQ(vlak_correlation_i8(2, 3, 1, n, a.data(), b.data(), 4, out.data(), flags), VLAK_OK);
      }
    }
  });
}

}  // namespace
