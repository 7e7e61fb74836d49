// vlak_matmul_q_packed_size, vlak_matmul_q_pack, vlak_matmul_q_packed_f32: quantized weights
// repacked once for the active target (vlak.h states the layouts and the contract).
//
// The grouped layouts put a group of rows' pieces side by side, so that one vector instruction
// multiplies a piece of every row in the group by the same values of A, and each lane sums one
// row's whole block: the block's scales then apply once per group, not per row. x16 (AVX-512 VNNI,
// quant_packed_avx512vnni.cc: 16 rows' 4-byte pieces, one vpdpbusd per piece; AVX2, quant_x86.h:
// the same bytes as two ymm of 8 rows, vpmaddubsw per piece). RVV (quant_rvv.h):
// VLMAX(e8, m1) rows' single bytes, one vwmaccsu.vx per byte. The other targets keep the rows as
// they are, so their products are vlak_matmul_q_f32's.
#include <cstdint>
#include <cstring>

#include "dispatch/dispatch.h"
#include "ops/matmul/matmul.h"
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
enum : uint32_t { kLayoutRows = 0, kLayoutX16 = 1, kLayoutRvv = 2 };

// The layout a target packs, its group of rows and its piece (bytes).
struct Layout {
  uint32_t id;
  size_t group, piece;
};
Layout LayoutFor(Target t) {
  if ((t == Target::kAvx512 && QuantVnniEnabled()) || t == Target::kAvx2) return {kLayoutX16, kQGroup, 4};
  if (t == Target::kRvv) return {kLayoutRvv, vlak_target_lanes(VLAK_TARGET_RVV, 0, 1), 1};
  return {kLayoutRows, 0, 0};
}
// The layout a pack writes for the active target (read once by the caller), or the rows layout
// when that target cannot run (its error is returned after the size checks).
Layout PackLayout(vlak_status target_error, Target t) {
  return target_error == VLAK_OK ? LayoutFor(t) : Layout{kLayoutRows, 0, 0};
}

// Bytes of the quantized values' header part in a block: d (and m for q4_1).
constexpr size_t QHeadBytes(int t) { return t == VLAK_Q4_1 ? 4 : 2; }

}  // namespace

void PackGroups(int t, size_t n, size_t k, const uint8_t* w, size_t stride, size_t group, size_t piece, uint8_t* dst) {
  const size_t bb = QBlockBytes(t), nb = k / kQBlock, head = QHeadBytes(t), pieces = (bb - head) / piece;
  const size_t groups = (n + group - 1) / group;
  for (size_t g = 0; g < groups; ++g) {
    for (size_t b = 0; b < nb; ++b) {
      uint8_t* rec = dst + (g * nb + b) * group * bb;
      for (size_t l = 0; l < group; ++l) {
        const size_t row = g * group + l;
        uint8_t blk[34] = {};
        if (row < n) std::memcpy(blk, w + row * stride + b * bb, bb);
        std::memcpy(rec + 2 * l, blk, 2);                                      // d
        if (t == VLAK_Q4_1) std::memcpy(rec + 2 * group + 2 * l, blk + 2, 2);  // m
        for (size_t p = 0; p < pieces; ++p) {
          std::memcpy(rec + head * group + (p * group + l) * piece, blk + head + piece * p, piece);
        }
      }
    }
  }
}

void UnpackGroupRow(int t, size_t k, const uint8_t* src, size_t row, size_t group, size_t piece, uint8_t* dst) {
  const size_t bb = QBlockBytes(t), nb = k / kQBlock, g = row / group;
  for (size_t b = 0; b < nb; ++b) UnpackGroupBlock(t, src + (g * nb + b) * group * bb, row % group, group, piece, dst + b * bb);
}

}  // namespace vlak

