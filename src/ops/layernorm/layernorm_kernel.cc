// LayerNorm forward and backward row kernels, generic over the tag: compiled once per target.
//
// Forward, per row: k = the mean of 16 samples spread over the row (a shift near the mean);
// s1 = sum(x - k), s2 = sum((x - k)^2) in one pass (row_sums.h: f32 lanes, f64 per block); with
// d = s1 / n, var = s2 / n - d^2, the pass repeated about k' = f32(k + d) when d^2 n / s2 > 1/2;
// then y = fma(x - m, rstd, -(mean - m) rstd) * gamma + beta, m = f32(mean), streamed past L2.
// Fused residual add (AddLayerNormRowsF32): s = x + r, stored as pass 1 loads it: the plain bits.
// Backward, per row: g = dy gamma; sum(g), sum(g xhat) (f32 lanes, f64 per block); dgamma and
// dbeta partials in f32, flushed to f64 every kFlushRows rows; dx = fma(g, rstd, fma(xhat,
// -rstd mean(g xhat), -rstd mean(g))). Rows in pairs (RVV, AVX-512, AVX2 from 2048 columns) or
// fours (AVX-512, long rows) load and store the partials once per pair or four; on x86, rows from
// memory (from_memory: x, dy and dx past 16 times the L2, layernorm.cc) go one at a time, unless in
// fours; from 2048 columns on AVX2, each row's output pass beside the next row's first pass. dx is
// never streamed.
// Bound: vlak.h's 1e-5 (|gamma| (1 + |xhat|) + |beta|), mean 1e-6 (|mean| + sd), rstd 1e-6. Rows
// with a NaN/inf, or sums that overflow f32 (|x - k| > ~1e19), take a cold f64 path (NaN rows).
// Cost per element: 1 pass of load + sub + add + fma (2 on rare outlier rows), then load, sub,
// fma, (load gamma, load beta, fma), store. Tuning: layernorm_config.h; the derivation, the
// measured accuracy and instruction counts: docs/ops/layernorm.md.
#include <cmath>
#include <limits>

#include "ops/layernorm/layernorm_config.h"
#include "ops/layernorm/layernorm_kernels.h"
#include "ops/row_sums.h"
#include "ops/output_strips.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kPow2 = kLayerNormConfig.pow2;
using DF = Simd<float, kPow2>;

constexpr size_t kShiftSamples = 16;

// The mean of min(n, 16) elements spread over the row. An f32 sum is plenty for a shift.
// r: the residual of the fused add (the samples are then x + r), or null.
// RVV: one strided load and one reduction (a scalar loop here cost ~110 instructions per row, a
// quarter of a 2K-column row at VLEN 512); DS has at least 16 lanes on every target (LMUL 4).
// x86 and scalar: 16 scalar loads summed as a tree; AVX2's and AVX-512's gathers put about 60
// cycles of latency before each row's first pass (docs/ops/layernorm.md).
float SampledShift(const float* x, const float* r, size_t n) {
  const size_t samples = n < kShiftSamples ? n : kShiftSamples;
  // For whole rows of 16 samples (every row of 16 columns or more) a shift and an exact multiply
  // by 1/16 instead of a divu and an fdiv.s (20 + 15 cycles per row on the X60 model): the same
  // values.
  const bool full = samples == kShiftSamples;
  if constexpr (kLayerNormConfig.strided_samples) {
    using DS = Simd<float, 2>;
    const auto ds = Strip(DS(), samples);
    const auto step = static_cast<ptrdiff_t>(full ? n / kShiftSamples : n / samples);
    auto v = LoadStrided(ds, x, step);
    if (r != nullptr) v = Add(ds, v, LoadStrided(ds, r, step));
    const float sum = ReduceSum(ds, v);
    return full ? sum * (1.0f / kShiftSamples) : sum / static_cast<float>(samples);
  } else {
    const size_t step = full ? n / kShiftSamples : n / samples;
    float v[kShiftSamples];
    for (size_t j = 0; j < samples; ++j) v[j] = r != nullptr ? x[j * step] + r[j * step] : x[j * step];
    for (size_t j = samples; j < kShiftSamples; ++j) v[j] = 0.0f;
    for (size_t w = kShiftSamples / 2; w >= 1; w /= 2) {
      for (size_t j = 0; j < w; ++j) v[j] += v[j + w];
    }
    return full ? v[0] * (1.0f / kShiftSamples) : v[0] / static_cast<float>(samples);
  }
}
float SampledShift(const float* x, size_t n) { return SampledShift(x, nullptr, n); }

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

