// LayerNorm forward and backward row kernels, generic over the tag: compiled once per target.
//
// Forward, per row (n = cols):
//   1. k = the mean of 16 samples spread over the row (one strided load): a shift near the
//      mean. s1 = sum(x - k), s2 = sum((x - k)^2) in one pass (row_sums.h: f32 lanes, f64 per
//      block). With d = s1 / n: var = s2 / n - d^2. Its rounding error is that of s2 times
//      s2 / (n var) = 1 / (1 - r), r = d^2 n / s2; the pass is kept when r <= 1/2 (error at most
//      doubled), i.e. when k is within one standard deviation of the mean: nearly every row.
//   2. Otherwise (k was an outlier) the same pass again about k' = f32(k + d): now d' ~ 1e-7 sd.
//      Never E[x^2] - E[x]^2 about 0: that loses everything on rows like 1e4 + N(0, 1).
//   3. y = ((x - m) * rstd) * gamma + beta with m = f32(mean) and the rounding residue of m
//      folded in: xhat = fma(x - m, rstd, -(mean - m) * rstd). x - m is exact or nearly (the
//      same binade), so xhat keeps ~1 ulp even when |mean| >> sd.
// Measured against the float64 reference on every x86 target, rows of N(offset, 1) with offsets
// 0, 1e4, -3e5 and cols 1 .. 10^6: |y - y64| <= 1.1e-7 * (|gamma| (1 + |xhat|) + |beta|), mean
// within 4.5e-8 * (|mean| + sd), rstd within 5.9e-8 relative; the tests assert vlak.h's 1e-5 and
// 1e-6. Rows with a NaN/inf, or sums that overflow f32 (|x - k| > ~1e19), take a cold path in f64
// (NaN rows for NaN/inf). Cost per element: 1 pass of load + sub + add + fma (2 passes on the rare
// outlier rows), then load, sub, fma, (load gamma, load beta, fma), store; the output is streamed
// past L2 with the next row prefetched (output_strips.h). RVV: 1.44 / 0.75 / 0.41 instructions
// per element at VLEN 128 / 256 / 512 (16 x 2048, tests/icount).
//
// Backward, per row, given the forward's mean and rstd: xhat = (x - mean) * rstd, g = dy * gamma.
//   1. sum(g), sum(g * xhat) (f32 lanes, f64 per block); column partials dgamma += dy * xhat and
//      dbeta += dy into f32 accumulators that are flushed to f64 every kFlushRows rows.
//   2. dx = fma(g, rstd, fma(xhat, -rstd * mean(g xhat), -rstd * mean(g))), streamed past L2.
// The first row of a flush group assigns the partials (no zeroing pass); the API adds the
// per-thread f64 sums in thread order (LayerNormColumnSumsF32). RVV: 2.58 / 1.31 / 0.68
// instructions per element at VLEN 128 / 256 / 512 (16 x 2048).
#include <cmath>
#include <limits>

#include "ops/layernorm/layernorm_kernels.h"
#include "ops/row_sums.h"
#include "ops/output_strips.h"
#include "ops/row_kernel_lmul.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kPow2 = kRowKernelPow2;  // ops/row_kernel_lmul.h
using DF = Simd<float, kPow2>;

constexpr size_t kShiftSamples = 16;

// The mean of min(n, 16) elements spread over the row: one strided load and one reduction (a
// scalar loop here cost RVV ~110 instructions per row, a quarter of a 2K-column row at VLEN 512).
// An f32 sum is plenty for a shift. DS has at least 16 lanes on every target (RVV: LMUL 4).
float SampledShift(const float* x, size_t n) {
  using DS = Simd<float, 2>;
  const size_t samples = n < kShiftSamples ? n : kShiftSamples;
  const auto ds = Strip(DS(), samples);
  const float sum = ReduceSum(ds, LoadStrided(ds, x, static_cast<ptrdiff_t>(n / samples)));
  return sum / static_cast<float>(samples);
}

struct RowStats {
  double mean;
  double rstd;
};

// Rows with NaN/inf (NaN result) or whose f32 sums overflowed: two passes in f64.
[[gnu::noinline, gnu::cold]] RowStats StatsF64(const float* x, size_t n, float eps) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += x[i];
  const double mean = s / static_cast<double>(n);
  double v = 0;
  for (size_t i = 0; i < n; ++i) v += (x[i] - mean) * (x[i] - mean);
  if (!std::isfinite(v)) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
  }
  return {mean, 1.0 / std::sqrt(v / static_cast<double>(n) + eps)};
}

