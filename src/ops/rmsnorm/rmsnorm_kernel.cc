// RMSNorm row kernel, generic over the tag: compiled once per target.
//
// Per row: s = sum(x^2) (row_sums.h: f32 lanes over 16 strips, f64 per block, ~1e-7 relative),
// r = 1 / sqrt(s / n + eps) in f64, then y = (x * r) * gamma: one pass of load + fma, one of
// load, mul, (load, mul), store (streamed past L2, with the next row prefetched: output_strips.h).
// In cache on x86, rows of up to 1024 columns run one row ahead (RowsAheadOf), so that each row's
// reduction and f64 tail overlap the next row's sum.
// Measured against the float64 reference on every x86 target (cols 1 .. 10^6, N(offset, 1) rows,
// offsets 0, 1e4, -3e5): |y - y64| <= 1.0e-7 * |gamma| * (1 + |xhat|); vlak.h's bound is 1e-5.
// Rows whose f32 sum is not finite (a NaN/inf, or |x| > ~1e19) take a cold f64 path: NaN rows for
// NaN/inf, the f64 result otherwise. Fused residual add (AddRmsNormRowsF32): s = x + r is stored
// as the sum pass loads it, and the output pass reads s from L1: the plain kernel's bits on s.
#include <cmath>
#include <limits>

#include "ops/output_strips.h"
#include "ops/rmsnorm/rmsnorm_config.h"
#include "ops/rmsnorm/rmsnorm_kernels.h"
#include "ops/row_sums.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kPow2 = kRmsNormConfig.pow2;
using DF = Simd<float, kPow2>;
// RVV: the grouped output pass at LMUL 8 (the table at kGroup): gamma, x and a product, 3 groups.
// The sum pass stays at kPow2 (all at LMUL 8, clang spilled in the row loop).
using DO = Simd<float, kRmsNormConfig.out_pow2>;

[[gnu::noinline, gnu::cold]] double RstdF64(const float* x, size_t n, float eps) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
  if (!std::isfinite(s)) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 / std::sqrt(s / static_cast<double>(n) + eps);
}

// RVV: the output pass of kGroup rows at a time, strips outer and rows inner, so that each gamma
// strip is loaded once per group instead of once per row (per element 2 loads + 1 store instead of
// 3 loads + 1 store before the multiplies); sums at LMUL 4, output at LMUL 8: the fewest modelled
// cycles on X60 / X280 / P670 without spilling (docs/ops/rmsnorm.md). x86 keeps row by row
// (kGroup 1): its output pass streams and prefetches per row (output_strips.h).
constexpr size_t kGroup = kRmsNormConfig.group;
constexpr size_t kAheadMaxCols = kRmsNormConfig.ahead_max_cols;

// 1 / sqrt(s / cols + eps) for row xr's sum of squares s; the f64 path for a non-finite s.
inline float RstdOf(double s, const float* xr, size_t cols, float eps) {
  const double rstd64 =
      std::isfinite(s) ? 1.0 / std::sqrt(s / static_cast<double>(cols) + eps) : RstdF64(xr, cols, eps);
  return static_cast<float>(rstd64);
}
// Not inlined into the row loop: there clang kept a hoisted vector group live across the cold
// calls (RstdF64, sqrt's errno path) and reloaded it from the stack after them.
[[gnu::noinline, maybe_unused]] double RowSumSquares(const float* xr, size_t cols) {
  return row_sums::SumSquares(DF(), xr, cols);
}
[[gnu::noinline]] float RowRstd(const float* xr, size_t cols, float eps) {
  return RstdOf(row_sums::SumSquares(DF(), xr, cols), xr, cols, eps);
}
// RowSumSquares and RowRstd of s = x + r, stored into s during the sum.
[[gnu::noinline, maybe_unused]] double AddRowSumSquares(const float* xr, const float* rr, float* sr, size_t cols) {
  return row_sums::SumSquaresOf(DF(), cols, row_sums::AddAndStore{xr, rr, sr});
}
[[gnu::noinline]] float AddRowRstd(const float* xr, const float* rr, float* sr, size_t cols, float eps) {
  return RstdOf(row_sums::SumSquaresOf(DF(), cols, row_sums::AddAndStore{xr, rr, sr}), sr, cols, eps);
}

// In cache (not streamed, rows of at most ahead_max_cols), row by row, one row ahead: row r's
// rstd, then row r + 1's sum of squares, then row r's output pass. The output pass waits on its
// row's rstd: the sum's reduction and an f64 divide, square root and divide, about 80 cycles;
// issued before the next row's sum, they run under it (docs/ops/rmsnorm.md). Same arithmetic per
// row: the same bits. sum(i): row i's sum of squares (out of line); src(i): the row it summed,
// which the output pass reads (x's row, or the fused add's s, stored by sum(i) and not written
// by sum(i + 1)).
template <bool kGamma, class Sum, class Src>
void RowsAheadOf(size_t rows, size_t cols, Sum&& sum, Src&& src, const float* gamma, float eps, float* y,
                 size_t y_stride) {
  if (rows == 0 || cols == 0) return;  // (and clang then keeps no loop version for cols == 0)
  const DF d;
  double s = sum(0);
  for (size_t r = 0; r < rows; ++r) {
    const float* const xr = src(r);
    const float rstd = RstdOf(s, xr, cols, eps);
    if (r + 1 < rows) s = sum(r + 1);
    float* const yr = y + r * y_stride;
    ForEachStrip(d, cols, [&](auto ds, size_t i) {
      auto v = Mul(ds, LoadU(ds, xr + i), rstd);
      if constexpr (kGamma) v = Mul(ds, v, LoadU(ds, gamma + i));
      StoreU(ds, v, yr + i);
    });
  }
}

