// Differential fuzz target of vlak_rope_f32 (see fuzz_util.h): the same bits on every target, and
// each output within vlak.h's bound of the float64 rotation.
#include <algorithm>

#include "fuzz/fuzz_util.h"
#include "ops/rope/rope.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const size_t positions = in.Size(9);
  const size_t rows_per_position = in.Size(5);
  const size_t head_dim = in.Size(300);
  const uint8_t sb = in.Byte();
  size_t table_stride = head_dim / 2 + (sb & 7);
  if (sb >= 240) table_stride = head_dim / 2 > 0 ? head_dim / 2 - 1 : 0;                  // too small if d > 1
  if (sb == 239) table_stride = positions > 1 ? SIZE_MAX / 4 / (positions - 1) + 1 : SIZE_MAX;  // overflow
  const uint8_t fb = in.Byte();
  const unsigned flags = fb < 250 ? (fb & 1) : 0x2u << (fb & 7);
  const bool in_place = in.Byte() < 64;
  const uint8_t nulls = in.Byte();

  const bool empty = positions == 0 || rows_per_position == 0 || head_dim == 0;
  const bool arg_error = (flags & ~1u) != 0 || head_dim % 2 != 0;
  const size_t half = head_dim / 2;
  const bool table_overflow = ExtentOverflows(positions, std::max<size_t>(half, 1), table_stride);
  const bool expect_error = arg_error || (!empty && (nulls >= 1 && nulls <= 4)) ||
                            (!empty && (table_stride < half || table_overflow));
  const size_t elems = static_cast<size_t>(std::min<unsigned __int128>(
      static_cast<unsigned __int128>(positions) * rows_per_position * head_dim, kMaxElems + 1));
  const size_t table = table_overflow || table_stride < half ? 0 : Extent(positions, half, table_stride);
  if (elems > kMaxElems || table > kMaxElems) return 0;

  Buffer x(elems), cs(table), sn(table);
  FillFloats(in, x.data(), x.size());
  FillFloats(in, cs.data(), cs.size());
  FillFloats(in, sn.data(), sn.size());
  const std::vector<float> x0 = x.Copy();
  Describe("vlak_rope_f32(positions %zu, rows_per_position %zu, head_dim %zu, table_stride %zu, flags 0x%x)%s",
           positions, rows_per_position, head_dim, table_stride, flags, in_place ? " in place" : "");
  std::vector<float> first;
  std::vector<double> ref(head_dim);
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    TargetOutput out(in_place, x, x0, elems);
    const vlak_status st = vlak_rope_f32(positions, rows_per_position, head_dim,
                                         nulls == 1 ? nullptr : (in_place ? out.y.data() : x.data()),
                                         nulls == 2 ? nullptr : cs.data(), nulls == 3 ? nullptr : sn.data(),
                                         table_stride, nulls == 4 ? nullptr : out.y.data(), flags);
    if (!HasResults(st, expect_error, empty, t, out.y, out.before)) continue;
    for (size_t p = 0; p < positions; ++p) {
      const float* c = cs.data() + p * table_stride;
      const float* s = sn.data() + p * table_stride;
      for (size_t r = 0; r < rows_per_position; ++r) {
        const size_t o = (p * rows_per_position + r) * head_dim;
        vlak::RopeReferenceF64(x0.data() + o, c, s, head_dim, flags, ref.data());
        for (size_t i = 0; i < head_dim; ++i) {
          // The pair partner of i and the table index, for the bound's two products.
          const size_t j = flags ? (i ^ 1) : (i < half ? i + half : i - half);
          const size_t ti = flags ? i / 2 : i % half;
          const double scale = std::fabs(static_cast<double>(x0[o + i]) * c[ti]) +
                               std::fabs(static_cast<double>(x0[o + j]) * s[ti]);
          // vlak.h: 2^-23 of the two products' magnitudes, when the products and their sum are floats
          // (an overflowing product is inf, as IEEE arithmetic gives) and not subnormal (where
          // each of the two roundings is at most 2^-150 absolute).
          if (!(scale <= std::numeric_limits<float>::max())) continue;
          const double bound = 0x1.0p-23 * scale;
          Check(Within(out.y[o + i], ref[i], bound, 2), "rope outside vlak.h's bound", t, o + i, out.y[o + i], ref[i]);
        }
      }
    }
    CheckSameAsFirst(first, out.y, t);
  }
  return 0;
}