RowStats Stats(const float* x, size_t n, float eps) {
  const DF d;
  const double inv_n = 1.0 / static_cast<double>(n);
  float k = SampledShift(x, n);
  double s1, s2;
  row_sums::ShiftedSums(d, x, n, k, s1, s2);
  if (!std::isfinite(s1) || !std::isfinite(s2)) return StatsF64(x, n, eps);
  double dm = s1 * inv_n;
  if (dm * dm > 0.5 * s2 * inv_n) {  // k was far from the mean: once more about the estimate
    k = static_cast<float>(k + dm);
    row_sums::ShiftedSums(d, x, n, k, s1, s2);
    if (!std::isfinite(s1) || !std::isfinite(s2)) return StatsF64(x, n, eps);
    dm = s1 * inv_n;
  }
  double var = s2 * inv_n - dm * dm;
  if (var < 0) var = 0;
  return {k + dm, 1.0 / std::sqrt(var + static_cast<double>(eps))};
}

// y = (x - shift) * scale + bias, then * gamma + beta where given.
template <bool kGamma, bool kBeta>
void Normalize(const float* x, const float* gamma, const float* beta, float* y, size_t n, float shift, float scale,
               float bias, bool stream, const float* next) {
  const DF d;
  OutputStrips(d, y, n, stream, next, nullptr, [&](auto ds, size_t i) {
    auto v = MulAdd(ds, Sub(ds, LoadU(ds, x + i), shift), scale, Set(ds, bias));
    if constexpr (kGamma && kBeta) {
      v = MulAdd(ds, v, LoadU(ds, gamma + i), LoadU(ds, beta + i));
    } else if constexpr (kGamma) {
      v = Mul(ds, v, LoadU(ds, gamma + i));
    } else if constexpr (kBeta) {
      v = Add(ds, v, LoadU(ds, beta + i));
    }
    return v;
  });
}

template <bool kGamma, bool kBeta>
void ForwardRows(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, const float* beta,
                 float eps, float* y, size_t y_stride, float* mean, float* rstd, bool stream) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * x_stride;
    const RowStats st = Stats(xr, cols, eps);
    // m = f32(mean); the residue mean - m enters through the bias (see the header comment).
    const float m = static_cast<float>(st.mean);
    const float rs = static_cast<float>(st.rstd);
    const float bias = static_cast<float>(-(st.mean - m) * st.rstd);
    // A NaN row: the NaN rstd makes every y NaN through the multiply.
    const float* next = r + 1 < rows ? xr + x_stride : nullptr;
    Normalize<kGamma, kBeta>(xr, gamma, beta, y + r * y_stride, cols, m, rs, bias, stream, next);
    if (mean != nullptr) mean[r] = m;
    if (rstd != nullptr) rstd[r] = rs;
  }
}

// ---- backward ---------------------------------------------------------------------------------
constexpr size_t kFlushRows = 16;  // f32 column partials see at most 16 terms before f64

// f64 lanes beside DF's f32 lanes: the same count (f32 LMUL 2^p, f64 LMUL 2^(p+1)).
using DD = Simd<double, kPow2 + 1>;

// The f32 tag's lanes as the matching f64 tag (whole or strip).
template <class DS>
auto Wide(DS ds) {
  if constexpr (DS::kIsStrip) {
    return Strip(DD(), ds.n);
  } else {
    return DD();
  }
}

// kFirstOfGroup: the first row of a flush group assigns the column partials instead of adding.
template <bool kGamma, bool kFirstOfGroup>
void BackwardRow(const float* dy, const float* x, const float* gamma, float mean, float rstd, float* dx, size_t n,
                 float* acc_g, float* acc_b, bool stream, const float* next_dy, const float* next_x) {
  const DF d;
  const size_t block = row_sums::kSumBlockStrips * Lanes(d);
  const auto xhat_of = [&](auto ds, size_t i) { return Mul(ds, Sub(ds, LoadU(ds, x + i), mean), rstd); };
  const auto g_of = [&](auto ds, size_t i) {
    if constexpr (kGamma) {
      return Mul(ds, LoadU(ds, dy + i), LoadU(ds, gamma + i));
    } else {
      return LoadU(ds, dy + i);
    }
  };
  double sum_g = 0, sum_gx = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto ag = Zero(d);
    auto agx = Zero(d);
    ForEachStrip(d, len, [&](auto ds, size_t j) {
      const size_t i = b + j;
      const auto xhat = xhat_of(ds, i);
      const auto dyv = LoadU(ds, dy + i);
      const auto g = kGamma ? Mul(ds, dyv, LoadU(ds, gamma + i)) : dyv;
      ag = AddTU(ds, ag, g);
      agx = MulAddTU(ds, g, xhat, agx);
      if (acc_g != nullptr) {
        if constexpr (kFirstOfGroup) {
          StoreU(ds, Mul(ds, dyv, xhat), acc_g + i);
          StoreU(ds, dyv, acc_b + i);
        } else {
          StoreU(ds, MulAdd(ds, dyv, xhat, LoadU(ds, acc_g + i)), acc_g + i);
          StoreU(ds, Add(ds, LoadU(ds, acc_b + i), dyv), acc_b + i);
        }
      }
    });
    sum_g += ReduceSum(d, ag);
    sum_gx += ReduceSum(d, agx);
  }
  const double inv_n = 1.0 / static_cast<double>(n);
  const float kg = static_cast<float>(-static_cast<double>(rstd) * sum_g * inv_n);
  const float kx = static_cast<float>(-static_cast<double>(rstd) * sum_gx * inv_n);
  OutputStrips(d, dx, n, stream, next_dy, next_x, [&](auto ds, size_t i) {
    const auto xhat = xhat_of(ds, i);
    const auto g = g_of(ds, i);
    return MulAdd(ds, g, rstd, MulAdd(ds, xhat, kx, Set(ds, kg)));
  });
}

