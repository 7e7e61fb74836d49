/* Plain C port of TFLite's reference uint8 softmax (tensorflow/lite/kernels/internal/reference/
 * softmax.h with gemmlowp's fixed point), for the lab's compiler comparison (see peer_common.h):
 * the "TFLite reference" row of `vlak bench --op softmax-i8`. Per element, twice (sum pass and
 * output pass): the Q5.26 rescaled difference, gemmlowp's exp_on_negative_values (a 4-term
 * polynomial and a barrel shifter of 7 constants), then the Q12.19 sum, one GetReciprocal per row
 * and RoundingDivideByPOT. Output scale 1/256, zero point 0. Constants (multiplier, left shift,
 * diff_min) come from the caller, as TFLite's Prepare computes them. Where TFLite's int32 sum would
 * overflow or its final shift reach 32 this port gives 0 (vlak.h's definition), so its bits are
 * comparable with vlak's. */
#include <stdint.h>

#include "../peer_common.h"

static inline int32_t srdhm(int32_t a, int32_t b) {
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  const int32_t r = (int32_t)((ab + nudge) / ((int64_t)1 << 31));
  return (a == b && a == INT32_MIN) ? INT32_MAX : r;
}

static inline int32_t rdbp(int32_t x, int e) {
  const int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + ((x & mask) > threshold ? 1 : 0);
}

static inline int32_t sat_shl(int32_t x, int e) {
  const int32_t threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
  return x > threshold ? INT32_MAX : x < -threshold ? INT32_MIN : (int32_t)((uint32_t)x << e);
}

/* exp(a) for a <= 0 in Q5.26, result Q0.31. */
static inline int32_t exp_neg_q5_26(int32_t a) {
  const int32_t quarter = 1 << 24;
  const int32_t a_mod = (a & (quarter - 1)) - quarter;
  const int32_t x = sat_shl(a_mod, 5) + (1 << 28);
  const int32_t x2 = srdhm(x, x), x3 = srdhm(x2, x), x4 = srdhm(x2, x2);
  const int32_t poly = rdbp(srdhm(rdbp(x4, 2) + x3, 715827883) + x2, 1);
  int32_t r = 1895147668 + srdhm(1895147668, x + poly);
  const int32_t rem = a_mod - a;
  if (rem & (1 << 24)) r = srdhm(r, 1672461947);
  if (rem & (1 << 25)) r = srdhm(r, 1302514674);
  if (rem & (1 << 26)) r = srdhm(r, 790015084);
  if (rem & (1 << 27)) r = srdhm(r, 290630308);
  if (rem & (1 << 28)) r = srdhm(r, 39332535);
  if (rem & (1 << 29)) r = srdhm(r, 720401);
  if (rem & (1 << 30)) r = srdhm(r, 242);
  return a == 0 ? INT32_MAX : r;
}

static int32_t reciprocal_q12(int32_t x, int* num_bits_over_unit) {
  const int headroom_plus_one = __builtin_clz((uint32_t)x);
  *num_bits_over_unit = 12 - headroom_plus_one;
  const int32_t a = (int32_t)(((uint32_t)x << headroom_plus_one) - (1u << 31));
  const int64_t s = (int64_t)a + INT32_MAX;
  const int32_t half_den = (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
  int32_t z = 1515870810 + srdhm(half_den, -1010580540);
  for (int i = 0; i < 3; ++i) z = z + sat_shl(srdhm(z, (1 << 29) - srdhm(half_den, z)), 2);
  return sat_shl(z, 1);
}

void VLAK_REF(softmax_u8)(const uint8_t* x, uint8_t* y, size_t rows, size_t cols, int32_t multiplier, int left_shift,
                          int diff_min) {
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* xr = x + r * cols;
    uint8_t* yr = y + r * cols;
    int32_t mx = 0;
    for (size_t c = 0; c < cols; ++c) mx = xr[c] > mx ? xr[c] : mx;
    int64_t sum = 0;
    for (size_t c = 0; c < cols; ++c) {
      const int32_t diff = (int32_t)xr[c] - mx;
      if (diff >= diff_min) sum += rdbp(exp_neg_q5_26(srdhm((int32_t)((int64_t)diff * ((int64_t)1 << left_shift)), multiplier)), 12);
    }
    int bits = 99;
    const int32_t scale = sum < ((int64_t)1 << 31) ? reciprocal_q12((int32_t)sum, &bits) : 0;
    const int e = bits + 31 - 8;
    for (size_t c = 0; c < cols; ++c) {
      const int32_t diff = (int32_t)xr[c] - mx;
      int32_t v = 0;
      if (diff >= diff_min && e <= 31) {
        v = rdbp(srdhm(scale, exp_neg_q5_26(srdhm((int32_t)((int64_t)diff * ((int64_t)1 << left_shift)), multiplier))), e);
      }
      yr[c] = (uint8_t)(v > 255 ? 255 : v);
    }
  }
}
