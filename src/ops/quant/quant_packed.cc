// vlak_matmul_q_packed_size, vlak_matmul_q_pack, vlak_matmul_q_packed_f32: quantized weights
// repacked once for the active target (vlak.h states the layouts and the contract).
//
// The x16 layout exists for the AVX-512 VNNI decode kernel (quant_packed_avx512vnni.cc): with 16
// rows' 4-byte pieces side by side, one vpdpbusd multiplies 4 values of 16 rows by the same 4 values
// of A, so each int32 lane sums one row's whole block and the block's scales apply once per 16 rows.
// Every other target keeps the rows as they are, so their products are vlak_matmul_q_f32's.
#include <cstdint>
#include <cstring>

#include "dispatch/dispatch.h"
#include "ops/quant/quant.h"

namespace vlak {
namespace {

// The 64 bytes before the weights (memcpy in and out: the buffer has any alignment).
struct QPackedHeader {
  uint64_t magic;
  uint32_t target, layout, wtype, group;
  uint64_t n, k;
};
constexpr uint64_t kQPackedMagic = 0x3130515041504c56ull;  // "VLPAPQ01"
constexpr size_t kQPackedHeaderBytes = 64;
static_assert(sizeof(QPackedHeader) <= kQPackedHeaderBytes, "header fits");
enum : uint32_t { kLayoutRows = 0, kLayoutX16 = 1 };

uint32_t LayoutFor(Target t) { return t == Target::kAvx512 && QuantVnniEnabled() ? kLayoutX16 : kLayoutRows; }

// Bytes of the quantized values' header part in a block: d (and m for q4_1).
constexpr size_t QHeadBytes(int t) { return t == VLAK_Q4_1 ? 4 : 2; }

}  // namespace

void PackX16(int t, size_t n, size_t k, const uint8_t* w, size_t stride, uint8_t* x16) {
  const size_t bb = QBlockBytes(t), nb = k / kQBlock, head = QHeadBytes(t), pieces = (bb - head) / 4;
  const size_t groups = (n + kQGroup - 1) / kQGroup;
  for (size_t g = 0; g < groups; ++g) {
    for (size_t b = 0; b < nb; ++b) {
      uint8_t* rec = x16 + (g * nb + b) * kQGroup * bb;
      for (size_t l = 0; l < kQGroup; ++l) {
        const size_t row = g * kQGroup + l;
        uint8_t blk[34] = {};
        if (row < n) std::memcpy(blk, w + row * stride + b * bb, bb);
        std::memcpy(rec + 2 * l, blk, 2);                                     // d
        if (t == VLAK_Q4_1) std::memcpy(rec + 2 * kQGroup + 2 * l, blk + 2, 2);  // m
        for (size_t p = 0; p < pieces; ++p) std::memcpy(rec + head * kQGroup + (p * kQGroup + l) * 4, blk + head + 4 * p, 4);
      }
    }
  }
}

void UnpackRowX16(int t, size_t k, const uint8_t* x16, size_t row, uint8_t* dst) {
  const size_t bb = QBlockBytes(t), nb = k / kQBlock, head = QHeadBytes(t), pieces = (bb - head) / 4;
  const size_t g = row / kQGroup, l = row % kQGroup;
  for (size_t b = 0; b < nb; ++b) {
    const uint8_t* rec = x16 + (g * nb + b) * kQGroup * bb;
    uint8_t* blk = dst + b * bb;
    std::memcpy(blk, rec + 2 * l, 2);
    if (t == VLAK_Q4_1) std::memcpy(blk + 2, rec + 2 * kQGroup + 2 * l, 2);
    for (size_t p = 0; p < pieces; ++p) std::memcpy(blk + head + 4 * p, rec + head * kQGroup + (p * kQGroup + l) * 4, 4);
  }
}

}  // namespace vlak

