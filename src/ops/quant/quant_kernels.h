// Quantized-weight kernels (quant_kernel.cc, compiled once per target): their signatures, declared
// once (dispatch/kernel_list.h). quant.cc builds its dispatch tables from this list.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_list.h"
#include "ops/quant/quant.h"

// Activation rows for VLAK_MATMUL_Q_QUANTIZE_A: QActBytes(k) bytes per row of A, at act + i * that:
// k / 32 floats d, k / 32 int32 sums, then k int8 values.
namespace vlak {
inline constexpr size_t QActBytes(size_t k) { return k / kQBlock * (4 + 4 + kQBlock); }
inline QActRow QActRowAt(uint8_t* act, size_t k, size_t i) {
  uint8_t* const p = act + i * QActBytes(k);
  const size_t nb = k / kQBlock;
  return QActRow{reinterpret_cast<float*>(p), reinterpret_cast<int32_t*>(p + 4 * nb),
                 reinterpret_cast<int8_t*>(p + 8 * nb)};
}
}  // namespace vlak

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_QUANT_KERNELS(X)                                                                                        \
  X(kQuantizeRows, void, QuantizeRowsF32,                                                                            \
    (int t, size_t rows, size_t k, const float* x, size_t x_stride, uint8_t* q, size_t q_stride))                    \
  X(kDequantizeRows, void, DequantizeRowsF32,                                                                        \
    (int t, size_t rows, size_t k, const uint8_t* q, size_t q_stride, float* y, size_t y_stride))                    \
  X(kQuantizeActRows, void, QuantizeActRowsF32, (size_t rows, size_t k, const float* a, size_t lda, uint8_t* act))  \
  X(kMatmulQExactCols, void, MatmulQExactColsF32, (const QMatmulArgs& g, size_t j0, size_t j1))                     \
  X(kMatmulQActCols, void, MatmulQActColsF32, (const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1))      \
  X(kMatmulQActGroupedCols, void, MatmulQActGroupedColsF32,                                                          \
    (const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1))