template <bool kGamma>
void Rows(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, float eps, float* y,
          size_t y_stride, bool stream) {
  if constexpr (kAheadMaxCols > 0) {
    if (!stream && cols <= kAheadMaxCols) {
      return RowsAheadOf<kGamma>(
          rows, cols, [&](size_t i) { return RowSumSquares(x + i * x_stride, cols); },
          [&](size_t i) { return x + i * x_stride; }, gamma, eps, y, y_stride);
    }
  }
  const DF d;
  for (size_t r = 0; r < rows; r += kGroup) {
    const size_t g = rows - r < kGroup ? rows - r : kGroup;
    float rstd[kGroup];
    for (size_t k = 0; k < g; ++k) rstd[k] = RowRstd(x + (r + k) * x_stride, cols, eps);
    const float* xr = x + r * x_stride;
    float* yr = y + r * y_stride;
    if constexpr (kGroup == 1) {
      const float* next = r + 1 < rows ? xr + x_stride : nullptr;
      OutputStrips(d, yr, cols, stream, xr, next, nullptr, [&](auto ds, size_t i) {
        auto v = Mul(ds, LoadU(ds, xr + i), rstd[0]);
        if constexpr (kGamma) v = Mul(ds, v, LoadU(ds, gamma + i));
        return v;
      });
    } else {
      ForEachStrip(DO(), cols, [&](auto ds, size_t i) {
        VFromD<decltype(ds)> gv;
        if constexpr (kGamma) gv = LoadU(ds, gamma + i);
        for (size_t k = 0; k < g; ++k) {
          auto v = Mul(ds, LoadU(ds, xr + k * x_stride + i), rstd[k]);
          if constexpr (kGamma) v = Mul(ds, v, gv);
          StoreU(ds, v, yr + k * y_stride + i);
        }
      });
    }
  }
}

// Rows of s = x + r (stored into s), row by row: the add rides on the sum of squares, and the
// output pass reads s back from L1. The same per-row arithmetic as Rows on s.
template <bool kGamma>
void AddRows(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride, float* s,
             size_t s_stride, const float* gamma, float eps, float* y, size_t y_stride, bool stream) {
  if constexpr (kAheadMaxCols > 0) {
    if (!stream && cols <= kAheadMaxCols) {
      return RowsAheadOf<kGamma>(
          rows, cols,
          [&](size_t i) { return AddRowSumSquares(x + i * x_stride, r + i * r_stride, s + i * s_stride, cols); },
          [&](size_t i) { return static_cast<const float*>(s + i * s_stride); }, gamma, eps, y, y_stride);
    }
  }
  const DF d;
  for (size_t i = 0; i < rows; ++i) {  // rows by index: a pointer past the last row may not exist
    const float* const xr = x + i * x_stride;
    const float* const rr = r + i * r_stride;
    float* const sr = s + i * s_stride;
    const float rstd = AddRowRstd(xr, rr, sr, cols, eps);
    const float* next = i + 1 < rows ? xr + x_stride : nullptr;
    const float* next_r = i + 1 < rows ? rr + r_stride : nullptr;
    OutputStrips(d, y + i * y_stride, cols, stream, sr, next, next_r, [&](auto ds, size_t j) {
      auto v = Mul(ds, LoadU(ds, sr + j), rstd);
      if constexpr (kGamma) v = Mul(ds, v, LoadU(ds, gamma + j));
      return v;
    });
  }
}

}  // namespace

// s = x + r (s may be x, r or y, with its stride), then RmsNormRowsF32 of s into y.
void AddRmsNormRowsF32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride,
                       float* s, size_t s_stride, const float* gamma, float eps, float* y, size_t y_stride,
                       bool stream) {
  if (gamma != nullptr) {
    AddRows<true>(rows, cols, x, x_stride, r, r_stride, s, s_stride, gamma, eps, y, y_stride, stream);
  } else {
    AddRows<false>(rows, cols, x, x_stride, r, r_stride, s, s_stride, gamma, eps, y, y_stride, stream);
  }
  EndStreamedOutput(stream);
}

// stream: y written with non-temporal stores (output_strips.h).
void RmsNormRowsF32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, float eps,
                    float* y, size_t y_stride, bool stream) {
  if (gamma != nullptr) {
    Rows<true>(rows, cols, x, x_stride, gamma, eps, y, y_stride, stream);
  } else {
    Rows<false>(rows, cols, x, x_stride, gamma, eps, y, y_stride, stream);
  }
  EndStreamedOutput(stream);
}

VLAK_KERNELS_DEFINED(VLAK_RMSNORM_KERNELS)

}  // namespace vlak::VLAK_NS