extern "C" size_t vlak_matmul_q_packed_size(vlak_qtype wtype, size_t n, size_t k) {
  using namespace vlak;
  const size_t rb = vlak_qtype_row_bytes(wtype, k);
  if (QBlockBytes(wtype) == 0 || k % kQBlock != 0 || (rb == 0 && k != 0)) return 0;
  if (n > SIZE_MAX - kQGroup) return 0;
  const size_t rows = (n + kQGroup - 1) / kQGroup * kQGroup;
  if (rb != 0 && rows > (SIZE_MAX - kQPackedHeaderBytes) / rb) return 0;
  return kQPackedHeaderBytes + rows * rb;
}

extern "C" vlak_status vlak_matmul_q_pack(vlak_qtype wtype, size_t n, size_t k, const void* w, size_t w_stride_bytes,
                                          void* packed, size_t packed_bytes) {
  using namespace vlak;
  if (QBlockBytes(wtype) == 0 || k % kQBlock != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  const size_t size = vlak_matmul_q_packed_size(wtype, n, k);
  if (size == 0) return VLAK_ERROR_OVERFLOW;
  if (packed == nullptr || (n != 0 && k != 0 && w == nullptr)) return VLAK_ERROR_NULL_POINTER;
  const size_t rb = vlak_qtype_row_bytes(wtype, k);
  if (n > 1 && k != 0) {
    if (w_stride_bytes < rb) return VLAK_ERROR_INVALID_ARGUMENT;
    if (n - 1 > (SIZE_MAX - rb) / w_stride_bytes) return VLAK_ERROR_OVERFLOW;
  }
  if (packed_bytes < size) return VLAK_ERROR_INVALID_ARGUMENT;
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  const Target target = ActiveTarget();
  QPackedHeader h{kQPackedMagic, static_cast<uint32_t>(target), LayoutFor(target), static_cast<uint32_t>(wtype),
                  static_cast<uint32_t>(kQGroup), n, k};
  uint8_t* const out = static_cast<uint8_t*>(packed);
  std::memset(out, 0, kQPackedHeaderBytes);
  std::memcpy(out, &h, sizeof h);
  if (n == 0 || k == 0) return VLAK_OK;
  uint8_t* const data = out + kQPackedHeaderBytes;
  const auto* const src = static_cast<const uint8_t*>(w);
  if (h.layout == kLayoutX16) {
    PackX16(wtype, n, k, src, w_stride_bytes, data);
  } else {
    for (size_t j = 0; j < n; ++j) std::memcpy(data + j * rb, src + j * w_stride_bytes, rb);
    std::memset(data + n * rb, 0, size - kQPackedHeaderBytes - n * rb);
  }
  return VLAK_OK;
}

extern "C" vlak_status vlak_matmul_q_packed_f32(size_t m, size_t n, size_t k, const float* a, size_t lda,
                                                const void* packed, float* c, size_t ldc, unsigned flags,
                                                const vlak_matmul_epilogue* epilogue) {
  using namespace vlak;
  if (m == 0 || n == 0) return (flags & ~VLAK_MATMUL_Q_QUANTIZE_A) != 0 ? VLAK_ERROR_INVALID_ARGUMENT : VLAK_OK;
  if (packed == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  QPackedHeader h;
  std::memcpy(&h, packed, sizeof h);
  const Target target = ActiveTarget();
  if (h.magic != kQPackedMagic || h.target != static_cast<uint32_t>(target) || h.layout != LayoutFor(target) ||
      QBlockBytes(static_cast<int>(h.wtype)) == 0 || h.group != kQGroup || h.n != n || h.k != k) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  const auto wtype = static_cast<vlak_qtype>(h.wtype);
  QMatmulArgs g{m, n, k, a, lda, static_cast<int>(wtype), static_cast<const uint8_t*>(packed) + kQPackedHeaderBytes,
                vlak_qtype_row_bytes(wtype, k), c, ldc};
  g.x16 = h.layout == kLayoutX16;
  if (const vlak_status s = SetQEpilogue(epilogue, &g); s != VLAK_OK) return s;
  return MatmulQF32(g, flags, 0);
}