// inv_n = 1.0 / n, computed once per call rather than once per row. first(k, s1, s2): the first
// pass's sums about the shift k; x: the row the rest reads (the sums' values).
template <class FirstPass>
RowStats StatsAfter(float k, const float* x, size_t n, double inv_n, float eps, FirstPass&& first) {
  const DF d;
  double s1, s2;
  first(k, s1, s2);
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
// Pairs one pair ahead (ForwardRows, config's ahead_max_cols): a row's first pass (the shift and
// its sums), and the statistics from those sums, apart. Not inlined: the tails of the pair's
// statistics are then issued before the next pair's first passes and run under them (with the
// passes inlined, or each pass and its tail in one call, they did not: docs/ops/layernorm.md).
struct RowSums {
  float k;
  double s1, s2;
};
[[gnu::noinline, maybe_unused]] RowSums FirstSums(const float* x, size_t n) {
  RowSums p;
  p.k = SampledShift(x, n);
  row_sums::ShiftedSums(DF(), x, n, p.k, p.s1, p.s2);
  return p;
}
// The fused residual add's: s = x + r stored.
[[gnu::noinline, maybe_unused]] RowSums AddFirstSums(const float* x, const float* r, float* s, size_t n) {
  RowSums p;
  p.k = SampledShift(x, r, n);
  row_sums::ShiftedSumsOf(DF(), n, p.k, p.s1, p.s2, row_sums::AddAndStore{x, r, s});
  return p;
}
RowStats StatsFrom(const RowSums& p, const float* x, size_t n, double inv_n, float eps) {
  return StatsAfter(p.k, x, n, inv_n, eps, [&](float, double& s1, double& s2) { s1 = p.s1, s2 = p.s2; });
}
RowStats Stats(const float* x, size_t n, double inv_n, float eps) {
  return StatsAfter(SampledShift(x, n), x, n, inv_n, eps,
                    [&](float k, double& s1, double& s2) { row_sums::ShiftedSums(DF(), x, n, k, s1, s2); });
}
// The fused residual add: s = x + r stored during the first pass, the statistics of s.
RowStats AddStats(const float* x, const float* r, float* s, size_t n, double inv_n, float eps) {
  return StatsAfter(SampledShift(x, r, n), s, n, inv_n, eps, [&](float k, double& s1, double& s2) {
    row_sums::ShiftedSumsOf(DF(), n, k, s1, s2, row_sums::AddAndStore{x, r, s});
  });
}

// y = (x - shift) * scale + bias, then * gamma + beta where given.
template <bool kGamma, bool kBeta>
void Normalize(const float* x, const float* gamma, const float* beta, float* y, size_t n, float shift, float scale,
               float bias, bool stream, const float* next) {
  const DF d;
  OutputStrips(d, y, n, stream, x, next, nullptr, [&](auto ds, size_t i) {
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

// Two rows' output passes at once (Normalize2), so that each gamma and beta strip is loaded once
// per pair of rows: per element 2 loads instead of 3 before the store. Two rows, not four: each
// row keeps its bias broadcast in a register group (fma(x - m, rstd, bias) takes a vector addend),
// and at LMUL 4 four rows' biases would take 16 of the 32 vector registers beside the 12 or more
// of gamma, beta and the temporaries. Where stores stream (x86, outputs past the L2), row by row:
// that pass streams and prefetches per row; so are rows too long for two of them to stay in L1
// (config's pair_max_cols). Choices and figures: docs/ops/layernorm.md.
constexpr bool kRowPairs = kLayerNormConfig.row_pairs;
constexpr size_t kPairMaxCols = kLayerNormConfig.pair_max_cols;
constexpr size_t kAheadMaxCols = kLayerNormConfig.ahead_max_cols;
bool PairRows(size_t cols, bool stream) {
  return kRowPairs && !(kStreamStores && stream) && (kPairMaxCols == 0 || cols <= kPairMaxCols);
}

bool PairsAhead(size_t cols, bool stream) {
  return kAheadMaxCols > 0 && cols <= kAheadMaxCols && PairRows(cols, stream);
}

struct RowScale {
  float m, rs, bias;
};

RowScale ScaleOf(const RowStats& st) {
  // m = f32(mean); the residue mean - m enters through the bias (see the header comment).
  const float m = static_cast<float>(st.mean);
  return {m, static_cast<float>(st.rstd), static_cast<float>(-(st.mean - m) * st.rstd)};
}

// Normalize for two rows (x0 -> y0, x1 -> y1), gamma and beta loaded once per strip.
template <bool kGamma, bool kBeta>
void Normalize2(const float* x0, const float* x1, const float* gamma, const float* beta, float* y0, float* y1,
                size_t n, RowScale a, RowScale b) {
  const DF d;
  ForEachStrip(d, n, [&](auto ds, size_t i) {
    auto v0 = MulAdd(ds, Sub(ds, LoadU(ds, x0 + i), a.m), a.rs, Set(ds, a.bias));
    auto v1 = MulAdd(ds, Sub(ds, LoadU(ds, x1 + i), b.m), b.rs, Set(ds, b.bias));
    if constexpr (kGamma && kBeta) {
      const auto g = LoadU(ds, gamma + i);
      const auto be = LoadU(ds, beta + i);
      v0 = MulAdd(ds, v0, g, be);
      v1 = MulAdd(ds, v1, g, be);
    } else if constexpr (kGamma) {
      const auto g = LoadU(ds, gamma + i);
      v0 = Mul(ds, v0, g);
      v1 = Mul(ds, v1, g);
    } else if constexpr (kBeta) {
      const auto be = LoadU(ds, beta + i);
      v0 = Add(ds, v0, be);
      v1 = Add(ds, v1, be);
    }
    StoreU(ds, v0, y0 + i);
    StoreU(ds, v1, y1 + i);
  });
}

// Rows in pairs one pair ahead (PairsAhead), rows >= 2: this pair's statistics from the first
// passes made before, the next pair's first passes, this pair's output (Normalize2), mean and
// rstd where given. sums(i): row i's first pass (FirstSums or AddFirstSums, out of line); src(i):
// the row it summed, which the statistics and the output read. Returns the rows done (even).
template <bool kGamma, bool kBeta, class Sums, class Src>
size_t PairsAheadOf(size_t rows, size_t cols, Sums&& sums, Src&& src, const float* gamma, const float* beta,
                    double inv_n, float eps, float* y, size_t y_stride, float* mean, float* rstd) {
  RowSums p0 = sums(0), p1 = sums(1);
  size_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const float* const x0 = src(r);
    const float* const x1 = src(r + 1);
    const RowScale a = ScaleOf(StatsFrom(p0, x0, cols, inv_n, eps));
    const RowScale b = ScaleOf(StatsFrom(p1, x1, cols, inv_n, eps));
    if (r + 4 <= rows) p0 = sums(r + 2), p1 = sums(r + 3);
    Normalize2<kGamma, kBeta>(x0, x1, gamma, beta, y + r * y_stride, y + (r + 1) * y_stride, cols, a, b);
    if (mean != nullptr) mean[r] = a.m, mean[r + 1] = b.m;
    if (rstd != nullptr) rstd[r] = a.rs, rstd[r + 1] = b.rs;
  }
  return r;
}

template <bool kGamma, bool kBeta>
void ForwardRows(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, const float* beta,
                 float eps, float* y, size_t y_stride, float* mean, float* rstd, bool stream) {
  const double inv_n = 1.0 / static_cast<double>(cols);
  size_t r = 0;
  if (PairsAhead(cols, stream) && rows >= 2) {
    r = PairsAheadOf<kGamma, kBeta>(
        rows, cols, [&](size_t i) { return FirstSums(x + i * x_stride, cols); },
        [&](size_t i) { return x + i * x_stride; }, gamma, beta, inv_n, eps, y, y_stride, mean, rstd);
  } else if (PairRows(cols, stream)) {
    for (; r + 2 <= rows; r += 2) {
      const float* x0 = x + r * x_stride;
      const RowScale a = ScaleOf(Stats(x0, cols, inv_n, eps));
      const RowScale b = ScaleOf(Stats(x0 + x_stride, cols, inv_n, eps));
      // A NaN row: the NaN rstd makes every y of that row NaN through the multiply.
      Normalize2<kGamma, kBeta>(x0, x0 + x_stride, gamma, beta, y + r * y_stride, y + (r + 1) * y_stride, cols, a, b);
      if (mean != nullptr) mean[r] = a.m, mean[r + 1] = b.m;
      if (rstd != nullptr) rstd[r] = a.rs, rstd[r + 1] = b.rs;
    }
  }
  for (; r < rows; ++r) {
    const float* xr = x + r * x_stride;
    const RowScale a = ScaleOf(Stats(xr, cols, inv_n, eps));
    // A NaN row: the NaN rstd makes every y NaN through the multiply.
    const float* next = r + 1 < rows ? xr + x_stride : nullptr;
    Normalize<kGamma, kBeta>(xr, gamma, beta, y + r * y_stride, cols, a.m, a.rs, a.bias, stream, next);
    if (mean != nullptr) mean[r] = a.m;
    if (rstd != nullptr) rstd[r] = a.rs;
  }
}

// ForwardRows of s = x + r (stored into s): the add rides on the statistics pass and the output
// pass reads s back from L1, rows in pairs as ForwardRows. The same per-row arithmetic as
// ForwardRows on s.
template <bool kGamma, bool kBeta>
void AddForwardRows(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride,
                    float* s, size_t s_stride, const float* gamma, const float* beta, float eps, float* y,
                    size_t y_stride, bool stream) {
  const double inv_n = 1.0 / static_cast<double>(cols);
  size_t i = 0;  // rows by index: a pointer past the last row may not exist
  if (PairsAhead(cols, stream) && rows >= 2) {
    // The next pair's first passes read x and r and write s of rows this pair's output pass does
    // not touch, whichever of them y shares.
    i = PairsAheadOf<kGamma, kBeta>(
        rows, cols, [&](size_t k) { return AddFirstSums(x + k * x_stride, r + k * r_stride, s + k * s_stride, cols); },
        [&](size_t k) { return static_cast<const float*>(s + k * s_stride); }, gamma, beta, inv_n, eps, y, y_stride,
        nullptr, nullptr);
  } else if (PairRows(cols, stream)) {
    // Both rows' sums (s stored) before their output pass: x, r and s of a row are read before
    // any y of the pair is written, whichever of them y shares.
    for (; i + 2 <= rows; i += 2) {
      const float* const x0 = x + i * x_stride;
      const float* const r0 = r + i * r_stride;
      float* const s0 = s + i * s_stride;
      float* const y0 = y + i * y_stride;
      const RowScale a = ScaleOf(AddStats(x0, r0, s0, cols, inv_n, eps));
      const RowScale b = ScaleOf(AddStats(x0 + x_stride, r0 + r_stride, s0 + s_stride, cols, inv_n, eps));
      Normalize2<kGamma, kBeta>(s0, s0 + s_stride, gamma, beta, y0, y0 + y_stride, cols, a, b);
    }
  }
  for (; i < rows; ++i) {
    const float* const xr = x + i * x_stride;
    float* const sr = s + i * s_stride;
    const RowScale a = ScaleOf(AddStats(xr, r + i * r_stride, sr, cols, inv_n, eps));
    const float* next = i + 1 < rows ? xr + x_stride : nullptr;
    Normalize<kGamma, kBeta>(sr, gamma, beta, y + i * y_stride, cols, a.m, a.rs, a.bias, stream, next);
  }
}

// ---- backward ---------------------------------------------------------------------------------
constexpr size_t kFlushRows = kLayerNormConfig.flush_rows;  // f32 column partials: at most 16 terms before f64
static_assert(kFlushRows % 4 == 0, "row pairs and quads (BackwardRowPair, -Quad) must not straddle a flush");
// RVV and x86: rows two at a time (BackwardRowPair), so the f32 column partials are loaded and
// stored once per two rows: on RVV the fewest modelled cycles on X60 / X280 / P670; on x86 a row's
// dy, x, gamma and partials (5 x 4 bytes per column) outgrow L1 from about 1600 columns, and the
// partials' round trip was most of the column sums' cost (docs/ops/layernorm.md). x86 takes rows
// from memory one at a time (config's backward_pairs_from_memory): there pairs of rows of 256-1024
// columns ran at half the speed of lone rows. dx is stored plainly: streamed, it lost in cache and
// from memory alike.
// AVX2 takes rows shorter than config's backward_pairs_min_cols (2048) one at a time: from the L3,
// pairs of 512-1536 columns ran slower than lone rows, as pairs from memory do (above).
constexpr bool kBackwardPairs = kLayerNormConfig.backward_pairs;
constexpr bool kPairsFromMemory = kLayerNormConfig.backward_pairs_from_memory;
constexpr size_t kPairsMinCols = kLayerNormConfig.backward_pairs_min_cols;

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

// One row's terms at strip i of a first pass: xhat = (x - m) r and dy at i, and the row's sums
// ag += g, agx += g xhat, g = dy gamma (gamma's strip gv, loaded once for the rows of a pair or
// four; unread without gamma).
template <bool kGamma, class DS, class V>
[[gnu::always_inline]] inline void RowTerms(DS ds, const float* x, const float* dy, size_t i, float m, float r,
                                            const V& gv, V& ag, V& agx, V& xhat, V& dyv) {
  xhat = Mul(ds, Sub(ds, LoadU(ds, x + i), m), r);
  dyv = LoadU(ds, dy + i);
  V g = dyv;
  if constexpr (kGamma) g = Mul(ds, dyv, gv);
  ag = AddTU(ds, ag, g);
  agx = MulAddTU(ds, g, xhat, agx);
}

// A lone row's column partials at strip i: dgamma's dy xhat and dbeta's dy, assigned (the first row
// of a flush group) or added; none without acc_g.
template <bool kFirstOfGroup, class DS, class V>
[[gnu::always_inline]] inline void RowPartials(DS ds, size_t i, const V& dyv, const V& xhat, float* acc_g,
                                               float* acc_b) {
  if (acc_g == nullptr) return;
  if constexpr (kFirstOfGroup) {
    StoreU(ds, Mul(ds, dyv, xhat), acc_g + i);
    StoreU(ds, dyv, acc_b + i);
  } else {
    StoreU(ds, MulAdd(ds, dyv, xhat, LoadU(ds, acc_g + i)), acc_g + i);
    StoreU(ds, Add(ds, LoadU(ds, acc_b + i), dyv), acc_b + i);
  }
}

// dx's constants of a row from its sums: -rstd mean(g) and -rstd mean(g xhat), in f32.
inline float DxConstant(float r, double sum, double inv_n) {
  return static_cast<float>(-static_cast<double>(r) * sum * inv_n);
}

// dx at strip i of a row: fma(g, r, fma(xhat, kx, kg)), xhat = (x - m) r, g = dy gamma (gamma's
// strip *gv, loaded once for the rows of a pair; null without gamma).
template <bool kGamma, class DS>
[[gnu::always_inline]] inline VFromD<DS> RowDx(DS ds, const float* x, const float* dy, size_t i, float m, float r,
                                               float kg, float kx, const VFromD<DS>* gv) {
  const auto xhat = Mul(ds, Sub(ds, LoadU(ds, x + i), m), r);
  auto g = LoadU(ds, dy + i);
  if constexpr (kGamma) g = Mul(ds, g, *gv);
  return MulAdd(ds, g, r, MulAdd(ds, xhat, kx, Set(ds, kg)));
}

// kFirstOfGroup: the first row of a flush group assigns the column partials instead of adding.
template <bool kGamma, bool kFirstOfGroup>
void BackwardRow(const float* dy, const float* x, const float* gamma, float mean, float rstd, float* dx, size_t n,
                 float* acc_g, float* acc_b) {
  const DF d;
  const size_t block = row_sums::kSumBlockStrips * Lanes(d);
  double sum_g = 0, sum_gx = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto ag = Zero(d);
    auto agx = Zero(d);
    ForEachStrip(d, len, [&](auto ds, size_t j) {
      const size_t i = b + j;
      using V = VFromD<decltype(ds)>;
      const V gv = kGamma ? LoadU(ds, gamma + i) : ag;  // ag: any vector, unread without gamma
      V xhat, dyv;
      RowTerms<kGamma>(ds, x, dy, i, mean, rstd, gv, ag, agx, xhat, dyv);
      RowPartials<kFirstOfGroup>(ds, i, dyv, xhat, acc_g, acc_b);
    });
    sum_g += ReduceSum(d, ag);
    sum_gx += ReduceSum(d, agx);
  }
  const double inv_n = 1.0 / static_cast<double>(n);
  const float kg = DxConstant(rstd, sum_g, inv_n), kx = DxConstant(rstd, sum_gx, inv_n);
  ForEachStrip(d, n, [&](auto ds, size_t i) {
    VFromD<decltype(ds)> gv;
    if constexpr (kGamma) gv = LoadU(ds, gamma + i);
    StoreU(ds, RowDx<kGamma>(ds, x, dy, i, mean, rstd, kg, kx, kGamma ? &gv : nullptr), dx + i);
  });
}

// BackwardRow for rows 0 and 1 (dy0/x0 -> dx0, dy1/x1 -> dx1) at once (kBackwardPairs): per
// strip gamma and the column partials acc_g, acc_b are loaded and stored once for both rows. The
// column partials are BackwardRow's bits (row 0's terms added before row 1's). At half the row
// passes' LMUL (DP: 2 on RVV, 1 on x86): the two rows' sum accumulators stay live across the
// strips beside gamma, the partials and the row temporaries, which at RVV's LMUL 4 would spill
// (x86: LMUL 2 measured no faster); so sum(g) and sum(g xhat) are added in DP's lanes
// and blocks, and a paired row's dx may differ from a lone row's in the last bits (the same
// accuracy). Which rows pair depends on the shape only (the API's row blocks are fixed by the
// row count), so the bits do not depend on the thread count.
using DP = Simd<float, (kPow2 > 0 ? kPow2 - 1 : 0)>;

// The output pass of two rows (BackwardRowPair's second pass) from their sums.
template <bool kGamma>
[[gnu::always_inline]] inline void PairOutput(const float* dy0, const float* dy1, const float* x0, const float* x1,
                                              const float* gamma, float m0, float m1, float r0, float r1,
                                              double sum_g0, double sum_gx0, double sum_g1, double sum_gx1,
                                              float* dx0, float* dx1, size_t n) {
  const DP d;
  const double inv_n = 1.0 / static_cast<double>(n);
  const float kg0 = DxConstant(r0, sum_g0, inv_n), kx0 = DxConstant(r0, sum_gx0, inv_n);
  const float kg1 = DxConstant(r1, sum_g1, inv_n), kx1 = DxConstant(r1, sum_gx1, inv_n);
  // From the row's end where dx trails x or dy by 1 to 511 bytes modulo 4 KiB (OutputBackward;
  // measured in docs/ops/layernorm.md). Both rows' dx lie against their x and dy as row 0's do:
  // the rows are a stride apart in all. Lone rows (BackwardRow: rows from memory, an odd last row)
  // walk forward: from memory the reversed walk was the slower one even at those offsets.
  const bool backward = OutputBackward(dx0, x0) || OutputBackward(dx0, dy0);
  // RowDx's arithmetic, written out for the two rows: RowDx per row (gamma loaded first) cost RVV an
  // instruction more per pair (icount budget test).
  ForEachOutputStrip(d, n, backward, [&](auto ds, size_t i) {
    const auto xhat0 = Mul(ds, Sub(ds, LoadU(ds, x0 + i), m0), r0);
    const auto xhat1 = Mul(ds, Sub(ds, LoadU(ds, x1 + i), m1), r1);
    VFromD<decltype(ds)> g0 = LoadU(ds, dy0 + i), g1 = LoadU(ds, dy1 + i);
    if constexpr (kGamma) {
      const auto gv = LoadU(ds, gamma + i);
      g0 = Mul(ds, g0, gv);
      g1 = Mul(ds, g1, gv);
    }
    StoreU(ds, MulAdd(ds, g0, r0, MulAdd(ds, xhat0, kx0, Set(ds, kg0))), dx0 + i);
    StoreU(ds, MulAdd(ds, g1, r1, MulAdd(ds, xhat1, kx1, Set(ds, kg1))), dx1 + i);
  });
}

template <bool kGamma, bool kFirstOfGroup>
void BackwardRowPair(const float* dy0, const float* dy1, const float* x0, const float* x1, const float* gamma,
                     const float* mean, const float* rstd, float* dx0, float* dx1, size_t n, float* acc_g,
                     float* acc_b) {
  const DP d;
  const size_t block = row_sums::kSumBlockStrips * Lanes(d);
  const float m0 = mean[0], m1 = mean[1], r0 = rstd[0], r1 = rstd[1];
  double sum_g0 = 0, sum_gx0 = 0, sum_g1 = 0, sum_gx1 = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto ag0 = Zero(d), agx0 = Zero(d), ag1 = Zero(d), agx1 = Zero(d);
    ForEachStrip(d, len, [&](auto ds, size_t j) {
      const size_t i = b + j;
      using V = VFromD<decltype(ds)>;
      const V gv = kGamma ? LoadU(ds, gamma + i) : ag0;  // ag0: any vector, unread without gamma
      V xhat0, xhat1, dyv0, dyv1;
      RowTerms<kGamma>(ds, x0, dy0, i, m0, r0, gv, ag0, agx0, xhat0, dyv0);
      RowTerms<kGamma>(ds, x1, dy1, i, m1, r1, gv, ag1, agx1, xhat1, dyv1);
      if (acc_g != nullptr) {
        if constexpr (kFirstOfGroup) {
          StoreU(ds, MulAdd(ds, dyv1, xhat1, Mul(ds, dyv0, xhat0)), acc_g + i);
          StoreU(ds, Add(ds, dyv0, dyv1), acc_b + i);
        } else {
          StoreU(ds, MulAdd(ds, dyv1, xhat1, MulAdd(ds, dyv0, xhat0, LoadU(ds, acc_g + i))), acc_g + i);
          StoreU(ds, Add(ds, Add(ds, LoadU(ds, acc_b + i), dyv0), dyv1), acc_b + i);
        }
      }
    });
    sum_g0 += ReduceSum(d, ag0);
    sum_gx0 += ReduceSum(d, agx0);
    sum_g1 += ReduceSum(d, ag1);
    sum_gx1 += ReduceSum(d, agx1);
  }
  PairOutput<kGamma>(dy0, dy1, x0, x1, gamma, m0, m1, r0, r1, sum_g0, sum_gx0, sum_g1, sum_gx1, dx0, dx1, n);
}

// Rows four at a time where config's backward_quad_min_cols allows (AVX-512, long rows):
// BackwardRowPair's first pass for rows 0-3, the column partials loaded and stored once per four
// rows, then PairOutput for rows 0-1 and 2-3. Each row's sums are added in the same lanes and
// blocks as in a pair, and the partials take the rows' terms in row order: the bits of two
// BackwardRowPair calls. Where a pair's rows, gamma and partials outgrow the L1, the partials'
// round trip comes from the L2, and halving it gained 6-10 % (docs/ops/layernorm.md); in L1, the
// four rows' 32 bytes a column pushed the output passes' reads out to the L2 and lost.
constexpr size_t kBackwardQuadMinCols = kLayerNormConfig.backward_quad_min_cols;

template <bool kGamma, bool kFirstOfGroup>
void BackwardRowQuad(const float* dy, const float* x, size_t stride, const float* gamma, const float* mean,
                     const float* rstd, float* dx, size_t n, float* acc_g, float* acc_b) {
  const DP d;
  const size_t block = row_sums::kSumBlockStrips * Lanes(d);
  const float* const dy0 = dy;
  const float* const dy1 = dy + stride;
  const float* const dy2 = dy + 2 * stride;
  const float* const dy3 = dy + 3 * stride;
  const float* const x0 = x;
  const float* const x1 = x + stride;
  const float* const x2 = x + 2 * stride;
  const float* const x3 = x + 3 * stride;
  const float m0 = mean[0], m1 = mean[1], m2 = mean[2], m3 = mean[3];
  const float r0 = rstd[0], r1 = rstd[1], r2 = rstd[2], r3 = rstd[3];
  double sg0 = 0, sgx0 = 0, sg1 = 0, sgx1 = 0, sg2 = 0, sgx2 = 0, sg3 = 0, sgx3 = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto ag0 = Zero(d), agx0 = Zero(d), ag1 = Zero(d), agx1 = Zero(d);
    auto ag2 = Zero(d), agx2 = Zero(d), ag3 = Zero(d), agx3 = Zero(d);
    ForEachStrip(d, len, [&](auto ds, size_t j) {
      const size_t i = b + j;
      using V = VFromD<decltype(ds)>;
      const V gv = kGamma ? LoadU(ds, gamma + i) : ag0;  // ag0: any vector, unread without gamma
      V xhat0, xhat1, xhat2, xhat3, dyv0, dyv1, dyv2, dyv3;
      RowTerms<kGamma>(ds, x0, dy0, i, m0, r0, gv, ag0, agx0, xhat0, dyv0);
      RowTerms<kGamma>(ds, x1, dy1, i, m1, r1, gv, ag1, agx1, xhat1, dyv1);
      RowTerms<kGamma>(ds, x2, dy2, i, m2, r2, gv, ag2, agx2, xhat2, dyv2);
      RowTerms<kGamma>(ds, x3, dy3, i, m3, r3, gv, ag3, agx3, xhat3, dyv3);
      if (acc_g != nullptr) {
        auto pg = kFirstOfGroup ? Mul(ds, dyv0, xhat0) : MulAdd(ds, dyv0, xhat0, LoadU(ds, acc_g + i));
        auto pb = kFirstOfGroup ? dyv0 : Add(ds, LoadU(ds, acc_b + i), dyv0);
        pg = MulAdd(ds, dyv3, xhat3, MulAdd(ds, dyv2, xhat2, MulAdd(ds, dyv1, xhat1, pg)));
        pb = Add(ds, Add(ds, Add(ds, pb, dyv1), dyv2), dyv3);
        StoreU(ds, pg, acc_g + i);
        StoreU(ds, pb, acc_b + i);
      }
    });
    sg0 += ReduceSum(d, ag0);
    sgx0 += ReduceSum(d, agx0);
    sg1 += ReduceSum(d, ag1);
    sgx1 += ReduceSum(d, agx1);
    sg2 += ReduceSum(d, ag2);
    sgx2 += ReduceSum(d, agx2);
    sg3 += ReduceSum(d, ag3);
    sgx3 += ReduceSum(d, agx3);
  }
  PairOutput<kGamma>(dy0, dy1, x0, x1, gamma, m0, m1, r0, r1, sg0, sgx0, sg1, sgx1, dx, dx + stride, n);
  PairOutput<kGamma>(dy2, dy3, x2, x3, gamma, m2, m3, r2, r3, sg2, sgx2, sg3, sgx3, dx + 2 * stride,
                     dx + 3 * stride, n);
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

// After row r of rows: the f32 partials added into the f64 sums at the end of a flush group or of
// the rows. Always inlined: a call of it cost RVV's 16 x 2048 case 8 instructions.
[[gnu::always_inline]] inline void FlushAfter(size_t r, size_t rows, size_t cols, const float* acc_g,
                                              const float* acc_b, double* sum_g, double* sum_b) {
  if (acc_g != nullptr && ((r + 1) % kFlushRows == 0 || r + 1 == rows)) {
    if (r < kFlushRows) {
      Flush<true>(acc_g, sum_g, cols);
      Flush<true>(acc_b, sum_b, cols);
    } else {
      Flush<false>(acc_g, sum_g, cols);
      Flush<false>(acc_b, sum_b, cols);
    }
  }
}

// Rows from memory one at a time (x86: config's backward_pairs_from_memory false), from
// backward_ahead_min_cols columns on with row r's output pass run beside row r + 1's first pass:
// row r + 1's loads from memory then overlap the output pass, which reads row r's x and dy from the
// L2 and stores dx, where BackwardRow leaves the memory idle during that pass. Each row's sums,
// partials and dx are BackwardRow's arithmetic in its order (the same lanes and blocks): the same
// bits. Shorter rows, from the L3 rather than memory, ran slower so (docs/ops/layernorm.md).
constexpr size_t kBackwardAheadMinCols = kLayerNormConfig.backward_ahead_min_cols;

// One step: row q's first pass (kIn; its sums returned in s_g, s_gx) beside row p's output pass
// (kOut, with its constants kg, kx).
template <bool kGamma, bool kIn, bool kOut, bool kFirstOfGroup>
void AheadStep(size_t n, const float* dyq, const float* xq, float mq, float rq, const float* dyp, const float* xp,
               float mp, float rp, float kg, float kx, float* dxp, const float* gamma, float* acc_g, float* acc_b,
               double& s_g, double& s_gx) {
  const DF d;
  const size_t block = row_sums::kSumBlockStrips * Lanes(d);
  s_g = 0, s_gx = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto ag = Zero(d), agx = Zero(d);
    ForEachStrip(d, len, [&](auto ds, size_t j) {
      const size_t i = b + j;
      using V = VFromD<decltype(ds)>;
      const V gv = kGamma ? LoadU(ds, gamma + i) : ag;  // ag: any vector, unread without gamma
      if constexpr (kIn) {
        V xhat, dyv;
        RowTerms<kGamma>(ds, xq, dyq, i, mq, rq, gv, ag, agx, xhat, dyv);
        RowPartials<kFirstOfGroup>(ds, i, dyv, xhat, acc_g, acc_b);
      }
      if constexpr (kOut) StoreU(ds, RowDx<kGamma>(ds, xp, dyp, i, mp, rp, kg, kx, &gv), dxp + i);
    });
    if constexpr (kIn) {
      s_g += ReduceSum(d, ag);
      s_gx += ReduceSum(d, agx);
    }
  }
}

