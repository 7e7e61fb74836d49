// Quantized weights (GGUF's q8_0, q4_0, q4_1 blocks): internals shared by the API (quant.cc), the
// per-target kernels (quant_kernel.cc, quant_avx512vnni.cc), the reference, tests and the lab.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vlak/vlak.h"

namespace vlak {

inline constexpr size_t kQBlock = 32;  // values per block

// Bytes per block; 0 for an unknown type.
constexpr size_t QBlockBytes(int t) {
  return t == VLAK_Q8_0 ? 34 : t == VLAK_Q4_0 ? 18 : t == VLAK_Q4_1 ? 20 : 0;
}

// IEEE binary16 <-> binary32. HalfToFloat is exact; FloatToHalf rounds to nearest even, overflows to
// inf, keeps the sign of zero, and gives a quiet NaN for NaN.
inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7FFFu;
  uint32_t bits;
  if (em >= 0x0400u) [[likely]] {                         // normal, inf or NaN: rebias the exponent
    bits = (em << 13) + 0x38000000u;                      // (e - 15 + 127) << 23
    if (em >= 0x7C00u) bits += 0x38000000u;               // inf / NaN: exponent 255, payload kept
  } else {                                                // zero or subnormal: man * 2^-24, exact
    const float f = static_cast<float>(em) * 0x1p-24f;
    std::memcpy(&bits, &f, 4);
  }
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7FFFFFFFu;
  if (x > 0x7F800000u) return sign | 0x7E00u;         // NaN
  if (x >= 0x477FF000u) return sign | 0x7C00u;        // >= 65520: rounds to inf (or is inf)
  if (x >= 0x38800000u) {                             // normal half (>= 2^-14)
    const uint32_t r = x + 0xFFFu + ((x >> 13) & 1u);  // round to nearest even at bit 13
    return sign | static_cast<uint16_t>((r - 0x38000000u) >> 13);
  }
  if (x < 0x33000000u) return sign;                   // < 2^-25: rounds to 0 (2^-25 ties to even 0)
  // Subnormal half: value / 2^-24 rounded to nearest even.
  const uint32_t e = x >> 23, man = (x & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - e;  // value = man * 2^(e - 150); in units of 2^-24: man >> (126 - e)
  const uint32_t q = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
  const uint32_t rq = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
  return sign | static_cast<uint16_t>(rq);
}

inline uint16_t LoadHalf(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline void StoreHalf(uint8_t* p, uint16_t h) {
  p[0] = static_cast<uint8_t>(h);
  p[1] = static_cast<uint8_t>(h >> 8);
}

// ggml's (int8_t)(v) as x86 builds compute it: truncation to int32 (cvttss2si: 0x80000000 for NaN
// and out of range), then the low byte.
inline int32_t TruncToI8Bits(float v) {
  int32_t i = (v > -2147483648.0f && v < 2147483648.0f) ? static_cast<int32_t>(v) : INT32_MIN;
  return static_cast<int8_t>(static_cast<uint8_t>(i & 0xFF));
}

// One row of activations quantized per block of 32 for VLAK_MATMUL_Q_QUANTIZE_A: d[b] the block's
// fp16 scale as a float (NaN for a block with a NaN or inf), qs the int8 values (32 per block), sum[b]
// their exact sum. k / 32 blocks.
struct QActRow {
  float* d;
  int32_t* sum;
  int8_t* qs;
};

// One call of vlak_matmul_q_f32 after the checks.
struct QMatmulArgs {
  size_t m, n, k;
  const float* a;
  size_t lda;
  int wtype;
  const uint8_t* w;
  size_t w_stride;  // bytes
  float* c;
  size_t ldc;
  // The epilogue (vlak_matmul_ex_f32's): c = act(c + bias[j]) once c is complete. bias NULL: none;
  // act: an activation kernel op code (ops/activation/activation_kernels.h) or kActNone (-1).
  const float* bias = nullptr;
  int act = -1;
  // group > 0: w is in one of vlak_matmul_q_pack's grouped layouts (quant_packed.cc): groups of
  // `group` rows, `piece`-byte pieces side by side; w_stride is then the row's bytes.
  size_t group = 0, piece = 0;
  bool HasEpilogue() const { return bias != nullptr || act != -1; }
};

// vlak_matmul_q_pack's grouped layouts (vlak.h): groups of `group` rows of W; per group and block
// one record of group * QBlockBytes(t) bytes: the rows' fp16 d, (q4_1) their fp16 m, then the
// quantized bytes in `piece`-byte pieces, piece p of every row side by side. x16 (AVX-512 VNNI):
// group 16, piece 4; RVV: group = VLMAX of e8 at LMUL 1, piece 1.
inline constexpr size_t kQGroup = 16;  // x16's group
// Writes the grouped layout of n rows (row stride `stride` bytes); rows past n in the last group are 0.
void PackGroups(int t, size_t n, size_t k, const uint8_t* w, size_t stride, size_t group, size_t piece, uint8_t* dst);
// Row `row` of a grouped buffer back in GGUF's row layout (vlak_qtype_row_bytes(t, k) bytes at dst).
void UnpackGroupRow(int t, size_t k, const uint8_t* src, size_t row, size_t group, size_t piece, uint8_t* dst);
// Row l's block (QBlockBytes(t) bytes at blk) from its group's record `rec` of one block.
inline void UnpackGroupBlock(int t, const uint8_t* rec, size_t l, size_t group, size_t piece, uint8_t* blk) {
  const size_t head = t == VLAK_Q4_1 ? 4 : 2, pieces = (QBlockBytes(t) - head) / piece;
  std::memcpy(blk, rec + 2 * l, 2);
  if (t == VLAK_Q4_1) std::memcpy(blk + 2, rec + 2 * group + 2 * l, 2);
  const uint8_t* const src = rec + head * group + l * piece;
  // The layouts' piece sizes as constants: a copy of a run-time size is a call per piece.
  if (piece == 4) {
    for (size_t p = 0; p < pieces; ++p) std::memcpy(blk + head + 4 * p, src + 4 * p * group, 4);
  } else if (piece == 1) {
    for (size_t p = 0; p < pieces; ++p) blk[head + p] = src[p * group];
  } else {
    for (size_t p = 0; p < pieces; ++p) std::memcpy(blk + head + piece * p, src + p * group * piece, piece);
  }
}

// Calls with m below this take the decode kernels (blocks dequantized in registers); from it on,
// exact weights go through panels of w and vlak_matmul_f32's kernel. Depends on nothing else, so
// the bits depend on m, n, k and the target only.
inline constexpr size_t kQPanelMinM = 16;

// The avx512 target's VNNI kernel for quantized activations (on where the CPU has AVX512_VNNI and
// VLAK_AVX512_VNNI is not "0"); the setter returns the previous setting (tests, the lab).
bool QuantVnniEnabled();
bool SetQuantVnni(bool enabled);
// Its AMX kernel for an x16 W from 16 rows of A (on where the CPU has AMX-INT8, Linux grants the
// tile state and VLAK_AVX512_AMX is not "0"): the VNNI kernel's bits. Setter as above.
bool QuantAmxEnabled();
bool SetQuantAmx(bool enabled);
// Whether its decode (m < 4) on an x16 W takes the VNNI kernel (on, except on CPUs that split
// 512-bit operations, AMD Zen 4, and where VLAK_AVX512_ZMM_DECODE is "0") or the AVX2 form of the
// same sums. Setter as above.
bool QuantZmmDecodeEnabled();
bool SetQuantZmmDecode(bool enabled);

// Tests: the product with quantized activations of a grouped W by the scalar target's plain form
// of the grouped kernels' arithmetic (quant_kernel.cc), on one thread, no epilogue.
vlak_status MatmulQGroupedPlainF32(const QMatmulArgs& g);

// Tests: rows of A quantized for the int8 kernels by the active target's kernel, or the scalar
// target's (QActBytes(k) bytes per row: quant_kernels.h).
void QuantizeActRowsForTest(bool scalar, size_t rows, size_t k, const float* a, size_t lda, uint8_t* act);

// vlak_matmul_q_f32 with the thread count forced (0: the library's choice): tests, benchmarks.
// on_target >= 0: that target's kernels (vlak_matmul_q_packed_f32's, the one its buffer was
// checked against, even if the active target changes meanwhile); else the active target.
vlak_status MatmulQF32(const QMatmulArgs& g, unsigned flags, int threads, int on_target = -1);

// The exact (integer/float64) references, written independently of the kernels.
// Quantizes one row of k floats into blocks (the bytes of ggml's quantize_row_*_ref).
void QuantizeRowReference(int t, size_t k, const float* x, uint8_t* q);
// Dequantized values of one row as doubles (exact: each is a float).
void DequantizeRowReference(int t, size_t k, const uint8_t* q, double* y);
// Activation quantization of one row (QActRow's values): ã_p = qa[p] * da[p / 32].
void QuantizeActRowReference(size_t k, const float* a, double* da, int8_t* qa);
// c64[i * n + j] = sum_p a[i][p] w[j][p] (w dequantized), abs64 = sum |a||w| (both may be null);
// with quantize_a, the same for ã, plus err64 = sum |w| |a - ã| and s64 = sum (|q d| + |m|) |ã|.
void MatmulQReferenceF64(const QMatmulArgs& g, bool quantize_a, double* c64, double* abs64, double* err64,
                         double* s64);

}  // namespace vlak
