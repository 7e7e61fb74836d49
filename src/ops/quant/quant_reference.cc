// Exact references of the quantized-weight operators, written independently of the kernels: the
// block formats decoded bit by bit, fp16 decoded by its definition (m * 2^(e - 25) in double),
// ggml's quantizers restated per value, sums in double (compensated for the products).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/quant/quant.h"

namespace vlak {
namespace {

double Half64(const uint8_t* p) {
  const unsigned h = p[0] | (p[1] << 8);
  const int e = (h >> 10) & 31;
  const unsigned man = h & 1023;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 31) return man ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * std::ldexp(static_cast<double>(man), -24);
  return sign * std::ldexp(static_cast<double>(1024 + man), e - 25);
}

// fp16 bits of a float: binary search over the finite magnitudes (monotonic in their bits) for
// the two neighbours of |f|, then the nearer one, ties to the even bit pattern; 65520 and up: inf.
uint16_t Half16(float f) {
  const double x = std::fabs(static_cast<double>(f));
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f)) return sign | 0x7E00;
  if (x >= 65520.0) return sign | 0x7C00;
  auto val = [](unsigned h) {
    const uint8_t b[2] = {static_cast<uint8_t>(h), static_cast<uint8_t>(h >> 8)};
    return Half64(b);
  };
  unsigned lo = 0, hi = 0x7BFF;  // val(lo) <= x; the largest such
  if (x >= val(hi)) {
    lo = hi;
  } else {
    while (hi - lo > 1) {
      const unsigned mid = (lo + hi) / 2;
      if (val(mid) <= x) lo = mid; else hi = mid;
    }
  }
  if (lo == 0x7BFF) return sign | static_cast<uint16_t>(lo);  // 65504 .. 65520 rounds down
  const double e0 = x - val(lo), e1 = val(lo + 1) - x;
  const unsigned h = e0 < e1 ? lo : e1 < e0 ? lo + 1 : ((lo & 1) == 0 ? lo : lo + 1);
  return sign | static_cast<uint16_t>(h);
}

// (int8_t)(v) of an x86 build: truncation, the low byte; 0 for NaN or |v| >= 2^31.
int Trunc8(float v) {
  if (!(std::fabs(v) < 2147483648.0f)) return 0;
  const long long t = static_cast<long long>(std::trunc(static_cast<double>(v)));
  return static_cast<int8_t>(static_cast<uint8_t>(t & 0xFF));
}

int RoundAway(float v) {  // roundf, then the int8 conversion
  if (!(std::fabs(v) < 2147483648.0f)) return 0;
  const double r = std::floor(std::fabs(static_cast<double>(v)) + 0.5);
  return Trunc8(static_cast<float>(v < 0 ? -r : r));
}

void Put16(uint8_t* p, uint16_t h) {
  p[0] = static_cast<uint8_t>(h & 0xFF);
  p[1] = static_cast<uint8_t>(h >> 8);
}

}  // namespace

void QuantizeRowReference(int t, size_t k, const float* x, uint8_t* q) {
  const size_t bb = QBlockBytes(t);
  for (size_t b = 0; b < k / 32; ++b) {
    const float* v = x + 32 * b;
    uint8_t* o = q + bb * b;
    if (t == VLAK_Q8_0) {
      float amax = 0;
      for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(v[j]));
      volatile float d = amax / 127.0f;
      volatile float id = d != 0 ? 1.0f / d : 0.0f;
      Put16(o, Half16(d));
      for (int j = 0; j < 32; ++j) {
        volatile float s = v[j] * id;
        o[2 + j] = static_cast<uint8_t>(RoundAway(s));
      }
    } else if (t == VLAK_Q4_0) {
      float amax = 0, mx = 0;
      for (int j = 0; j < 32; ++j)
        if (std::fabs(v[j]) > amax) amax = std::fabs(v[j]), mx = v[j];
      volatile float d = mx / -8.0f;
      volatile float id = d != 0 ? 1.0f / d : 0.0f;
      Put16(o, Half16(d));
      for (int j = 0; j < 16; ++j) {
        volatile float s0 = v[j] * id, s1 = v[j + 16] * id;
        volatile float t0 = s0 + 8.5f, t1 = s1 + 8.5f;
        const int a = std::min(15, Trunc8(t0)), c = std::min(15, Trunc8(t1));
        o[2 + j] = static_cast<uint8_t>((a & 0xFF) | ((c << 4) & 0xFF));
      }
    } else {
      float lo = v[0], hi = v[0];
      for (int j = 1; j < 32; ++j) lo = std::min(lo, v[j]), hi = std::max(hi, v[j]);
      volatile float span = hi - lo;
      volatile float d = span / 15.0f;
      volatile float id = d != 0 ? 1.0f / d : 0.0f;
      Put16(o, Half16(d));
      Put16(o + 2, Half16(lo));
      for (int j = 0; j < 16; ++j) {
        volatile float e0 = v[j] - lo, e1 = v[j + 16] - lo;
        volatile float s0 = e0 * id, s1 = e1 * id;
        volatile float t0 = s0 + 0.5f, t1 = s1 + 0.5f;
        const int a = std::min(15, Trunc8(t0)), c = std::min(15, Trunc8(t1));
        o[4 + j] = static_cast<uint8_t>((a & 0xFF) | ((c << 4) & 0xFF));
      }
    }
  }
}

