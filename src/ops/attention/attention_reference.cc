// Float64 attention reference: the oracle for tests, the fuzz target and the lab. Row by row, the
// textbook way (all logits of the row, their max, exp, sum, weighted sum of V), nothing shared with
// the kernel but the mask rule (AttentionKeys, attention.h). Products of floats are exact in double
// and the sums carry ~kv_len * 2^-53 relative error: some 2^-29 of the kernel's bound.
#include <cmath>
#include <limits>
#include <vector>

#include "ops/attention/attention.h"

namespace vlak {

void AttentionReferenceF64(const vlak_attention_params& p, const float* q, const float* k, const float* v, double* o64,
                           double* lse64, double* mag, double* pabs) {
  const double scale = p.scale != 0.0f ? static_cast<double>(p.scale) : 1.0 / std::sqrt(static_cast<double>(p.head_dim));
  const size_t group = p.q_heads / p.kv_heads;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> s(p.kv_len);
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.q_heads; ++h) {
      const size_t kvh = h / group;
      for (size_t i = 0; i < p.q_len; ++i) {
        const size_t row = (b * p.q_heads + h) * p.q_len + i;
        const float* qi = q + b * p.q_strides[0] + h * p.q_strides[1] + i * p.q_strides[2];
        const AttentionRange keys = AttentionKeys(p, b, i);
        double m = -kInf, big = 0;
        bool nan = false;
        for (size_t j = keys.lo; j < keys.hi; ++j) {
          const float* kj = k + b * p.k_strides[0] + kvh * p.k_strides[1] + j * p.k_strides[2];
          double dot = 0, dabs = 0;
          for (size_t t = 0; t < p.head_dim; ++t) {
            dot += static_cast<double>(qi[t]) * kj[t];
            dabs += std::fabs(static_cast<double>(qi[t]) * kj[t]);
          }
          s[j] = scale * dot;
          double babs = 0;
          if (p.bias != nullptr) {
            const double bj = p.bias[b * p.bias_strides[0] + h * p.bias_strides[1] + i * p.bias_strides[2] + j];
            s[j] += bj;
            if (bj != -kInf) babs = std::fabs(bj);
          }
          big = std::fmax(big, std::fabs(scale) * dabs + babs);
          if (std::isnan(s[j])) nan = true;
          if (s[j] > m) m = s[j];
        }
        if (mag != nullptr) mag[row] = big;
        double* const out = o64 + row * p.value_dim;
        double* const pa = pabs != nullptr ? pabs + row * p.value_dim : nullptr;
        for (size_t c = 0; c < p.value_dim; ++c) {
          out[c] = 0;
          if (pa != nullptr) pa[c] = 0;
        }
        if (m == -kInf && !nan) {  // no key, or every logit -inf
          if (lse64 != nullptr) lse64[row] = -kInf;
          continue;
        }
        double l = 0;
        for (size_t j = keys.lo; j < keys.hi; ++j) l += std::exp(s[j] - m);  // NaN if any is NaN or m is +inf
        for (size_t j = keys.lo; j < keys.hi; ++j) {
          const double pj = std::exp(s[j] - m) / l;
          const float* vj = v + b * p.v_strides[0] + kvh * p.v_strides[1] + j * p.v_strides[2];
          for (size_t c = 0; c < p.value_dim; ++c) {
            out[c] += pj * vj[c];
            if (pa != nullptr) pa[c] += std::fabs(pj * vj[c]);
          }
        }
        if (lse64 != nullptr) lse64[row] = m + std::log(l);
      }
    }
  }
}

}  // namespace vlak
