// Correlation kernel, generic over the tag: compiled once per target.
//
// out[d][i][j] = sat8((sum_k a[k][i][j] * b[k][i][j - d]) >> shift) for j >= d, 0 for j < d.
// One output row (d, i) at a time, vectorised along j: a strip of outputs keeps its sums in
// registers for the whole k loop, so each input byte is read once per displacement (from L1: the
// k x width slices of row i of a and b are a few KiB) and each output written once.
// Per channel k and strip: two byte loads (a at j, b at j - d) and
//   default: WidenMul (int8 x int8 -> int16, exact: |a b| <= 2^14) + WidenAdd into int32 sums;
//   WRAP16:  WidenMulAdd into int16 sums (Terapines AI-Benchmark's arithmetic, modulo 2^16);
// on RVV vwmul.vv + vwadd.wv, or one vwmacc.vv. After the k loop: an arithmetic shift, then
// saturation to int8 (DemoteTo) or truncation (WRAP16: TruncateTo). Integer sums are exact (or
// wrap identically), so every target gives the same bytes.
// LMUL: bytes at LMUL 2 (kCorrPow2), int16 products at 4, int32 sums at 8: 16 of the 32 RVV
// registers live, no spill. Instruction counts: docs/ops/correlation.md.
#include <algorithm>
#include <cstdint>

#include "ops/correlation/correlation_kernels.h"
#include "simd/simd.h"
#include "vlak/vlak.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kCorrPow2 = 1;

// Outputs [j0, j0 + n) of row (d, i): a_row = &a[0][i][0] + j0, b_row = &b[0][i][0] + j0 - d.
// Out of line: inlined into the row loop, clang hoists its splats across the std::fill call
// (which clobbers vector registers) and spills them.
[[gnu::noinline]] void RowSums(const int8_t* a_row, const int8_t* b_row, size_t n, size_t channels, size_t plane, unsigned shift,
             int8_t* out, bool wrap16) {
  const Simd<int8_t, kCorrPow2> d8;
  if (wrap16) {
    // Shifts of an int16 sum by 15 or more all give its sign: the same as shift 15.
    const int16_t s = static_cast<int16_t>(std::min(shift, 15u));
    ForEachStrip(d8, n, [&](auto ds, size_t j) {
      const auto d16 = Rebind<int16_t>(ds);
      auto acc = Zero(d16);
      const int8_t* pa = a_row + j;
      const int8_t* pb = b_row + j;
      for (size_t k = 0; k < channels; ++k, pa += plane, pb += plane) {
        acc = WidenMulAdd(d16, ds, LoadU(ds, pa), LoadU(ds, pb), acc);
      }
      StoreU(ds, TruncateTo(ds, d16, Shr(d16, acc, Set(d16, s))), out + j);
    });
  } else {
    const int32_t s = static_cast<int32_t>(shift);
    ForEachStrip(d8, n, [&](auto ds, size_t j) {
      const auto d16 = Rebind<int16_t>(ds);
      const auto d32 = Rebind<int32_t>(ds);
      auto acc = Zero(d32);
      const int8_t* pa = a_row + j;
      const int8_t* pb = b_row + j;
      for (size_t k = 0; k < channels; ++k, pa += plane, pb += plane) {
        acc = WidenAdd(d32, d16, acc, WidenMul(d16, ds, LoadU(ds, pa), LoadU(ds, pb)));
      }
      StoreU(ds, DemoteTo(ds, d32, Shr(d32, acc, Set(d32, s))), out + j);
    });
  }
}

}  // namespace

// Output rows [begin, end) of the flattened [displacements][height] rows.
void CorrelationRowsI8(size_t begin, size_t end, size_t channels, size_t height, size_t width, const int8_t* a,
                       const int8_t* b, unsigned shift, int8_t* out, unsigned flags) {
  const size_t plane = height * width;
  const bool wrap16 = (flags & VLAK_CORRELATION_WRAP16) != 0;
  for (size_t q = begin; q < end; ++q) {
    const size_t d = q / height, i = q % height;
    int8_t* row = out + q * width;
    const size_t zeros = std::min(d, width);
    std::fill(row, row + zeros, int8_t{0});
    if (zeros == width) continue;
    const size_t offset = i * width + d;
    RowSums(a + offset, b + offset - d, width - d, channels, plane, shift, row + d, wrap16);
  }
}

VLAK_KERNELS_DEFINED(VLAK_CORRELATION_KERNELS)

}  // namespace vlak::VLAK_NS