template <bool kGamma>
void BackwardRowsAhead(size_t rows, size_t n, const float* dy, const float* x, size_t stride, const float* gamma,
                       const float* mean, const float* rstd, float* dx, float* acc_g, float* acc_b, double* sum_g,
                       double* sum_b) {
  const double inv_n = 1.0 / static_cast<double>(n);
  float kg = 0, kx = 0;  // the previous row's output constants
  double s_g = 0, s_gx = 0;
  for (size_t q = 0; q < rows; ++q) {
    // Row q's first pass beside row p = q - 1's output pass (none before row 0).
    const size_t oq = q * stride, p = q > 0 ? q - 1 : 0, op = p * stride;
    if (q == 0) {
      AheadStep<kGamma, true, false, true>(n, dy, x, mean[0], rstd[0], nullptr, nullptr, 0, 0, 0, 0, nullptr, gamma,
                                           acc_g, acc_b, s_g, s_gx);
    } else if (q % kFlushRows == 0) {
      AheadStep<kGamma, true, true, true>(n, dy + oq, x + oq, mean[q], rstd[q], dy + op, x + op, mean[p], rstd[p], kg,
                                          kx, dx + op, gamma, acc_g, acc_b, s_g, s_gx);
    } else {
      AheadStep<kGamma, true, true, false>(n, dy + oq, x + oq, mean[q], rstd[q], dy + op, x + op, mean[p], rstd[p], kg,
                                           kx, dx + op, gamma, acc_g, acc_b, s_g, s_gx);
    }
    kg = DxConstant(rstd[q], s_g, inv_n), kx = DxConstant(rstd[q], s_gx, inv_n);
    FlushAfter(q, rows, n, acc_g, acc_b, sum_g, sum_b);
  }
  const size_t p = rows - 1, op = p * stride;  // the last row's output pass
  AheadStep<kGamma, false, true, false>(n, nullptr, nullptr, 0, 0, dy + op, x + op, mean[p], rstd[p], kg, kx, dx + op,
                                        gamma, acc_g, acc_b, s_g, s_gx);
}