void DequantizeRowReference(int t, size_t k, const uint8_t* q, double* y) {
  const size_t bb = QBlockBytes(t);
  for (size_t b = 0; b < k / 32; ++b) {
    const uint8_t* o = q + bb * b;
    const double d = Half64(o);
    for (int j = 0; j < 32; ++j) {
      double v;
      if (t == VLAK_Q8_0) {
        v = static_cast<int8_t>(o[2 + j]) * d;
      } else {
        const uint8_t byte = o[(t == VLAK_Q4_0 ? 2 : 4) + (j & 15)];
        const int nib = j < 16 ? (byte & 15) : (byte >> 4);
        if (t == VLAK_Q4_0) {
          v = (nib - 8) * d;
        } else {
          // fl(q * d) is exact (4 x 11 bits); the sum with m is rounded once to float.
          v = static_cast<double>(static_cast<float>(nib * d + Half64(o + 2)));
        }
      }
      y[32 * b + j] = v;
    }
  }
}

void QuantizeActRowReference(size_t k, const float* a, double* da, int8_t* qa) {
  for (size_t b = 0; b < k / 32; ++b) {
    const float* v = a + 32 * b;
    bool finite = true;
    for (int j = 0; j < 32; ++j) finite = finite && std::isfinite(v[j]);
    uint8_t blk[34];
    if (!finite) {
      da[b] = std::numeric_limits<double>::quiet_NaN();
      std::memset(qa + 32 * b, 0, 32);
      continue;
    }
    QuantizeRowReference(VLAK_Q8_0, 32, v, blk);
    da[b] = Half64(blk);
    std::memcpy(qa + 32 * b, blk + 2, 32);
  }
}

void MatmulQReferenceF64(const QMatmulArgs& g, bool quantize_a, double* c64, double* abs64, double* err64,
                         double* s64) {
  const size_t k = g.k;
  // A as doubles (quantized: ã), once; then row by row of W: its values and |q d| + |m|.
  std::vector<double> x(g.m * k), dx(quantize_a ? g.m * k : 0), w(k), sw(k), da(k / 32 + 1);
  std::vector<int8_t> qa(k);
  for (size_t i = 0; i < g.m; ++i) {
    const float* ar = g.a + i * g.lda;
    if (quantize_a) {
      QuantizeActRowReference(k, ar, da.data(), qa.data());
      for (size_t p = 0; p < k; ++p) {
        x[i * k + p] = qa[p] * da[p / 32];
        dx[i * k + p] = std::fabs(static_cast<double>(ar[p]) - x[i * k + p]);
      }
    } else {
      for (size_t p = 0; p < k; ++p) x[i * k + p] = ar[p];
    }
  }
  const size_t bb = QBlockBytes(g.wtype);
  for (size_t j = 0; j < g.n; ++j) {
    const uint8_t* wr = g.w + j * g.w_stride;
    DequantizeRowReference(g.wtype, k, wr, w.data());
    for (size_t p = 0; p < k; ++p) {
      const uint8_t* blk = wr + p / 32 * bb;
      const double d = Half64(blk);
      double qd, mm = 0;
      if (g.wtype == VLAK_Q8_0) {
        qd = static_cast<int8_t>(blk[2 + p % 32]) * d;
      } else {
        const uint8_t byte = blk[(g.wtype == VLAK_Q4_0 ? 2 : 4) + (p % 32 & 15)];
        const int nib = p % 32 < 16 ? (byte & 15) : (byte >> 4);
        qd = (g.wtype == VLAK_Q4_0 ? nib - 8 : nib) * d;
        if (g.wtype == VLAK_Q4_1) mm = Half64(blk + 2);
      }
      sw[p] = std::fabs(qd) + std::fabs(mm);
    }
    for (size_t i = 0; i < g.m; ++i) {
      const double* xi = &x[i * k];
      // Two-sum compensated sum of the exact double products.
      double s = 0, comp = 0, sa = 0, se = 0, ss = 0;
      for (size_t p = 0; p < k; ++p) {
        const double prod = xi[p] * w[p];
        const double t = s + prod;
        comp += std::fabs(s) >= std::fabs(prod) ? (s - t) + prod : (prod - t) + s;
        s = t;
        sa += std::fabs(prod);
        if (quantize_a) {
          se += std::fabs(w[p]) * dx[i * k + p];
          ss += sw[p] * std::fabs(xi[p]);
        }
      }
      if (c64 != nullptr) c64[i * g.n + j] = s + comp;
      if (abs64 != nullptr) abs64[i * g.n + j] = sa;
      if (err64 != nullptr) err64[i * g.n + j] = se;
      if (s64 != nullptr) s64[i * g.n + j] = ss;
    }
  }
}

}  // namespace vlak