namespace vlak {
namespace {

// Bytes of W packed in layout `lay`: the header, then n rows rounded up to its group (none for
// the rows layout); 0 when wtype or k is invalid or the size overflows.
size_t PackedSizeFor(const Layout& lay, vlak_qtype wtype, size_t n, size_t k) {
  const size_t rb = vlak_qtype_row_bytes(wtype, k);
  if (QBlockBytes(wtype) == 0 || k % kQBlock != 0 || (rb == 0 && k != 0)) return 0;
  const size_t round = lay.group > 0 ? lay.group : 1;
  if (n > SIZE_MAX - round) return 0;
  const size_t rows = (n + round - 1) / round * round;
  if (rb != 0 && rows > (SIZE_MAX - kQPackedHeaderBytes) / rb) return 0;
  return kQPackedHeaderBytes + rows * rb;
}

}  // namespace
}  // namespace vlak

extern "C" size_t vlak_matmul_q_packed_size(vlak_qtype wtype, size_t n, size_t k) {
  using namespace vlak;
  return PackedSizeFor(PackLayout(TargetError(), ActiveTarget()), wtype, n, k);
}

extern "C" vlak_status vlak_matmul_q_pack(vlak_qtype wtype, size_t n, size_t k, const void* w, size_t w_stride_bytes,
                                          void* packed, size_t packed_bytes) {
  using namespace vlak;
  if (QBlockBytes(wtype) == 0 || k % kQBlock != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  // The target and its layout read once: the size checked, the bytes written and the header agree
  // even when another thread changes the active target (or the VNNI setting) meanwhile.
  const vlak_status target_error = TargetError();
  const Target target = ActiveTarget();
  const Layout lay = PackLayout(target_error, target);
  const size_t size = PackedSizeFor(lay, wtype, n, k);
  if (size == 0) return VLAK_ERROR_OVERFLOW;
  if (packed == nullptr || (n != 0 && k != 0 && w == nullptr)) return VLAK_ERROR_NULL_POINTER;
  const size_t rb = vlak_qtype_row_bytes(wtype, k);
  if (n > 1 && k != 0) {
    if (w_stride_bytes < rb) return VLAK_ERROR_INVALID_ARGUMENT;
    if (n - 1 > (SIZE_MAX - rb) / w_stride_bytes) return VLAK_ERROR_OVERFLOW;
  }
  if (packed_bytes < size) return VLAK_ERROR_INVALID_ARGUMENT;
  if (target_error != VLAK_OK) return target_error;
  QPackedHeader h{kQPackedMagic, static_cast<uint32_t>(target), lay.id, static_cast<uint32_t>(wtype),
                  static_cast<uint32_t>(lay.group), n, k};
  uint8_t* const out = static_cast<uint8_t*>(packed);
  std::memset(out, 0, kQPackedHeaderBytes);
  std::memcpy(out, &h, sizeof h);
  if (n == 0 || k == 0) return VLAK_OK;
  uint8_t* const data = out + kQPackedHeaderBytes;
  const auto* const src = static_cast<const uint8_t*>(w);
  if (lay.group > 0) {
    PackGroups(wtype, n, k, src, w_stride_bytes, lay.group, lay.piece, data);
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
  const Layout lay = LayoutFor(target);
  if (h.magic != kQPackedMagic || h.target != static_cast<uint32_t>(target) || h.layout != lay.id ||
      QBlockBytes(static_cast<int>(h.wtype)) == 0 || h.group != lay.group || h.n != n || h.k != k) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  const auto wtype = static_cast<vlak_qtype>(h.wtype);
  QMatmulArgs g{m, n, k, a, lda, static_cast<int>(wtype), static_cast<const uint8_t*>(packed) + kQPackedHeaderBytes,
                vlak_qtype_row_bytes(wtype, k), c, ldc};
  g.group = lay.group, g.piece = lay.piece;
  if (const vlak_status s = SetEpilogue(epilogue, &g); s != VLAK_OK) return s;
  return MatmulQF32(g, flags, 0, static_cast<int>(target));
}