template <bool kGamma>
void BackwardRows(size_t rows, size_t cols, const float* dy, const float* x, size_t stride, const float* gamma,
                  const float* mean, const float* rstd, float* dx, float* acc_g, float* acc_b, double* sum_g,
                  double* sum_b, bool from_memory) {
  if constexpr (kBackwardAheadMinCols > 0) {
    const bool quads = kBackwardQuadMinCols > 0 && cols >= kBackwardQuadMinCols;
    if (from_memory && cols >= kBackwardAheadMinCols && !quads) {
      return BackwardRowsAhead<kGamma>(rows, cols, dy, x, stride, gamma, mean, rstd, dx, acc_g, acc_b, sum_g, sum_b);
    }
  }
  for (size_t r = 0; r < rows; ++r) {
    const size_t o = r * stride;
    // kFlushRows is a multiple of 4: a quad or a pair never straddles a flush.
    if constexpr (kBackwardQuadMinCols > 0) {
      if (cols >= kBackwardQuadMinCols && r % 4 == 0 && r + 3 < rows) {
        if (r % kFlushRows == 0) {
          BackwardRowQuad<kGamma, true>(dy + o, x + o, stride, gamma, mean + r, rstd + r, dx + o, cols, acc_g, acc_b);
        } else {
          BackwardRowQuad<kGamma, false>(dy + o, x + o, stride, gamma, mean + r, rstd + r, dx + o, cols, acc_g, acc_b);
        }
        r += 3;
        FlushAfter(r, rows, cols, acc_g, acc_b, sum_g, sum_b);
        continue;
      }
    }
    if constexpr (kBackwardPairs) {
      if (r % 2 == 0 && r + 1 < rows && (kPairsFromMemory || !from_memory) && cols >= kPairsMinCols) {
        if (r % kFlushRows == 0) {
          BackwardRowPair<kGamma, true>(dy + o, dy + o + stride, x + o, x + o + stride, gamma, mean + r, rstd + r,
                                        dx + o, dx + o + stride, cols, acc_g, acc_b);
        } else {
          BackwardRowPair<kGamma, false>(dy + o, dy + o + stride, x + o, x + o + stride, gamma, mean + r, rstd + r,
                                         dx + o, dx + o + stride, cols, acc_g, acc_b);
        }
        ++r;
        FlushAfter(r, rows, cols, acc_g, acc_b, sum_g, sum_b);
        continue;
      }
    }
    if (r % kFlushRows == 0) {
      BackwardRow<kGamma, true>(dy + o, x + o, gamma, mean[r], rstd[r], dx + o, cols, acc_g, acc_b);
    } else {
      BackwardRow<kGamma, false>(dy + o, x + o, gamma, mean[r], rstd[r], dx + o, cols, acc_g, acc_b);
    }
    FlushAfter(r, rows, cols, acc_g, acc_b, sum_g, sum_b);
  }
}

}  // namespace

