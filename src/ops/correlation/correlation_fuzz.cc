// Differential fuzz target of vlak_correlation_i8 (see fuzz_util.h): every target must give the
// bytes of the oracle below, written from vlak.h's integer definition (both arithmetic modes);
// the avx2 target runs twice, with its vpmaddwd kernel and its generic one, and so does the avx512
// target on a CPU with AVX512_VNNI (its VNNI kernel and its generic one).
#include <algorithm>

#include "fuzz/fuzz_util.h"
#include "ops/correlation/correlation.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  size_t d = in.Size(12), c = in.Size(70), h = in.Size(6), w = in.Size(400);
  const uint8_t sb = in.Byte();
  const unsigned shift = sb < 240 ? sb % 32 : 32 + (sb & 15);  // > 31: invalid
  const uint8_t fb = in.Byte();
  const unsigned flags = fb < 250 ? (fb & 1) : 0x2u << (fb & 7);
  const uint8_t huge = in.Byte();
  // channels * height * width overflows just past SIZE_MAX (a 1x1 plane cannot overflow).
  const bool too_big = huge == 0xEE && h * w > 1 && d > 0;
  if (too_big) c = SIZE_MAX / (h * w) + 1;
  const uint8_t nulls = in.Byte();
  const bool empty = d == 0 || h == 0 || w == 0;  // channels == 0 is defined: zeros
  const bool a_needed = c > 0;
  const bool expect_error = shift > 31 || (flags & ~1u) != 0 ||
                            (!empty && (too_big || nulls == 3 || (a_needed && (nulls == 1 || nulls == 2))));
  const size_t ne = too_big ? 1 : c * h * w, oe = d * h * w;
  std::vector<int8_t> a(ne), b(ne);
  {
    const uint8_t dist = in.Byte();
    Rng rng(in.Bits(4) + 1);
    for (size_t i = 0; i < ne; ++i) {
      const uint64_t r = rng.Next();
      a[i] = static_cast<int8_t>(dist < 128 ? r : (r & 1) ? 127 : -128);
      b[i] = static_cast<int8_t>(dist < 128 ? r >> 8 : dist < 192 ? ((r & 2) ? 127 : -128) : -128);
    }
  }
  Describe("vlak_correlation_i8(displacements %zu, channels %zu, height %zu, width %zu, shift %u, flags 0x%x) threads %d",
           d, c, h, w, shift, flags, vlak_get_num_threads());
  std::vector<int8_t> want;
  if (!expect_error && !empty) {
    want.assign(oe, 0);
    for (size_t k = 0; k < d; ++k) {
      for (size_t i = 0; i < h; ++i) {
        for (size_t j = k; j < w; ++j) {
          int64_t sum = 0;
          for (size_t ch = 0; ch < c; ++ch) sum += a[(ch * h + i) * w + j] * b[(ch * h + i) * w + j - k];
          int8_t v;
          if (flags & VLAK_CORRELATION_WRAP16) {
            v = static_cast<int8_t>(static_cast<int16_t>(static_cast<uint16_t>(sum)) >> shift);
          } else {
            const int32_t s32 = static_cast<int32_t>(static_cast<uint32_t>(sum));  // exact below 131072 channels
            v = static_cast<int8_t>(std::clamp<int32_t>(s32 >> shift, -128, 127));
          }
          want[(k * h + i) * w + j] = v;
        }
      }
    }
  }
  const bool vnni = vlak::CorrelationVnniEnabled();
  const bool madd = vlak::CorrelationAvx2MaddEnabled();
  auto run = [&](vlak_target t) {
    std::vector<int8_t> out(oe, 0x5A);
    const vlak_status st = vlak_correlation_i8(d, c, h, w, nulls == 1 ? nullptr : a.data(), nulls == 2 ? nullptr : b.data(),
                                               shift, nulls == 3 ? nullptr : out.data(), flags);
    CheckStatus(st, expect_error, t);
    for (size_t i = 0; i < oe; ++i) {
      const int8_t expect = want.empty() ? 0x5A : want[i];
      Check(out[i] == expect, want.empty() ? "written on error or empty call" : "bytes differ from vlak.h's definition", t,
            i, out[i], expect);
    }
  };
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    run(t);
    if (t == VLAK_TARGET_AVX512 && vnni) {  // the generic avx512 kernel too
      vlak::SetCorrelationVnni(false);
      run(t);
      vlak::SetCorrelationVnni(true);
    }
    if (t == VLAK_TARGET_AVX2 && madd) {  // the generic avx2 kernel too
      vlak::SetCorrelationAvx2Madd(false);
      run(t);
      vlak::SetCorrelationAvx2Madd(true);
    }
  }
  return 0;
}