// sum (=, or += unless kFirst) f64(acc), n columns.
template <bool kFirst>
void Flush(const float* acc, double* sum, size_t n) {
  ForEachStrip(DF(), n, [&](auto ds, size_t i) {
    const auto dw = Wide(ds);
    const auto wide = PromoteTo(dw, ds, LoadU(ds, acc + i));
    StoreU(dw, kFirst ? wide : Add(dw, LoadU(dw, sum + i), wide), sum + i);
  });
}

template <bool kGamma>
void BackwardRows(size_t rows, size_t cols, const float* dy, const float* x, size_t stride, const float* gamma,
                  const float* mean, const float* rstd, float* dx, float* acc_g, float* acc_b, double* sum_g,
                  double* sum_b, bool stream) {
  for (size_t r = 0; r < rows; ++r) {
    const size_t o = r * stride;
    const bool last = r + 1 == rows;
    const float* next_dy = last ? nullptr : dy + o + stride;
    const float* next_x = last ? nullptr : x + o + stride;
    if (r % kFlushRows == 0) {
      BackwardRow<kGamma, true>(dy + o, x + o, gamma, mean[r], rstd[r], dx + o, cols, acc_g, acc_b, stream, next_dy,
                                next_x);
    } else {
      BackwardRow<kGamma, false>(dy + o, x + o, gamma, mean[r], rstd[r], dx + o, cols, acc_g, acc_b, stream, next_dy,
                                 next_x);
    }
    if (acc_g != nullptr && ((r + 1) % kFlushRows == 0 || last)) {
      if (r < kFlushRows) {
        Flush<true>(acc_g, sum_g, cols);
        Flush<true>(acc_b, sum_b, cols);
      } else {
        Flush<false>(acc_g, sum_g, cols);
        Flush<false>(acc_b, sum_b, cols);
      }
    }
  }
}

}  // namespace

// stream: y written with non-temporal stores (streamed_strips.h).
void LayerNormRowsF32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma,
                      const float* beta, float eps, float* y, size_t y_stride, float* mean, float* rstd, bool stream) {
  const int which = (gamma != nullptr ? 2 : 0) + (beta != nullptr ? 1 : 0);
  switch (which) {
    case 3: return ForwardRows<true, true>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream);
    case 2: return ForwardRows<true, false>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream);
    case 1: return ForwardRows<false, true>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream);
    default: return ForwardRows<false, false>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream);
  }
}

// acc_g/acc_b: f32 scratch of cols each, or null (no column sums); sum_g/sum_b: f64 column sums
// this call sets (rows >= 1).
void LayerNormBackwardRowsF32(size_t rows, size_t cols, const float* dy, const float* x, size_t stride,
                              const float* gamma, const float* mean, const float* rstd, float* dx, float* acc_g,
                              float* acc_b, double* sum_g, double* sum_b, bool stream) {
  if (gamma != nullptr) {
    BackwardRows<true>(rows, cols, dy, x, stride, gamma, mean, rstd, dx, acc_g, acc_b, sum_g, sum_b, stream);
  } else {
    BackwardRows<false>(rows, cols, dy, x, stride, gamma, mean, rstd, dx, acc_g, acc_b, sum_g, sum_b, stream);
  }
}

// out[c] = f32(sum over chunks k of sums[k * chunk_stride + c]), in chunk order.
void LayerNormColumnSumsF32(const double* sums, size_t chunk_stride, int chunks, size_t cols, float* out) {
  ForEachStrip(DF(), cols, [&](auto ds, size_t i) {
    const auto dw = Wide(ds);
    auto total = LoadU(dw, sums + i);
    for (int k = 1; k < chunks; ++k) total = Add(dw, total, LoadU(dw, sums + static_cast<size_t>(k) * chunk_stride + i));
    StoreU(ds, DemoteTo(ds, dw, total), out + i);
  });
}

VLAK_KERNELS_DEFINED(VLAK_LAYERNORM_KERNELS)

}  // namespace vlak::VLAK_NS