// stream: y written with non-temporal stores (streamed_strips.h).
void LayerNormRowsF32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma,
                      const float* beta, float eps, float* y, size_t y_stride, float* mean, float* rstd, bool stream) {
  const int which = (gamma != nullptr ? 2 : 0) + (beta != nullptr ? 1 : 0);
  switch (which) {
    case 3: ForwardRows<true, true>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream); break;
    case 2: ForwardRows<true, false>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream); break;
    case 1: ForwardRows<false, true>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream); break;
    default: ForwardRows<false, false>(rows, cols, x, x_stride, gamma, beta, eps, y, y_stride, mean, rstd, stream);
  }
  EndStreamedOutput(stream);
}

// s = x + r (s may be x, r or y, with its stride), then LayerNormRowsF32 of s into y.
void AddLayerNormRowsF32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride,
                         float* s, size_t s_stride, const float* gamma, const float* beta, float eps, float* y,
                         size_t y_stride, bool stream) {
  const int which = (gamma != nullptr ? 2 : 0) + (beta != nullptr ? 1 : 0);
  switch (which) {
    case 3: AddForwardRows<true, true>(rows, cols, x, x_stride, r, r_stride, s, s_stride, gamma, beta, eps, y, y_stride, stream); break;
    case 2: AddForwardRows<true, false>(rows, cols, x, x_stride, r, r_stride, s, s_stride, gamma, beta, eps, y, y_stride, stream); break;
    case 1: AddForwardRows<false, true>(rows, cols, x, x_stride, r, r_stride, s, s_stride, gamma, beta, eps, y, y_stride, stream); break;
    default: AddForwardRows<false, false>(rows, cols, x, x_stride, r, r_stride, s, s_stride, gamma, beta, eps, y, y_stride, stream);
  }
  EndStreamedOutput(stream);
}

// acc_g/acc_b: f32 scratch of cols each, or null (no column sums); sum_g/sum_b: f64 column sums
// this call sets (rows >= 1). from_memory: the call's rows come from memory (layernorm.cc).
void LayerNormBackwardRowsF32(size_t rows, size_t cols, const float* dy, const float* x, size_t stride,
                              const float* gamma, const float* mean, const float* rstd, float* dx, float* acc_g,
                              float* acc_b, double* sum_g, double* sum_b, bool from_memory) {
  if (gamma != nullptr) {
    BackwardRows<true>(rows, cols, dy, x, stride, gamma, mean, rstd, dx, acc_g, acc_b, sum_g, sum_b, from_memory);
  } else {
    BackwardRows<false>(rows, cols, dy, x, stride, gamma, mean, rstd, dx, acc_g, acc_b, sum_g, sum_b, from_memory);
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
